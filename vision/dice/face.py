"""From pips to faces: group the pips of one face, then check they form a die's pattern.

Why geometry and not a count alone: a count is wrong whenever a pip of a side face, a speck on the
table or a glare spot joins the group. A face is accepted only when its pips are the same size,
sit on one uniform face colour, and fit the canonical layout of that count under an affine map
that is nearly a square (a die seen slightly obliquely). Anything else abstains.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import cv2
import numpy as np

from vision.dice.pips import Pip

#: a pip's offset from the face's centre along a side, in sides (as the renderer draws them)
PIP_OFFSET = 0.27
_Q = PIP_OFFSET
LAYOUT: dict[int, np.ndarray] = {
    n: np.array(p, np.float64)
    for n, p in {
        2: [(-_Q, -_Q), (_Q, _Q)],
        3: [(-_Q, -_Q), (0, 0), (_Q, _Q)],
        4: [(-_Q, -_Q), (_Q, -_Q), (-_Q, _Q), (_Q, _Q)],
        5: [(-_Q, -_Q), (_Q, -_Q), (0, 0), (-_Q, _Q), (_Q, _Q)],
        6: [(-_Q, -_Q), (-_Q, 0), (-_Q, _Q), (_Q, -_Q), (_Q, 0), (_Q, _Q)],
    }.items()
}
_PERMS = {n: np.array(list(itertools.permutations(range(n))), np.intp) for n in LAYOUT}


@dataclass(frozen=True)
class FaceFit:
    """A group of pips read as a face: count, how well it fits, and the face's corners."""

    face: int
    residual: float  # RMS misfit in face sides (0 = perfect)
    anisotropy: float  # minor/major singular value of the fitted map (1 = seen square-on)
    side_px: float
    corners: np.ndarray  # 4x2, the face square mapped into the image
    confidence: float


def fit_face(pips: list[Pip]) -> FaceFit | None:
    """Fit ``pips`` to the layout of their count; None if the count is not 1..6."""
    n = len(pips)
    pts = np.array([(p.x, p.y) for p in pips], np.float64)
    radius = float(np.median([p.r for p in pips])) if pips else 0.0
    if n == 1:
        # one pip: the face is only known from the pip; real dice often have a larger "1" pip
        side = radius / 0.13
        c = pts[0]
        corners = c + np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], np.float64) * side / 2
        roundness = pips[0].axis_ratio
        conf = float(np.clip((roundness - 0.6) / 0.3, 0, 1))
        return FaceFit(1, 0.0, roundness, side, corners, conf)
    if n not in LAYOUT:
        return None
    if n == 3:
        return _fit_three(pts, radius)
    canon = LAYOUT[n]
    centred = pts - pts.mean(axis=0)
    perms = _PERMS[n]
    obs = centred[perms]  # (P, n, 2) observed points in each order
    if n == 2:
        # two pips fix only a similarity: scale from their distance
        dist = float(np.linalg.norm(pts[0] - pts[1]))
        side = dist / (2 * np.sqrt(2) * _Q)
        v = (pts[1] - pts[0]) / max(dist, 1e-6)
        rot = np.array([[v[0], -v[1]], [v[1], v[0]]]) @ np.array(
            [[np.cos(-np.pi / 4), -np.sin(-np.pi / 4)], [np.sin(-np.pi / 4), np.cos(-np.pi / 4)]]
        )
        a = rot * side
        resid, aniso = 0.0, 1.0
    else:
        cc = canon - canon.mean(axis=0)
        pinv = np.linalg.pinv(cc)  # (2, n)
        maps = np.einsum("kn,pnd->pkd", pinv, obs)  # (P, 2, 2): canon @ M ~ obs
        pred = np.einsum("nk,pkd->pnd", cc, maps)
        err = np.sqrt(((pred - obs) ** 2).sum(axis=2).mean(axis=1))
        sv = np.linalg.svd(maps, compute_uv=False)
        scale = np.sqrt(np.abs(sv[:, 0] * sv[:, 1])) + 1e-9
        score = err / scale
        best = int(np.argmin(score))
        resid = float(score[best])
        aniso = float(sv[best, 1] / max(sv[best, 0], 1e-9))
        side = float(scale[best])
        a = maps[best].T
        # reflections are fine (the layouts are symmetric), collinear 3 has one free axis
        if n == 3:
            aniso = 1.0
    centre = pts.mean(axis=0) - (a @ LAYOUT[n].mean(axis=0) if n == 3 else 0)
    sq = np.array([(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)], np.float64)
    if n == 3:
        # the map is degenerate across the diagonal; build the square from the diagonal itself
        d = pts[np.argmax(np.linalg.norm(centred, axis=1))] - pts.mean(axis=0)
        side = float(np.linalg.norm(d) / (np.sqrt(2) * _Q))
        u = d / max(np.linalg.norm(d), 1e-9)
        perp = np.array([-u[1], u[0]])
        half_diag = side / np.sqrt(2)
        corners = np.array(
            [
                pts.mean(axis=0) + half_diag * u,
                pts.mean(axis=0) + half_diag * perp,
                pts.mean(axis=0) - half_diag * u,
                pts.mean(axis=0) - half_diag * perp,
            ]
        )
    else:
        corners = centre + sq @ a.T
    # pip size relative to the face: a die's pips are 0.06..0.16 of its side
    rel = radius / max(side, 1e-6)
    size_ok = 0.05 <= rel <= 0.2
    conf = float(np.clip(1.0 - resid / 0.06, 0, 1) * np.clip((aniso - 0.45) / 0.25, 0, 1))
    if not size_ok:
        conf = 0.0
    return FaceFit(n, resid, aniso, side, corners, conf)


def group_pips(pips: list[Pip], image_bgr: np.ndarray) -> list[list[Pip]]:
    """Link pips that could share one face, and return the connected groups.

    Two pips link when they have the same polarity and size, their rings have the same colour,
    they are no further apart than the diagonal pips of a face, and the straight path between
    them stays on that face colour (it crosses no die edge, no gap between two dice). The
    paths' colours are made Lab where they are sampled, never the whole image's (a 1280x720
    frame's float Lab is 11 MB, the whole-frame read's memory peak in the watch: issue 14).
    """
    n = len(pips)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    h, w = image_bgr.shape[:2]
    lab_ring = labs_of([p.ring_bgr for p in pips])
    xyr = np.array([(p.x, p.y, p.r) for p in pips], np.float64).reshape(-1, 3)
    for i in range(n):
        for j in range(i + 1, n):
            a, b = pips[i], pips[j]
            if a.dark != b.dark:
                continue
            ra, rb = a.r, b.r
            if max(ra, rb) > 1.45 * min(ra, rb):
                continue
            rm = (ra + rb) / 2
            d = float(np.hypot(a.x - b.x, a.y - b.y))
            if d > 10.5 * rm or d < 2.2 * rm:
                continue
            if np.linalg.norm(lab_ring[i] - lab_ring[j]) > 22:
                continue
            if not _path_on_face(a, b, xyr, image_bgr, (lab_ring[i] + lab_ring[j]) / 2, w, h):
                continue
            parent[find(i)] = find(j)
    groups: dict[int, list[Pip]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(pips[i])
    return list(groups.values())


def labs_of(bgrs: list[tuple[float, float, float]]) -> np.ndarray:
    """Lab of many colours in one conversion."""
    if not bgrs:
        return np.zeros((0, 3))
    px = np.array([bgrs], np.float32) / 255.0
    out: np.ndarray = cv2.cvtColor(px, cv2.COLOR_BGR2Lab)[0].astype(np.float64)
    return out


def lab_at(image_bgr: np.ndarray, yi: np.ndarray, xi: np.ndarray) -> np.ndarray:
    """The float Lab of ``image_bgr``'s pixels at (``yi``, ``xi``): the numbers of
    ``cvtColor(image_bgr / 255.0, BGR2Lab)[yi, xi]`` (the conversion is per pixel, so
    converting only the sampled pixels gives the same floats, to the bit)."""
    px = image_bgr[yi, xi].astype(np.float32)[None]
    np.divide(px, np.float32(255.0), out=px)
    out: np.ndarray = cv2.cvtColor(px, cv2.COLOR_BGR2Lab)[0]
    return out


def _path_on_face(
    a: Pip, b: Pip, xyr: np.ndarray, image_bgr: np.ndarray, face_lab: np.ndarray, w: int, h: int
) -> bool:
    """Whether the straight path from ``a`` to ``b`` keeps to ``face_lab`` where no pip lies on
    it (``xyr``: every pip's x, y and radius). Why the pips are tested near the path only: on a
    page of print (hundreds of pip-like holes and dots) testing every pip for every pair of
    pips took most of a frame's read; a pip farther from the path's box than its 1.4 radii
    cannot touch a sample of the path, so the samples kept are the same."""
    d = float(np.hypot(a.x - b.x, a.y - b.y))
    k = max(int(d / 1.5), 4)
    t = np.linspace(0, 1, k)
    xs = a.x + (b.x - a.x) * t
    ys = a.y + (b.y - a.y) * t
    reach = 1.4 * xyr[:, 2] + 1.0
    near = xyr[
        (xyr[:, 0] + reach >= xs.min())
        & (xyr[:, 0] - reach <= xs.max())
        & (xyr[:, 1] + reach >= ys.min())
        & (xyr[:, 1] - reach <= ys.max())
    ]
    keep = np.ones(k, bool)
    for px, py, pr in near:
        keep &= (xs - px) ** 2 + (ys - py) ** 2 > (1.4 * pr) ** 2
    if keep.sum() < 2:
        return True
    xi = np.clip(np.round(xs[keep]).astype(int), 0, w - 1)
    yi = np.clip(np.round(ys[keep]).astype(int), 0, h - 1)
    vals = lab_at(image_bgr, yi, xi).astype(np.float64)
    dist = np.linalg.norm(vals - face_lab, axis=1)
    return float((dist < 25).mean()) >= 0.85


def _fit_three(pts: np.ndarray, radius: float) -> FaceFit:
    """Three pips: collinear, evenly spaced, on the face's diagonal."""
    c = pts.mean(axis=0)
    centred = pts - c
    _, _, vt = np.linalg.svd(centred)
    u = vt[0]
    proj = centred @ u
    order = np.argsort(proj)
    ends = pts[order[[0, 2]]]
    mid = pts[order[1]]
    length = float(np.linalg.norm(ends[1] - ends[0]))
    # misfit: middle pip away from the midpoint, in face sides
    side = length / (2 * np.sqrt(2) * _Q)
    resid = float(np.linalg.norm(mid - ends.mean(axis=0)) / max(side, 1e-6))
    perp = np.array([-u[1], u[0]])
    half_diag = side / np.sqrt(2)
    m = ends.mean(axis=0)
    corners = np.array(
        [m + half_diag * u, m + half_diag * perp, m - half_diag * u, m - half_diag * perp]
    )
    rel = radius / max(side, 1e-6)
    conf = float(np.clip(1.0 - resid / 0.06, 0, 1)) if 0.05 <= rel <= 0.2 else 0.0
    return FaceFit(3, resid, 1.0, side, corners, conf)
