"""Finding dice with the learned net: the classifier slid over the whole frame at a few scales.

Why: the hand-written body finder misses dice it was not tuned for (dice packed in a felt tray,
dice whose colour is the table's), and nothing finds what is never proposed. The die network is
fully convolutional (``vision.train.model``): on a frame scaled so that a die is ``DIE_PX``
pixels it gives the classifier's seven logits for a 48 px window at every 8th pixel. Each scale
assumes one die size, a share of the frame's short side (``SCALES``); the windows whose "die"
probability reaches ``DETECT_MIN`` are candidates, placed by how surely they read one face
(``face_score``), each then sized to its die by classifying its crop at a few sizes, and kept
surest first, one per place (``detect_dice_verdicts``).

The frame is first brought to ``WORK_SIDE`` pixels on its short side (a 12 MP photo becomes
640 x 480 before anything else), so the cost does not grow with the camera.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import cv2
import numpy as np

from vision.dice.classifier import (
    CONTEXT,
    INPUT,
    CropClass,
    DieClassifier,
    load_classifier,
    softmax,
)

DIE_PX = INPUT / CONTEXT  # a die's side in the net's window (32 px)
STRIDE = 8  # the net's output step, in pixels of its input
WORK_SIDE = 480  # the short side, in pixels, the frame is brought to for detection
SCALES = (0.055, 0.08, 0.115, 0.165)  # die sides tried, as shares of the frame's short side
DETECT_MIN = 0.6  # a peak's probability of a die, to be a die (chosen on the calibration split)
#: two dice nearer than this many die sides (the smaller's) are one die ... Why the smaller's:
#: a window sized at twice a die (astride two touching dice of a tray) reached, by its own
#: side, the dice beside it, and removed them when it was surer; on the calibration photos,
#: the larger's side found 648 dice with 15 false, the smaller's 652 with 13
APART = 0.6
APART_SCALE = 0.5  # ... and two windows of one scale nearer than this many of its sides
RESIZE = (0.8, 1.0, 1.25)  # a window's crop is classified at these shares of its scale's side


# output rows and columns of the net per tile: on a 1280 x 720 frame the detection's share of a
# whole-frame read's peak is about +8.4 MB at 8 x 16 (+13.7 at 16 x 32, +31 for whole-width
# strips, +92 for one pass), for 1.6 times the CPU of 16 x 32 (1.0 s against 0.63 s here); only
# whole-frame reads (the setup roll, Marco Polo II) run it, never the zone's (x86_64, the
# Pi-pinned numpy/OpenCV). Logits agree with 16 x 32 to 3e-5. These set
# the largest tile's input area; the tiles' shape is then chosen per image (``_tiling``)
STRIP_ROWS = 8
TILE_COLS = 16
# pixels beyond a tile's windows that the layers' edge padding can reach (21), rounded up to
# the stride
HALO = 24


def _spans(n_out: int, step: int, size: int) -> list[tuple[int, int, int, int]]:
    """Output windows [g0, g1) in runs of ``step``, with the input pixels [p0, p1) each needs
    (its windows plus ``HALO`` either side, starting on the stride) of an axis ``size`` long."""
    out = []
    for g0 in range(0, n_out, step):
        g1 = min(n_out, g0 + step)
        p0 = max(0, STRIDE * g0 - HALO)
        p1 = min(size, STRIDE * (g1 - 1) + INPUT + HALO)
        out.append((g0, g1, p0, p1))
    return out


def _tile_px(n: int) -> int:
    """Input pixels along one axis of an inner tile of ``n`` output windows."""
    return STRIDE * (n - 1) + INPUT + 2 * HALO


@lru_cache(maxsize=64)
def _tiling(gh: int, gw: int, h: int, w: int, rows: int, cols: int) -> tuple[int, int]:
    """Output windows per tile (down, across) for a ``gh`` x ``gw`` grid over an ``h`` x ``w``
    image: the fewest input pixels computed, no tile larger in area than one of ``rows`` x
    ``cols`` windows (the memory bound), fewer tiles on a tie.

    Why: each tile computes its ``HALO`` again, and a fixed grid of ``STRIP_ROWS`` x
    ``TILE_COLS`` windows leaves thin tiles at the right and bottom edges that are nearly all
    halo. A shape fitted to each scale's grid (equal runs, the area spent where it saves most
    halo) computes about 12 % fewer pixels over a 640 x 480 or 1280 x 720 frame's four scales,
    in a fifth fewer calls, with no tile larger than the fixed grid's.
    """
    budget = _tile_px(rows) * _tile_px(cols)
    best: tuple[int, int, int, int] | None = None  # (pixels, tiles, rows, cols)
    for ny in range(1, gh + 1):
        r = -(-gh // ny)
        if ny > 1 and r == -(-gh // (ny - 1)):
            continue  # the same runs as one tile fewer
        ys = [p1 - p0 for _, _, p0, p1 in _spans(gh, r, h)]
        for nx in range(1, gw + 1):
            c = -(-gw // nx)
            if nx > 1 and c == -(-gw // (nx - 1)):
                continue
            xs = [p1 - p0 for _, _, p0, p1 in _spans(gw, c, w)]
            if max(ys) * max(xs) > budget:
                continue
            cand = (sum(ys) * sum(xs), len(ys) * len(xs), r, c)
            if best is None or cand[:2] < best[:2]:
                best = cand
            break  # more tiles across only compute more halo
    assert best is not None  # one window per tile always fits
    return best[2], best[3]


def dense_logits_in_strips(
    clf: DieClassifier, image: np.ndarray, rows: int = STRIP_ROWS, cols: int = TILE_COLS
) -> np.ndarray:
    """The net's dense logits over ``image``, computed tile by tile (no tile larger in area
    than ``rows`` x ``cols`` of the net's output windows, ``_tiling``): the same numbers as one
    pass over the whole image, at a fraction of the memory.

    Why: one pass over a 1280 x 720 frame scaled for the smallest die holds every layer's
    activations for about a million pixels at once (about +94 MB of peak on the Pi's
    numpy/OpenCV, 18 MB of it kept by the net afterwards), more than the whole watch process
    is allowed; whole-width strips still took +31 MB of a 100 MB budget. A tile carries
    ``HALO`` extra pixels on each side so that the layers' zero padding at its cut edges never
    reaches the windows it keeps; tiles start on multiples of the net's stride so that their
    windows fall on the whole image's grid.
    """
    h, w = image.shape[:2]
    gh = h // STRIDE - (INPUT // STRIDE - 1)  # the net's output rows on the whole image
    gw = w // STRIDE - (INPUT // STRIDE - 1)
    if gh <= rows and gw <= cols:
        return clf.dense_logits(image)
    rows, cols = _tiling(gh, gw, h, w, rows, cols)
    if gh <= rows and gw <= cols:
        return clf.dense_logits(image)
    strips: list[np.ndarray] = []
    for g0, g1, y0, y1 in _spans(gh, rows, h):
        tiles = []
        for c0, c1, x0, x1 in _spans(gw, cols, w):
            local = clf.dense_logits(image[y0:y1, x0:x1])
            oy, ox = y0 // STRIDE, x0 // STRIDE
            tiles.append(local[:, g0 - oy : g1 - oy, c0 - ox : c1 - ox])
        strips.append(np.concatenate(tiles, axis=2))
    return np.concatenate(strips, axis=1)


@dataclass(frozen=True)
class Detection:
    """A die found by the net: its centre and side in pixels of the frame, and the window's
    calibrated probabilities (``classifier.CLASSES``) in the dense pass."""

    cx: float
    cy: float
    side: float
    probs: tuple[float, ...]
    #: the verdicts on its crop at each of the sizes tried (``RESIZE``), the chosen one among
    #: them: whether they agree says whether the face is the die's or a size's (``learned``)
    tried: tuple[CropClass, ...] = ()

    @property
    def box(self) -> tuple[int, int, int, int]:
        h = self.side / 2
        return (
            int(round(self.cx - h)),
            int(round(self.cy - h)),
            int(round(self.side)),
            int(round(self.side)),
        )


def face_score(probs: np.ndarray) -> np.ndarray:
    """The log-probability of the likeliest face (axis 0 holds ``CLASSES``): where to put a die.

    Why not the probability of "a die": on a tray of touching dice that saturates at 1.0 over
    whole clusters, on windows astride two dice and on windows twice a die's size, so its peaks
    fall between dice and the largest scale wins. A window centred on one die at its size reads
    one face surely; astride two dice or over a pile, the faces disagree and the score drops."""
    out: np.ndarray = np.log(np.maximum(probs[1:].max(axis=0), 1e-12))
    return out


def _candidates(
    clf: DieClassifier, small: np.ndarray, share: float, short: float, base: float, min_p: float
) -> list[tuple[float, Detection]]:
    """One scale's windows that may hold a die, with their face score, one per place (greedy,
    best score first, ``APART_SCALE`` die sides apart)."""
    side = share * short * base  # the die's side in ``small``
    f = DIE_PX / side
    scaled = cv2.resize(
        small,
        (max(1, round(small.shape[1] * f)), max(1, round(small.shape[0] * f))),
        interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR,
    )
    pad = INPUT // 2
    padded = cv2.copyMakeBorder(scaled, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    del scaled  # not needed past here: a frame's read peaks in the net's pass (issue 14)
    logits = dense_logits_in_strips(clf, padded)  # 7 x gh x gw
    probs = softmax(logits.reshape(7, -1).T, clf.dense_temperature).T.reshape(logits.shape)
    score = face_score(probs)
    gys, gxs = np.nonzero(1.0 - probs[0] >= min_p)
    order = np.argsort(-score[gys, gxs], kind="stable")
    out: list[tuple[float, Detection]] = []
    taken: list[tuple[float, float]] = []
    gap = APART_SCALE * DIE_PX / STRIDE  # in grid cells
    for k in order:
        gy, gx = int(gys[k]), int(gxs[k])
        if any((gx - x) ** 2 + (gy - y) ** 2 <= gap * gap for x, y in taken):
            continue
        taken.append((gx, gy))
        # window (gy, gx) of ``padded`` is centred on pixel (8 gx, 8 gy) of ``scaled``
        d = Detection(
            float(STRIDE * gx / f / base),
            float(STRIDE * gy / f / base),
            float(side / base),
            tuple(float(v) for v in probs[:, gy, gx]),
        )
        out.append((float(score[gy, gx]), d))
    return out


def detect_dice_verdicts(
    image: np.ndarray,
    *,
    classifier: DieClassifier | None = None,
    scales: tuple[float, ...] = SCALES,
    min_p: float = DETECT_MIN,
) -> list[tuple[Detection, CropClass]]:
    """Every die the net finds in ``image`` (BGR uint8), with the net's verdict on its crop,
    surest first, one per place.

    1. each scale's windows whose "die" probability reaches ``min_p``, one per place
       (``_candidates``);
    2. each moved to the die's own size: its crop classified at ``RESIZE`` times the scale's
       side, the size whose likeliest face is surest kept (a scale is a guess within a factor
       of 1.45; the crop is what the net was trained on, the dense pass only sees it through
       its padding);
    3. one per place across the scales, surest first (``APART`` of the smaller side apart).
    """
    clf = classifier or load_classifier()
    h, w = image.shape[:2]
    short = min(h, w)
    base = min(1.0, WORK_SIDE / short)
    small = (
        cv2.resize(
            image, (max(1, round(w * base)), max(1, round(h * base))), interpolation=cv2.INTER_AREA
        )
        if base < 1.0
        else image
    )
    cands = [d for share in scales for _, d in _candidates(clf, small, share, short, base, min_p)]
    boxes = [
        (d.cx - k * d.side / 2, d.cy - k * d.side / 2, k * d.side, k * d.side)
        for d in cands
        for k in RESIZE
    ]
    verdicts = clf.classify_boxes(image, boxes)
    sized: list[tuple[float, Detection, CropClass]] = []
    for i, d in enumerate(cands):
        tried = [
            (float(face_score(np.asarray(v.probs))), k, v)
            for k, v in zip(RESIZE, verdicts[i * len(RESIZE) : (i + 1) * len(RESIZE)], strict=True)
        ]
        s, k, v = max(tried, key=lambda t: t[0])
        sized.append((s, replace(d, side=k * d.side, tried=tuple(t[2] for t in tried)), v))
    sized.sort(key=lambda t: -t[0])
    kept: list[tuple[Detection, CropClass]] = []
    for _, d, v in sized:
        if all(np.hypot(d.cx - k.cx, d.cy - k.cy) > APART * min(d.side, k.side) for k, _ in kept):
            kept.append((d, v))
    return kept


def detect_dice(
    image: np.ndarray,
    *,
    classifier: DieClassifier | None = None,
    scales: tuple[float, ...] = SCALES,
    min_p: float = DETECT_MIN,
) -> list[Detection]:
    """Every die the net finds in ``image`` (BGR uint8), surest first, one per place
    (``detect_dice_verdicts`` without the verdicts)."""
    return [
        d for d, _ in detect_dice_verdicts(image, classifier=classifier, scales=scales, min_p=min_p)
    ]
