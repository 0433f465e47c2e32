"""Light on the board: linear colour, sampling at points, and the markers' white balance.

Why a module of its own: the track reader (vision.track), the table's set-up (vision.table) and
the board-moved check (vision.background) all balance colour the same way, against the marker
cards' white borders, blended over the board by distance so a lamp's gradient is followed. One
definition, imported by each, and no reader reaching into another's private helpers.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.board import BoardGeometry, BoardLocation

__all__ = [
    "chroma_brightness",
    "chromaticity",
    "gains_at",
    "linear",
    "point_segment_distance",
    "sample",
    "segment_distance",
    "white_gains",
]

#: up to this many points, ``sample(box=True)`` sums nine lookups per point instead of box
#: filtering the points' bounding box. Why: the track reader's smaller point sets (a space's
#: front line, the sand in front of the stacks: 80-1,300 points) span much of the board, and
#: the filter over that span cost 1.0-2.5 ms a call against 0.3-0.7 ms for the lookups; a
#: frame's 8,500 column points are cheaper filtered (2.1 ms against 2.8). Measured on
#: realistic tables at 1280 x 720, one thread; the means agree to 2e-5.
NINE_LOOKUPS_MAX = 4000


def linear(bgr: np.ndarray) -> np.ndarray:
    """sRGB-ish 8-bit -> linear light (gamma 2.2 is close enough for chromaticity)."""
    return (np.asarray(bgr, np.float32) / 255.0) ** 2.2


def sample(image: np.ndarray, pts: np.ndarray, box: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """BGR at pixel points (nearest; with ``box`` the mean of the 3x3 around each, which
    averages sensor noise out without blurring the whole frame), and which points are inside."""
    h, w = image.shape[:2]
    xi = np.round(pts[..., 0]).astype(np.int64)
    yi = np.round(pts[..., 1]).astype(np.int64)
    inside = (xi >= 1) & (xi < w - 1) & (yi >= 1) & (yi < h - 1)
    xi = np.clip(xi, 1, w - 2)
    yi = np.clip(yi, 1, h - 2)
    if not box:
        return image[yi, xi], inside
    if xi.size <= NINE_LOOKUPS_MAX:
        return _nine_mean(image, xi, yi), inside
    # one box filter over the points' bounding box, then one lookup: cheaper than nine
    # lookups once the points are many (a frame's columns: ~15,000)
    x0, x1 = int(xi.min()) - 1, int(xi.max()) + 2
    y0, y1 = int(yi.min()) - 1, int(yi.max()) + 2
    roi = cv2.boxFilter(
        image[y0:y1, x0:x1], cv2.CV_32F, (3, 3), normalize=True, borderType=cv2.BORDER_REPLICATE
    )
    return roi[yi - y0, xi - x0], inside


def _nine_mean(image: np.ndarray, xi: np.ndarray, yi: np.ndarray) -> np.ndarray:
    """The mean of the 3 x 3 pixels about each point (``xi``, ``yi`` at least 1 px inside the
    frame), as float32: nine lookups of the points in the flattened frame, summed."""
    h, w = image.shape[:2]
    flat = image.reshape(h * w, -1)
    idx = yi * w + xi
    acc = np.zeros((*idx.shape, flat.shape[1]), np.float32)
    for dy in (-w, 0, w):
        for dx in (-1, 0, 1):
            acc += flat[idx + (dy + dx)]
    acc /= 9.0
    return acc if image.ndim == 3 else acc[..., 0]


def white_gains(image: np.ndarray, loc: BoardLocation, geo: BoardGeometry) -> dict[int, np.ndarray]:
    """Per seen marker: linear gains that make its white border neutral at 0.85."""
    s = geo.marker_size / 2
    b = geo.marker_border
    ring = np.linspace(-1, 1, 9)
    gains: dict[int, np.ndarray] = {}
    for mid in loc.markers:
        pts = []
        for r in (s + 0.4 * b, s + 0.65 * b):
            for t in ring:
                pts += [(t * r, -r), (t * r, r), (-r, t * r), (r, t * r)]
        px = loc.cards_to_image(geo.marker_point(mid, np.array(pts)))
        vals, inside = sample(image, px)
        if inside.sum() < 8:
            continue
        lin = linear(vals[inside])
        bright = lin.sum(axis=1)
        keep = bright >= np.quantile(bright, 0.3)  # drop a stray dark pixel (a marker's edge)
        white = np.median(lin[keep], axis=0)
        gains[mid] = 0.85 / np.maximum(white, 0.02)
    return gains


def gains_at(points: np.ndarray, gains: dict[int, np.ndarray], geo: BoardGeometry) -> np.ndarray:
    """Inverse-distance blend of the markers' gains at board points: follows a lamp's gradient."""
    ids = sorted(gains)
    cs = np.array([geo.marker_centres[i] for i in ids])
    g = np.array([gains[i] for i in ids])
    d = np.linalg.norm(points[:, None, :] - cs[None], axis=-1) + 1.0
    wts = 1.0 / d**2
    wts /= wts.sum(axis=1, keepdims=True)
    return np.asarray(wts @ g)


def chromaticity(lin: np.ndarray) -> np.ndarray:
    """The b, g, r shares of each colour's sum (... x 3): shading multiplies all three alike,
    so the shares do not change in shadow."""
    return chroma_brightness(lin)[0]


def segment_distance(ch: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance from each chromaticity ``ch`` (... x 3) to each segment ``a[k]``-``b[k]``
    (k x 3): ... x k. A class of colour that is a stretch of chromaticities rather than one
    point (a painted piece seen from dull to glaring: ``vision.track``'s palette)."""
    return point_segment_distance(ch[..., None, :], a, b)


def point_segment_distance(ch: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance from each chromaticity ``ch`` to its own segment ``a``-``b`` (all ... x 3,
    broadcast against each other): ``segment_distance`` pairs every point with every segment,
    ``vision.background.paled_distance`` each point with the stretch of its own look."""
    ab = b - a
    length2 = np.maximum((ab * ab).sum(axis=-1), 1e-12)
    rel = ch - a
    t = np.clip((rel * ab).sum(axis=-1) / length2, 0.0, 1.0)
    return np.asarray(np.linalg.norm(rel - t[..., None] * ab, axis=-1))


def chroma_brightness(lin: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``chromaticity`` and the brightness (the mean of the three linear channels) at once:
    the track reader tells camels by the first and black paint or shade by the second."""
    s = lin.sum(axis=-1, keepdims=True) + 1e-6
    return np.asarray(lin / s), np.asarray(s[..., 0] / 3.0)
