"""Render Camel Up dice: five colours, faces 1..3 (or 1..6), pips, rounded edges, shadows.

Why: the real photos we have show no Camel Up die, and none is labelled with a colour. The
renderer measures what they cannot: colour and face on the game's five hues, over thousands of
scenes with a warm or cold lamp, blur, noise, JPEG and glare. It is also what the demo pastes into
the board's reveal zone (``draw_die``).

The die is drawn as seen by an overhead camera tilted a little: the top face (a rounded square,
lit), with a darker strip of the side faces showing on one side, pips on the top face, a soft
shadow on the table, then rotated and slightly perspective-warped. Everything random comes from
the ``rng`` passed in, so a scene is deterministic per seed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.board import camel_colours_bgr
from vision.render.effects import EffectParams, apply_effects

# The game's dice under neutral light, BGR: the camels' colours, written once in board.yaml.
# Pip colour per die: dark pips on the light dice, light pips on the dark ones.
CAMEL_UP_COLOURS: dict[str, tuple[int, int, int]] = camel_colours_bgr()
EXTRA_COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (40, 35, 200),
    "black": (35, 35, 35),
    "purple": (130, 40, 110),
}
PIP_COLOURS: dict[str, tuple[int, int, int]] = {
    "blue": (240, 240, 240),
    "green": (240, 240, 240),
    "orange": (25, 25, 25),
    "yellow": (25, 25, 25),
    "white": (25, 25, 25),
    "red": (240, 240, 240),
    "black": (240, 240, 240),
    "purple": (240, 240, 240),
}

#: the second edition's grey die: a grey body whose faces are the numerals 1, 2, 3 printed in
#: white and 1, 2, 3 printed in black, no pips (../shared/rules/camel-up-2.md)
GREY_DIE = "grey"
GREY_BODY: tuple[int, int, int] = (128, 128, 128)
NUMERAL_INK: dict[str, tuple[int, int, int]] = {"white": (236, 236, 236), "black": (28, 28, 28)}
#: the numerals' typefaces (OpenCV's Hershey fonts: not the real die's, which we have no photo
#: of); vision.dice.greydie's shape templates are made from other Hershey faces, so a reading
#: is never a font matched to itself
NUMERAL_FONTS = (cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX)

_Q = 0.27  # pip offset from the face centre, in face sides
PIP_LAYOUT: dict[int, list[tuple[float, float]]] = {
    1: [(0, 0)],
    2: [(-_Q, -_Q), (_Q, _Q)],
    3: [(-_Q, -_Q), (0, 0), (_Q, _Q)],
    4: [(-_Q, -_Q), (_Q, -_Q), (-_Q, _Q), (_Q, _Q)],
    5: [(-_Q, -_Q), (_Q, -_Q), (0, 0), (-_Q, _Q), (_Q, _Q)],
    6: [(-_Q, -_Q), (-_Q, 0), (-_Q, _Q), (_Q, -_Q), (_Q, 0), (_Q, _Q)],
}


@dataclass(frozen=True)
class DieTruth:
    """What was drawn: the die's box (x, y, w, h) in pixels, its face and colour name."""

    box: tuple[int, int, int, int]
    face: int
    colour: str
    center: tuple[float, float]
    size_px: float
    numeral: str | None = None  # the grey die: its numeral's ink, "black" or "white"


@dataclass
class SceneTruth:
    """Ground truth of a rendered scene, including the white reference patch if drawn."""

    dice: list[DieTruth] = field(default_factory=list)
    white_patch: list[tuple[float, float]] | None = None
    effects: EffectParams | None = None


def _colour_of(
    colour: str | tuple[int, int, int],
) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    if isinstance(colour, str):
        if colour == GREY_DIE:  # its numeral's ink is chosen by draw_die's ``numeral``
            return GREY_BODY, NUMERAL_INK["white"]
        table = {**CAMEL_UP_COLOURS, **EXTRA_COLOURS}
        if colour not in table:
            raise ValueError(f"unknown die colour {colour!r}; known: {sorted(table)}")
        return table[colour], PIP_COLOURS[colour]
    body = tuple(int(c) for c in colour)
    dark = sum(body) / 3 < 110
    return body, ((235, 235, 235) if dark else (25, 25, 25))  # type: ignore[return-value]


def _rounded_square(
    canvas: np.ndarray,
    cx: float,
    cy: float,
    side: float,
    radius: float,
    value: tuple[float, ...],
    shift: int = 4,
) -> None:
    """Filled rounded square, sub-pixel via cv2's fixed-point ``shift``."""
    s = 1 << shift
    half = side / 2
    r = min(radius, half)
    x0, y0, x1, y1 = cx - half, cy - half, cx + half, cy + half
    pts = []
    for ox, oy, a0 in (
        (x1 - r, y0 + r, -90),
        (x1 - r, y1 - r, 0),
        (x0 + r, y1 - r, 90),
        (x0 + r, y0 + r, 180),
    ):
        for a in np.linspace(a0, a0 + 90, 7):
            t = np.deg2rad(a)
            pts.append((ox + r * np.cos(t), oy + r * np.sin(t)))
    poly = np.round(np.array(pts) * s).astype(np.int32)
    cv2.fillPoly(canvas, [poly], tuple(float(v) for v in value), lineType=cv2.LINE_AA, shift=shift)


def _die_sprite(
    side: float,
    face: int,
    body: tuple[int, int, int],
    pip: tuple[int, int, int],
    tilt: tuple[float, float],
    rng: np.random.Generator,
    numeral: bool = False,
) -> tuple[np.ndarray, np.ndarray, float]:
    """An upright die on a transparent canvas: (BGR float, alpha 0..1, canvas size); with
    ``numeral`` its top face shows the digit ``face`` in ``pip``'s ink instead of pips."""
    if face not in PIP_LAYOUT:
        raise ValueError(f"die face must be 1..6, got {face}")
    n = int(np.ceil(side * 2.2)) | 1
    c = n / 2
    img = np.zeros((n, n, 3), np.float32)
    alpha = np.zeros((n, n), np.float32)
    radius = side * float(rng.uniform(0.12, 0.2))
    tx, ty = tilt[0] * side, tilt[1] * side
    body_f = np.asarray(body, np.float32)
    # side faces: the top face's square swept by the tilt vector, darker
    side_shade = float(rng.uniform(0.55, 0.75))
    for k in np.linspace(0.0, 1.0, 6):
        _rounded_square(img, c + tx * k, c + ty * k, side, radius, tuple(body_f * side_shade))
        _rounded_square(alpha, c + tx * k, c + ty * k, side, radius, (1.0,))
    # top face, lit, with a slight gradient across it (light from one side)
    top = np.zeros_like(img)
    top_mask = np.zeros_like(alpha)
    _rounded_square(top_mask, c, c, side * 0.99, radius, (1.0,))
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float32)
    g = float(rng.uniform(0.0, 0.12))
    ga = float(rng.uniform(0, 2 * np.pi))
    shade = 1.0 - g * (((xs - c) * np.cos(ga) + (ys - c) * np.sin(ga)) / side + 0.5)
    top[:] = body_f * shade[..., None]
    # bevel: darken the very edge of the top face a little (rounded edge catching less light)
    edge = cv2.GaussianBlur(top_mask, (0, 0), max(side * 0.03, 0.6))
    top *= (0.8 + 0.2 * np.clip(edge * 2 - 0.0, 0, 1))[..., None]
    img = img * (1 - top_mask[..., None]) + top * top_mask[..., None]
    pip_f = np.asarray(pip, np.float32)
    if numeral:
        nm = _numeral_mask(n, side, face, rng)
        return img * (1 - nm[..., None]) + pip_f * nm[..., None], alpha, float(n)
    # pips
    pip_r = side * float(rng.uniform(0.085, 0.105))
    for ox, oy in PIP_LAYOUT[face]:
        pm = np.zeros_like(alpha)
        px, py = c + ox * side, c + oy * side
        cv2.circle(
            pm,
            (int(round(px * 16)), int(round(py * 16))),
            int(round(pip_r * 16)),
            1.0,
            -1,
            cv2.LINE_AA,
            4,
        )
        img = img * (1 - pm[..., None]) + pip_f * pm[..., None]
    return img, alpha, float(n)


def _numeral_mask(n: int, side: float, digit: int, rng: np.random.Generator) -> np.ndarray:
    """The digit ``digit`` centred on an n x n canvas (0..1, antialiased): a Hershey face, its
    height 0.45-0.6 of the die's ``side``, its stroke a tenth of its height or so."""
    font = NUMERAL_FONTS[int(rng.integers(len(NUMERAL_FONTS)))]
    height = side * float(rng.uniform(0.45, 0.6))
    k = 8  # drawn large, then shrunk: smooth edges at any size
    big = np.zeros((n * k, n * k), np.uint8)
    (tw, th), _ = cv2.getTextSize(str(digit), font, 1.0, 1)
    scale = height * k / th
    thick = max(1, int(round(height * k * float(rng.uniform(0.09, 0.13)))))
    (tw, th), _ = cv2.getTextSize(str(digit), font, scale, thick)
    org = (int(round(n * k / 2 - tw / 2)), int(round(n * k / 2 + th / 2)))
    cv2.putText(big, str(digit), org, font, scale, 255, thick, cv2.LINE_AA)
    small = cv2.resize(big, (n, n), interpolation=cv2.INTER_AREA)
    return small.astype(np.float32) / 255.0


def draw_die(
    image: np.ndarray,
    center: tuple[float, float],
    size_px: float,
    colour: str | tuple[int, int, int],
    face: int,
    rng: np.random.Generator,
    *,
    angle: float | None = None,
    shadow: bool = True,
    numeral: str | None = None,
) -> DieTruth:
    """Paste one die into ``image`` (in place) at ``center`` with top-face side ``size_px``.

    ``angle`` in degrees (random if None). Returns the truth of what was drawn. The demo uses this
    to put a die into the board's reveal zone of a rendered board frame. The grey die
    (``colour`` "grey") shows the numeral ``face`` (1-3) in ``numeral`` ink, "black" or
    "white", instead of pips.
    """
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError("draw_die needs an HxWx3 uint8 BGR image")
    if size_px < 6:
        raise ValueError(f"die size {size_px} px is too small to draw")
    if (colour == GREY_DIE) != (numeral is not None):
        raise ValueError("the grey die, and only it, shows a numeral: numeral='black' or 'white'")
    if numeral is not None and (numeral not in NUMERAL_INK or face not in (1, 2, 3)):
        raise ValueError(f"the grey die shows 1-3 in black or white, not {face} in {numeral!r}")
    name = colour if isinstance(colour, str) else "custom"
    body, pip = _colour_of(colour)
    if numeral is not None:
        pip = NUMERAL_INK[numeral]
    tilt_dir = rng.uniform(0, 2 * np.pi)
    tilt_len = rng.uniform(0.04, 0.16)
    tilt = (float(np.cos(tilt_dir) * tilt_len), float(np.sin(tilt_dir) * tilt_len))
    sprite, alpha, n = _die_sprite(size_px, face, body, pip, tilt, rng, numeral is not None)
    if angle is None:
        angle = float(rng.uniform(0, 360))
    # rotation + slight perspective about the sprite centre, then translate to `center`
    c = n / 2
    rot = cv2.getRotationMatrix2D((c, c), angle, 1.0)
    m = np.vstack([rot, [0, 0, 1]])
    persp = np.eye(3)
    persp[2, 0] = rng.uniform(-0.15, 0.15) / n
    persp[2, 1] = rng.uniform(-0.15, 0.15) / n
    to_c = np.array([[1, 0, -c], [0, 1, -c], [0, 0, 1]], float)
    from_c = np.array([[1, 0, c], [0, 1, c], [0, 0, 1]], float)
    m = from_c @ persp @ to_c @ m
    move = np.array([[1, 0, center[0] - c], [0, 1, center[1] - c], [0, 0, 1]], float)
    h_full = move @ m
    h, w = image.shape[:2]
    warped = cv2.warpPerspective(sprite, h_full, (w, h), flags=cv2.INTER_LINEAR)
    a = cv2.warpPerspective(alpha, h_full, (w, h), flags=cv2.INTER_LINEAR)
    out = image.astype(np.float32)
    if shadow:
        sh = cv2.GaussianBlur(a, (0, 0), max(size_px * 0.12, 1.0))
        off = size_px * 0.08
        sh = np.roll(sh, (int(round(off)), int(round(off * 0.6))), axis=(0, 1))
        out *= (1 - 0.45 * sh)[..., None]
    out = out * (1 - a[..., None]) + warped * a[..., None]
    image[:] = np.clip(out, 0, 255).astype(np.uint8)
    ys, xs = np.nonzero(a > 0.5)
    if len(xs) == 0:
        box = (int(center[0]), int(center[1]), 0, 0)
    else:
        box = (
            int(xs.min()),
            int(ys.min()),
            int(xs.max() - xs.min() + 1),
            int(ys.max() - ys.min() + 1),
        )
    return DieTruth(
        box=box,
        face=int(face),
        colour=name,
        center=(float(center[0]), float(center[1])),
        size_px=float(size_px),
        numeral=numeral,
    )


_BACKGROUNDS = [
    (150, 190, 215),  # sand (the board's desert)
    (120, 160, 200),  # light wood
    (70, 100, 140),  # dark wood
    (200, 200, 198),  # grey table
    (60, 90, 50),  # green felt
    (175, 205, 225),  # beige
]


def make_background(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A table or board surface: a base tone, low-frequency blotches and a faint grain."""
    w, h = size
    base = np.asarray(_BACKGROUNDS[int(rng.integers(len(_BACKGROUNDS)))], np.float32)
    base = base * rng.uniform(0.85, 1.1, 3).astype(np.float32)
    low = rng.normal(0, 1, (max(h // 40, 2), max(w // 40, 2))).astype(np.float32)
    low = np.asarray(cv2.resize(low, (w, h), interpolation=cv2.INTER_CUBIC), np.float32)
    grain = rng.normal(0, 1, (h, max(w // 8, 2))).astype(np.float32)
    grain = np.asarray(cv2.resize(grain, (w, h), interpolation=cv2.INTER_LINEAR), np.float32)
    img = base[None, None, :] * (1 + 0.05 * low[..., None] + 0.03 * grain[..., None])
    return np.clip(img, 0, 255).astype(np.uint8)


def _draw_white_patch(
    image: np.ndarray,
    rng: np.random.Generator,
    side: float,
    taken: list[tuple[float, float, float]],
) -> list[tuple[float, float]]:
    """A marker-like card: white border around a black square, as on the board's ArUco tags."""
    h, w = image.shape[:2]
    corner = int(rng.integers(4))
    m = side * 0.3
    cx = m + side / 2 if corner in (0, 3) else w - m - side / 2
    cy = m + side / 2 if corner in (0, 1) else h - m - side / 2
    half = side / 2
    poly = [
        (cx - half, cy - half),
        (cx + half, cy - half),
        (cx + half, cy + half),
        (cx - half, cy + half),
    ]
    cv2.fillConvexPoly(image, np.round(np.array(poly)).astype(np.int32), (245, 245, 245))
    inner = half * 0.55
    cv2.rectangle(
        image,
        (int(cx - inner), int(cy - inner)),
        (int(cx + inner), int(cy + inner)),
        (20, 20, 20),
        -1,
    )
    taken.append((cx, cy, side * 0.9))
    return [(float(x), float(y)) for x, y in poly]


def render_dice_scene(
    rng: np.random.Generator,
    n_dice: int = 5,
    colours: list[str] | None = None,
    size: tuple[int, int] = (640, 480),
    background: np.ndarray | None = None,
    *,
    faces: tuple[int, ...] = (1, 2, 3),
    die_px: tuple[float, float] = (40.0, 70.0),
    effects: bool = True,
    white_patch: bool = True,
    effect_kwargs: dict[str, Any] | None = None,
) -> tuple[np.ndarray, SceneTruth]:
    """Render ``n_dice`` non-overlapping dice on a table; returns (BGR image, truth).

    ``colours`` defaults to Camel Up's five in a random order (repeated if n_dice > 5). The white
    patch is a stand-in for an ArUco marker's white border, the reader's white-balance reference.
    """
    w, h = size
    if background is None:
        img = make_background(rng, size)
    else:
        if background.ndim != 3 or background.shape[2] != 3:
            raise ValueError("background must be an HxWx3 BGR image")
        img = cv2.resize(background, (w, h)).astype(np.uint8)
    if colours is None:
        names = list(CAMEL_UP_COLOURS)
        order = [names[i] for i in rng.permutation(len(names))]
        colours = [order[i % len(order)] for i in range(n_dice)]
    elif len(colours) != n_dice:
        raise ValueError(f"{len(colours)} colours given for {n_dice} dice")
    truth = SceneTruth()
    taken: list[tuple[float, float, float]] = []
    if white_patch:
        truth.white_patch = _draw_white_patch(img, rng, min(w, h) * 0.12, taken)
    for colour in colours:
        s = float(rng.uniform(*die_px))
        reach = s * 0.95
        for _ in range(200):
            cx = float(rng.uniform(reach + 2, w - reach - 2))
            cy = float(rng.uniform(reach + 2, h - reach - 2))
            if all(np.hypot(cx - x, cy - y) > reach + r + 4 for x, y, r in taken):
                break
        else:
            raise ValueError(f"could not place {n_dice} dice of {die_px} px in a {w}x{h} frame")
        taken.append((cx, cy, reach))
        face = int(faces[int(rng.integers(len(faces)))])
        truth.dice.append(draw_die(img, (cx, cy), s, colour, face, rng))
    if effects:
        params = EffectParams.sample(rng, size, **(effect_kwargs or {}))
        img = apply_effects(img, params, rng)
        truth.effects = params
    return img, truth
