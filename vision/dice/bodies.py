"""Die bodies on a whole frame: the dice as solid near-square blobs that differ from the table.

Why bodies first: pips alone miss dice whose pips barely contrast with the face (red pips on a dark
die, marbled plastic) and they find a tilted die's side faces as extra dice. A die's body is found
whatever its pips look like, and one body holds exactly one top face, so the body decides *where*
the dice are and the pips inside it only *what* each shows.

How: the table is the large-scale median of the frame (dice are small next to the median's window,
so they do not move it) -- measured a second time with the objects of the first pass painted
over, so that where dice crowd (a row along a tray's dark rim) the table is the table's own
colour, not a blend of dice and rim; a pixel belongs to an object when its Lab colour is far
from that background, or much darker/brighter than it (a white die on a grey tray differs mostly in
lightness; a shadow differs only a little in lightness and not in hue, so it stays background).
Objects are then kept when they are die-sized, solid and near-square; touching dice are split at
the neck between them (one core per local maximum of the distance transform, so a chain of
touching dice of unequal depth keeps a core per die, then a watershed).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

WORK_SIDE = 320  # the frame is segmented at about this size: dice stay > ~10 px, and it is fast
CHROMA_DIFF = 11.0  # Lab a*b* distance from the table that makes a pixel part of an object
LIGHT_DIFF = 38.0  # Lab L* step (darker) that does, without a colour change (deeper than shadow)
TABLE_REESTIMATE = True  # the table measured again with the first pass's objects painted over
OBJ_GROW = 5  # px at WORK_SIDE: the objects' rims and shadows painted over with them
BRIGHT_DIFF = 8.0  # Lab L* step (brighter) that does: shadows are never brighter than the table


@dataclass(frozen=True)
class Body:
    """A die-like blob: its box (x, y, w, h) in frame pixels, outline, and shape measures."""

    box: tuple[int, int, int, int]
    contour: np.ndarray  # Nx2 int32, frame pixels
    side: float  # side of the minimum-area square-ish rectangle (mean of its two sides)
    squareness: float  # short / long side of the minimum-area rectangle
    solidity: float  # area / convex-hull area

    @property
    def centre(self) -> tuple[float, float]:
        x, y, w, h = self.box
        return (x + w / 2.0, y + h / 2.0)

    def clipped(self, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
        """The box as (x0, y0, x1, y1) clipped to a frame of ``shape``."""
        x, y, w, h = self.box
        return max(x, 0), max(y, 0), min(x + w, shape[1]), min(y + h, shape[0])

    def mask(self, x0: int, y0: int, shape: tuple[int, ...]) -> np.ndarray:
        """The filled outline as a 0/1 uint8 mask over a crop of ``shape`` whose top-left
        corner is (x0, y0) in the frame."""
        m = np.zeros(shape[:2], np.uint8)
        cv2.drawContours(m, [self.contour.reshape(-1, 1, 2) - (x0, y0)], -1, 1, cv2.FILLED)
        return m

    def contains(self, x: float, y: float, margin: float = 0.0) -> bool:
        """Whether (x, y) is inside the outline (or within ``margin`` px of it)."""
        d = cv2.pointPolygonTest(
            self.contour.reshape(-1, 1, 2).astype(np.float32), (float(x), float(y)), True
        )
        return d >= -margin


def object_mask(image_bgr: np.ndarray, scale: float) -> np.ndarray:
    """Pixels (at ``scale`` of the frame) that differ from the large-scale table colour."""
    h, w = image_bgr.shape[:2]
    small = cv2.resize(
        image_bgr,
        (max(int(round(w * scale)), 8), max(int(round(h * scale)), 8)),
        interpolation=cv2.INTER_AREA,
    )
    small = cv2.GaussianBlur(small, (3, 3), 0)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2Lab)
    k = int(max(small.shape[:2]) // 5) | 1
    bg = np.dstack([cv2.medianBlur(lab[:, :, c], k) for c in range(3)])
    mask = _differs(lab, bg)
    if TABLE_REESTIMATE:
        # the local table: where dice crowd (a row of them along the tray's dark rim) the
        # median of the window is partly dice and rim, and a die like that blend is lost; so
        # the objects of the first pass are painted over from the table round them and the
        # median taken again, of table only
        objs = cv2.dilate(mask.astype(np.uint8), np.ones((OBJ_GROW, OBJ_GROW), np.uint8))
        table = cv2.inpaint(lab, objs, 3, cv2.INPAINT_TELEA)
        bg = np.dstack([cv2.medianBlur(table[:, :, c], k) for c in range(3)])
        mask = _differs(lab, bg)
    m: np.ndarray = mask.astype(np.uint8)
    m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return fill_holes(m)


def _differs(lab: np.ndarray, bg: np.ndarray) -> np.ndarray:
    """Pixels whose Lab colour is far from the table's ``bg`` (see the thresholds above)."""
    d = lab.astype(np.float32) - bg.astype(np.float32)
    d[:, :, 0] *= 100.0 / 255.0
    chroma = np.hypot(d[:, :, 1], d[:, :, 2])
    return (chroma > CHROMA_DIFF) | (d[:, :, 0] < -LIGHT_DIFF) | (d[:, :, 0] > BRIGHT_DIFF)


def fill_holes(m: np.ndarray) -> np.ndarray:
    """Fill the holes of a binary mask (pips the colour of the table inside a die's body)."""
    contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(m)
    cv2.drawContours(out, contours, -1, 1, thickness=cv2.FILLED)
    return out


def find_bodies(
    image_bgr: np.ndarray, *, min_side_frac: float = 0.02, max_side_frac: float = 0.2
) -> list[Body]:
    """Every die-like body in the frame, larger first.

    ``min_side_frac``/``max_side_frac``: a die's side as a share of the frame's shorter side.
    """
    h, w = image_bgr.shape[:2]
    scale = min(1.0, WORK_SIDE / max(h, w))
    mask = object_mask(image_bgr, scale)
    short = min(mask.shape[:2])
    lo, hi = min_side_frac * short, max_side_frac * short
    bodies: list[Body] = []
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if max(bw, bh) < lo or area < 0.5 * lo * lo:
            continue
        if min(bw, bh) > 3.5 * hi:  # a large region (the table's rim, a hand): not dice
            continue
        comp = (labels[y : y + bh, x : x + bw] == i).astype(np.uint8)
        for piece in _pieces(comp, lo, hi):
            b = _body(piece, x, y, scale, lo, hi)
            if b is not None:
                bodies.append(b)
    bodies.sort(key=lambda b: -b.side)
    return bodies


def _pieces(comp: np.ndarray, lo: float, hi: float) -> list[np.ndarray]:
    """The component itself if it is one die, else its parts split at the necks between dice."""
    if _shape_ok(comp, lo, hi):
        return [comp]
    pad = cv2.copyMakeBorder(comp, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    dist = cv2.distanceTransform(pad, cv2.DIST_L2, 3)
    if dist.max() < lo / 2.5:
        return []
    # one core per die: the distance transform's local maxima (a chain of touching dice has
    # one per die, though the dice's cores differ in depth), each grown a little
    kk = max(int(lo * 1.2), 3) | 1
    local = (dist >= cv2.dilate(dist, np.ones((kk, kk), np.float32))) & (dist >= 0.45 * dist.max())
    peaks: np.ndarray = cv2.dilate(local.astype(np.uint8), np.ones((3, 3), np.uint8))
    peaks |= (dist >= 0.65 * dist.max()).astype(np.uint8)
    n, markers = cv2.connectedComponents(peaks)
    if n <= 2:
        # one core: strip thin attachments (a shadow, a pip touching the rim) by opening
        r = max(int(dist.max() * 0.5), 1)
        opened = cv2.morphologyEx(
            pad, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1,) * 2)
        )
        opened = opened[1:-1, 1:-1]
        return [opened] if opened.any() and _shape_ok(opened, lo, hi) else []
    markers = markers.astype(np.int32)
    markers[pad == 0] = 0
    unknown = (pad > 0) & (peaks == 0)
    markers[unknown] = 0
    markers[pad == 0] = n  # the outside as its own basin
    ws = cv2.watershed(cv2.cvtColor(pad * 255, cv2.COLOR_GRAY2BGR), markers.copy())
    out = []
    for k in range(1, n):
        part = (ws == k).astype(np.uint8)[1:-1, 1:-1]
        if part.any() and _shape_ok(part, lo, hi):
            out.append(part)
    return out


def _rect_measures(part: np.ndarray) -> tuple[np.ndarray, float, float, float, float] | None:
    contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    c = max(contours, key=cv2.contourArea)
    area = float(cv2.contourArea(c))
    if area < 4:
        return None
    (_, _), (rw, rh), _ = cv2.minAreaRect(c)
    hull = float(cv2.contourArea(cv2.convexHull(c)))
    sq = min(rw, rh) / max(rw, rh, 1e-6)
    fill = area / max(rw * rh, 1e-6)
    return c, (rw + rh) / 2.0, sq, area / max(hull, 1e-6), fill


def _shape_ok(part: np.ndarray, lo: float, hi: float) -> bool:
    m = _rect_measures(part)
    if m is None:
        return False
    _, side, sq, solidity, fill = m
    return lo <= side <= hi and sq >= 0.6 and solidity >= 0.85 and fill >= 0.65


def _body(part: np.ndarray, ox: int, oy: int, scale: float, lo: float, hi: float) -> Body | None:
    m = _rect_measures(part)
    if m is None:
        return None
    c, side, sq, solidity, fill = m
    if not (lo <= side <= hi and sq >= 0.6 and solidity >= 0.85 and fill >= 0.65):
        return None
    pts = (c.reshape(-1, 2).astype(np.float64) + (ox, oy) + 0.5) / scale - 0.5
    x0, y0 = np.floor(pts.min(axis=0)).astype(int)
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int)
    return Body(
        (int(x0), int(y0), int(x1 - x0 + 1), int(y1 - y0 + 1)),
        np.round(pts).astype(np.int32),
        side / scale,
        sq,
        solidity,
    )


SEED_WINDOW = 1.6  # a seeded body is looked for within this many expected sides round its seed
SEED_SIDE = (0.7, 1.8)  # ... and must be this share of the expected side (tuned: even byler;
# the frame's median body is often a die's top face only: byler's white dice are up to 1.75 x it)
SEED_MIN_DIFF = 6.0  # Lab distance that parts a face from its table at the least (tuned: ditto)


def seeded_body(image_bgr: np.ndarray, x: float, y: float, r: float, side: float) -> Body | None:
    """The die round a pip at (x, y) of radius ``r``, expected ``side`` px: a near-square region
    of the colour round the pip, die-sized, parted from what surrounds it.

    Why: a white die on a light table differs from it too little for the frame-wide mask, so
    only its pip is seen, and a lone pip alone cannot be told from a speck. Measured locally,
    each pixel as nearer the colour just round the pip (the face) or the window's rim (the
    table), the face stands out from the table; a speck's "face" is the table and runs on
    beyond any die's size, so it yields no body.
    """
    H, W = image_bgr.shape[:2]
    half = int(round(SEED_WINDOW * side))
    x0, y0 = max(int(x) - half, 0), max(int(y) - half, 0)
    x1, y1 = min(int(x) + half + 1, W), min(int(y) + half + 1, H)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    lab = cv2.cvtColor(image_bgr[y0:y1, x0:x1], cv2.COLOR_BGR2Lab).astype(np.float32)
    lab[:, :, 0] *= 100.0 / 255.0
    yy, xx = np.mgrid[y0:y1, x0:x1]
    d2 = (xx - x) ** 2 + (yy - y) ** 2
    ring = (d2 > (1.8 * r) ** 2) & (d2 < (3.0 * r) ** 2)
    if int(ring.sum()) < 8:
        return None
    face_lab = np.median(lab[ring], axis=0)
    frame = np.ones(ring.shape, bool)
    frame[3:-3, 3:-3] = False
    table_lab = np.median(lab[frame], axis=0)
    if float(np.linalg.norm(face_lab - table_lab)) < SEED_MIN_DIFF:
        return None  # the colour round the pip is the table's
    face = (
        np.linalg.norm(lab - face_lab, axis=2) < np.linalg.norm(lab - table_lab, axis=2)
    ).astype(np.uint8)
    face = cv2.morphologyEx(face, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels = cv2.connectedComponents(face, connectivity=4)
    ids = labels[ring & (face > 0)]
    if n <= 1 or len(ids) == 0:
        return None
    k = int(np.bincount(ids).argmax())
    part = fill_holes((labels == k).astype(np.uint8))
    ys, xs = np.nonzero(part)
    if (
        xs.min() == 0
        or ys.min() == 0
        or xs.max() == part.shape[1] - 1
        or ys.max() == part.shape[0] - 1
    ):
        return None  # the "face" runs on beyond the window: table, not a die
    return _body(part, x0, y0, 1.0, SEED_SIDE[0] * side, SEED_SIDE[1] * side)
