"""The die reader API: image in, one ``DieReading`` per die out.

Three readers propose dice, one per situation:

- a whole frame (no zone): die bodies first, one face per body (``fullframe``), on the frame
  brought to at most ``FULL_FRAME_SIDE`` pixels before anything else (a 12 MP photo's dice are
  then about the size the readers and the net want, and no step pays for the camera's pixels:
  the net's crops and its dense pass read the small frame too);
- a zone of a frame (a box or a polygon): dice by their pips alone (``pippath``);
- the reveal zone, where the pyramid's one die lands (``zone``, the product path).

Every proposal is then judged by the learned net, which also adds the dice only it finds, and
every reading gets one confidence on the hub's scale (``learned``). A reading that stands in a
line of marks like it is a letter of printed text, and is dropped (``letters``). A missing or
unreadable model is a ``ModelError`` naming its file on the first read (``check_model`` at
start-up), never a silent fallback to the hand-written readers. Every part abstains (None)
below its calibrated gate, with a ``Reason`` (a code and a sentence): the hub asks a person
rather than trust a doubtful reading.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np

from vision.dice.classifier import DieClassifier, load_classifier
from vision.dice.fullframe import read_full_frame
from vision.dice.learned import WINDOW_FLOOR, Gates, decide, load_gates, propose, settle_zone
from vision.dice.letters import LINE_MATES, without_letters
from vision.dice.pippath import read_pips
from vision.dice.reading import DiceReport, DieReading, as_bgr, zone_rect
from vision.dice.reasons import Reason, Why
from vision.dice.zone import zone_die
from vision.palette import Palette, default_palette

__all__ = [
    "DiceReport",
    "DieReading",
    "as_bgr",
    "check_model",
    "read_dice",
    "read_dice_report",
    "read_die_in_zone",
]

FULL_FRAME_SIDE = 1280  # a larger frame's long side is brought to this before the proposals


def check_model() -> tuple[DieClassifier, Gates]:
    """The learned net and its gates, loaded (once): call at start-up so that a missing or
    corrupt file stops the program at once with a ``ModelError`` naming it."""
    return load_classifier(), load_gates()


def hand_proposals(
    img: np.ndarray,
    pal: Palette,
    white_gains: Sequence[float] | None,
    gray: np.ndarray | None = None,
) -> list[DieReading]:
    """The full-frame reader's dice, read on ``img`` brought to at most ``FULL_FRAME_SIDE``
    pixels; boxes in ``img``'s pixels. ``gray``: ``img``'s grey if the caller has it (one
    frame-sized grey fewer at a whole frame's read, issue 14)."""
    f = min(1.0, FULL_FRAME_SIDE / max(img.shape[:2]))
    if f >= 1.0:
        if gray is None:
            gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        return read_full_frame(img, gray, pal, white_gains, unmarked=True)
    small = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    sgray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    found = read_full_frame(small, sgray, pal, white_gains, unmarked=True)
    return [_rescaled(r, 1.0 / f) for r in found]


def _rescaled(r: DieReading, k: float) -> DieReading:
    """``r`` with its box in the pixels of a frame ``k`` times larger."""
    x, y, w, h = r.box
    return replace(
        r, box=(int(round(x * k)), int(round(y * k)), int(round(w * k)), int(round(h * k)))
    )


def read_dice_report(
    image_bgr: np.ndarray,
    *,
    palette: Palette | None = None,
    expected_colours: Sequence[str] | None = None,
    zone: object = None,
    white_gains: Sequence[float] | None = None,
) -> DiceReport:
    """Like ``read_dice`` but also says why nothing was read (black frame, blur, no pips)."""
    img = as_bgr(image_bgr)
    if zone is None and max(img.shape[:2]) > FULL_FRAME_SIDE:
        # a large whole frame is read small and its boxes brought back (``_read_small``)
        return _read_small(img, palette, expected_colours, white_gains)
    clf, gates = check_model()
    pal = (palette or default_palette()).restricted(expected_colours)
    ox = oy = 0
    poly = None
    if zone is not None:
        (ox, oy, w, h), poly = zone_rect(zone, img.shape)
        img = img[oy : oy + h, ox : ox + w]
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    # OpenCV's sums, not numpy's std: that makes a float64 copy of the frame (7.4 MB at
    # 1280x720, a whole frame's read's peak, issue 14); the same spread to 1e-9
    if float(cv2.meanStdDev(gray)[1][0, 0]) < 4.0:
        if gray.mean() < 20:
            return DiceReport([], Reason(Why.FRAME_BLACK, "frame is black"))
        return DiceReport([], Reason(Why.FRAME_UNIFORM, "frame is uniform (nothing to read)"))
    if zone is None:
        hand = hand_proposals(img, pal, white_gains, gray)
        why = None
    else:
        report = read_pips(img, gray, pal, white_gains, ox, oy, poly)
        hand, why = report.dice, report.why
    del gray  # not needed past the proposals: a whole frame's read peaks in the net's pass
    props = propose(img, hand, clf, detect_min=WINDOW_FLOOR, box_offset=(ox, oy))
    judged = decide(img, props, pal, white_gains, gates, box_offset=(ox, oy))
    kept = without_letters(img, judged, box_offset=(ox, oy))
    inside = (
        kept
        if poly is None
        else [
            r
            for r in kept
            if cv2.pointPolygonTest(
                poly.astype(np.float32), (r.box[0] + r.box[2] / 2, r.box[1] + r.box[3] / 2), False
            )
            >= 0
        ]
    )
    dice = sorted(inside, key=lambda r: (r.box[1], r.box[0]))
    if dice:
        return DiceReport(dice, None)
    if kept:  # every die found lay outside the zone's outline
        return DiceReport(
            [], Reason(Why.NO_DIE, f"no die found inside the zone ({len(kept)} outside it)")
        )
    if judged:
        return DiceReport(
            [],
            Reason(
                Why.PRINTED_TEXT,
                f"no die found: what looked like dice ({len(judged)}) stands in lines of "
                f"{LINE_MATES} or more marks of its size (printed text?)",
            ),
        )
    if hand:
        return DiceReport(
            [],
            Reason(Why.NO_DIE, f"no die found (the classifier took none of {len(hand)} proposed)"),
        )
    return DiceReport([], why or Reason(Why.NO_DIE, "no die found"))


def _read_small(
    img: np.ndarray,
    palette: Palette | None,
    expected_colours: Sequence[str] | None,
    white_gains: Sequence[float] | None,
) -> DiceReport:
    """A whole frame larger than ``FULL_FRAME_SIDE`` read at that size, boxes in its pixels.

    Why before anything else: the proposals already read the small frame, but the net cropped
    every proposal and every detection from the whole one (each crop an area resize of up to
    a few hundred pixels) and the dense pass resized the whole frame again; on a 12 MP photo
    that was about a third of the read. At 1280 px a phone photo's dice are still 40-100 px,
    above the net's 48 px input."""
    f = FULL_FRAME_SIDE / max(img.shape[:2])
    small = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    rep = read_dice_report(
        small, palette=palette, expected_colours=expected_colours, white_gains=white_gains
    )
    k = img.shape[1] / small.shape[1]
    return DiceReport([_rescaled(r, k) for r in rep.dice], rep.why)


def read_die_in_zone(
    image_bgr: np.ndarray,
    zone: object,
    *,
    palette: Palette | None = None,
    expected_colours: Sequence[str] | None = None,
    white_gains: Sequence[float] | None = None,
    background: np.ndarray | None = None,
    faces: Sequence[int] = (1, 2, 3),
    die_px: float | None = None,
) -> DieReading | None:
    """The one die in the reveal zone, or None (``zone.zone_die``: its body and pips), its face
    settled with the learned net (``learned.settle_zone``), which may also vouch for a body the
    pips did not."""
    clf, gates = check_model()
    zd = zone_die(
        image_bgr,
        zone,
        palette=palette,
        expected_colours=expected_colours,
        white_gains=white_gains,
        background=background,
        faces=faces,
        die_px=die_px,
    )
    if zd is None:
        return None
    verdict = clf.classify_boxes(as_bgr(image_bgr), [zd.reading.box])[0]
    return settle_zone(zd, verdict, gates, tuple(int(f) for f in faces))


def read_dice(
    image_bgr: np.ndarray,
    *,
    palette: Palette | None = None,
    expected_colours: Sequence[str] | None = None,
    zone: object = None,
    white_gains: Sequence[float] | None = None,
) -> list[DieReading]:
    """Every die in the frame (or in ``zone``: a box (x, y, w, h) or a polygon).

    ``expected_colours`` narrows the palette to the colours that can still appear (the hub knows
    which dice are left in the pyramid). ``white_gains`` come from
    ``vision.whitebalance.gains_from_patch`` on a neutral reference in the same frame.
    """
    return read_dice_report(
        image_bgr,
        palette=palette,
        expected_colours=expected_colours,
        zone=zone,
        white_gains=white_gains,
    ).dice
