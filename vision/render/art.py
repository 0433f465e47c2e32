"""The first-edition board's art, drawn flat in board millimetres: sand, pebbles, palms, flags.

Why: the track reader learns the board's colours from the frame, and a hand the colour of the
sand, a palm's shadow or a white pebble line next to a white camel only trouble it if the board
looks like the real one. The real board has no margin: its 16 square spaces are the outer ring of
a 5 x 5 grid that runs to the board's edge, parted by lines of white pebbles, each with a white
flag carrying its number; palms and dunes fill the middle under the pyramid. The art varies per
table (tones, pebble density, palms), drawn from the ``rng`` passed in.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

__all__ = ["BoardArt", "draw_board_art", "draw_desert_tile"]


@dataclass(frozen=True)
class BoardArt:
    """One printing of the board: its colours (BGR) and how busy its art is."""

    sand: tuple[int, int, int]
    desert: tuple[int, int, int]
    pebble: tuple[int, int, int]
    edge: tuple[int, int, int]
    flag: tuple[int, int, int]
    palms: int
    pebble_density: float
    seed: int

    @classmethod
    def sample(cls, rng: np.random.Generator) -> BoardArt:
        base = np.array([118, 178, 222], np.float64) * rng.uniform(0.88, 1.06, 3)
        return cls(
            sand=_bgr(base),
            desert=_bgr(base * rng.uniform(0.82, 0.95, 3)),
            pebble=_bgr(np.array([232, 236, 238]) * rng.uniform(0.9, 1.02)),
            edge=_bgr(np.array([45, 70, 105]) * rng.uniform(0.6, 1.2)),
            flag=_bgr(np.array([245, 245, 242]) * rng.uniform(0.92, 1.0)),
            palms=int(rng.integers(4, 10)),
            pebble_density=float(rng.uniform(0.7, 1.3)),
            seed=int(rng.integers(1 << 30)),
        )


def _bgr(v: np.ndarray) -> tuple[int, int, int]:
    c = np.clip(np.round(v), 0, 255).astype(int)
    return int(c[0]), int(c[1]), int(c[2])


def _noise(rng: np.random.Generator, shape: tuple[int, int], cells: int) -> np.ndarray:
    h, w = shape
    small = rng.normal(0, 1, (max(cells * h // max(w, 1), 2), cells)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def draw_board_art(art: BoardArt, cell: float, px_per_mm: float) -> np.ndarray:
    """The board (5 x 5 cells of ``cell`` mm, no margin) as a BGR texture, ``px_per_mm``."""
    rng = np.random.default_rng(art.seed)
    side = int(round(5 * cell * px_per_mm))
    k = px_per_mm
    tex = np.empty((side, side, 3), np.float32)
    tex[:] = art.desert
    # the middle: dunes (long soft bands) and blotches
    ys, xs = np.mgrid[0:side, 0:side].astype(np.float32)
    dunes = np.sin((xs * 0.6 + ys) / (side / 9.0) + 2 * _noise(rng, (side, side), 5))
    tex *= (1 + 0.06 * dunes + 0.05 * _noise(rng, (side, side), 10))[..., None]
    # the ring of spaces: lighter sand, each space its own tone
    c = int(round(cell * k))
    for r in range(5):
        for q in range(5):
            if 0 < r < 4 and 0 < q < 4:
                continue
            tone = np.asarray(art.sand, np.float32) * rng.uniform(0.96, 1.04, 3).astype(np.float32)
            tex[r * c : (r + 1) * c, q * c : (q + 1) * c] = tone
    tex *= (1 + 0.04 * _noise(rng, (side, side), 24))[..., None]
    # sand grain
    tex += rng.normal(0, 4.0, (side, side, 1)).astype(np.float32)
    img = np.clip(tex, 0, 255).astype(np.uint8)
    # palms in the middle (the pyramid stands on the centre)
    for _ in range(art.palms):
        while True:
            p = rng.uniform(1.15, 3.85, 2) * cell
            if np.abs(p - 2.5 * cell).max() > 0.75 * cell:
                break
        _palm(img, p * k, cell * k * float(rng.uniform(0.22, 0.35)), rng)
    # pebble lines between the spaces and round the ring's inner edge
    lines = []
    for i in range(1, 5):
        for band in (0, 4):  # between spaces of the top / bottom row, left / right column
            lines.append(((i * cell, band * cell), (i * cell, (band + 1) * cell)))
            lines.append(((band * cell, i * cell), ((band + 1) * cell, i * cell)))
    lines += [
        ((cell, cell), (4 * cell, cell)),
        ((cell, 4 * cell), (4 * cell, 4 * cell)),
        ((cell, cell), (cell, 4 * cell)),
        ((4 * cell, cell), (4 * cell, 4 * cell)),
    ]
    width = 0.07 * cell
    for a, b in lines:
        _pebbles(img, np.array(a) * k, np.array(b) * k, width * k, art, rng)
    # a flag with its number on each space
    cells = [(0, i) for i in range(5)] + [(i, 4) for i in range(1, 5)]
    cells += [(4, i) for i in range(3, -1, -1)] + [(i, 0) for i in range(3, 0, -1)]
    for n, (r, q) in enumerate(cells, start=1):
        corner = np.array([q + 0.08, r + 0.1]) * cell * k
        _flag(img, corner, cell * k, str(n), art)
    # the board's printed edge
    cv2.rectangle(img, (0, 0), (side - 1, side - 1), art.edge, max(1, int(round(1.5 * k))))
    return img


def _palm(img: np.ndarray, at: np.ndarray, size: float, rng: np.random.Generator) -> None:
    x, y = (int(round(v)) for v in at)
    s = size
    shadow = (
        np.array(img[min(max(y, 0), img.shape[0] - 1), min(max(x, 0), img.shape[1] - 1)]) * 0.75
    ).tolist()
    cv2.ellipse(
        img,
        (x + int(0.3 * s), y + int(0.15 * s)),
        (int(0.6 * s), int(0.25 * s)),
        0,
        0,
        360,
        shadow,
        -1,
        cv2.LINE_AA,
    )
    top = (x + int(rng.normal(0, 0.1 * s)), y - int(0.8 * s))
    cv2.line(img, (x, y), top, (40, 75, 110), max(1, int(0.12 * s)), cv2.LINE_AA)
    green = tuple(int(v) for v in np.array([40, 120, 60]) * rng.uniform(0.8, 1.2, 3))
    for ang in np.linspace(0, 2 * np.pi, 7, endpoint=False) + rng.uniform(0, 1):
        end = (int(top[0] + 0.55 * s * np.cos(ang)), int(top[1] + 0.35 * s * np.sin(ang)))
        cv2.line(img, top, end, green, max(1, int(0.14 * s)), cv2.LINE_AA)


def _pebbles(
    img: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    width: float,
    art: BoardArt,
    rng: np.random.Generator,
) -> None:
    length = float(np.linalg.norm(b - a))
    along = (b - a) / max(length, 1e-6)
    across = np.array([-along[1], along[0]])
    n = int(length / max(width * 0.45, 1.0) * art.pebble_density * 1.6)
    for _ in range(n):
        p = a + along * rng.uniform(0, length) + across * rng.normal(0, width * 0.3)
        r = max(1, int(round(width * rng.uniform(0.2, 0.38))))
        tone = np.asarray(art.pebble, np.float64) * rng.uniform(0.82, 1.0)
        c = (int(round(p[0])), int(round(p[1])))
        cv2.circle(img, (c[0] + 1, c[1] + 1), r, (60, 90, 120), -1, cv2.LINE_AA)
        cv2.circle(img, c, r, tone.tolist(), -1, cv2.LINE_AA)


def _flag(img: np.ndarray, corner: np.ndarray, cell: float, text: str, art: BoardArt) -> None:
    x, y = corner
    w, h = 0.2 * cell, 0.13 * cell
    pole = (int(x), int(y + 1.6 * h))
    cv2.line(img, (int(x), int(y)), pole, (40, 50, 60), max(1, int(cell / 90)), cv2.LINE_AA)
    pts = np.array([[x, y], [x + w, y + 0.1 * h], [x + w * 0.92, y + h], [x, y + h]])
    cv2.fillConvexPoly(img, np.round(pts).astype(np.int32), art.flag, cv2.LINE_AA)
    scale = h / 30.0
    cv2.putText(
        img,
        text,
        (int(x + 0.12 * w), int(y + 0.82 * h)),
        cv2.FONT_HERSHEY_SIMPLEX,
        scale,
        (40, 40, 40),
        max(1, int(scale * 2)),
        cv2.LINE_AA,
    )


def draw_desert_tile(
    tex: np.ndarray,
    centre_px: tuple[float, float],
    size_px: float,
    side: str,
    colours: dict[str, tuple[int, int, int]],
    rng: np.random.Generator,
) -> None:
    """A cardboard desert tile on the texture: oasis = palms round a pool on its green, mirage =
    heat waves on its lilac (``colours`` RGB per side, this table's print)."""
    if side not in ("oasis", "mirage"):
        raise ValueError(f"a desert tile is 'oasis' or 'mirage', not {side!r}")
    cx, cy = centre_px
    s = size_px / 2
    a = np.deg2rad(rng.normal(0, 6))
    sq = np.array([[-s, -s], [s, -s], [s, s], [-s, s]]) @ np.array(
        [[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]
    ).T + [cx + rng.normal(0, 0.03 * s), cy + rng.normal(0, 0.03 * s)]
    poly = np.round(sq).astype(np.int32)
    base = colours[side][::-1]
    cv2.fillConvexPoly(tex, poly, base, cv2.LINE_AA)
    c = (int(round(cx)), int(round(cy)))
    if side == "oasis":
        cv2.ellipse(
            tex,
            (c[0], c[1] + int(0.2 * s)),
            (int(0.45 * s), int(0.22 * s)),
            0,
            0,
            360,
            (200, 150, 70),
            -1,
            cv2.LINE_AA,
        )
        for dx in (-0.4, 0.35):
            _palm(tex, np.array([cx + dx * s, cy]), 0.55 * s, rng)
    else:
        for k in range(-2, 3):
            xs = np.linspace(-s * 0.8, s * 0.8, 24)
            ys = k * 0.3 * s + 0.08 * s * np.sin(xs / (0.12 * s))
            pts = np.round(np.column_stack([xs + cx, ys + cy])).astype(np.int32)
            cv2.polylines(tex, [pts], False, (235, 215, 240), max(1, int(0.06 * s)), cv2.LINE_AA)
    cv2.polylines(tex, [poly], True, (60, 80, 100), max(1, int(0.03 * s)), cv2.LINE_AA)
