"""A real table as the camera sees it: the first-edition board, wooden camels, marker cards.

Why a second scene renderer: ``vision.render.board`` draws a board that does not exist (a margin
holding the markers, camels as boxes in board.yaml's nominal colours). This one draws what a
newcomer's table looks like, so that the track reader and the table set-up are measured on it:

- the board with no margin (16 spaces as the outer ring of a 5 x 5 grid running to its edge,
  pebble lines, palms, number flags, sand; ``vision.render.art``), 1.5-3 mm thick, its size
  varied +-15 % around 68 mm spaces and its art per table;
- ArUco marker cards lying on the table just outside the board's corners, each a little turned;
- wooden dromedaries (``vision.render.dromedary``) leaning and overhanging in stacks, dice with
  rounded edges in the reveal zone, the cardboard pyramid, betting tiles on the table;
- tables of wood or cloth; a lamp from 2700 to 6500 K whose light shifts saturated paints a
  little differently from the white card (what a white balance cannot undo); shadows of hands
  and of the camera arm;
- the pieces' paint drawn around ``REAL_CAMEL_RGB`` with a spread per table and per camel.

``REAL_CAMEL_RGB``: the issue reports that on public photos of a real first-edition set, after
white balance, blue, green and orange camel pixels sat 0.16-0.23 (linear chromaticity) from
board.yaml's nominal colours. These centres are chosen to sit at those distances in the
saturated direction real wooden paint takes (0.18, 0.17, 0.16; yellow 0.05, white 0.04): an
estimate from that report, not a measurement of ours. A ``Table`` is one set of pieces, one
board and one table top, fixed by its seed; scenes of it vary the position, camera, lamp, hands.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from vision.board import BoardGeometry, CameraPose, ring_5x5_cells, stack_region
from vision.palette import CAMEL_UP, CAMEL_UP2, CRAZY_CAMELS, camel_colours_rgb
from vision.render.art import BoardArt, draw_board_art, draw_desert_tile
from vision.render.board import AS_BUILT_TILT_DEG, random_position
from vision.render.camels import Block, draw_shadows
from vision.render.dromedary import Dromedary, draw_dromedaries, stack_dromedaries
from vision.render.effects import EffectParams, apply_effects
from vision.render.hands import draw_hand

__all__ = [
    "REAL_CAMEL_RGB",
    "REAL_TILE_RGB",
    "Table",
    "TableTruth",
    "lamp_spot",
    "make_table",
    "random_position_edition2",
    "render_table_scene",
    "sample_table_pose",
]

COLOURS = CAMEL_UP  # the camels, in the order scenes draw them
REAL_CAMEL_RGB: dict[str, tuple[int, int, int]] = {
    "blue": (24, 58, 170),
    "green": (78, 160, 40),
    "orange": (232, 74, 24),
    "yellow": (248, 198, 30),
    "white": (232, 228, 214),
    # the second edition's other paints (its blue, green, yellow and white as above)
    "red": (196, 32, 38),
    "purple": (112, 52, 140),
    "black": (34, 33, 36),
}
REAL_TILE_RGB: dict[str, tuple[int, int, int]] = {
    "oasis": (150, 195, 105),
    "mirage": (205, 165, 210),
}
TEX_PX_PER_MM = 2.0
# the first edition's spaces, drawn +-15 % (58..78 mm: inside the 40..80 mm a set-up accepts)
NOMINAL_CELL_MM = 68.0
CAMEL_PITCH, CAMEL_LENGTH, CAMEL_WIDTH = 18.0, 34.0, 22.0
WOODS = [(100, 140, 180), (60, 90, 130), (40, 62, 95), (70, 95, 135), (140, 170, 200)]
CLOTHS = [(55, 110, 45), (120, 120, 118), (110, 70, 40), (170, 190, 205), (60, 55, 120)]


def _jitter_rgb(rgb: tuple[int, int, int], rng: np.random.Generator, amount: float) -> np.ndarray:
    """A paint ``amount`` away from ``rgb`` in hue, saturation and value (HSV, float RGB)."""
    px = np.array([[list(rgb)]], np.uint8)
    h, s, v = np.asarray(cv2.cvtColor(px, cv2.COLOR_RGB2HSV_FULL))[0, 0].astype(np.float64)
    h = (h + rng.normal(0, 3.5 * amount)) % 256
    s = np.clip(s * rng.uniform(1 - 0.12 * amount, 1 + 0.08 * amount), 0, 255)
    v = np.clip(v * rng.uniform(1 - 0.12 * amount, 1 + 0.03 * amount), 0, 255)
    hsv = np.array([[[h, s, v]]], np.float64).round().astype(np.uint8)
    out = np.asarray(cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB_FULL))[0, 0]
    return np.asarray(out, np.float64)


@dataclass(frozen=True, eq=False)
class Table:
    """One table: the board (size, art, thickness), the pieces' paint, the marker cards where
    they lie, and the table top. Everything a scene of this table shares."""

    seed: int
    cell: float
    thickness: float
    art: BoardArt
    camel_rgb: dict[str, tuple[int, int, int]]
    tile_rgb: dict[str, tuple[int, int, int]]
    markers: dict[int, tuple[float, float, float]]  # id -> centre x, y (board mm), angle deg
    top: str  # "wood" or "cloth"
    top_bgr: tuple[int, int, int]
    pyramid_height: float
    geometry: BoardGeometry = field(repr=False)
    edition: int = 1  # 2: the second edition's seven camels, the crazy ones facing backwards
    # the lamp over the table (board mm, z up negative) and, on a glossy board, its bright
    # spot's (radius as a share of the frame's short side, strength); None: a matte board
    lamp: tuple[float, float, float] = (0.0, 0.0, -1000.0)
    gloss: tuple[float, float] | None = None

    def board_dict(self, *, nominal_colours: bool = True) -> dict[str, Any]:
        """This table as a version-2 board file (hardware/board.yaml's format): marker cards
        beside a board with no margin. With ``nominal_colours`` the colours are board.yaml's
        (what a person who never set the table up has); else this table's own paint."""
        return _board_dict(self, nominal_colours)


def _board_dict(t: Table, nominal: bool) -> dict[str, Any]:
    from vision.board import load_geometry

    default = load_geometry()
    c = t.cell
    cx, cy = 2.5 * c, 2.25 * c
    return {
        "version": 2,
        "units": "mm",
        # the board lies on the table beside the cards: its top is its thickness above them
        "board": {"width": 5 * c, "height": 5 * c, "thickness": round(t.thickness, 3)},
        "markers": {
            "dictionary": default.dictionary,
            "size": default.marker_size,
            "white_border": default.marker_border,
            "min_seen": 3,
            "placements": {
                k: [round(v[0], 2), round(v[1], 2), round(v[2], 2)] for k, v in t.markers.items()
            },
        },
        "track": {
            "spaces": 16,
            "cell": c,
            "origin": [0, 0],
            "cells": ring_5x5_cells(),
        },
        "camel": {
            "length": CAMEL_LENGTH,
            "width": CAMEL_WIDTH,
            "height": CAMEL_PITCH,
            "max_stack": len(t.camel_rgb),
            "colours": {
                k: list(v)
                for k, v in (_nominal_camels(t, default) if nominal else t.camel_rgb).items()
            },
        },
        "desert_tile": {
            "size": round(0.75 * c, 2),
            "colours": {
                k: list(v) for k, v in (default.tile_colours if nominal else t.tile_rgb).items()
            },
        },
        "pyramid": {"centre": [cx, cy], "size": round(1.4 * c, 2)},
        "reveal_zone": {
            "polygon": [
                [1.31 * c, 3.25 * c],
                [3.69 * c, 3.25 * c],
                [3.69 * c, 3.94 * c],
                [1.31 * c, 3.94 * c],
            ],
            "die_size": default.die_size,
        },
        "camera": {"hfov_deg": 66.0},
    }


def _nominal_camels(t: Table, default: BoardGeometry) -> dict[str, tuple[int, int, int]]:
    """The colours a board file names for this table's camels before any set-up."""
    return dict(default.colours) if t.edition == 1 else camel_colours_rgb(2)


def make_table(seed: int, cell_mm: float | None = None, edition: int = 1) -> Table:
    """The table of ``seed``: board spaces 68 mm +-15 % (or ``cell_mm``: another edition's or
    a home-made board, 40-80 mm), its art, paint, cards and top. ``edition`` 2: the second
    edition's seven camels (the rest of the table as edition 1's table of the same seed)."""
    if edition not in (1, 2):
        raise ValueError(f"Camel Up has editions 1 and 2, not {edition!r}")
    rng = np.random.default_rng([seed, 17])
    cell = NOMINAL_CELL_MM * float(rng.uniform(0.85, 1.15))
    if cell_mm is not None:
        cell = float(cell_mm)  # drawn above all the same: the rest of the table is unchanged
    camel = {
        k: tuple(int(v) for v in np.round(_jitter_rgb(REAL_CAMEL_RGB[k], rng, 1.0)))
        for k in COLOURS
    }
    if edition == 2:  # its own draw: the first edition's tables stay as they were
        rng2 = np.random.default_rng([seed, 17, 2])
        camel = {
            k: tuple(int(v) for v in np.round(_jitter_rgb(REAL_CAMEL_RGB[k], rng2, 1.0)))
            for k in CAMEL_UP2
        }
    tiles = {
        k: tuple(int(v) for v in np.round(_jitter_rgb(REAL_TILE_RGB[k], rng, 1.0)))
        for k in REAL_TILE_RGB
    }
    half = 25.0 + 8.0  # half a marker card's white square (board.yaml: 50 mm + 8 mm border)
    side = 5 * cell
    markers: dict[int, tuple[float, float, float]] = {}
    for mid, (sx, sy) in enumerate([(-1, -1), (1, -1), (1, 1), (-1, 1)]):
        gap = rng.uniform(4, 30, 2)
        along = rng.uniform(-0.5, 0.4, 2) * half  # slid along the board's side a little
        x = (0 if sx < 0 else side) + sx * (half + gap[0]) + along[0] * (sy != sx)
        y = (0 if sy < 0 else side) + sy * (half + gap[1]) + along[1] * (sy == sx)
        markers[mid] = (float(x), float(y), float(rng.uniform(-12, 12)))
    top = "wood" if rng.random() < 0.6 else "cloth"
    base = (WOODS if top == "wood" else CLOTHS)[int(rng.integers(5))]
    top_bgr = tuple(int(v) for v in np.clip(np.array(base) * rng.uniform(0.85, 1.15, 3), 0, 255))
    t = Table(
        seed=seed,
        cell=cell,
        thickness=float(rng.uniform(1.5, 3.0)),
        art=BoardArt.sample(rng),
        camel_rgb=camel,  # type: ignore[arg-type]
        tile_rgb=tiles,  # type: ignore[arg-type]
        markers=markers,
        top=top,
        top_bgr=top_bgr,  # type: ignore[arg-type]
        pyramid_height=float(rng.uniform(85, 120)) * cell / 80.0,
        geometry=None,  # type: ignore[arg-type]
        edition=edition,
        **_lamp(seed, cell),
    )
    object.__setattr__(t, "geometry", BoardGeometry.from_dict(t.board_dict()))
    return t


def _lamp(seed: int, cell: float) -> dict[str, Any]:
    """The table's lamp: where it hangs over the board, and whether the board's print is
    glossy enough to show its spot (15 % of tables). Its own draw, so the rest of a table of
    ``seed`` is as it was before tables had a lamp."""
    rng = np.random.default_rng([seed, 23])
    side = 5 * cell
    x, y = rng.uniform(-0.6, 1.6, 2) * side
    lamp = (float(x), float(y), -float(rng.uniform(600.0, 1400.0)))
    glossy = rng.random() < 0.15
    gloss = (float(rng.uniform(0.03, 0.12)), float(rng.uniform(0.15, 0.45)))
    return {"lamp": lamp, "gloss": gloss if glossy else None}


def lamp_spot(
    table: Table, pose: CameraPose, size: tuple[int, int]
) -> tuple[float, float, float, float] | None:
    """Where this table's lamp shows its bright spot in a frame from ``pose`` (x, y, radius,
    strength in px, as ``EffectParams.glare``), or None (a matte board, or the spot off the
    frame). The spot is the lamp's mirror image in the board: it stays put while the camera
    and lamp do, and moves when the camera is re-mounted."""
    if table.gloss is None:
        return None
    lx, ly, lz = table.lamp
    c = pose.centre
    mirror = np.array([lx, ly, -lz])  # the lamp seen in the board's plane, as deep as high
    t = -c[2] / (mirror[2] - c[2])
    p = c + t * (mirror - c)
    x, y = pose.project(p[:2], 0.0)[0]
    w, h = size
    r = table.gloss[0] * min(w, h)
    if not (-2 * r < x < w + 2 * r and -2 * r < y < h + 2 * r):
        return None
    return float(x), float(y), float(r), table.gloss[1]


@lru_cache(maxsize=8)
def _art_texture(table_seed: int, art: BoardArt, cell: float) -> np.ndarray:
    return draw_board_art(art, cell, TEX_PX_PER_MM)


@lru_cache(maxsize=8)
def _marker_card(dictionary: str, marker_id: int, size: float, border: float) -> np.ndarray:
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    k = TEX_PX_PER_MM * 2  # cards drawn finer: their corners are what the homography rests on
    cells = d.markerSize + 2
    black = cv2.aruco.generateImageMarker(d, marker_id, cells * 20, borderBits=1)
    side = int(round(size * k))
    black = cv2.resize(black, (side, side), interpolation=cv2.INTER_AREA)
    b = int(round(border * k))
    card = np.full((side + 2 * b, side + 2 * b), 246, np.uint8)
    card[b : b + side, b : b + side] = black
    return cv2.cvtColor(card, cv2.COLOR_GRAY2BGR)


# --- the camera ---------------------------------------------------------------------------
def _look_at(centre: np.ndarray, target: np.ndarray, roll: float) -> np.ndarray:
    fwd = target - centre
    fwd /= np.linalg.norm(fwd)
    right = np.cross(fwd, np.array([0.0, 0.0, -1.0]))
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    c, s = np.cos(roll), np.sin(roll)
    return np.asarray(np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]) @ np.vstack([right, down, fwd]))


def sample_table_pose(
    rng: np.random.Generator,
    table: Table,
    size: tuple[int, int] = (1280, 720),
    tilt_deg: tuple[float, float] = AS_BUILT_TILT_DEG,
) -> CameraPose:
    """The camera on its arm at one side of the board (tilt as built), framing the board, the
    marker cards and a full stack, as close as fits."""
    geo = table.geometry
    w, h = size
    f = (w / 2) / np.tan(np.deg2rad(rng.uniform(60, 68)) / 2)
    K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
    tilt = np.deg2rad(rng.uniform(*tilt_deg))
    az = np.pi / 2 * int(rng.integers(4)) + np.deg2rad(rng.uniform(-10, 10)) + np.pi / 2
    roll = np.deg2rad(rng.normal(0, 1.5))
    side = 5 * table.cell
    target = np.array([side / 2, side / 2, 0.0]) + np.append(rng.normal(0, 8, 2), 0)
    direction = np.array([np.sin(tilt) * np.cos(az), np.sin(tilt) * np.sin(az), -np.cos(tilt)])
    pts = [geo.marker_corners(m, geo.marker_border) for m in geo.marker_centres]
    must = np.concatenate(pts + [np.array([[0, 0], [side, 0], [side, side], [0, side]])])

    def fit(target: np.ndarray) -> tuple[float, np.ndarray]:
        lo, hi = 200.0, 6000.0
        p = np.zeros((1, 2))
        for _ in range(18):
            d = (lo + hi) / 2
            C = target + direction * d
            R = _look_at(C, target, roll)
            pose = CameraPose(K=K, R=R, t=-R @ C)
            p = np.concatenate([pose.project(must, 0.0), pose.project(must[-4:], 95.0)])
            ok = bool(
                (p[:, 0] > 0.025 * w).all()
                and (p[:, 0] < 0.975 * w).all()
                and (p[:, 1] > 0.025 * h).all()
                and (p[:, 1] < 0.975 * h).all()
            )
            lo, hi = (lo, d) if ok else (d, hi)
        C = target + direction * hi
        R = _look_at(C, target, roll)
        pose = CameraPose(K=K, R=R, t=-R @ C)
        p = np.concatenate([pose.project(must, 0.0), pose.project(must[-4:], 95.0)])
        return hi, p

    # centre what must be seen in the frame (an oblique view shows the near side larger)
    for _ in range(3):
        dist, p = fit(target)
        mid = (p.min(axis=0) + p.max(axis=0)) / 2
        C = target + direction * dist
        R = _look_at(C, target, roll)
        pose = CameraPose(K=K, R=R, t=-R @ C)
        # move the aim on the board by the image offset, at the board scale there
        a0, a1 = pose.project(np.array([target[:2], target[:2] + [1.0, 0.0]]), 0.0)
        b1 = pose.project(np.array([target[:2] + [0.0, 1.0]]), 0.0)[0]
        J = np.column_stack([a1 - a0, b1 - a0])
        target = target + np.append(np.linalg.solve(J, mid - [w / 2, h / 2]), 0.0)
    dist, _ = fit(target)
    C = target + direction * dist * float(rng.uniform(1.0, 1.06))
    R = _look_at(C, target, roll)
    return CameraPose(K=K, R=R, t=-R @ C)


def _plane_h(pose: CameraPose, height: float) -> np.ndarray:
    """Homography board mm -> image px of the plane ``height`` mm above the board's surface."""
    H = pose.K @ np.column_stack([pose.R[:, 0], pose.R[:, 1], pose.t - height * pose.R[:, 2]])
    return np.asarray(H / H[2, 2])


def _paste(img: np.ndarray, tex: np.ndarray, H: np.ndarray, mask_only: bool = False) -> None:
    """Warp ``tex`` (whose pixel -> image px homography is ``H``) into ``img`` in its box only."""
    h, w = img.shape[:2]
    th, tw = tex.shape[:2]
    corners = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float64).reshape(-1, 1, 2)
    box = cv2.perspectiveTransform(corners, H).reshape(-1, 2)
    x0, y0 = np.maximum(np.floor(box.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(box.max(axis=0)).astype(int) + 1, [w, h])
    if x1 <= x0 or y1 <= y0:
        return
    T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]])
    roi = img[y0:y1, x0:x1]
    cv2.warpPerspective(
        tex,
        T @ H,
        (x1 - x0, y1 - y0),
        dst=roi,
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_TRANSPARENT,
    )


def _table_top(table: Table, rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    return _table_top_cached(table.seed, table.top, table.top_bgr, size).copy()


@lru_cache(maxsize=4)
def _table_top_cached(
    seed: int, top: str, top_bgr: tuple[int, int, int], size: tuple[int, int]
) -> np.ndarray:
    """The table top of table ``seed`` (image space: a grain, never the board's business)."""
    w, h = size
    sw, sh = w // 2, h // 2
    base = np.array(top_bgr, np.float32)
    g = np.random.default_rng([seed, 3])
    ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float32)
    if top == "wood":
        a = float(g.uniform(0, np.pi))
        u = xs * np.cos(a) + ys * np.sin(a)
        v = -xs * np.sin(a) + ys * np.cos(a)
        warp = cv2.resize(
            g.normal(0, 1, (6, 10)).astype(np.float32), (sw, sh), interpolation=cv2.INTER_CUBIC
        )
        grain = np.sin(v * float(g.uniform(0.6, 1.2)) + 2 * warp + 0.01 * u)
        fine = cv2.resize(g.normal(0, 1, (sh // 2, 8)).astype(np.float32), (sw, sh))
        planks = (np.mod(v, float(g.uniform(90, 160))) < 1.2).astype(np.float32)
        tone = 1 + 0.035 * grain + 0.04 * fine - 0.3 * planks
    else:
        tone = 1 + 0.05 * cv2.resize(
            g.normal(0, 1, (20, 36)).astype(np.float32), (sw, sh), interpolation=cv2.INTER_CUBIC
        )
        tone += 0.04 * np.sin(xs * 2.1) * np.sin(ys * 2.1)
    small = np.clip(base * tone[..., None] + g.normal(0, 2, (sh, sw, 1)), 0, 255)
    return np.asarray(cv2.resize(small.astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR))


def _lamp_mix(kelvin: float) -> np.ndarray:
    """How a lamp shifts saturated paint relative to the white card (BGR rows summing to 1,
    so white stays white and a white balance cannot take it out): warm light pushes red into
    green and green into blue less, cold light the other way. A small effect (<= 4 %)."""
    a = float(np.clip((kelvin - 4500.0) / 1800.0, -1.2, 1.2)) * 0.04
    return np.array(
        [
            [1 - abs(a), max(a, 0), max(-a, 0)],
            [0, 1 - abs(a) / 2, abs(a) / 2],
            [max(-a, 0), max(a, 0) / 2, 1 - max(-a, 0) - max(a, 0) / 2],
        ]
    )


def random_position_edition2(
    rng: np.random.Generator, geometry: BoardGeometry
) -> dict[int, list[str]]:
    """A legal-looking second-edition track: the seven camels (the board's colours) on one to
    six spaces, stacks common, the crazy camels anywhere in a stack (they carry racers)."""
    names = list(geometry.colours)
    order = [names[i] for i in rng.permutation(len(names))]
    n_stacks = int(rng.integers(1, 7))
    spaces = sorted(int(v) for v in rng.choice(np.arange(1, 17), n_stacks, replace=False))
    cuts = sorted(int(v) for v in rng.choice(np.arange(1, len(names)), n_stacks - 1, replace=False))
    groups = np.split(np.array(order), cuts)
    return {sp: [str(c) for c in g] for sp, g in zip(spaces, groups, strict=True)}


# --- the scene ----------------------------------------------------------------------------
@dataclass
class TableTruth:
    """What a rendered table frame shows, and how it was made."""

    table: int
    track: dict[int, list[str]]
    desert: dict[int, str]
    homography: list[list[float]]  # board mm (surface) -> image px
    board_corners: list[list[float]]  # the board's outer corners TL, TR, BR, BL in image px
    kelvin: float
    covered: list[int] = field(default_factory=list)
    grazed: list[int] = field(default_factory=list)
    dice: list[dict[str, Any]] = field(default_factory=list)
    effects: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["track"] = {str(k): v for k, v in self.track.items()}
        d["desert"] = {str(k): v for k, v in self.desert.items()}
        return d


def render_table_scene(
    table: Table,
    rng: np.random.Generator,
    track: dict[int, list[str]] | None = None,
    desert: dict[int, str] | None = None,
    *,
    kelvin: float | None = None,
    hands: int = 0,
    dice: list[tuple[str, int]] | None = None,
    pose: CameraPose | None = None,
    size: tuple[int, int] = (1280, 720),
    effects: bool = True,
    shadows: bool = True,
) -> tuple[np.ndarray, TableTruth]:
    """One frame of ``table``; returns (BGR image, truth). ``track``/``desert`` random when
    ``track`` is None; ``kelvin`` the lamp (random 2700..6500 K when None)."""
    geo = table.geometry
    if track is None:
        track, rand_desert = random_position(rng, geo)
        desert = rand_desert if desert is None else desert
    track = {int(k): list(v) for k, v in track.items() if v}
    desert = dict(desert or {})
    for s in desert:
        if s in track:
            raise ValueError(f"space {s} holds both camels and a desert tile")
    if not 0 <= hands <= 4:
        raise ValueError(f"hands must be 0..4, got {hands}")
    w, h = size
    kelvin = float(rng.uniform(2700, 6500)) if kelvin is None else float(kelvin)
    pose = pose or sample_table_pose(rng, table, size)
    img = _table_top(table, rng, size)
    side = 5 * table.cell
    th = table.thickness
    # betting tiles and coins lying on the table, outside the board and the cards
    for _ in range(int(rng.integers(0, 5))):
        name = list(table.camel_rgb)[int(rng.integers(5))]
        edge = int(rng.integers(4))
        t = float(rng.uniform(0.1, 0.9)) * side
        off = float(rng.uniform(60, 130))
        p = [(t, -off), (side + off, t), (t, side + off), (-off, t)][edge]
        a = np.deg2rad(rng.uniform(0, 90))
        sq = (
            np.array([[-18, -25], [18, -25], [18, 25], [-18, 25]])
            @ np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]).T
            + p
        )
        poly = pose.project(sq, -th)
        col = np.array(table.camel_rgb[name][::-1], np.float64) * 0.9
        cv2.fillConvexPoly(img, np.round(poly * 16).astype(np.int32), col.tolist(), cv2.LINE_AA, 4)
    # the marker cards on the table
    for mid, (mx, my, ang) in table.markers.items():
        card = _marker_card(geo.dictionary, mid, geo.marker_size, geo.marker_border)
        n = card.shape[0]
        k = n / (geo.marker_size + 2 * geo.marker_border)
        a = np.deg2rad(ang)
        c, s_ = np.cos(a), np.sin(a)
        # card pixel -> board mm: centre the card, scale, turn, move
        A = np.array([[c / k, -s_ / k, 0], [s_ / k, c / k, 0], [0, 0, 1.0]])
        A[:2, 2] = [mx, my] - A[:2, :2] @ [n / 2, n / 2]
        _paste(img, card, _plane_h(pose, -th) @ A)
    # the board: its cardboard edge, then its printed top with the desert tiles on it
    corners = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float64)
    cam = pose.centre
    for i in range(4):
        a_, b_ = corners[i], corners[(i + 1) % 4]
        mid = (a_ + b_) / 2
        out = mid - [side / 2, side / 2]
        if (cam[:2] - mid) @ out > 0:
            quad = np.concatenate(
                [pose.project(np.array([a_, b_]), 0.0), pose.project(np.array([b_, a_]), -th)]
            )
            cv2.fillConvexPoly(
                img, np.round(quad * 16).astype(np.int32), (40, 42, 45), cv2.LINE_AA, 4
            )
    tex = _art_texture(table.seed, table.art, table.cell).copy()
    for space, tside in desert.items():
        cx, cy = geo.space_centres[space]
        draw_desert_tile(
            tex,
            (cx * TEX_PX_PER_MM, cy * TEX_PX_PER_MM),
            geo.tile_size * TEX_PX_PER_MM,
            tside,
            table.tile_rgb,
            rng,
        )
    S = np.diag([1 / TEX_PX_PER_MM, 1 / TEX_PX_PER_MM, 1.0])
    _paste(img, tex, _plane_h(pose, 0.0) @ S)
    # lamp and shadows
    la, le = rng.uniform(0, 2 * np.pi), np.deg2rad(rng.uniform(45, 80))
    light = np.array([np.cos(le) * np.cos(la), np.cos(le) * np.sin(la), -np.sin(le)])
    cols = {s: [(n, table.camel_rgb[n]) for n in cs] for s, cs in track.items()}
    camels = stack_dromedaries(
        cols,
        geo.space_centres,
        {s: geo.direction(s) for s in geo.spaces},
        CAMEL_PITCH,
        CAMEL_LENGTH,
        CAMEL_WIDTH,
        rng,
        backwards=frozenset(CRAZY_CAMELS) if table.edition == 2 else frozenset(),
    )
    pc, ps, ph = np.asarray(geo.pyramid_centre), geo.pyramid_size, table.pyramid_height
    if shadows:
        blocks = [
            Block(c.x, c.y, c.base, c.yaw, c.length * 0.9, c.width, c.height * 0.9, (0, 0, 0))
            for c in camels
        ]
        blocks.append(
            Block(float(pc[0]), float(pc[1]), 0.0, 0.0, ps * 0.7, ps * 0.7, ph * 0.6, (0, 0, 0))
        )
        draw_shadows(img, pose, blocks, light, strength=float(rng.uniform(0.25, 0.45)))
        _arm_and_hand_shadows(img, rng)
    # the pyramid and the camels, far first
    objects: list[tuple[float, str, Any]] = [
        (float(np.linalg.norm(cam - [pc[0], pc[1], -ph / 3])), "pyramid", None)
    ]
    for c in camels:
        objects.append((float(np.linalg.norm(cam - [c.x, c.y, -(c.base + 8)])), "camel", c))
    objects.sort(key=lambda o: -o[0])
    batch: list[Dromedary] = []
    for _, kind, obj in objects:
        if kind == "camel":
            batch.append(obj)
            continue
        draw_dromedaries(img, pose, batch, light)
        batch = []
        _pyramid(img, pose, pc, ps, ph, light, rng)
    draw_dromedaries(img, pose, batch, light)
    # dice in the reveal zone (drawn after the pyramid: they lie in front of it)
    dice_truth = []
    if dice:
        from vision.render.dice import draw_die

        zone = np.asarray(geo.reveal_zone)
        for colour, face in dice:
            p = rng.uniform(zone.min(axis=0) + geo.die_size, zone.max(axis=0) - geo.die_size)
            a_, b_ = pose.project(np.array([p, p + [geo.die_size, 0]]), geo.die_size / 2)
            centre = pose.project(p, geo.die_size / 2)[0]
            paint = _jitter_rgb(table.camel_rgb[colour], rng, 0.4)
            dt = draw_die(
                img,
                (float(centre[0]), float(centre[1])),
                float(np.linalg.norm(b_ - a_)),
                (int(paint[2]), int(paint[1]), int(paint[0])),
                int(face),
                rng,
            )
            dice_truth.append({"colour": colour, "face": int(face), "box": list(dt.box)})
    covered, grazed = _hands(img, rng, pose, geo, hands) if hands else (set(), set())
    # the lamp: saturated paint shifts a little against the white card, then the camera
    mix = _lamp_mix(kelvin)
    img = cv2.transform(img, mix.astype(np.float32))
    params = None
    if effects:
        params = EffectParams.sample(
            rng,
            size,
            kelvin=(kelvin, kelvin),
            max_blur=0.9,
            max_motion=1.5,
            max_noise=5.0,
            jpeg_quality=(70, 95),
            glare_probability=0.15,
        )
        # the bright spot is the table's lamp's, not a new one each frame (the draw above
        # is kept so that every other choice of a scene stays as it was)
        params = replace(params, glare=lamp_spot(table, pose, size))
        img = apply_effects(img, params, rng)
    truth = TableTruth(
        table=table.seed,
        track=track,
        desert=desert,
        homography=_plane_h(pose, 0.0).tolist(),
        board_corners=pose.project(corners, 0.0).tolist(),
        kelvin=kelvin,
        covered=sorted(covered),
        grazed=sorted(grazed),
        dice=dice_truth,
        effects=asdict(params) if params else None,
    )
    return img, truth


def _pyramid(
    img: np.ndarray,
    pose: CameraPose,
    centre: np.ndarray,
    size: float,
    height: float,
    light: np.ndarray,
    rng: np.random.Generator,
) -> None:
    """The cardboard dice pyramid: four printed faces, the ones towards the camera drawn."""
    s = size / 2
    base = centre + np.array([[-s, -s], [s, -s], [s, s], [-s, s]])
    apex = np.array([centre[0], centre[1], -height])
    cam = pose.centre
    faces = []
    for i in range(4):
        a, b = base[i], base[(i + 1) % 4]
        p3 = np.array([[a[0], a[1], 0.0], [b[0], b[1], 0.0], apex])
        n = np.cross(p3[1] - p3[0], p3[2] - p3[0])
        n /= np.linalg.norm(n)
        mid = p3.mean(axis=0)
        if n @ (mid - np.array([centre[0], centre[1], -height / 3])) < 0:
            n = -n
        if (cam - mid) @ n > 0:
            faces.append((float(np.linalg.norm(cam - mid)), a, b, n))
    card = np.array([150, 190, 215], np.float64)
    for _, a, b, n in sorted(faces, key=lambda f: -f[0]):
        shade = 0.5 + 0.5 * max(0.0, float(n @ light))
        tri = pose.project(np.array([a, b, centre]), np.array([0.0, 0.0, height]))
        cv2.fillConvexPoly(
            img, np.round(tri * 16).astype(np.int32), (card * shade).tolist(), cv2.LINE_AA, 4
        )
        for f in (0.2, 0.4, 0.6, 0.8):  # courses of stone blocks printed on the card
            p = pose.project(np.array([a + (centre - a) * f, b + (centre - b) * f]), height * f)
            cv2.line(
                img,
                tuple(np.round(p[0]).astype(int)),
                tuple(np.round(p[1]).astype(int)),
                (card * shade * 0.7).tolist(),
                1,
                cv2.LINE_AA,
            )
        cv2.polylines(img, [np.round(tri).astype(np.int32)], True, (40, 60, 80), 1, cv2.LINE_AA)


def _arm_and_hand_shadows(img: np.ndarray, rng: np.random.Generator) -> None:
    """The camera arm's shadow (a long soft band from one edge) and, now and then, the shadow
    of a hand just out of frame: light taken away, colour kept."""
    h, w = img.shape[:2]
    mask = np.zeros((h // 4, w // 4), np.float32)
    if rng.random() < 0.5:
        a = rng.uniform(0, 2 * np.pi)
        c = rng.uniform([0, 0], [w / 4, h / 4])
        d = np.array([np.cos(a), np.sin(a)]) * w
        cv2.line(
            mask,
            tuple(np.round(c - d).astype(int)),
            tuple(np.round(c + d).astype(int)),
            1.0,
            int(rng.uniform(4, 10)),
        )
    if rng.random() < 0.3:
        c = rng.uniform([0, 0], [w / 4, h / 4])
        cv2.ellipse(
            mask,
            tuple(np.round(c).astype(int)),
            (int(rng.uniform(15, 30)), int(rng.uniform(10, 20))),
            float(rng.uniform(0, 180)),
            0,
            360,
            1.0,
            -1,
        )
    if not mask.any():
        return
    soft = cv2.GaussianBlur(mask, (0, 0), float(rng.uniform(2, 5)))
    shade = 1 - float(rng.uniform(0.15, 0.4)) * cv2.resize(soft, (w, h))
    img[:] = cv2.multiply(img, cv2.merge([shade, shade, shade]), dtype=cv2.CV_8U)


def _hands(
    img: np.ndarray, rng: np.random.Generator, pose: CameraPose, geo: BoardGeometry, hands: int
) -> tuple[set[int], set[int]]:
    h, w = img.shape[:2]
    hand_mask = np.zeros((h, w), np.uint8)
    for _ in range(hands):
        space = int(rng.choice(geo.spaces))
        c = geo.space_centres[space]
        pa, pb = pose.project(np.array([c, [c[0] + 10, c[1]]]), 0.0)
        hand_mask |= draw_hand(
            img, rng, (float(pa[0]), float(pa[1])), float(np.linalg.norm(pb - pa)) / 10
        )
    covered: set[int] = set()
    grazed: set[int] = set()
    for space in geo.spaces:
        poly = np.round(stack_region(pose, geo, space)).astype(np.int32)
        x0, y0 = np.maximum(poly.min(axis=0), 0)
        x1, y1 = np.minimum(poly.max(axis=0) + 1, [w, h])
        if x1 <= x0 or y1 <= y0:
            continue
        region = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(region, poly - [x0, y0], 1)
        hit = int(np.count_nonzero(hand_mask[y0:y1, x0:x1][region > 0] > 64))
        if hit > 0.02 * int(region.sum()):
            covered.add(space)
        elif hit > 0:
            grazed.add(space)
    return covered, grazed
