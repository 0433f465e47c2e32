"""Marks that stand in a line of marks like them are letters, not dice.

Why a rule of its own: on a photo of print the net takes a few glyphs with holes (8, 9, B, 0)
for dice, most of them with no face it can name; on 40 rendered pages (``vision.train.
distractors.text_page``) the reader found 74 such "dice". A net trained on such pages read
fewer of them but answered more real dice wrong (``vision/dice/models/NOTICE.md``, session
26). What sets a letter apart is its line: along one direction through it (print may be turned
or seen at a slant) stand several marks of its own size that no reader took for a die. Dice
lie in rows too, but the dice of a row are readings themselves and do not count; only what
the readers left (the letters either side) does.

Measured with ``line_mates`` (session 27, tuning photos only: the split's calibration and
train photos, 3,018 readings of ``read_dice``): every real die found, read or not, has at most
3 such marks in line with it; of the 74 glyphs on the pages, 57 have 5 or more.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.dice.reading import Box, DieReading

LINE_MATES = 5  # marks in line with a reading that make it a letter (real dice: at most 3)
REACH = 6.0  # how far along the line marks are counted, in the reading's sides
TILT_DEG = 30.0  # the line may run this far from the frame's horizontal either way
TILT_STEP_DEG = 5.0
ACROSS = 0.35  # a mark's centre at most this many of the reading's heights off the line
SIZE = (0.6, 1.5)  # a mark's height over the reading's height, for a letter of one font
WIDTH = (0.15, 1.6)  # a mark's width over the reading's height (an i, a W)
MARK_PX = 24  # the region is read at a scale where the reading is at most this tall


def _marks(bgr: np.ndarray, box: Box) -> np.ndarray:
    """Centres (N x 2, frame pixels) of the marks round ``box`` of its size. A mark is a blob
    of the polarity the box's middle mostly shows (a dark glyph on paper, a light one on a dark
    screen), after Otsu's split of the region."""
    hh, ww = bgr.shape[:2]
    x, y, w, h = box
    reach = REACH * max(w, h)
    rise = reach * np.sin(np.radians(TILT_DEG))
    cy = y + h / 2
    x0, x1 = int(max(0, x - reach)), int(min(ww, x + w + reach))
    y0, y1 = int(max(0, cy - rise - 1.2 * h)), int(min(hh, cy + rise + 1.2 * h))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return np.zeros((0, 2))
    grey = cv2.cvtColor(bgr[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    k = min(1.0, MARK_PX / max(h, 1))
    if k < 1.0:
        grey = cv2.resize(grey, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    t, split = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mid = grey[
        int(k * (y - y0 + 0.25 * h)) : int(k * (y - y0 + 0.75 * h)),
        int(k * (x - x0 + 0.25 * w)) : int(k * (x - x0 + 0.75 * w)),
    ]
    ink = split if mid.size and float((mid > t).mean()) > 0.5 else 255 - split
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    if n <= 1:
        return np.zeros((0, 2))
    bw, bh = stats[1:, cv2.CC_STAT_WIDTH] / k, stats[1:, cv2.CC_STAT_HEIGHT] / k
    keep = (bh >= SIZE[0] * h) & (bh <= SIZE[1] * h) & (bw >= WIDTH[0] * h) & (bw <= WIDTH[1] * h)
    left, top = stats[1:, cv2.CC_STAT_LEFT][keep] / k, stats[1:, cv2.CC_STAT_TOP][keep] / k
    centres = np.stack([left + bw[keep] / 2 + x0, top + bh[keep] / 2 + y0], axis=1)
    return centres.astype(np.float64)


def _inside(p: np.ndarray, box: Box) -> np.ndarray:
    x, y, w, h = box
    return (p[:, 0] >= x) & (p[:, 0] <= x + w) & (p[:, 1] >= y) & (p[:, 1] <= y + h)


def line_mates(bgr: np.ndarray, box: Box, others: list[Box]) -> int:
    """How many marks of ``box``'s size stand in line with it, along the best of the directions
    within ``TILT_DEG`` of the horizontal, not counting the box's own mark nor any mark inside
    ``others`` (the frame's other readings)."""
    centres = _marks(bgr, box)
    if len(centres) == 0:
        return 0
    gone = _inside(centres, box)
    for o in others:
        gone |= _inside(centres, o)
    x, y, w, h = box
    rel = centres[~gone] - np.array([x + w / 2, y + h / 2])
    if len(rel) == 0:
        return 0
    reach = REACH * max(w, h)
    best = 0
    for deg in np.arange(-TILT_DEG, TILT_DEG + 1e-6, TILT_STEP_DEG):
        th = np.radians(deg)
        along = rel[:, 0] * np.cos(th) + rel[:, 1] * np.sin(th)
        across = -rel[:, 0] * np.sin(th) + rel[:, 1] * np.cos(th)
        best = max(best, int(((np.abs(across) <= ACROSS * h) & (np.abs(along) <= reach)).sum()))
    return best


def without_letters(
    bgr: np.ndarray, dice: list[DieReading], box_offset: tuple[int, int] = (0, 0)
) -> list[DieReading]:
    """``dice`` less the readings that stand in a line of ``LINE_MATES`` or more marks like
    them (``line_mates``): letters of printed text, read or not. The dice's boxes are in
    ``bgr``'s pixels plus ``box_offset`` (a zone's corner), as ``learned.decide`` gives them."""
    ox, oy = box_offset
    boxes = [(x - ox, y - oy, w, h) for x, y, w, h in (d.box for d in dice)]
    return [
        d
        for i, d in enumerate(dice)
        if line_mates(bgr, boxes[i], boxes[:i] + boxes[i + 1 :]) < LINE_MATES
    ]
