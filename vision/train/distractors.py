"""Rendered things that are not dice, for the classifier's "not a die" class.

Why: the hand-written reader read keyboard keys as faces, dust on a black mat as faces 2, letters
and wood grain as pips. Real backgrounds give some of these; the rest are drawn here, each a small
square patch (any size; the classifier crops it like a die box of ``CONTEXT`` less than the patch).
Everything random comes from the ``rng`` passed in.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

Maker = Callable[[np.random.Generator, int], np.ndarray]
_FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_TRIPLEX,
)
_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:;.,!?%&*#@+-=/o"


def _tone(rng: np.random.Generator, lo: int = 0, hi: int = 255) -> tuple[int, int, int]:
    return tuple(int(v) for v in rng.integers(lo, hi + 1, 3))  # type: ignore[return-value]


def _grey(rng: np.random.Generator, lo: int, hi: int) -> tuple[int, int, int]:
    g = int(rng.integers(lo, hi + 1))
    d = rng.integers(-8, 9, 3)
    return tuple(int(np.clip(g + v, 0, 255)) for v in d)  # type: ignore[return-value]


def _canvas(rng: np.random.Generator, s: int, colour: tuple[int, int, int]) -> np.ndarray:
    img = np.empty((s, s, 3), np.float32)
    img[:] = colour
    img += rng.normal(0, rng.uniform(1, 6), (s, s, 1)).astype(np.float32)
    return img


def _text(
    img: np.ndarray, rng: np.random.Generator, s: int, colour: tuple[float, ...], n: int
) -> None:
    """Draws ``n`` short strings into the float canvas ``img`` (OpenCV draws text on uint8)."""
    canvas = np.clip(img, 0, 255).astype(np.uint8)
    for _ in range(n):
        txt = "".join(rng.choice(list(_CHARS), int(rng.integers(1, 4))))
        scale = float(rng.uniform(0.2, 1.0)) * s / 40
        font = int(rng.choice(_FONTS))
        org = (int(rng.uniform(0.1, 0.7) * s), int(rng.uniform(0.3, 0.95) * s))
        thick = max(1, int(rng.uniform(0.5, 2.5) * s / 60))
        cv2.putText(canvas, txt, org, font, scale, colour, thick, cv2.LINE_AA)
    img[:] = canvas


def keyboard_key(rng: np.random.Generator, s: int) -> np.ndarray:
    """A keycap (grey, black or white, rounded, shaded) with one to three characters."""
    dark = rng.random() < 0.5
    img = _canvas(rng, s, _grey(rng, 10, 60) if dark else _grey(rng, 150, 230))
    cap = _grey(rng, 20, 70) if dark else _grey(rng, 180, 250)
    m = int(s * rng.uniform(0.1, 0.3))
    cv2.rectangle(img, (m, m), (s - m, s - m), cap, -1)
    cv2.rectangle(img, (m, m), (s - m, s - m), tuple(c * 0.8 for c in cap), max(1, s // 30))
    ink = _grey(rng, 180, 255) if dark else _grey(rng, 0, 60)
    _text(img, rng, s, ink, int(rng.integers(1, 3)))
    if rng.random() < 0.5:  # neighbouring keys at the edges
        k = int(s * rng.uniform(0.05, 0.15))
        cv2.rectangle(img, (0, 0), (s, k), cap, -1)
    return img


def letters(rng: np.random.Generator, s: int) -> np.ndarray:
    """Printed text on paper, a box or a card."""
    img = _canvas(rng, s, _tone(rng, 120, 255))
    _text(img, rng, s, _tone(rng, 0, 120), int(rng.integers(1, 5)))
    return img


def dust(rng: np.random.Generator, s: int) -> np.ndarray:
    """A dark mat or felt with light specks (and crumbs) of pip-like size."""
    img = _canvas(rng, s, _grey(rng, 5, 90) if rng.random() < 0.7 else _tone(rng, 20, 140))
    for _ in range(int(rng.integers(1, 9))):
        c = (int(rng.uniform(0, s)), int(rng.uniform(0, s)))
        r = max(1, int(rng.uniform(0.01, 0.08) * s))
        cv2.circle(img, c, r, _grey(rng, 120, 255), -1, cv2.LINE_AA)
    return cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.3, 1.5)))


def wood(rng: np.random.Generator, s: int) -> np.ndarray:
    """Wood grain: wavy bands of two browns, with knots."""
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float32)
    a = rng.uniform(0, np.pi)
    u = xx * np.cos(a) + yy * np.sin(a)
    v = -xx * np.sin(a) + yy * np.cos(a)
    f = rng.uniform(0.1, 0.6)
    band = np.sin(u * f + 3 * np.sin(v * rng.uniform(0.01, 0.08)) + rng.uniform(0, 6))
    light = np.array([rng.uniform(90, 170), rng.uniform(130, 200), rng.uniform(170, 240)])
    dark = light * rng.uniform(0.4, 0.8)
    t = (band[..., None] + 1) / 2
    img = (dark * t + light * (1 - t)).astype(np.float32)
    for _ in range(int(rng.integers(0, 3))):
        cv2.ellipse(
            img,
            (int(rng.uniform(0, s)), int(rng.uniform(0, s))),
            (max(1, int(s * rng.uniform(0.03, 0.12))), max(1, int(s * rng.uniform(0.02, 0.06)))),
            float(rng.uniform(0, 180)),
            0,
            360,
            tuple(dark * 0.7),
            -1,
            cv2.LINE_AA,
        )
    out: np.ndarray = img + rng.normal(0, 4, (s, s, 1)).astype(np.float32)
    return out


def coin(rng: np.random.Generator, s: int) -> np.ndarray:
    """A coin or a token: a metallic disc with a rim and an embossed mark."""
    img = _canvas(rng, s, _tone(rng, 30, 220))
    metal = np.array(
        rng.choice([(60, 140, 190), (170, 170, 175), (50, 100, 160), (40, 170, 210)]), np.float32
    ) * rng.uniform(0.7, 1.2)
    c = (s // 2 + int(rng.integers(-s // 10, s // 10 + 1)),) * 2
    r = int(s * rng.uniform(0.2, 0.4))
    cv2.circle(img, c, r, tuple(float(v) for v in metal), -1, cv2.LINE_AA)
    cv2.circle(img, c, r, tuple(float(v) for v in metal * 0.7), max(1, s // 30), cv2.LINE_AA)
    if rng.random() < 0.7:
        _text(img, rng, s, tuple(float(v) for v in metal * 0.6), 1)
    return img


def tile(rng: np.random.Generator, s: int) -> np.ndarray:
    """A desert tile, a pyramid piece or a track space: flat shapes in sand and board colours."""
    img = _canvas(
        rng, s, (int(rng.uniform(100, 170)), int(rng.uniform(150, 200)), int(rng.uniform(190, 235)))
    )
    for _ in range(int(rng.integers(1, 4))):
        pts = rng.uniform(0, s, (3 if rng.random() < 0.6 else 4, 2)).astype(np.int32)
        cv2.fillPoly(img, [pts], _tone(rng, 0, 255), cv2.LINE_AA)
    if rng.random() < 0.5:  # a printed number or a palm's dots
        _text(img, rng, s, _tone(rng, 0, 100), 1)
    return img


def camel_part(rng: np.random.Generator, s: int) -> np.ndarray:
    """Part of a wooden camel (a humped blob in a camel colour), or of a stack of them."""
    img = _canvas(rng, s, _tone(rng, 60, 230))
    col = np.array(
        rng.choice(
            [
                (200, 120, 30),
                (60, 160, 60),
                (30, 130, 240),
                (40, 210, 230),
                (235, 235, 235),
                (40, 40, 40),
                (120, 60, 140),
            ]
        ),
        np.float32,
    )
    for _ in range(int(rng.integers(1, 4))):
        cv2.ellipse(
            img,
            (int(rng.uniform(0.2, 0.8) * s), int(rng.uniform(0.2, 0.8) * s)),
            (max(1, int(s * rng.uniform(0.1, 0.4))), max(1, int(s * rng.uniform(0.08, 0.3)))),
            float(rng.uniform(0, 180)),
            0,
            360,
            tuple(float(v) for v in col * rng.uniform(0.6, 1.1)),
            -1,
            cv2.LINE_AA,
        )
    return img


def pip_like(rng: np.random.Generator, s: int) -> np.ndarray:
    """Dots on a surface that are no die's face: a pattern of spots on a fabric or a board."""
    img = _canvas(rng, s, _tone(rng, 0, 255))
    col = _tone(rng, 0, 255)
    step = rng.uniform(0.12, 0.3) * s
    r = max(1, int(step * rng.uniform(0.15, 0.35)))
    off = rng.uniform(0, step, 2)
    for yy in np.arange(off[1], s, step):
        for xx in np.arange(off[0], s, step):
            cv2.circle(img, (int(xx), int(yy)), r, col, -1, cv2.LINE_AA)
    return img


MAKERS: tuple[Maker, ...] = (keyboard_key, letters, dust, wood, coin, tile, camel_part, pip_like)


def distractor(rng: np.random.Generator, s: int = 72) -> np.ndarray:
    """One random not-a-die patch, ``s`` x ``s`` uint8 BGR."""
    maker = MAKERS[int(rng.integers(len(MAKERS)))]
    return np.clip(maker(rng, s), 0, 255).astype(np.uint8)


_PAGE_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.:;,!?-'%"


def text_page(rng: np.random.Generator, w: int = 640, h: int = 480) -> np.ndarray:
    """A whole page of printed lines (a rulebook, a box, a score sheet): words of letters, digits
    and punctuation in a random font, size, weight, ink and paper, some pages turned a little.

    Why a page and not a patch: on printed text the hand-written reader proposes clusters of
    glyphs (".:", "i:", a bold "o") boxed at their own size, so in the net's crop the glyphs are
    large and bold: a scale ``letters`` never draws. ``vision.train.data.page_crops`` crops what
    the reader proposes on these pages."""
    paper = _tone(rng, 150, 255) if rng.random() < 0.4 else _grey(rng, 170, 250)
    img = _canvas(rng, max(w, h), paper)[:h, :w].copy()
    canvas = np.clip(img, 0, 255).astype(np.uint8)
    ink = _grey(rng, 0, 90) if rng.random() < 0.7 else _tone(rng, 0, 110)
    font = int(rng.choice(_FONTS))
    scale = float(rng.uniform(0.45, 1.3))
    thick = int(rng.integers(1, 4))
    step = int(scale * rng.uniform(30, 48)) + 2 * thick
    y = int(rng.integers(step // 2, step + 10))
    while y < h:
        x = int(rng.integers(5, 40))
        while x < w:
            word = "".join(rng.choice(list(_PAGE_CHARS), int(rng.integers(1, 8))))
            if rng.random() < 0.3:
                word += str(rng.choice(list(".:;,")))
            cv2.putText(canvas, word, (x, y), font, scale, ink, thick, cv2.LINE_AA)
            (tw, _), _ = cv2.getTextSize(word, font, scale, thick)
            x += tw + int(scale * rng.uniform(10, 30))
        y += step
    if rng.random() < 0.4:
        m = cv2.getRotationMatrix2D((w / 2, h / 2), float(rng.uniform(-12, 12)), 1.0)
        canvas = cv2.warpAffine(canvas, m, (w, h), borderMode=cv2.BORDER_REFLECT)
    if rng.random() < 0.5:
        canvas = cv2.GaussianBlur(canvas, (0, 0), float(rng.uniform(0.3, 1.0)))
    out: np.ndarray = canvas
    return out
