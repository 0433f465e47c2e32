"""Which faces of a whole frame are one die's: the top face of touching faces, two dice's pips
grouped as one face parted again.

Why a module of its own: these are the full-frame reader's placement rules, applied to pip
groups before any of them is read; they decide *which* faces are read, not what they read.
"""

from __future__ import annotations

import numpy as np

from vision.dice.face import fit_face
from vision.dice.pippath import Cand, extent

ONE_DIE_REACH = 1.0  # faces closer than this many of the larger's side are one die's (tuned:
# even byler: one die's faces 0.64..0.94 apart, two dice's mostly >= 1.06)
SPLIT_DIRECTIONS = 12  # cuts tried through a group of two dice's pips (every 15 degrees)
SPLIT_FIT_MIN = 0.8  # both faces of a cut must fit this well (tuned: even byler)
SPLIT_SIDE_RATIO = 1.3  # ... and be about one size


def squareness(c: Cand) -> tuple[float, float, float]:
    """Rank of a face as the top one: reads as a face, seen squarely, large round pips."""
    g, fit = c
    ok = 1.0 if fit is not None and fit.confidence > 0 else 0.0
    round_ = float(np.median([p.axis_ratio for p in g]))
    r = float(np.median([p.r for p in g]))
    return (ok, round(round_, 1), r)


def face_side(cand: Cand) -> float:
    """A candidate's face side: the fitted square's, else its pips' extent."""
    g, fit = cand
    if fit is not None:
        return float(fit.side_px)
    x0, y0, x1, y1 = extent(g, fit)
    return float(max(x1 - x0, y1 - y0))


def one_per_die(cands: list[Cand]) -> list[Cand]:
    """Of faces that touch (the top and a side face of one die), keep the squarest.

    Faces of one die lie closer than the larger face's side (a side face's centre is about half
    a side from the top's); faces of two dice side by side lie at least about a die's side apart,
    which is more than its face's. So the reach is measured in the faces' fitted sides, not their
    boxes (a turned face's box is up to 1.4 times its side, and two neighbouring dice's boxes
    reached each other)."""
    order = sorted(cands, key=squareness, reverse=True)
    kept: list[Cand] = []
    geo: list[tuple[float, float, float]] = []
    for c in order:
        x0, y0, x1, y1 = extent(*c)
        cx, cy, s = (x0 + x1) / 2, (y0 + y1) / 2, face_side(c)
        if any(np.hypot(cx - kx, cy - ky) < ONE_DIE_REACH * max(s, ks) for kx, ky, ks in geo):
            continue
        kept.append(c)
        geo.append((cx, cy, s))
    return kept


def two_faces(cands: list[Cand]) -> list[Cand]:
    """A group of 7..12 pips that fits no face split into the two faces it may be.

    Two dice of one colour touching (two green dice side by side) show pips that link across
    the thin gap between them into one group no face fits. Such a group is cut by a straight
    line (the gap) in each of ``SPLIT_DIRECTIONS`` directions; the cut is kept when both sides
    fit faces at ``SPLIT_FIT_MIN`` at least, of about one size, lying apart as two dice do.
    Else the group stays as it was (no face)."""
    if len(cands) != 1 or cands[0][1] is not None or not 7 <= len(cands[0][0]) <= 12:
        return cands
    g = cands[0][0]
    pts = np.array([(p.x, p.y) for p in g])
    best: tuple[float, list[Cand]] | None = None
    for a in np.linspace(0, np.pi, SPLIT_DIRECTIONS, endpoint=False):
        order = np.argsort(pts @ np.array([np.cos(a), np.sin(a)]))
        for k in range(len(g) - 6, 7):
            halves = [[g[i] for i in order[:k]], [g[i] for i in order[k:]]]
            f0, f1 = fit_face(halves[0]), fit_face(halves[1])
            if f0 is None or f1 is None or min(f0.confidence, f1.confidence) < SPLIT_FIT_MIN:
                continue
            s0, s1 = f0.side_px, f1.side_px
            gap = np.hypot(*(f0.corners.mean(axis=0) - f1.corners.mean(axis=0)))
            if max(s0, s1) > SPLIT_SIDE_RATIO * min(s0, s1) or gap < ONE_DIE_REACH * max(s0, s1):
                continue
            score = min(f0.confidence, f1.confidence)
            if best is None or score > best[0]:
                best = (score, [(halves[0], f0), (halves[1], f1)])
    return cands if best is None else best[1]
