"""The die reader API: image in, one ``DieReading`` per die out.

Three readers propose dice, one per situation:

- a whole frame (no zone): die bodies first, one face per body (``fullframe``), on the frame
  brought to at most ``FULL_FRAME_SIDE`` pixels before anything else (a 12 MP photo's dice are
  then about the size the readers and the net want, and no step pays for the camera's pixels:
  the net's crops and its dense pass read the small frame too); a frame whose read answered no
  die, or found one a large share of it (a close-up), is read again set in the middle of larger
  frames, where its dice are the size the readers were tuned for (``close_up``, ``on_canvas``);
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
#: a whole frame whose read answered no die, or boxed one at least ``BIG_DIE`` of its short side,
#: is read again set in frames these times its short side (``close_up``, ``on_canvas``):
#: on the calibration photos cut to close-ups, a die a quarter of the frame was read best at 2-3,
#: one four tenths at 3-4
CANVAS_SIDES = (2.0, 3.0, 4.0)
BIG_DIE = 0.18
#: a canvas read's die at most this many times a frame read's die's side is that die (``lost``)
SAME_SIDE = 1.6
#: a canvas read's die under this share of the canvas's short side is dropped: in the frame it
#: was under m times that share, a die the frame's own read is for, and on the canvas it is under
#: the net's smallest die (``detect.SCALES``, 0.055). On 40 rendered pages of print, a canvas
#: read of a page whose own read found nothing answered a letter as a 28 px "2" (15 false dice
#: on the pages; 14 with this floor, as without canvas reads)
CANVAS_MIN_DIE = 0.04


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
    close_ups: bool = True,
) -> DiceReport:
    """Like ``read_dice`` but also says why nothing was read (black frame, blur, no pips)."""
    img = as_bgr(image_bgr)
    pal = (palette or default_palette()).restricted(expected_colours)
    if zone is not None:
        return _read_frame(img, pal, zone, white_gains)
    native = _read_whole(img, pal, white_gains)
    if not close_ups or not close_up(native, img.shape):
        return native
    # the dice may fill too much of the frame for the readers: read it again as a part of a
    # larger frame (``on_canvas``) and keep the read that answers most dice, less the dice of
    # the first read it loses (``lost``); the first read on a tie
    best, score = native, _answered(native.dice)
    for m in CANVAS_SIDES:
        canvas, at, f = on_canvas(img, m)
        rep = _read_frame(canvas, pal, None, white_gains)
        least = CANVAS_MIN_DIE * min(canvas.shape[:2])
        moved = [_moved(r, at, f, img.shape) for r in rep.dice if max(r.box[2:]) >= least]
        s = _answered(moved) - lost(native.dice, moved)
        if s > score:
            best, score = DiceReport(sorted(moved, key=lambda r: (r.box[1], r.box[0])), rep.why), s
    return best


def _read_whole(img: np.ndarray, pal: Palette, white_gains: Sequence[float] | None) -> DiceReport:
    """A whole frame's read: at most ``FULL_FRAME_SIDE`` pixels (``_read_small``), else as it is."""
    if max(img.shape[:2]) > FULL_FRAME_SIDE:
        return _read_small(img, pal, white_gains)
    return _read_frame(img, pal, None, white_gains)


def _read_frame(
    img: np.ndarray, pal: Palette, zone: object, white_gains: Sequence[float] | None
) -> DiceReport:
    """One read of ``img`` (or of ``zone`` of it) as it is: proposals, the net's verdicts, the
    gates."""
    clf, gates = check_model()
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


def _read_small(img: np.ndarray, pal: Palette, white_gains: Sequence[float] | None) -> DiceReport:
    """A whole frame larger than ``FULL_FRAME_SIDE`` read at that size, boxes in its pixels.

    Why before anything else: the proposals already read the small frame, but the net cropped
    every proposal and every detection from the whole one (each crop an area resize of up to
    a few hundred pixels) and the dense pass resized the whole frame again; on a 12 MP photo
    that was about a third of the read. At 1280 px a phone photo's dice are still 40-100 px,
    above the net's 48 px input."""
    f = FULL_FRAME_SIDE / max(img.shape[:2])
    small = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    rep = _read_frame(small, pal, None, white_gains)
    k = img.shape[1] / small.shape[1]
    return DiceReport([_rescaled(r, k) for r in rep.dice], rep.why)


def close_up(native: DiceReport, shape: tuple[int, ...]) -> bool:
    """Whether a whole frame's read may have met dice too large for its readers: no die was
    answered, or a die's box is at least ``BIG_DIE`` of the frame's short side.

    Why: the readers expect a die to be a small share of the frame (the net's dense pass
    tries sides of 0.055-0.165 of the short side, ``detect.SCALES``), which a table seen
    from above gives; a phone photo taken close to a few dice does not. On the calibration
    photos cut so that a die is a quarter of the frame (``vision.eval.dice --close-up 0.25``),
    the frame's own read found 69 % of the dice and saw 1.5 false dice per photo (the pips of a
    large die read as small dice); at four tenths, 36 % and 1.8. With the canvas reads: 91 % and
    0.24, 80 % and 0.45. A read that answered dice at a usual size is left as it is (the cost
    stays one read, and the readings are those the gates were chosen for).
    """
    if native.code in (Why.FRAME_BLACK, Why.FRAME_UNIFORM):
        return False
    if _answered(native.dice) == 0:
        return True
    short = min(shape[:2])
    return any(max(r.box[2], r.box[3]) >= BIG_DIE * short for r in native.dice)


def on_canvas(img: np.ndarray, m: float) -> tuple[np.ndarray, tuple[int, int], float]:
    """``img`` in the middle of a frame whose short side is ``m`` times its own (at least its
    own long side), filled with the median colour of ``img``'s border; the whole at most
    ``FULL_FRAME_SIDE`` pixels, ``img`` scaled by the factor returned, at the offset returned.

    Why a canvas and not a smaller frame: the readers size a die by the frame's short side, so
    a die a third of the frame is a third of it at any resolution; set in a frame ``m`` times
    larger, it is what a die is in the photos the readers and the gates were tuned on. The
    border's colour is the table's, with no edge of its own for the body finder, and no
    mirrored dice (a reflected border would copy the dice at its edge). Scaled before it is
    set, so that a 12 MP photo's canvas is never built at the camera's pixels."""
    h, w = img.shape[:2]
    side = m * min(h, w)
    f = min(1.0, FULL_FRAME_SIDE / max(h, w, side))
    if f < 1.0:
        img = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        f = img.shape[1] / w  # the factor the rounded size gives
        h, w = img.shape[:2]
    side = int(round(m * min(h, w)))
    ch, cw = max(h, side), max(w, side)
    border = np.concatenate([img[0], img[-1], img[:, 0], img[:, -1]])
    canvas = np.empty((ch, cw, 3), np.uint8)
    canvas[:] = np.median(border, axis=0).astype(np.uint8)
    oy, ox = (ch - h) // 2, (cw - w) // 2
    canvas[oy : oy + h, ox : ox + w] = img
    return canvas, (ox, oy), f


def _moved(r: DieReading, at: tuple[int, int], f: float, shape: tuple[int, ...]) -> DieReading:
    """``r``, read on a canvas holding the frame at ``at`` scaled by ``f`` (``on_canvas``), in
    the frame's pixels, its box clipped to the frame."""
    x, y, w, h = r.box
    x0, y0 = max((x - at[0]) / f, 0.0), max((y - at[1]) / f, 0.0)
    x1, y1 = min((x - at[0] + w) / f, shape[1]), min((y - at[1] + h) / f, shape[0])
    box = (int(round(x0)), int(round(y0)), max(int(round(x1 - x0)), 1), max(int(round(y1 - y0)), 1))
    return replace(r, box=box)


def _answered(dice: Sequence[DieReading]) -> int:
    return sum(r.face is not None for r in dice)


def lost(first: Sequence[DieReading], other: Sequence[DieReading]) -> int:
    """The dice of ``first`` (the frame's own read) that ``other`` (a read on a canvas) does not
    account for. A die of ``first`` is accounted for by a die of ``other`` whose box holds its
    centre and which is either the same die (its side at most ``SAME_SIDE`` times the first's)
    or a large die whose pips the frame's read took for dice (its face at least the number of
    ``first``'s dice in its box).

    Why it counts against a canvas read: a small die on a frame set in a canvas becomes smaller
    still and can be missed, and a canvas read can box several of them as one large die. By
    answered dice alone, on the calibration photos, a canvas read of a tray answered one die
    more and found four fewer (91.4 % found against 92.4 %, a wrong answer more); counting any
    die in a canvas box as kept, on the split's train photos, a box of 293 px round four dice
    read 3 was taken (9 -> 11 wrong answers). With both tests, the photos as they are read as
    before (calibration 92.4 % found, 75.6 -> 75.7 % answered, 1 wrong; train 92.9 -> 93.0 %
    found, 80.3 -> 80.4 % answered, 9 wrong both), and the close-ups keep most of their gain.
    """

    def holds(q: DieReading, r: DieReading) -> bool:
        x, y, w, h = q.box
        cx, cy = r.box[0] + r.box[2] / 2, r.box[1] + r.box[3] / 2
        return x <= cx <= x + w and y <= cy <= y + h

    def accounts(q: DieReading, r: DieReading) -> bool:
        if not holds(q, r):
            return False
        if max(q.box[2:]) <= SAME_SIDE * max(r.box[2:]):
            return True
        return q.face is not None and sum(holds(q, u) for u in first) <= q.face

    return sum(not any(accounts(q, r) for q in other) for r in first)


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
    close_ups: bool = True,
) -> list[DieReading]:
    """Every die in the frame (or in ``zone``: a box (x, y, w, h) or a polygon).

    ``expected_colours`` narrows the palette to the colours that can still appear (the hub knows
    which dice are left in the pyramid). ``white_gains`` come from
    ``vision.whitebalance.gains_from_patch`` on a neutral reference in the same frame.
    ``close_ups``: a whole frame may be a close-up of large dice (``close_up``); False where the
    camera is known to see dice small (the table's, fixed over the board), which reads each
    frame once.
    """
    return read_dice_report(
        image_bgr,
        palette=palette,
        expected_colours=expected_colours,
        zone=zone,
        white_gains=white_gains,
        close_ups=close_ups,
    ).dice
