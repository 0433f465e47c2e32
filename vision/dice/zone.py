"""The product path: the one die the pyramid released, lying in the known reveal zone.

Why a reader of its own: the full-frame reader must find dice anywhere by their pips, which is
slow and, on a 20 px die, fragile. In the reveal zone we know much more: there is at most one
die, the zone's empty look is known (the watch loop saw it, or it is a plain surface), the die is
a Camel Up die (faces 1..3, five colours) and the white balance comes from the board's markers.
So:

1. the die's body is what differs from the empty zone (``background``) or, without one, from a
   median-filtered version of the crop (the board is smooth at the die's scale); shadows are
   told apart because they darken all channels by the same ratio;
2. the body is cut out and scaled to ``CROP_PX`` px, so every later step works at one scale;
3. colour: the median of the lit top face (body pixels between the pips' and the side faces'
   grey levels), white-balanced, against the palette with a margin (``vision.dice.colour``);
4. face: pips are blobs darker (or lighter) than the face by a large share of the face's
   contrast (black-hat / top-hat). Their number must be a face in ``faces`` *and* lie where
   that face puts its pips (one in the middle; two on a diagonal; three on a diagonal through
   the middle; for a six-sided die, ``faces=(1..6)``, four in the corners, five the corners and
   the middle, six two columns of three either way: :func:`grid_layout_error`). The
   confidence is the gap between the weakest pip and the strongest thing on the face that is
   not a pip: a missed pip, glare or a blur-melted pair all close that gap.

Anything that does not fit abstains (face or colour None, with a reason): the hub asks a
person rather than trust a doubtful reading. A face that does not read withholds the colour too
(the body found may not be the die's top face), and a body without a single pip is no die. Both
are kept aside (``zone_die``) for the learned net: where it answers the face, it vouches for the
body (``vision.dice.learned.settle_zone``).

Confidence, calibrated for the hub: the raw scores above (the face's gap score, the colour's
palette margin) are mapped by :func:`calibrated` so that the hub's threshold, 0.80
(``hub.observations.DIE_CONFIDENCE_THRESHOLD``), falls at the raw score ``ACCEPT_RAW`` = 0.55
found from data (``python -m vision.eval.dice_zone``, and the same scenes read with the reader's
own abstain gates off): every wrong answer seen had a raw score (the lower of face and colour)
of 0.46 or less (3 in ~2,300 named answers: seeds 300180, 300059, 700951), while 96 % of the
right ones in the dice scenes and 99 % cut from the full resolution score 0.55 or more. Before,
the hub compared 0.80 with the raw score and sent ~40 % of right full-resolution readings (and
five right demo dice at 0.77-0.79) to a person, with no wrong answer above 0.46 to stop. Below
0.55 the map is linear to 0, above it linear to 1: the order of readings is kept.

Resolution: in a 1280x720 frame the die is ~20 px and its pips 3-4 px; blur and JPEG leave
about 60 % readable (``python -m vision.eval.dice_zone``). Cut from the camera's full
resolution (4608x2592, die ~70 px) every rendered die reads. So the caller should pass the zone
cut from the full-resolution frame, the empty zone's crop from the same stream as
``background``, and the markers' white balance as ``white_gains``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.dice.colour import classify_face_colour, dark_pips
from vision.dice.face import PIP_OFFSET
from vision.dice.reading import BGR, Box, DieReading, as_bgr, zone_rect
from vision.dice.reasons import Reason, Why
from vision.palette import CAMEL_UP, Palette, default_palette

CROP_PX = 64  # the body's longer side after scaling (plus a margin)
FACE_MIN_CONF = 0.5
PIP_REL_R = 0.095  # a pip's radius as a share of the top face's side (renderer: 0.085..0.105)
COLOUR_MIN_CONF = 0.4  # 0.3 let a glinting blue die through as white (eval seed 300180)
FIND_PX = 320  # the zone is searched for the body at most this many pixels wide
MIN_BODY_PX = 40  # fewer changed pixels than this (at frame scale): no die in the zone
NEUTRAL_CHROMA = 20.0  # Lab chroma below which a palette colour is neutral (white 1, blue 52)
MIN_DIE_SIDE_PX = 14.0  # a die narrower than this in the frame is not read (pips ~2 px)
#: the raw score (the lower of face and colour) that maps to CALIBRATED_AT: see the module doc
ACCEPT_RAW = 0.55
#: the hub's threshold (hub.observations.DIE_CONFIDENCE_THRESHOLD; vision does not import hub)
CALIBRATED_AT = 0.80


def calibrated(raw: float) -> float:
    """A raw face or colour score (0..1) on the hub's scale: ``ACCEPT_RAW`` -> ``CALIBRATED_AT``,
    linear on each side, monotone (see the module docstring for the data behind it)."""
    r = min(max(float(raw), 0.0), 1.0)
    if r >= ACCEPT_RAW:
        return CALIBRATED_AT + (1.0 - CALIBRATED_AT) * (r - ACCEPT_RAW) / (1.0 - ACCEPT_RAW)
    return CALIBRATED_AT * r / ACCEPT_RAW


@dataclass(frozen=True)
class Body:
    """The die's body in frame pixels: box (x, y, w, h) and its mask inside that box."""

    box: tuple[int, int, int, int]
    mask: np.ndarray  # uint8 0/1, box-sized
    side_px: float  # estimated top-face side in frame pixels


def _as_crop(image: np.ndarray, rect: tuple[int, int, int, int]) -> np.ndarray:
    x, y, w, h = rect
    return image[y : y + h, x : x + w]


def _foreground(crop: np.ndarray, empty: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(strict, loose) uint8 0/1 masks of pixels that are not the empty zone nor its shadow.

    A shadow scales every channel by about the same factor, and by no more than about half; a
    die is brighter than the surface in some channel, changes its hue (the channels' ratios
    differ), or is a pip far darker than any shadow. The loose mask grows the strict one.
    """
    f = cv2.GaussianBlur(crop, (3, 3), 0).astype(np.float32) + 8.0
    if empty is None:
        # the empty surface estimated from the crop itself: a median over a window well larger
        # than a die, computed at quarter size (the board is smooth at that scale)
        h, w = crop.shape[:2]
        small = cv2.resize(crop, (max(w // 4, 1), max(h // 4, 1)), interpolation=cv2.INTER_AREA)
        # as wide as the zone allows: the window must be mostly surface where the die lies
        k = max(3, min(min(small.shape[:2]) - 1, 41) | 1)
        med = cv2.medianBlur(small, k)
        b = cv2.resize(med, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32) + 8.0
    else:
        b = cv2.GaussianBlur(empty, (3, 3), 0).astype(np.float32) + 8.0
    lr = cv2.log(cv2.divide(f, b))
    c0, c1, c2 = cv2.split(lr)
    hi = cv2.max(cv2.max(c0, c1), c2)
    lo = cv2.min(cv2.min(c0, c1), c2)
    spread = hi - lo
    strict = (hi > 0.18) | (spread > 0.30) | (lo < -0.9)
    loose = (hi > 0.09) | (spread > 0.16) | (lo < -0.75)
    return strict.astype(np.uint8), loose.astype(np.uint8)


def find_body(
    crop: np.ndarray, empty: np.ndarray | None = None, die_px: float | None = None
) -> Body | None:
    """The most die-like changed region (grown to its convex hull), or None."""
    strict, loose = _foreground(crop, empty)
    strict = cv2.morphologyEx(strict, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    loose = cv2.morphologyEx(loose, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, lab, stats, cents = cv2.connectedComponentsWithStats(loose, connectivity=8)
    if n <= 1:
        return None
    seeded = np.bincount(lab[strict > 0], minlength=n)
    best = None
    best_score = 0.0
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if area < MIN_BODY_PX or seeded[i] < 0.2 * area:
            continue
        fill = area / float(w * h)
        aspect = min(w, h) / max(w, h)
        if aspect < 0.4 or fill < 0.3:
            continue
        if die_px is not None and not 0.5 * die_px <= max(w, h) <= 2.2 * die_px:
            continue
        score = area * fill * aspect
        if score > best_score:
            best, best_score = i, score
    if best is None:
        return None
    bx, by, bw, bh, _ = (int(v) for v in stats[best])
    reach = 0.75 * max(bw, bh)
    cx, cy = cents[best]
    keep = [best] + [
        i
        for i in range(1, n)
        if i != best
        and seeded[i] > 0
        and abs(cents[i][0] - cx) < reach
        and abs(cents[i][1] - cy) < reach
        and stats[i, 4] < 0.5 * stats[best, 4]
    ]
    pts = []
    for i in keep:
        ys, xs = np.nonzero(lab == i)
        pts.append(np.stack([xs, ys], axis=1))
    allp = np.concatenate(pts).astype(np.int32)
    hull = cv2.convexHull(allp)
    x, y, w, h = cv2.boundingRect(hull)
    # a die is convex: its hull takes in the pips, glints and bevels the threshold missed
    mask = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(mask, hull - [x, y], 1)
    (_, _), (rw, rh), _ = cv2.minAreaRect(hull)
    side = float(min(rw, rh))
    return Body((x, y, w, h), mask, side)


@dataclass(frozen=True)
class FaceRead:
    """The face of a scaled body crop: the count if it reads, else None and why not."""

    face: int | None
    confidence: float
    pips: int
    why: Reason | None


_PIP_OFFSET = PIP_OFFSET * np.sqrt(2.0)  # a corner pip's distance from the face centre, in sides
_Q = PIP_OFFSET  # a pip's offset from the face centre along a side, in sides
_CORNERS = [(-_Q, -_Q), (_Q, -_Q), (-_Q, _Q), (_Q, _Q)]
#: faces 4..6 in the face's own frame (x, y along its sides, in sides). A 6 is two columns of
#: three: which way they run on the rotated die is not known, so both are tried.
_GRID_LAYOUTS: dict[int, list[np.ndarray]] = {
    4: [np.array(_CORNERS)],
    5: [np.array(_CORNERS + [(0.0, 0.0)])],
    6: [
        np.array([(x, y) for x in (-_Q, _Q) for y in (-_Q, 0.0, _Q)]),
        np.array([(x, y) for y in (-_Q, _Q) for x in (-_Q, 0.0, _Q)]),
    ],
}
_PERMS = {n: np.array(list(itertools.permutations(range(n)))) for n in _GRID_LAYOUTS}


def grid_layout_error(
    pts: np.ndarray, centre: np.ndarray, side: float, angle: float | None
) -> float:
    """How far ``pts`` (pip centres, 4..6 of them) lie from that face's layout; 1.0 = the limit.

    Why a fit and not distances to the centre, as for 1..3: the pips of 4..6 fill the face, so
    the layout is matched pip for pip. The layout is turned by the body's angle (a 6 both ways),
    each pip paired with a layout place (all pairings tried: at most 6! = 720), then turned and
    scaled onto the pips (least squares). The error is the largest of: a pip's distance from its
    place (tolerance 0.09 side: a third of the pips' spacing), the scale's departure (the side is
    measured on a body with bevels and a side face; tolerance 30 %), the turn away from the
    body's sides (tolerance 20 degrees, as for 1..3's diagonal) and the pips' centre away from
    the body's (tolerance 0.22 side, as for 1..3)."""
    n = len(pts)
    cen = pts.mean(axis=0)
    p = (pts - cen) / side
    err_centre = float(np.linalg.norm(cen - centre)) / side / 0.22
    a0 = np.radians(angle or 0.0)
    rot0 = np.array([[np.cos(a0), -np.sin(a0)], [np.sin(a0), np.cos(a0)]])
    best = np.inf
    for layout in _GRID_LAYOUTS[n]:
        t = layout @ rot0.T  # the layout as the body lies
        d2 = ((p[:, None, :] - t[None, :, :]) ** 2).sum(axis=2)  # pip x place
        perm = _PERMS[n][int(np.argmin(d2[np.arange(n), _PERMS[n]].sum(axis=1)))]
        tt = layout[perm]  # the place of each pip, in the face's own frame
        dot = float((tt * p).sum())
        cross = float((tt[:, 0] * p[:, 1] - tt[:, 1] * p[:, 0]).sum())
        th = np.arctan2(cross, dot)
        scale = np.hypot(dot, cross) / float((tt**2).sum())
        rot = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
        fit = scale * tt @ rot.T
        resid = float(np.linalg.norm(fit - p, axis=1).max())
        err = max(resid / 0.09, abs(scale - 1.0) / 0.3)
        if angle is not None:
            off = abs(((np.degrees(th) - angle + 45.0) % 90.0) - 45.0)
            err = max(err, off / 20.0)
        best = min(best, err)
    return max(best, err_centre)


#: the largest patch (in pip areas) a pip of 4..6 may be part of: see :func:`pip_spread`
PIP_SPREAD_MAX = 3.0


def pip_spread(
    g: np.ndarray, mask: np.ndarray, blob_masks: Sequence[np.ndarray], face_level: float, dark: bool
) -> float:
    """The area (pixels) of the largest region, at half a pip's contrast, that holds a pip.

    Why: the black-hat answers at the four inner corners of any dark square larger than its
    kernel (a disc cannot reach into a corner), and four corners are a 4's layout: a white
    balance patch's black square was read as a white 4 at 0.90. A real pip, blurred or not, is
    its own patch at half its contrast; a square's corner belongs to the whole square (~8 pips).
    Used for 4..6 only: 1..3 are read exactly as they were calibrated."""
    largest = 0
    sign = 1.0 if dark else -1.0
    for bm in blob_masks:
        extreme = float((sign * g)[bm].min())  # the pip's darkest (lightest) value, signed
        level = 0.5 * (sign * face_level + extreme)
        region = ((sign * g) < level).astype(np.uint8) & (mask > 0).astype(np.uint8)
        _, lab = cv2.connectedComponents(region, connectivity=8)
        ids = np.unique(lab[bm & (region > 0)])
        ids = ids[ids > 0]
        if ids.size:
            largest = max(largest, int(np.isin(lab, ids).sum()))
    return float(largest)


@dataclass(frozen=True)
class PipBlobs:
    """The pip-sized blobs of a pip response, or ``why`` they make no face.

    ``blobs``: (label, area px, strongest response, centre) per pip; ``labels``: the label image.
    """

    count: int
    why: Reason | None
    blobs: list[tuple[int, int, float, np.ndarray]]
    labels: np.ndarray | None = None


def find_pip_blobs(resp: np.ndarray, peak: float, side: float, faces: Sequence[int]) -> PipBlobs:
    """The blobs over half the peak response that are pip-sized, round and alike.

    Shared by the zone reader and the full-frame reader's crop read (vision.dice.cropread), so
    both refuse the same shapes: a streak (a side face's strip), a count that is no face, a blob
    too large for a pip, pips too unlike in size or contrast.
    """
    pipmask = (resp > 0.5 * peak).astype(np.uint8)
    n, lab, stats, cents = cv2.connectedComponentsWithStats(pipmask, connectivity=8)
    pip_area = np.pi * (PIP_REL_R * side) ** 2
    blobs = []
    for i in range(1, n):
        area = int(stats[i, 4])
        if area < 0.15 * pip_area:
            continue
        bw, bh = int(stats[i, 2]), int(stats[i, 3])
        if min(bw, bh) / max(bw, bh) < 0.45:  # a pip is round; a side face's strip is not
            return PipBlobs(0, Reason(Why.STREAK, "an elongated dark/light streak on the face"), [])
        blobs.append((i, area, float(resp[lab == i].max()), cents[i]))
    count = len(blobs)
    if count == 0:
        return PipBlobs(0, Reason(Why.NO_PIP_BLOB, "no pip-sized blob"), [])
    if count not in faces:
        return PipBlobs(
            count,
            Reason(Why.COUNT_NOT_A_FACE, f"{count} pip-like blobs is not a face of {tuple(faces)}"),
            blobs,
        )
    big = max(b[1] for b in blobs)
    if big > 4.0 * pip_area:
        return PipBlobs(count, Reason(Why.BLOB_TOO_LARGE, "a blob is too large for a pip"), blobs)
    if count > 1 and (
        min(b[1] for b in blobs) < 0.4 * big
        or min(b[2] for b in blobs) < 0.5 * max(b[2] for b in blobs)
    ):
        return PipBlobs(
            count, Reason(Why.PIPS_UNLIKE, "the pips differ too much in size or contrast"), blobs
        )
    return PipBlobs(count, None, blobs, lab)


def strongest_elsewhere(resp: np.ndarray, found: PipBlobs, side: float) -> tuple[float, np.ndarray]:
    """The strongest response on the face away from the pips (the confidence's gap is to it),
    and the mask of the pips' neighbourhood that was left out."""
    assert found.labels is not None
    k = int(round(side * 0.42)) | 1
    near: np.ndarray = np.zeros(resp.shape, np.uint8)
    for i, *_ in found.blobs:
        near |= (found.labels == i).astype(np.uint8)
    near = cv2.dilate(near, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    other = resp.copy()
    other[near > 0] = 0
    return float(other.max()), near


def count_face(
    gray: np.ndarray, mask: np.ndarray, side: float, dark: bool | None, faces: Sequence[int]
) -> FaceRead:
    """Pips on the scaled body crop: count, layout check, honest confidence. See module doc."""
    e = int(round(0.2 * side)) | 1  # the rim: bevel, blur halo and table stay out
    inner = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (e, e)))
    if int(inner.sum()) < 30:
        return FaceRead(None, 0.0, 0, Reason(Why.BODY_TOO_SMALL, "die body too small to read"))
    g = gray.astype(np.float32)
    vals = g[inner > 0]
    k = int(round(side * 0.42)) | 1
    kern = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    best = None
    for dk in (True, False) if dark is None else (dark,):
        face_level = float(np.percentile(vals, 65 if dk else 35))
        gf = np.where(mask > 0, g, face_level)
        r = cv2.morphologyEx(gf, cv2.MORPH_BLACKHAT if dk else cv2.MORPH_TOPHAT, kern)
        r[inner == 0] = 0
        if best is None or float(r.max()) > float(best[1].max()):
            best = (dk, r, face_level)
    assert best is not None
    dark, resp, face_level = best
    peak = float(resp.max())
    contrast_ref = face_level if dark else max(255.0 - face_level, 40.0)
    if peak < 0.2 * contrast_ref or peak < 12:
        return FaceRead(
            None, 0.0, 0, Reason(Why.NO_PIPS_STAND_OUT, f"no pips stand out (peak {peak:.0f})")
        )
    found = find_pip_blobs(resp, peak, side, faces)
    count, blobs = found.count, found.blobs
    if found.why is not None:
        return FaceRead(None, 0.0, count, found.why)
    lab = found.labels
    pip_area = np.pi * (PIP_REL_R * side) ** 2
    rest, _ = strongest_elsewhere(resp, found, side)
    weakest = min(b[2] for b in blobs)
    # layout: where the body's centre is and how far the pips are from it
    ys, xs = np.nonzero(mask)
    c = np.array([xs.mean(), ys.mean()])
    angle = None
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if cnts:
        (_, _), (rw, rh), ang = cv2.minAreaRect(max(cnts, key=cv2.contourArea))
        angle = float(ang)
    pts = np.array([b[3] for b in blobs])
    d = np.linalg.norm(pts - c, axis=1) / side
    err = 0.0
    if count >= 4:
        assert lab is not None  # a count of pips came with its label image
        masks: list[np.ndarray] = [np.asarray(lab == b[0]) for b in blobs]
        spread = pip_spread(g, mask, masks, face_level, dark) / pip_area
        if spread > PIP_SPREAD_MAX:
            return FaceRead(
                None,
                0.0,
                count,
                Reason(
                    Why.DARK_PATCH, f"a pip is part of a dark/light patch {spread:.1f} pips large"
                ),
            )
        err = grid_layout_error(pts, c, side, angle)
    elif count == 1:
        err = max(err, d[0] / 0.22)
    else:
        order = np.argsort(d)
        outer = pts[order[-2:]]
        mid = outer.mean(axis=0)
        sep = float(np.linalg.norm(outer[0] - outer[1])) / side
        err = max(
            err, float(np.linalg.norm(mid - c)) / side / 0.22, abs(sep - 2 * _PIP_OFFSET) / 0.22
        )
        # the pips lie on a diagonal of the face: 45 degrees off the body's sides
        if angle is not None:
            v = outer[1] - outer[0]
            a = np.degrees(np.arctan2(v[1], v[0])) - angle
            off = abs((a % 90.0) - 45.0)
            err = max(err, off / 20.0)
        if count == 3:
            m = pts[order[0]]
            err = max(err, float(np.linalg.norm(m - mid)) / side / 0.12)
    if err > 1.0:
        return FaceRead(
            None,
            0.0,
            count,
            Reason(
                Why.LAYOUT, f"{count} pips do not lie as on a die's face (layout error {err:.2f})"
            ),
        )
    gap = (weakest - rest) / max(weakest, 1e-6)
    conf = float(np.clip(gap / 0.5, 0.0, 1.0) * (1.0 - 0.5 * err))
    if conf < FACE_MIN_CONF:
        return FaceRead(
            None,
            conf,
            count,
            Reason(
                Why.SPOT_BESIDE_PIPS, f"a pip-like spot besides the {count} pips (gap {gap:.2f})"
            ),
        )
    return FaceRead(count, conf, count, None)


def scaled_body(crop: np.ndarray, body: Body) -> tuple[np.ndarray, np.ndarray, float]:
    """The body's box (with a margin) scaled so its longer side is ``CROP_PX``: BGR, mask,
    top-face side in scaled pixels."""
    x, y, w, h = body.box
    H, W = crop.shape[:2]
    m = int(np.ceil(0.15 * max(w, h))) + 1
    x0, y0, x1, y1 = max(x - m, 0), max(y - m, 0), min(x + w + m, W), min(y + h + m, H)
    sub = crop[y0:y1, x0:x1]
    full = np.zeros(sub.shape[:2], np.uint8)
    full[y - y0 : y - y0 + h, x - x0 : x - x0 + w] = body.mask
    s = CROP_PX / max(w, h)
    size = (max(int(round(sub.shape[1] * s)), 8), max(int(round(sub.shape[0] * s)), 8))
    big = cv2.resize(sub, size, interpolation=cv2.INTER_CUBIC if s > 1 else cv2.INTER_AREA)
    mbig = cv2.resize(full, size, interpolation=cv2.INTER_NEAREST)
    return big, mbig, body.side_px * s


def _upscaled(body: Body, k: float, shape: tuple[int, ...]) -> Body:
    x, y, w, h = body.box
    X, Y = int(np.floor(x * k)), int(np.floor(y * k))
    X1, Y1 = min(int(np.ceil((x + w) * k)), shape[1]), min(int(np.ceil((y + h) * k)), shape[0])
    mask = cv2.resize(body.mask, (X1 - X, Y1 - Y), interpolation=cv2.INTER_LINEAR)
    return Body((X, Y, X1 - X, Y1 - Y), mask, body.side_px * k)


@dataclass(frozen=True)
class ZoneRead:
    """The zone's die before calibration (``zone_die`` maps its scores): raw scores."""

    box: Box
    face: int | None
    face_confidence: float
    pips: int
    colour: str | None
    colour_confidence: float
    face_bgr: BGR
    reasons: tuple[Reason, ...]
    side_px: float
    #: the colour the body showed when its face did not read, if ``chromatic`` (``colour`` is
    #: then None: the body may not be a die's top face); a second reader that vouches for the
    #: face may name it again
    unread_colour: str | None = None
    #: a change in the zone with not a single pip: no die to the pips alone (a shadow, a card)
    pipless: bool = False


@dataclass(frozen=True)
class ZoneDie:
    """The zone's die as the pips alone read it (``reading``), with what they could not vouch
    for: ``unread_colour`` and ``pipless`` as in ``ZoneRead``. Why apart from the reading: a
    second opinion on the body (the learned net, ``vision.dice.learned.settle_zone``) can tell
    a die whose pips the counter missed (blur, a streak of glare) from a shadow, and only then
    are the withheld colour and the pipless body worth anything."""

    reading: DieReading
    unread_colour: str | None = None
    pipless: bool = False


def read_zone(
    image: np.ndarray,
    rect: Box,
    *,
    palette: Palette,
    white_gains: Sequence[float] | None,
    background: np.ndarray | None,
    faces: Sequence[int],
    die_px: float | None = None,
) -> ZoneRead | None:
    """The zone's die with raw scores (the reader calibrates them); None: no die."""
    crop = _as_crop(image, rect)
    empty = None
    if background is not None:
        if background.shape == image.shape:
            empty = _as_crop(background, rect)
        elif background.shape == crop.shape:
            empty = background
        else:
            raise ValueError(
                f"background {background.shape} matches neither the frame "
                f"{image.shape} nor the zone crop {crop.shape}"
            )
    # the body is found at a scale where the zone is at most FIND_PX wide (a full-resolution
    # zone is ~900 px: finding a 70 px body there is wasted work), then read at full scale
    k = int(np.ceil(max(crop.shape[:2]) / FIND_PX))  # an integer factor: OpenCV's fast path
    f = 1.0 / k
    if k > 1:
        size = (max(crop.shape[1] // k, 8), max(crop.shape[0] // k, 8))
        small = cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
        small_empty = (
            None if empty is None else cv2.resize(empty, size, interpolation=cv2.INTER_AREA)
        )
        sb = find_body(small, small_empty, None if die_px is None else die_px * f)
        body = None if sb is None else _upscaled(sb, 1.0 / f, crop.shape)
    else:
        body = find_body(crop, empty, die_px)
    if body is None:
        return None
    ox, oy = rect[:2]
    box = (body.box[0] + ox, body.box[1] + oy, body.box[2], body.box[3])
    reasons: list[Reason] = []
    big, mbig, side = scaled_body(crop, body)
    colour, colour_conf, face_bgr, why = classify_face_colour(big, mbig, side, palette, white_gains)
    if why:
        reasons.append(why)
    if colour is not None and colour_conf < COLOUR_MIN_CONF:
        colour = None
        reasons.append(
            Reason(
                Why.COLOUR_AMBIGUOUS,
                f"colour is between palette entries (confidence {colour_conf:.2f})",
            )
        )
    if body.side_px < MIN_DIE_SIDE_PX:
        fr = FaceRead(
            None,
            0.0,
            0,
            Reason(
                Why.DIE_TOO_SMALL,
                f"die is {body.side_px:.0f} px wide: too small for "
                "its pips (read the zone at a higher resolution)",
            ),
        )
    else:
        dark = dark_pips(colour, face_bgr)
        gray = cv2.cvtColor(big, cv2.COLOR_BGR2GRAY)
        fr = count_face(gray, mbig, side, dark, faces)
    # a change in the zone without a single pip: not a die to the pips (a shadow, a card)
    pipless = fr.pips == 0 and fr.face is None and body.side_px >= MIN_DIE_SIDE_PX
    if fr.why:
        reasons.append(fr.why)
    unread_colour = None
    if fr.face is None and colour is not None:
        # a body whose pips do not read may not be the die's top face at all (the board's own
        # pattern, a glint, a die half found): its colour is not trusted either. It is kept
        # aside for a second reader only if glare could not have made it (``chromatic``)
        unread_colour = colour if chromatic(palette, colour) else None
        colour = None
        reasons.append(Reason(Why.COLOUR_UNTRUSTED, "no readable face: colour not trusted"))
    return ZoneRead(
        box,
        fr.face,
        fr.confidence,
        fr.pips,
        colour,
        colour_conf,
        face_bgr,
        tuple(reasons),
        body.side_px,
        unread_colour,
        pipless,
    )


def chromatic(palette: Palette, name: str) -> bool:
    """Whether the palette's ``name`` is a colour glare cannot make. Why: glare that hides a
    face's pips also washes the face towards white, so a face whose pips did not read, named a
    neutral colour (white, grey, black: Lab chroma under ``NEUTRAL_CHROMA``), may be any die
    under glare (rendered zones: six blue, green, orange and yellow dice named white so)."""
    _, a, b = palette.colours[name]
    return bool(np.hypot(a, b) >= NEUTRAL_CHROMA)


def zone_palette(palette: Palette | None, expected_colours: Sequence[str] | None) -> Palette:
    """The palette narrowed to the colours that can appear: by default Camel Up's five."""
    pal = palette or default_palette()
    if expected_colours is None:
        names = [n for n in CAMEL_UP if n in pal.colours]
        expected_colours = names if len(names) >= 2 else None
    return pal.restricted(expected_colours)


def zone_die(
    image_bgr: np.ndarray,
    zone: object,
    *,
    palette: Palette | None = None,
    expected_colours: Sequence[str] | None = None,
    white_gains: Sequence[float] | None = None,
    background: np.ndarray | None = None,
    faces: Sequence[int] = (1, 2, 3),
    die_px: float | None = None,
) -> ZoneDie | None:
    """The one die in the reveal zone as its body and pips read it, or None when nothing that
    could be a die changed in the zone.

    ``zone``: a box (x, y, w, h) or a polygon (its bounding box is read: a standing die reaches
    above the zone's floor polygon). ``background``: the empty zone (the whole frame or the
    zone's crop) from before the die landed; without it the empty surface is estimated from the
    crop. ``expected_colours`` default to Camel Up's five; ``faces`` to Camel Up's 1..3.
    ``white_gains`` from the board's markers (``vision.dice.colour.gains_from_mask``).
    A die found but not readable comes back with face and/or colour None and a ``reason``; what
    the pips could not vouch for comes with it (``ZoneDie``): a body without a single pip (no
    die to the pips alone) and the colour an unread face withheld. The product path,
    ``vision.dice.read_die_in_zone``, settles both with the learned net.
    """
    img = as_bgr(image_bgr)
    faces = tuple(int(f) for f in faces)
    if not faces or any(f not in range(1, 7) for f in faces):
        raise ValueError(f"faces must be among 1..6, got {faces}")
    if background is not None:
        background = as_bgr(background)
    rect, _ = zone_rect(zone, img.shape)
    pal = zone_palette(palette, expected_colours)
    r = read_zone(
        img,
        rect,
        palette=pal,
        white_gains=white_gains,
        background=background,
        faces=faces,
        die_px=die_px,
    )
    if r is None:
        return None
    face_conf = calibrated(r.face_confidence)
    colour_conf = calibrated(r.colour_confidence)
    parts = [c for c, v in ((face_conf, r.face), (colour_conf, r.colour)) if v is not None]
    x, y, w, h = r.box
    reading = DieReading(
        box=(int(x), int(y), int(w), int(h)),
        face=r.face,
        colour=r.colour,
        confidence=float(min(parts)) if parts else 0.0,
        face_confidence=face_conf,
        colour_confidence=colour_conf,
        pips=int(r.pips),
        face_bgr=r.face_bgr,
        reasons=r.reasons,
    )
    return ZoneDie(reading, r.unread_colour, r.pipless)
