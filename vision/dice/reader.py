"""The die reader API: image in, one ``DieReading`` per die out.

Three readers behind it, one per situation:

- a whole frame (no zone): die bodies first, one face per body (``fullframe``);
- a zone of a frame (a box or a polygon): dice by their pips alone (``pippath``);
- the reveal zone, where the pyramid's one die lands (``zone``, the product path).

Every part abstains (None) below its confidence threshold, with a ``Reason`` (a code and a
sentence): the hub asks a person rather than trust a doubtful reading.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.dice.fullframe import read_full_frame
from vision.dice.pippath import read_pips
from vision.dice.reading import DiceReport, DieReading, as_bgr, zone_rect
from vision.dice.reasons import Reason, Why
from vision.dice.zone import read_die_in_zone
from vision.palette import Palette, default_palette

__all__ = ["DiceReport", "DieReading", "as_bgr", "read_dice", "read_dice_report",
           "read_die_in_zone"]


def read_dice_report(image_bgr: np.ndarray, *, palette: Palette | None = None,
                     expected_colours: Sequence[str] | None = None, zone: object = None,
                     white_gains: Sequence[float] | None = None) -> DiceReport:
    """Like ``read_dice`` but also says why nothing was read (black frame, blur, no pips)."""
    img = as_bgr(image_bgr)
    pal = (palette or default_palette()).restricted(expected_colours)
    ox = oy = 0
    poly = None
    if zone is not None:
        (ox, oy, w, h), poly = zone_rect(zone, img.shape)
        img = img[oy:oy + h, ox:ox + w]
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    if float(gray.std()) < 4.0:
        if gray.mean() < 20:
            return DiceReport([], Reason(Why.FRAME_BLACK, "frame is black"))
        return DiceReport([], Reason(Why.FRAME_UNIFORM, "frame is uniform (nothing to read)"))
    if zone is None:
        dice = sorted(read_full_frame(img, gray, pal, white_gains),
                      key=lambda r: (r.box[1], r.box[0]))
        return DiceReport(dice, None if dice else Reason(Why.NO_DIE, "no die found"))
    return read_pips(img, gray, pal, white_gains, ox, oy, poly)


def read_dice(image_bgr: np.ndarray, *, palette: Palette | None = None,
              expected_colours: Sequence[str] | None = None, zone: object = None,
              white_gains: Sequence[float] | None = None) -> list[DieReading]:
    """Every die in the frame (or in ``zone``: a box (x, y, w, h) or a polygon).

    ``expected_colours`` narrows the palette to the colours that can still appear (the hub knows
    which dice are left in the pyramid). ``white_gains`` come from
    ``vision.whitebalance.gains_from_patch`` on a neutral reference in the same frame.
    """
    return read_dice_report(image_bgr, palette=palette, expected_colours=expected_colours,
                            zone=zone, white_gains=white_gains).dice
