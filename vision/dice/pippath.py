"""The pip path: dice read from their pips alone (a zone of a frame, or a face with no body).

Pipeline: pip candidates (``pips``) -> groups of pips on one face (``face.group_pips``) -> the
group's count checked against the die layouts (``face.fit_face``) -> the face colour (the median
ring colour round the pips, white-balanced) against the palette. Faces that overlap are the same
die seen on two sides: the one with the larger, rounder pips is the top. Every part abstains (None)
below its confidence threshold: the hub asks a person rather than trust a doubtful reading.

The full-frame reader (``fullframe``) uses these pieces too, for a body's face and for pips with
no body round them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np

from vision.dice.face import FaceFit, fit_face, group_pips
from vision.dice.pips import Pip, find_pips
from vision.dice.reading import BGR, DiceReport, DieReading, Polygon
from vision.dice.reasons import Reason, Why
from vision.palette import Palette
from vision.whitebalance import balance_colour

FACE_THRESHOLD = 0.5
COLOUR_THRESHOLD = 0.3
BLUR_MIN = 0.18  # steepest pip edge per pixel over the pip's contrast; below: too blurred
#: a square's median distance from its centre to its edge over 16 evenly spread directions, in
#: half sides (4 rays of 1, 8 of 1/cos 22.5 deg, 4 of sqrt 2)
RAY_PER_HALF_SIDE = 1.0 / float(np.cos(np.pi / 8))
SPOT_OPEN = 0.45  # opening radius, in pip radii, that tells an unexplained pip from a rim's arc

#: a group of pips and the face it fits (None: no face)
Cand = tuple[list[Pip], FaceFit | None]
Extent = tuple[float, float, float, float]  # x0, y0, x1, y1


def read_pips(
    img: np.ndarray,
    gray: np.ndarray,
    pal: Palette,
    gains: Sequence[float] | None,
    ox: int,
    oy: int,
    poly: Polygon | None,
) -> DiceReport:
    """Every die of ``img`` (a zone cut at (``ox``, ``oy``) from its frame) by its pips; only
    those whose centre lies in ``poly`` (frame pixels) if given."""
    pips = find_pips(img)
    if not pips:
        sharp = float(cv2.Laplacian(gray, cv2.CV_32F).var())
        if sharp < 15:
            return DiceReport([], Reason(Why.NO_PIPS_BLURRED, "no pips found (frame is blurred)"))
        return DiceReport([], Reason(Why.NO_PIPS, "no pips found"))
    groups = group_pips(pips, img)
    cands = [c for g in groups for c in candidates(g)]
    cands = keep_top_faces(cands)
    out: list[DieReading] = []
    for group, fit in cands:
        why = unexplained_spot(gray, group, fit) if fit is not None else None
        reading = pip_reading(group, fit, pal, gains, img.shape, ox, oy, why)
        if reading is None:
            continue
        reading = grown_to_reach(reading, gray, group, fit, ox, oy)
        if poly is not None:
            cx = reading.box[0] + reading.box[2] / 2
            cy = reading.box[1] + reading.box[3] / 2
            if cv2.pointPolygonTest(poly.astype(np.float32), (cx, cy), False) < 0:
                continue
        out.append(reading)
    out.sort(key=lambda r: (r.box[1], r.box[0]))
    return DiceReport(
        out, None if out else Reason(Why.NO_PIP_PATTERN, "no die-like pip pattern found")
    )


def candidates(group: list[Pip]) -> list[Cand]:
    """A group and its fit. Foreshortened pips (a side face seen edge-on) are dropped first."""
    if len(group) > 1:
        rmax = max(p.r for p in group)
        core = [p for p in group if p.axis_ratio >= 0.6 and p.r >= 0.7 * rmax]
        if core:
            group = core
    if len(group) > 6:
        return [(group, None)]
    return [(group, fit_face(group))]


def extent(group: list[Pip], fit: FaceFit | None) -> Extent:
    """(x0, y0, x1, y1) of a face: its fitted square, else its pips grown by 3 pip radii."""
    if fit is not None:
        xs, ys = fit.corners[:, 0], fit.corners[:, 1]
        return float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max())
    xs = np.array([p.x for p in group])
    ys = np.array([p.y for p in group])
    r = max(p.r for p in group) * 3
    return float(xs.min() - r), float(ys.min() - r), float(xs.max() + r), float(ys.max() + r)


def keep_top_faces(cands: list[Cand]) -> list[Cand]:
    """One reading per die: of overlapping faces keep the one with larger pips, then more pips."""

    def rank(c: Cand) -> tuple[float, float]:
        g, fit = c
        return (
            float(np.median([p.r for p in g])) * (1.0 if fit and fit.confidence > 0 else 0.8),
            len(g),
        )

    order = sorted(cands, key=rank, reverse=True)
    kept: list[Cand] = []
    boxes: list[Extent] = []
    for c in order:
        x0, y0, x1, y1 = extent(*c)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        clash = False
        for bx0, by0, bx1, by1 in boxes:
            # a candidate whose centre falls in a kept face, or that contains a kept face's centre
            if (bx0 <= cx <= bx1 and by0 <= cy <= by1) or (
                x0 <= (bx0 + bx1) / 2 <= x1 and y0 <= (by0 + by1) / 2 <= y1
            ):
                clash = True
                break
        if not clash:
            kept.append(c)
            boxes.append((x0, y0, x1, y1))
    return kept


def pip_reading(
    group: list[Pip],
    fit: FaceFit | None,
    pal: Palette,
    gains: Sequence[float] | None,
    shape: tuple[int, ...],
    ox: int,
    oy: int,
    veto: Reason | None = None,
) -> DieReading | None:
    """The reading of one group: its face unless ``veto``ed or unsure, its ring colour.
    None when its box is under 3 px (a group at the frame's edge)."""
    H, W = shape[:2]
    x0, y0, x1, y1 = extent(group, fit)
    pad = 0.06 * max(x1 - x0, y1 - y0)
    bx0, by0 = int(max(np.floor(x0 - pad), 0)), int(max(np.floor(y0 - pad), 0))
    bx1, by1 = int(min(np.ceil(x1 + pad), W)), int(min(np.ceil(y1 + pad), H))
    if bx1 - bx0 < 3 or by1 - by0 < 3:
        return None
    reasons: list[Reason] = []
    face: int | None = None
    face_conf = 0.0
    if fit is None:
        reasons.append(Reason(Why.PIPS_NOT_A_FACE, f"{len(group)} pips do not make a face"))
    else:
        face_conf = fit.confidence
        if len(group) == 1:
            p = group[0]
            # a lone blob is a face 1 only if it is large enough to be sure it is not a speck
            face_conf *= float(np.clip((p.r - 2.0) / 2.0, 0, 1))
        if veto:
            reasons.append(veto)
        elif face_conf >= FACE_THRESHOLD:
            face = fit.face
        else:
            reasons.append(
                Reason(
                    Why.POOR_FIT, f"pips do not fit face {fit.face} (confidence {face_conf:.2f})"
                )
            )
    bgr = np.median(np.array([p.ring_bgr for p in group]), axis=0)
    balanced = balance_colour(bgr, gains)
    colour, colour_conf = pal.classify(balanced)
    if colour is not None and colour_conf < COLOUR_THRESHOLD:
        colour = None
    if colour is None:
        reasons.append(Reason(Why.COLOUR_AMBIGUOUS, "colour is between palette entries"))
    parts = [c for c, v in ((face_conf, face), (colour_conf, colour)) if v is not None]
    confidence = float(min(parts)) if parts else 0.0
    face_bgr: BGR = (float(balanced[0]), float(balanced[1]), float(balanced[2]))
    return DieReading(
        box=(bx0 + ox, by0 + oy, bx1 - bx0, by1 - by0),
        face=face,
        colour=colour,
        confidence=confidence,
        face_confidence=float(face_conf),
        colour_confidence=float(colour_conf),
        pips=len(group),
        face_bgr=face_bgr,
        reasons=tuple(reasons),
    )


def unexplained_spot(gray: np.ndarray, group: list[Pip], fit: FaceFit) -> Reason | None:
    """A pip-coloured spot on the face that is not one of the group's pips: a pip we missed.

    The guard against the one forbidden error: a face read with a pip too few. For a lone pip
    the face's extent is measured by walking out from it until the face colour ends.
    """
    h, w = gray.shape
    blur = blur_score(gray, group)
    if blur < BLUR_MIN:
        return Reason(Why.PIPS_BLURRED, f"pips are blurred (edge sharpness {blur:.2f})")
    ring = float(np.median([p.ring_grey for p in group]))
    contrast = float(np.median([p.contrast for p in group]))
    dark = group[0].dark
    r = float(np.median([p.r for p in group]))
    c = fit.corners.mean(axis=0)
    lengths_a = face_rays(gray, group, fit)
    reach = float(np.median(lengths_a))
    if len(group) == 1:
        # the lone pip must sit in the middle of its face: opposite rays about equally long
        opp = np.abs(lengths_a[:8] - lengths_a[8:]) / max(reach, 1e-6)
        if float(np.median(opp)) > 0.5:
            return Reason(Why.LONE_PIP_OFF_CENTRE, "lone pip is off the centre of its face")
        # a die's single pip is at most ~0.4 of the way to the face's edge; a marker's black
        # square in its white border (blurred round) is larger than that
        if r / max(reach, 1e-6) > 0.42:
            return Reason(
                Why.LONE_BLOB_TOO_LARGE, "lone blob is too large for its face to be a die's pip"
            )
        radius = 0.9 * reach
    else:
        # the face colour must end about where the fitted face ends (a face 3 with a pip
        # missed fits a small face 2 but its colour goes on well beyond)
        if not 0.3 <= reach / max(fit.side_px, 1e-6) <= 1.5:
            return Reason(
                Why.FACE_COLOUR_REACH,
                f"face colour reaches {reach:.0f} px, the fitted face {fit.side_px:.0f} px",
            )
        radius = 0.38 * fit.side_px
    x0, x1 = int(max(c[0] - radius, 0)), int(min(c[0] + radius + 1, w))
    y0, y1 = int(max(c[1] - radius, 0)), int(min(c[1] + radius + 1, h))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    yy, xx = np.mgrid[y0:y1, x0:x1]
    inside = (xx - c[0]) ** 2 + (yy - c[1]) ** 2 <= radius**2
    for p in group:
        inside &= (xx - p.x) ** 2 + (yy - p.y) ** 2 > (1.6 * p.r) ** 2
    patch = gray[y0:y1, x0:x1].astype(np.float32)
    thr = 0.5 * contrast
    spot = (patch < ring - thr) if dark else (patch > ring + thr)
    spot &= inside
    # only pip-sized spots count: an opening by a disk a little under the pip's radius keeps a
    # pip (whole, or cut by the search disk's edge) and removes the thin arcs of table or lit
    # rim the disk takes in where the face's colour did not end where its edge does (a side
    # face the grey of the top face)
    k = 2 * int(round(SPOT_OPEN * r)) + 1
    if k >= 3:
        spot = (
            cv2.morphologyEx(
                spot.astype(np.uint8),
                cv2.MORPH_OPEN,
                cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)),
            )
            > 0
        )
    if int(spot.sum()) > 0.5 * np.pi * r * r:
        return Reason(
            Why.MISSED_PIP_SPOT, "a pip-coloured spot on the face is not a pip of the group"
        )
    return None


def face_rays(gray: np.ndarray, group: list[Pip], fit: FaceFit) -> np.ndarray:
    """How far the face's colour goes from the fitted face's centre, in pixels, along 16 rays
    (the group's own pips do not end it), up to 12 pip radii."""
    h, w = gray.shape
    ring = float(np.median([p.ring_grey for p in group]))
    contrast = float(np.median([p.contrast for p in group]))
    r = float(np.median([p.r for p in group]))
    c = fit.corners.mean(axis=0)
    lengths = []
    for a in np.linspace(0, 2 * np.pi, 16, endpoint=False):
        t = np.arange(1.6 * r, 12 * r, max(r / 3, 0.7))
        fx, fy = c[0] + t * np.cos(a), c[1] + t * np.sin(a)
        free = np.ones(len(t), bool)
        for p in group:  # the group's own pips do not end the face
            free &= (fx - p.x) ** 2 + (fy - p.y) ** 2 > (1.6 * p.r) ** 2
        xs = np.clip(np.round(fx).astype(int), 0, w - 1)
        ys = np.clip(np.round(fy).astype(int), 0, h - 1)
        off = (np.abs(gray[ys, xs].astype(np.float32) - ring) > max(0.25 * contrast, 15)) & free
        idx = np.nonzero(off)[0]
        lengths.append(float(t[idx[0]]) if len(idx) else float(t[-1]))
    return np.array(lengths)


def reach_side(gray: np.ndarray, group: list[Pip], fit: FaceFit) -> float:
    """The side, in pixels, of the square face the face's colour fills round the group
    (``face_rays``: a square's median ray over 16 directions is ``RAY_PER_HALF_SIDE`` of its
    half side)."""
    return 2.0 * float(np.median(face_rays(gray, group, fit))) / RAY_PER_HALF_SIDE


def grown_to_reach(
    r: DieReading, gray: np.ndarray, group: list[Pip], fit: FaceFit | None, ox: int, oy: int
) -> DieReading:
    """``r`` boxed by the face its colour fills where the pip path found that face much larger
    than the group's fitted face (``Why.FACE_COLOUR_REACH``); else ``r`` as it is.

    Why: the box is what the learned net is shown (``learned.propose``). Boxed by the fitted
    face, a key's ":" is two dots on a light square that fills the whole crop: a die's 2 seen
    close, to the net as to anyone (0.98); boxed by its keycap, it is a key (0.01). A face 3
    with a pip missed likewise shows its third pip only in the larger box."""
    if fit is None or not any(x.code == Why.FACE_COLOUR_REACH for x in r.reasons):
        return r
    h, w = gray.shape
    c = fit.corners.mean(axis=0)
    half = 0.5 * reach_side(gray, group, fit)
    x0, y0 = int(max(np.floor(c[0] - half), 0)), int(max(np.floor(c[1] - half), 0))
    x1, y1 = int(min(np.ceil(c[0] + half), w)), int(min(np.ceil(c[1] + half), h))
    if x1 - x0 < 3 or y1 - y0 < 3:
        return r
    return replace(r, box=(x0 + ox, y0 + oy, x1 - x0, y1 - y0))


def blur_score(gray: np.ndarray, group: list[Pip]) -> float:
    """How sharp the pips' edges are: the steepest grey step per pixel over the pip contrast.

    A sharp pip's edge spans one or two pixels (score ~0.3..0.6); a blurred one is a soft blob
    whose missing neighbours may have melted into the die's edge, so its count is not trusted.
    """
    h, w = gray.shape
    scores = []
    for p in group:
        m = int(np.ceil(1.8 * p.r)) + 2
        x0, x1 = int(max(p.x - m, 0)), int(min(p.x + m + 1, w))
        y0, y1 = int(max(p.y - m, 0)), int(min(p.y + m + 1, h))
        patch = gray[y0:y1, x0:x1].astype(np.float32)
        if patch.shape[0] < 3 or patch.shape[1] < 3:
            continue
        gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3) / 8.0
        gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3) / 8.0
        scores.append(float(np.sqrt(gx * gx + gy * gy).max()) / max(p.contrast, 1e-6))
    return float(np.median(scores)) if scores else 0.0
