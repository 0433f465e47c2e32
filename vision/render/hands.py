"""Hands and arms reaching over the board, drawn in image space.

Why: the track is read only after people take their hands away, and the reader must say
"uncertain" for a space a hand covers rather than guess. Rendered hands, in a range of skin tones
and with sleeves of any colour (a blue sleeve looks like a blue camel to a colour classifier),
let the tests and the evaluation check exactly that.
"""

from __future__ import annotations

import cv2
import numpy as np

__all__ = ["SKIN_TONES", "draw_hand"]

# BGR, from pale to deep brown
SKIN_TONES: list[tuple[int, int, int]] = [
    (180, 200, 238),
    (150, 180, 226),
    (120, 160, 212),
    (95, 135, 190),
    (70, 105, 160),
    (52, 78, 120),
    (40, 58, 92),
]
SLEEVES: list[tuple[int, int, int]] = [
    (60, 60, 60),
    (200, 200, 200),
    (150, 80, 30),
    (40, 40, 160),
    (60, 120, 60),
    (30, 30, 30),
    (120, 90, 140),
    (180, 120, 60),
]


def _capsule(mask: np.ndarray, a: np.ndarray, b: np.ndarray, width: float) -> None:
    cv2.line(
        mask,
        tuple(int(v) for v in np.round(a)),
        tuple(int(v) for v in np.round(b)),
        255,
        max(int(round(width)), 1),
        lineType=cv2.LINE_AA,
    )


def draw_hand(
    image: np.ndarray, rng: np.random.Generator, target: tuple[float, float], px_per_mm: float
) -> np.ndarray:
    """Draw an arm from the nearest frame edge to a hand over ``target`` (px); in place.

    Returns the hand's mask (uint8, 255 inside) so the caller knows what it covers.
    """
    h, w = image.shape[:2]
    s = px_per_mm * float(rng.uniform(1.1, 1.35))  # the hand is above the board: larger
    tx, ty = target
    # the arm comes in from the closest edge, a little askew
    edges = [(tx, -0.1 * h), (tx, 1.1 * h), (-0.1 * w, ty), (1.1 * w, ty)]
    dist = [ty, h - ty, tx, w - tx]
    ex, ey = edges[int(np.argmin(dist))] if rng.random() < 0.7 else edges[int(rng.integers(4))]
    ex += rng.normal(0, 0.15 * w)
    start = np.array([ex, ey], np.float64)
    palm = np.array([tx, ty], np.float64) + rng.normal(0, 20 * s, 2)
    axis = palm - start
    axis /= max(float(np.linalg.norm(axis)), 1e-6)
    side = np.array([-axis[1], axis[0]])
    wrist = palm - axis * 55 * s
    skin = np.zeros((h, w), np.uint8)
    sleeve = np.zeros((h, w), np.uint8)
    sleeve_at = float(rng.uniform(0.2, 0.8)) if rng.random() < 0.5 else None
    if sleeve_at is None:
        _capsule(skin, start, wrist, 62 * s)
    else:
        cuff = start + (wrist - start) * sleeve_at
        _capsule(sleeve, start, cuff, 75 * s)
        _capsule(skin, cuff, wrist, 60 * s)
    centre = tuple(int(v) for v in np.round(palm - axis * 10 * s))
    angle = float(np.degrees(np.arctan2(axis[1], axis[0])))
    cv2.ellipse(skin, centre, (int(48 * s), int(42 * s)), angle, 0, 360, 255, -1, cv2.LINE_AA)
    spread = float(rng.uniform(0.0, 0.25))
    for k, off in enumerate((-1.5, -0.5, 0.5, 1.5)):
        base = palm + side * off * 19 * s + axis * 25 * s
        direction = axis + side * off * spread
        direction /= np.linalg.norm(direction)
        length = (55 + 12 * (k in (1, 2))) * s * float(rng.uniform(0.75, 1.05))
        _capsule(skin, base, base + direction * length, 17 * s)
    thumb_side = 1 if rng.random() < 0.5 else -1
    tb = palm + side * thumb_side * 40 * s - axis * 5 * s
    _capsule(skin, tb, tb + (axis + side * thumb_side * 0.8) * 40 * s, 20 * s)
    skin[sleeve > 0] = 0
    mask = np.maximum(skin, sleeve)
    bx, by, bw, bh = cv2.boundingRect(mask)
    if bw == 0 or bh == 0:
        return mask
    # work only on the hand's box (plus its shadow): a full-frame float pass is slow
    pad = int(70 * s)
    x0, x1 = max(bx - pad, 0), min(bx + bw + pad, w)
    y0, y1 = max(by - pad, 0), min(by + bh + pad, h)
    roi = (slice(y0, y1), slice(x0, x1))
    shadow = cv2.GaussianBlur(mask[roi], (0, 0), 12 * s).astype(np.float32) / 255.0
    shift = (int(rng.uniform(10, 30) * s), int(rng.uniform(10, 30) * s))
    shadow = np.roll(shadow, shift, axis=(0, 1))
    out = image[roi].astype(np.float32) * (1 - 0.35 * shadow[..., None])
    tone = np.asarray(SKIN_TONES[int(rng.integers(len(SKIN_TONES)))], np.float32)
    cloth = np.asarray(SLEEVES[int(rng.integers(len(SLEEVES)))], np.float32)
    # light from one side: a gradient across the arm
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    grad = 0.85 + 0.25 * np.clip(((xs - tx) * side[0] + (ys - ty) * side[1]) / (60 * s), -1, 1)
    for m, col in ((skin[roi], tone), (sleeve[roi], cloth)):
        a = (m.astype(np.float32) / 255.0)[..., None]
        out = out * (1 - a) + (col * grad[..., None]) * a
    image[roi] = np.clip(out, 0, 255).astype(np.uint8)
    return mask
