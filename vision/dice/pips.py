"""Pip candidates: small round blobs that contrast with a uniform ring around them.

Why MSER: pips come at any scale (a 20 px die across a tray, a 150 px die in the reveal zone)
and either polarity (black pips on a yellow die, white pips on a blue one). Maximally stable
extremal regions find blobs at every scale and both polarities in one pass, without a scale
parameter to tune per camera. Each region is then kept only if it is round, solid, and darker or
lighter than a ring of uniform colour around it -- the die face -- which is what a pip is and
what wood grain, text and shadows are not.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class Pip:
    """A pip candidate. ``ring_bgr`` is the median colour of the face around it."""

    x: float
    y: float
    r: float  # radius of the equal-area circle
    axis_ratio: float  # minor / major axis of the fitted ellipse, 1 for a circle
    dark: bool  # darker than its ring
    contrast: float  # |pip grey - ring grey|
    ring_grey: float
    ring_std: float
    ring_bgr: tuple[float, float, float]


_BLOCKS = (15, 31, 63, 127)  # local-mean windows; each finds pips of diameter block/6..block/2.2
_BAND = 128  # rows of a pip mask made at once


def find_pips(
    image_bgr: np.ndarray,
    *,
    min_r: float = 1.8,
    max_r: float = 40.0,
    min_contrast: float = 28.0,
    gray: np.ndarray | None = None,
) -> list[Pip]:
    """Every pip-like blob of radius ``min_r``..``max_r`` px in the image, strongest first.

    A pixel is pip-like at window ``b`` if it is darker (or lighter) than the mean of the b x b
    window around it by a margin; connected components of such pixels whose size fits the window,
    and which are round and solid, become candidates, checked against a ring around them.
    ``gray``: the image's grey if the caller has it (a whole frame's read peaks here, issue 14:
    one frame-sized grey fewer).
    """
    if gray is None:
        gray = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    h, w = gray.shape
    mask = np.empty((h, w), np.uint8)
    cands: list[tuple[float, float, float, float]] = []
    for block in _BLOCKS:
        d_lo, d_hi = block / 6.0, block / 2.2
        if d_hi / 2 < min_r or d_lo / 2 > max_r or block > 2 * max(h, w):
            continue
        base = max(min_contrast * 0.5, 10.0)
        # a second, stricter margin splits a pip from a dark edge or shadow it touches
        for dark, margin in ((True, base), (False, base), (True, 2.5 * base), (False, 2.5 * base)):
            _pip_mask(gray, block, dark, margin, out=mask)
            n, stats, cents = _component_stats(mask)
            if n <= 1:
                continue
            st = stats[1:]
            bw, bh, area = st[:, 2], st[:, 3], st[:, 4]
            dmax = np.maximum(bw, bh)
            fill = area / np.maximum(bw * bh, 1)
            rr = np.sqrt(area / np.pi)
            ok = (
                (dmax >= d_lo)
                & (dmax <= d_hi)
                & (np.minimum(bw, bh) >= 0.45 * dmax)
                & (fill >= 0.5)
                & (fill <= 0.95)
                & (rr >= min_r)
                & (rr <= max_r)
            )
            for i in np.nonzero(ok)[0]:
                cands.append(
                    (float(cents[i + 1][0]), float(cents[i + 1][1]), float(rr[i]), float(dark))
                )
    found: list[Pip] = []
    for cx, cy, r, dark_f in cands:
        p = _check_ring(image_bgr, gray, cx, cy, r, bool(dark_f), min_contrast)
        if p is not None:
            found.append(p)
    return _suppress(found)


def _component_stats(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """(count, stats, centroids) of ``mask``'s 8-connected components, as
    ``cv2.connectedComponentsWithStats`` gives them.

    Why not that call as it is: its labels image (never used here) takes 4 bytes a pixel, and
    a whole frame's read peaked on it (issue 14). Labels of 2 bytes give the same components,
    numbered alike, when there are fewer than 2^16 of them; every component begins a run of set
    pixels along a row, so fewer runs than that is enough (else 4 bytes, as before)."""
    runs = int(np.count_nonzero(mask[:, :1]))
    for y0 in range(0, mask.shape[0], _BAND):  # by bands: a frame-sized bool array fewer
        band = mask[y0 : y0 + _BAND]
        runs += int(np.count_nonzero(band[:, 1:] > band[:, :-1]))
    ltype = cv2.CV_16U if runs < 0xFFFF else cv2.CV_32S
    got = cv2.connectedComponentsWithStats(mask, connectivity=8, ltype=ltype)
    n, stats, cents = got[0], got[2], got[3]
    del got  # the labels image: let it go at once
    return int(n), stats, cents


def _pip_mask(gray: np.ndarray, block: int, dark: bool, margin: float, out: np.ndarray) -> None:
    """``out`` = 1 where ``gray`` is darker (``dark``) or lighter than the mean of the ``block``
    square round it by more than ``margin``, made a band of rows at a time.

    Why bands: a whole frame's read peaked here, at four frame-sized float images (issue 14);
    a band with ``block // 2`` rows of the frame above and below it has the same means as the
    whole frame's box filter (its sums of whole grey levels are exact, whatever row they start
    at; the replicated border is the frame's own at its top and bottom), so the mask is the
    same to the bit, for a band's floats."""
    h = gray.shape[0]
    halo = block // 2
    for y0 in range(0, h, _BAND):
        y1 = min(y0 + _BAND, h)
        a, b = max(y0 - halo, 0), min(y1 + halo, h)
        g = gray[a:b].astype(np.float32)
        mean = cv2.boxFilter(g, -1, (block, block), borderType=cv2.BORDER_REPLICATE)
        g, mean = g[y0 - a : y1 - a], mean[y0 - a : y1 - a]
        if dark:
            np.less(g, np.subtract(mean, margin, out=mean), out=out[y0:y1])
        else:
            np.greater(g, np.add(mean, margin, out=mean), out=out[y0:y1])


def _check_ring(
    image_bgr: np.ndarray,
    gray: np.ndarray,
    cx: float,
    cy: float,
    r: float,
    dark: bool,
    min_contrast: float,
) -> Pip | None:
    """Keep a blob only if it is round and set in a uniform ring of a different grey."""
    h, w = gray.shape
    r_out = 2.2 * r + 1.0
    x0, x1 = int(max(cx - r_out, 0)), int(min(cx + r_out + 1, w))
    y0, y1 = int(max(cy - r_out, 0)), int(min(cy + r_out + 1, h))
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    yy, xx = np.mgrid[y0:y1, x0:x1]
    d2 = (xx - cx) ** 2 + (yy - cy) ** 2
    ring = (d2 >= (1.5 * r) ** 2) & (d2 <= r_out**2)
    core = d2 <= (0.6 * r) ** 2
    if ring.sum() < 8 or core.sum() < 1:
        return None
    patch = gray[y0:y1, x0:x1].astype(np.float32)
    ring_vals = patch[ring]
    ring_med = float(np.median(ring_vals))
    pip_val = float(np.median(patch[core]))
    contrast = abs(pip_val - ring_med)
    # robust spread: a ring that clips a die's edge keeps most of its pixels on the face
    ring_std = float(1.4826 * np.median(np.abs(ring_vals - ring_med)))
    if (pip_val < ring_med) != dark or contrast < min_contrast or contrast < 2.2 * ring_std:
        return None
    # roundness: the blob's own pixels (those past half-way to the ring's grey) and their spread
    half = (pip_val + ring_med) / 2
    inside = (patch < half) if dark else (patch > half)
    inside &= d2 <= (1.5 * r) ** 2
    ys, xs = np.nonzero(inside)
    if len(xs) < 4:
        return None
    cov = np.cov(np.vstack([xs, ys]).astype(np.float32))
    ev = np.linalg.eigvalsh(cov)
    ratio = float(np.sqrt(max(ev[0], 1e-6) / max(ev[1], 1e-6)))
    bgr = np.median(image_bgr[y0:y1, x0:x1][ring].astype(np.float32), axis=0)
    return Pip(
        float(x0 + xs.mean()),
        float(y0 + ys.mean()),
        float(np.sqrt(len(xs) / np.pi)),
        ratio,
        dark,
        contrast,
        ring_med,
        ring_std,
        (float(bgr[0]), float(bgr[1]), float(bgr[2])),
    )


def _suppress(pips: list[Pip]) -> list[Pip]:
    """MSER returns nested regions of one pip; keep the strongest per place."""
    pips = sorted(pips, key=lambda p: -p.contrast * min(p.axis_ratio, 1.0))
    kept: list[Pip] = []
    for p in pips:
        if all((p.x - q.x) ** 2 + (p.y - q.y) ** 2 > (0.9 * max(p.r, q.r)) ** 2 for q in kept):
            kept.append(p)
    return kept
