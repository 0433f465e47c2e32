"""The table profile: what the set-up learnt about one table, as a versioned file vision reads.

Why: the board, the pieces and the lamp are the user's, not ours. Real wooden camels sit far from
board.yaml's nominal colours (the issue measured 0.16-0.23 in chromaticity against an accepted
0.11), and a first-edition board has no margin for markers. So a table is set up once from the
camera's own frames, and keeps learning:

1. ``solve_markers``: the four marker cards lie anywhere round the board, each a little turned;
   their layout on the table is solved from one frame (each card's printed square is of known
   size, so the layout comes out in millimetres).
2. ``place_board``: the board's four outer corners in the frame (proposed by ``propose_corners``,
   confirmed or dragged by a person) give the board in millimetres relative to the markers: a
   version-2 board file (``vision.board``), any board with spaces of 40-80 mm.
3. ``learn_camels`` / ``learn_tiles``: "put the five camels on spaces 1 to 5 in this order" learns
   each camel's colour under this lamp (white-balanced on the markers' white borders); the same
   for each side of a desert tile.
4. ``refine`` / ``undo``: every reading a person confirmed or corrected is a labelled sample that
   moves the colours, within a bound of the set-up's colour and never towards another colour;
   each change is logged and can be undone.

A step that cannot be done raises ``SetupRefused`` with a typed ``code`` and changes nothing.
Everything here is a pure function of frames and profiles; the caller stores the file.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.background import (
    BG_MM_PER_PX,
    BG_PAD_MM,
    BOARD_MOVED,
    MOVED_GAIN,
    MOVED_MM,
    Background,
)
from vision.board import (
    MAX_BOARD_HEIGHT_MM,
    BoardGeometry,
    BoardLocation,
    BoardNotFound,
    CameraPose,
    detect_markers,
    load_geometry,
    locate_board,
    ring_5x5_cells,
    stack_region,
)
from vision.board_light import chromaticity, gains_at, linear, sample, white_gains
from vision.track import read_track

__all__ = [
    "BOARD_MOVED",
    "MOVED_GAIN",
    "MOVED_MM",
    "PROFILE_VERSION",
    "Background",
    "ColourStat",
    "MarkerLayout",
    "Refusal",
    "SetupRefused",
    "TableProfile",
    "capture_background",
    "learn_camels",
    "learn_camels_from_stacks",
    "learn_tiles",
    "load_profile",
    "place_board",
    "propose_corners",
    "refine",
    "samples_from_reading",
    "save_profile",
    "solve_markers",
    "undo",
]

PROFILE_VERSION = 1
CELL_RANGE_MM = (40.0, 80.0)
# the corners a person drags lie on the board's top, 1.5-3 mm above the cards' table: seen from
# the side, an 80 mm board measures up to 81-82 mm on the table's plane; a little slack keeps
# the boards at the ends of the range in it
CELL_SLACK = 0.04
REFINE_BOUND = 0.04  # a refined colour stays this near (chromaticity) its set-up colour
REFINE_RATE = 0.25  # each confirmed sample moves the colour this share of the way to it
MIN_APART = 0.05  # two learnt colours nearer than this are one colour
# a camel learnt from a stack this far (chromaticity) from its board-file colour is another
# piece seen in its place (real paint sits 0.16-0.23 from the nominal colours)
NOT_THAT_CAMEL = 0.4
# a camel's band sampled on a setup roll's stack whose colours spread wider than this
# (chromaticity RMS) is two pieces, not one camel
MAX_BAND_SPREAD = 0.15
PROPOSAL_GAP_MM = 12.0  # a card lies about this far off the board's corner, along each side
# the board's top above the table its cards lie on, when the person does not say: a game
# board's cardboard (the first edition's is about 2 mm). The corners a person drags lie that
# high, and so do the camels' feet; a person with a thicker board (or cards on a mat) sets it
BOARD_HEIGHT_MM = 2.0
# an 8-bit channel this high is at the sensor's ceiling: its colour is not to be learnt
CLIPPED = 250


class Refusal(StrEnum):
    """Why a set-up step was refused. Code decides on these; people read the sentence."""

    NOT_AN_IMAGE = "not_an_image"
    MARKER_NOT_SEEN = "marker_not_seen"
    MARKERS_INCONSISTENT = "markers_inconsistent"
    NO_MARKERS_STEP = "no_markers_step"
    NO_BOARD_STEP = "no_board_step"
    OVERLAY_OFF_FRAME = "overlay_off_frame"
    OVERLAY_NOT_SQUARE = "overlay_not_square"
    OVERLAY_ON_MARKER = "overlay_on_marker"
    SPACE_SIZE = "space_size"
    BOARD_HEIGHT = "board_height"
    CAMEL_NOT_FOUND = "camel_not_found"
    TWO_CAMELS_ONE_COLOUR = "two_camels_one_colour"
    BAD_ORDER = "bad_order"
    TILE_NOT_FOUND = "tile_not_found"
    SAMPLE_LOOKS_LIKE_OTHER = "sample_looks_like_other"
    NOTHING_TO_UNDO = "nothing_to_undo"
    BAD_FILE = "bad_file"


class SetupRefused(ValueError):
    """A set-up step that could not be done: ``code`` (a Refusal) and a sentence for people."""

    def __init__(self, code: Refusal, sentence: str) -> None:
        super().__init__(sentence)
        self.code = code
        self.sentence = sentence


@dataclass(frozen=True)
class ColourStat:
    """A learnt colour: white-balanced linear chromaticity (b, g, r shares, as vision.track
    computes it), its spread over the samples, and how many samples it rests on."""

    chroma: tuple[float, float, float]
    spread: float
    n: int

    def to_json(self) -> dict[str, Any]:
        return {
            "chroma": [round(v, 5) for v in self.chroma],
            "spread": round(self.spread, 5),
            "n": self.n,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ColourStat:
        c = [float(v) for v in d["chroma"]]
        if len(c) != 3:
            raise ValueError("a colour's chroma has three shares")
        return cls((c[0], c[1], c[2]), float(d["spread"]), int(d["n"]))


@dataclass(frozen=True)
class MarkerLayout:
    """The marker cards on the table in millimetres (marker 0's frame): id -> (x, y, angle deg),
    and the homography from that frame to the set-up frame's pixels."""

    cards: dict[int, tuple[float, float, float]]
    homography: np.ndarray
    rms_px: float

    def to_json(self) -> dict[str, Any]:
        return {
            "cards": {str(k): [round(x, 3) for x in v] for k, v in self.cards.items()},
            "rms_px": round(self.rms_px, 3),
        }


@dataclass(frozen=True)
class Refinement:
    """One logged change of the colours: which sample moved what, from and to."""

    seq: int
    at: float
    source: str
    before: dict[str, ColourStat]
    after: dict[str, ColourStat]

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "at": self.at,
            "source": self.source,
            "before": {k: v.to_json() for k, v in self.before.items()},
            "after": {k: v.to_json() for k, v in self.after.items()},
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Refinement:
        return cls(
            int(d["seq"]),
            float(d["at"]),
            str(d["source"]),
            {k: ColourStat.from_json(v) for k, v in d["before"].items()},
            {k: ColourStat.from_json(v) for k, v in d["after"].items()},
        )


@dataclass(frozen=True)
class TableProfile:
    """One table's set-up. ``board``: a version-2 board file's mapping (None until the board is
    placed); ``camels``/``tiles``: the colours now; ``anchors``: the set-up's colours, the
    centre of every refinement's bound; ``log``: the refinements, newest last."""

    version: int = PROFILE_VERSION
    markers: MarkerLayout | None = None
    board: dict[str, Any] | None = None
    camels: dict[str, ColourStat] = field(default_factory=dict)
    tiles: dict[str, ColourStat] = field(default_factory=dict)
    anchors: dict[str, ColourStat] = field(default_factory=dict)
    log: tuple[Refinement, ...] = ()
    background: Background | None = field(default=None, repr=False)

    @property
    def geometry(self) -> BoardGeometry:
        if self.board is None:
            raise SetupRefused(
                Refusal.NO_BOARD_STEP, "the board is not placed yet: run the track step first"
            )
        return _geometry(json.dumps(self.board, sort_keys=True))

    def colours(self) -> dict[str, tuple[float, float, float]]:
        """Every learnt colour by name (camels and tile sides): what the track reader uses."""
        return {k: v.chroma for k, v in {**self.camels, **self.tiles}.items()}

    def spreads(self) -> dict[str, float]:
        return {k: v.spread for k, v in {**self.camels, **self.tiles}.items()}

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "markers": None if self.markers is None else self.markers.to_json(),
            "board": self.board,
            "camels": {k: v.to_json() for k, v in self.camels.items()},
            "tiles": {k: v.to_json() for k, v in self.tiles.items()},
            "anchors": {k: v.to_json() for k, v in self.anchors.items()},
            "log": [r.to_json() for r in self.log],
            "background": None if self.background is None else self.background.to_json(),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TableProfile:
        version = int(d.get("version", 0))
        if version != PROFILE_VERSION:
            raise SetupRefused(
                Refusal.BAD_FILE,
                f"table profile version {version}; this program reads version {PROFILE_VERSION}",
            )
        m = d.get("markers")
        layout = None
        if m is not None:
            cards = {int(k): (float(v[0]), float(v[1]), float(v[2])) for k, v in m["cards"].items()}
            layout = MarkerLayout(cards, np.eye(3), float(m.get("rms_px", 0.0)))
        return cls(
            version=version,
            markers=layout,
            board=d.get("board"),
            camels={k: ColourStat.from_json(v) for k, v in d.get("camels", {}).items()},
            tiles={k: ColourStat.from_json(v) for k, v in d.get("tiles", {}).items()},
            anchors={k: ColourStat.from_json(v) for k, v in d.get("anchors", {}).items()},
            log=tuple(Refinement.from_json(r) for r in d.get("log", [])),
            background=None
            if d.get("background") is None
            else Background.from_json(d["background"]),
        )


def _geometry(board_json: str) -> BoardGeometry:
    return _geometry_cached(board_json)


_GEO_CACHE: dict[str, BoardGeometry] = {}


def _geometry_cached(board_json: str) -> BoardGeometry:
    geo = _GEO_CACHE.get(board_json)
    if geo is None:
        geo = BoardGeometry.from_dict(json.loads(board_json))
        if len(_GEO_CACHE) > 16:
            _GEO_CACHE.clear()
        _GEO_CACHE[board_json] = geo
    return geo


def save_profile(profile: TableProfile, path: str | Path) -> Path:
    """Write atomically (a half-written file must never replace a good one)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(p.suffix + ".tmp")
    tmp.write_text(json.dumps(profile.to_json(), indent=1))
    tmp.replace(p)
    return p


def load_profile(path: str | Path) -> TableProfile:
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise SetupRefused(
            Refusal.BAD_FILE, f"{path}: cannot read a table profile ({exc})"
        ) from exc
    if not isinstance(doc, dict):
        raise SetupRefused(Refusal.BAD_FILE, f"{path}: not a table profile")
    try:
        return TableProfile.from_json(doc)
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, SetupRefused):
            raise
        raise SetupRefused(Refusal.BAD_FILE, f"{path}: not a table profile ({exc})") from exc


# --- step 1: the marker cards ---------------------------------------------------------------
def _check_image(image: np.ndarray) -> None:
    if (
        not isinstance(image, np.ndarray)
        or image.dtype != np.uint8
        or image.ndim != 3
        or image.shape[2] != 3
        or min(image.shape[:2]) < 32
    ):
        raise SetupRefused(Refusal.NOT_AN_IMAGE, "the frame is not a BGR colour image")


def _square(size: float) -> np.ndarray:
    s = size / 2
    return np.array([[-s, -s], [s, -s], [s, s], [-s, s]])


def _card_corners(card: tuple[float, float, float], size: float) -> np.ndarray:
    x, y, a = card
    r = np.deg2rad(a)
    rot = np.array([[np.cos(r), -np.sin(r)], [np.sin(r), np.cos(r)]])
    return np.asarray(_square(size) @ rot.T + [x, y])


def _apply_h(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.column_stack([pts, np.ones(len(pts))]) @ H.T
    return np.asarray(p[:, :2] / p[:, 2:3])


def _first_layout(
    seen: dict[int, np.ndarray], want: list[int], size: float
) -> tuple[np.ndarray, dict[int, tuple[float, float, float]]]:
    """A first homography and card layout to refine, taken from the card that looks largest in
    the frame: its corners fix the plane best (a far card a few dozen pixels wide, blurred,
    can tilt the plane enough that the refinement starts far off). The layout is then put in
    the frame of card ``want[0]``, which the profile's millimetres are measured from."""
    ref = max(want, key=lambda m: abs(cv2.contourArea(seen[m].astype(np.float32))))
    Hr, _ = cv2.findHomography(_square(size), seen[ref], 0)
    Hinv = np.linalg.inv(Hr)
    in_ref: dict[int, tuple[np.ndarray, float]] = {}
    for m in want:
        mm = _apply_h(Hinv, seen[m])
        v = (mm[1] - mm[0]) + (mm[2] - mm[3])
        in_ref[m] = (mm.mean(axis=0), float(np.arctan2(v[1], v[0])))
    c0, a0 = in_ref[want[0]]
    to_ref = np.array(
        [[np.cos(a0), -np.sin(a0), c0[0]], [np.sin(a0), np.cos(a0), c0[1]], [0.0, 0.0, 1.0]]
    )
    back = np.array([[np.cos(a0), np.sin(a0)], [-np.sin(a0), np.cos(a0)]])
    cards: dict[int, tuple[float, float, float]] = {want[0]: (0.0, 0.0, 0.0)}
    for m in want[1:]:
        c, a = in_ref[m]
        x, y = back @ (c - c0)
        cards[m] = (float(x), float(y), float(np.degrees(a - a0)))
    return Hr @ to_ref, cards


def solve_markers(image: np.ndarray, base: BoardGeometry | None = None) -> MarkerLayout:
    """The marker cards' layout on the table, in millimetres, from one frame showing all four.

    Each card's black square is ``marker_size`` mm, so one frame fixes the layout: a plane
    homography and each card's place and turn are fitted to all sixteen corners at once
    (Levenberg-Marquardt; marker 0 fixes the frame)."""
    _check_image(image)
    geo = base or load_geometry()
    seen = detect_markers(image, geo)
    want = sorted(geo.marker_centres)
    missing = [m for m in want if m not in seen]
    if missing:
        raise SetupRefused(
            Refusal.MARKER_NOT_SEEN,
            f"marker card(s) {missing} not seen: put all "
            "four cards in view, uncovered, and take the snapshot again",
        )
    size = geo.marker_size
    H, cards = _first_layout(seen, want, size)
    # refine: parameters = H (8, h33 = 1) + (x, y, angle) of every card but the first
    others = want[1:]

    def unpack(p: np.ndarray) -> tuple[np.ndarray, dict[int, tuple[float, float, float]]]:
        H = np.append(p[:8], 1.0).reshape(3, 3)
        cs = {want[0]: (0.0, 0.0, 0.0)}
        for i, m in enumerate(others):
            cs[m] = (float(p[8 + 3 * i]), float(p[9 + 3 * i]), float(p[10 + 3 * i]))
        return H, cs

    def resid(p: np.ndarray) -> np.ndarray:
        H, cs = unpack(p)
        return np.concatenate(
            [(_apply_h(H, _card_corners(cs[m], size)) - seen[m]).ravel() for m in want]
        )

    Hn = H / H[2, 2]
    p = np.concatenate([Hn.ravel()[:8]] + [np.array(cards[m]) for m in others])
    scale = np.abs(p) * 1e-6 + 1e-6
    # Levenberg-Marquardt: a step is kept only when it lowers the error, else the damping
    # grows (a plain Gauss-Newton step from a poor start can run off to thousands of pixels)
    r = resid(p)
    cost, damp = float(r @ r), 1e-9
    for _ in range(30):
        J = np.empty((len(r), len(p)))
        for j in range(len(p)):
            q = p.copy()
            q[j] += scale[j]
            J[:, j] = (resid(q) - r) / scale[j]
        JtJ = J.T @ J
        while True:
            step = np.linalg.solve(
                JtJ + damp * np.diag(np.diag(JtJ)) + 1e-12 * np.eye(len(p)), -J.T @ r
            )
            r_new = resid(p + step)
            cost_new = float(r_new @ r_new)
            if np.isfinite(cost_new) and cost_new <= cost:
                p, r, cost, damp = p + step, r_new, cost_new, max(damp / 10, 1e-12)
                break
            damp *= 10
            if damp > 1e6:
                break
        if damp > 1e6 or np.abs(step).max() < 1e-9:
            break
    H, cards = unpack(p)
    rms = float(np.sqrt(np.mean(resid(p) ** 2)))
    if not np.isfinite(rms) or rms > 3.0:
        raise SetupRefused(
            Refusal.MARKERS_INCONSISTENT,
            f"the marker cards do not lie flat on "
            f"one table (fit error {rms:.1f} px): is a card bent or lifted?",
        )
    return MarkerLayout(cards, H, rms)


# --- step 2: the board ----------------------------------------------------------------------
def propose_corners(layout: MarkerLayout, base: BoardGeometry | None = None) -> np.ndarray:
    """Where the board's outer corners (space 1's, 5's, 9's, 13's: TL, TR, BR, BL) probably are
    in the set-up frame: the cards lie just outside the corners, so each card's white edge
    nearest the middle is taken for one. A person confirms or drags them."""
    geo = base or load_geometry()
    ids = sorted(layout.cards)
    centres = np.array([layout.cards[m][:2] for m in ids])
    mid = centres.mean(axis=0)
    half = geo.marker_size / 2 + geo.marker_border
    pts = []
    for m in ids:
        c = np.array(layout.cards[m][:2])
        d = mid - c
        pts.append(c + np.sign(d) * (half + PROPOSAL_GAP_MM))
    pts_a = np.array(pts)
    # order TL, TR, BR, BL in the cards' frame
    ang = np.arctan2(pts_a[:, 1] - mid[1], pts_a[:, 0] - mid[0])
    order = np.argsort(ang)  # -pi.. : TL (-3pi/4), TR (-pi/4), BR, BL
    return _apply_h(layout.homography, pts_a[order])


def place_board(
    profile: TableProfile,
    layout: MarkerLayout,
    corners_px: np.ndarray,
    image_size: tuple[int, int],
    base: BoardGeometry | None = None,
    board_height: float = BOARD_HEIGHT_MM,
) -> TableProfile:
    """The board from its four outer corners in the set-up frame (TL = space 1's corner, then
    clockwise) and the marker cards' ``layout`` solved on that same frame: a square in
    millimetres relative to the cards, saved as a version-2 board file in the profile. Refused
    (nothing changes) when a corner is off the frame, the corners are no square, the spaces are
    not 40-80 mm, or a marker card lies on the track.

    ``board_height``: mm of the board's top above the cards' table. The dragged corners lie on
    the board's top, so they are taken back to the plane that high (not the cards' plane, which
    would make the board a little larger and shifted, by an amount that depends on where the
    camera stood), and the file keeps it as ``board.thickness`` for every later read."""
    geo = base or load_geometry()
    c = np.asarray(corners_px, np.float64).reshape(-1, 2)
    w, h = image_size
    if c.shape != (4, 2) or not np.isfinite(c).all():
        raise SetupRefused(Refusal.OVERLAY_NOT_SQUARE, "give the board's four outer corners")
    if not (np.isfinite(board_height) and 0.0 <= board_height <= MAX_BOARD_HEIGHT_MM):
        raise SetupRefused(
            Refusal.BOARD_HEIGHT,
            f"a board lies 0-{MAX_BOARD_HEIGHT_MM:.0f} mm above the table its marker cards "
            f"lie on, not {board_height} mm",
        )
    if (c[:, 0] < 0).any() or (c[:, 0] > w).any() or (c[:, 1] < 0).any() or (c[:, 1] > h).any():
        raise SetupRefused(
            Refusal.OVERLAY_OFF_FRAME,
            "a corner of the overlay is off the picture: drag it back onto the board's corner",
        )
    H_top = layout.homography
    if board_height:
        pose = CameraPose.from_homography(layout.homography, (w, h), geo.hfov_deg)
        H_top = pose.raised(board_height).homography
    mm = _apply_h(np.linalg.inv(H_top), c)
    sides = np.linalg.norm(np.roll(mm, -1, axis=0) - mm, axis=1)
    diag = np.linalg.norm(mm[2] - mm[0]), np.linalg.norm(mm[3] - mm[1])
    side = float(sides.mean())
    e, f = mm[1] - mm[0], mm[3] - mm[0]
    cross = float(e[0] * f[1] - e[1] * f[0])
    cell = side / 5
    if not CELL_RANGE_MM[0] * (1 - CELL_SLACK) <= cell <= CELL_RANGE_MM[1] * (1 + CELL_SLACK):
        raise SetupRefused(
            Refusal.SPACE_SIZE,
            f"the overlay makes spaces of {cell:.0f} mm; a "
            f"board's spaces are {CELL_RANGE_MM[0]:.0f}-{CELL_RANGE_MM[1]:.0f} mm",
        )
    if (
        sides.max() / max(sides.min(), 1e-6) > 1.12
        or abs(diag[0] - diag[1]) > 0.1 * side
        or cross <= 0
    ):
        raise SetupRefused(
            Refusal.OVERLAY_NOT_SQUARE,
            f"the corners make no square board "
            f"(sides {', '.join(f'{s:.0f}' for s in sides)} mm): drag each onto "
            "its corner, space 1's first, then clockwise",
        )
    # the board's frame: origin at space 1's corner, x along the top row, y down
    e1 = (mm[1] - mm[0]) + (mm[2] - mm[3])
    angle = float(np.arctan2(e1[1], e1[0]))
    centre = mm.mean(axis=0)
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])

    def to_board(p: np.ndarray) -> np.ndarray:
        return np.asarray((np.asarray(p) - centre) @ rot + side / 2)

    placements: dict[int, list[float]] = {}
    for m, (x, y, a) in layout.cards.items():
        bx, by = to_board(np.array([x, y]))
        placements[m] = [
            round(float(bx), 3),
            round(float(by), 3),
            round(float(a - np.degrees(angle)), 3),
        ]
        inner = geo.marker_size / 2
        if (
            -inner < bx < side + inner
            and -inner < by < side + inner
            and not (cell - inner < bx < 4 * cell + inner and cell - inner < by < 4 * cell + inner)
        ):
            raise SetupRefused(
                Refusal.OVERLAY_ON_MARKER,
                f"marker card {m} lies on the track "
                "in this overlay: cards go on the table beside the board",
            )
    board = _board_doc(geo, side, placements, board_height)
    return replace(profile, markers=layout, board=board)


def _board_doc(
    geo: BoardGeometry, side: float, placements: dict[int, list[float]], board_height: float
) -> dict[str, Any]:
    c = round(side / 5, 4)
    side = 5 * c  # the board's size from its rounded space: no margin appears from rounding
    return {
        "version": 2,
        "units": "mm",
        "board": {
            "width": round(side, 4),
            "height": round(side, 4),
            "thickness": round(float(board_height), 3),
        },
        "markers": {
            "dictionary": geo.dictionary,
            "size": geo.marker_size,
            "white_border": geo.marker_border,
            "min_seen": geo.min_markers,
            "placements": {str(k): v for k, v in sorted(placements.items())},
        },
        "track": {
            "spaces": 16,
            "cell": round(c, 4),
            "origin": [0, 0],
            "cells": ring_5x5_cells(),
        },
        "camel": {
            "length": geo.camel_length,
            "width": geo.camel_width,
            "height": geo.camel_height,
            "max_stack": geo.max_stack,
            "colours": {k: list(v) for k, v in geo.colours.items()},
        },
        "desert_tile": {
            "size": round(0.75 * c, 3),
            "colours": {k: list(v) for k, v in geo.tile_colours.items()},
        },
        "pyramid": {"centre": [2.5 * c, 2.25 * c], "size": round(1.4 * c, 3)},
        "reveal_zone": {
            "polygon": [
                [1.31 * c, 3.25 * c],
                [3.69 * c, 3.25 * c],
                [3.69 * c, 3.94 * c],
                [1.31 * c, 3.94 * c],
            ],
            "die_size": geo.die_size,
        },
        "camera": {"hfov_deg": geo.hfov_deg},
    }


# --- step 3: colours from the pieces ----------------------------------------------------------
def _locate(image: np.ndarray, geo: BoardGeometry) -> BoardLocation:
    try:
        return locate_board(image, geo)
    except BoardNotFound as exc:
        raise SetupRefused(Refusal.MARKER_NOT_SEEN, str(exc)) from exc


def _balanced(
    image: np.ndarray,
    loc: BoardLocation,
    geo: BoardGeometry,
    pts: np.ndarray,
    height: np.ndarray | float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """White-balanced linear colour (N x 3) at board points, which points are in frame, and
    which have a channel at the sensor's ceiling (a glossy board's glare, a lamp's spot): such
    a sample has lost its colour's proportions (a pink tile's red clips first and it reads
    violet), so it teaches nothing (``_unclipped``)."""

    gains = white_gains(image, loc, geo)
    if not gains:
        raise SetupRefused(
            Refusal.MARKER_NOT_SEEN,
            "the markers' white borders are not visible: cannot balance colour",
        )
    vals, inside = sample(image, loc.to_image(pts, height), box=True)
    clipped = np.asarray((vals >= CLIPPED).any(axis=-1))
    return linear(vals) * gains_at(pts.reshape(-1, 2), gains, geo), inside, clipped


def _unclipped(ok: np.ndarray, clipped: np.ndarray) -> np.ndarray:
    """The samples to learn from: ``ok`` ones without a clipped channel, unless those are
    fewer than half: a piece mostly at the sensor's ceiling is a white camel (clipping keeps
    its neutral colour) or one lit so hard that its clipped colour is the best there is."""
    keep = ok & ~clipped
    return keep if keep.sum() >= 0.5 * ok.sum() else ok


def _board_look(
    image: np.ndarray, loc: BoardLocation, geo: BoardGeometry, spaces: list[int]
) -> tuple[np.ndarray, float]:
    """The board's chromaticity and its light (median white-balanced linear sum) at the
    corners of ``spaces``."""
    k = geo.cell / 2 - 6.0
    pts = []
    for s in spaces:
        cx, cy = geo.space_centres[s]
        pts += [(cx - k, cy - k), (cx + k, cy - k), (cx + k, cy + k), (cx - k, cy + k)]
    lin, inside, clipped = _balanced(image, loc, geo, np.array(pts), 0.0)
    use = lin[_unclipped(inside, clipped)]
    return np.asarray(np.median(chromaticity(use), axis=0)), float(np.median(use.sum(axis=-1)))


def _camel_samples(
    image: np.ndarray, loc: BoardLocation, geo: BoardGeometry, space: int
) -> tuple[np.ndarray, np.ndarray]:
    """White-balanced linear samples (n x 3) on the side of a lone camel on ``space`` facing
    the camera, and where each one's ray meets the board (n x 2 mm): what an empty space
    would show there."""
    c = np.asarray(geo.space_centres[space])
    cam = loc.pose.centre[:2]
    u = (cam - c) / max(float(np.linalg.norm(cam - c)), 1e-6)
    across = np.array([-u[1], u[0]])
    pts, hs = [], []
    for depth in (0.0, 0.35):
        for t in np.linspace(-0.3, 0.3, 7):
            for z in np.linspace(0.45, 0.95, 6):
                pts.append(c + u * geo.camel_width * (0.45 - depth) + across * t * geo.camel_length)
                hs.append(z * geo.camel_height)
    lin, inside, clipped = _balanced(image, loc, geo, np.array(pts), np.array(hs))
    keep = _unclipped(inside & _has_hue(lin, geo), clipped)
    px = loc.to_image(np.array(pts), np.array(hs)).reshape(-1, 1, 2).astype(np.float64)
    ground = cv2.perspectiveTransform(px, np.linalg.inv(loc.homography)).reshape(-1, 2)
    return np.asarray(lin[keep]), ground[keep]


def _camel_stands_out(apart: np.ndarray, light: np.ndarray) -> bool:
    """Whether a lone camel's side samples show a camel rather than the board: half of them
    apart from the board's colour, or, when a camel's paint is near the sand's (a white camel
    on a pale board, a yellow one on a yellow board), a quarter apart in colour and four
    fifths apart in colour or light (``light``: each sample's over the board's).

    Why light too: a camel's side faces the camera, not the lamp, and shows several times
    darker than the board's top (or brighter, in glare); a camel there covers nearly all the
    samples. An empty space's samples fall on the board, as light as it; where some do not
    (the table's dark edge beyond the board, a shadow) their colour is the board's or the
    table's, and the quarter in colour and the four fifths keep them refused (tuning tables
    219,700..219,899 with a camel left out, under the darker probe: a space in shade reached
    a third apart in colour and 0.63 in colour or light; the three camels it rescued, 0.9-1)."""
    n = max(len(apart), 1)
    if apart.sum() >= CAMEL_APART_SHARE * n:
        return True
    unlike = apart | (light < 1 / CAMEL_LIGHT_RATIO) | (light > CAMEL_LIGHT_RATIO)
    return bool(apart.sum() >= CAMEL_HUE_FLOOR_SHARE * n and unlike.sum() >= CAMEL_UNLIKE_SHARE * n)


# of a lone camel's side samples at set-up: the share apart from the board in colour that
# shows a camel there; when light counts too, the share that must be apart in colour and the
# share apart in colour or light; how many times darker or lighter than the board counts as
# apart in light
CAMEL_APART_SHARE = 0.5
CAMEL_HUE_FLOOR_SHARE = 0.25
CAMEL_UNLIKE_SHARE = 0.8
CAMEL_LIGHT_RATIO = 2.0
# how far (chromaticity) a lone camel's sample must be from what the empty board showed where
# its ray meets the board, to count as apart: the same camera and lamp a minute earlier, so
# the same board differs by little more than noise (0.03 to 0.045 refused the same set-ups on
# tuning tables 219,700..219,899 under every probe tried)
SEEN_EMPTY_APART = 0.04


def _has_hue(lin: np.ndarray, geo: BoardGeometry) -> np.ndarray:
    """Which samples (linear, ... x 3) are light enough for their hue to be learnt.

    Judged by the strongest channel, not the sum: a saturated camel's shaded side, nearly
    all of its light in one channel, keeps a clear hue where a grey that dark does not (under
    a steeper tone curve a green camel's side stood at sums of 0.01-0.02, under the old floor
    of 0.02: only its sheen on top was kept, and the green learnt was nearer the sand's than
    its paint). The second edition's black camel is darker still: there the floor is low."""
    if "black" in geo.colours:
        return np.asarray(lin.sum(axis=-1) > 0.002)
    return np.asarray(lin.max(axis=-1) > HUE_FLOOR)


# the least light in a sample's strongest channel (linear) for its hue to be learnt: about
# 20 of 255 once encoded, well above a sensor's noise
HUE_FLOOR = 0.006


def learn_camels(
    profile: TableProfile, image: np.ndarray, order: list[str], first_space: int = 1
) -> TableProfile:
    """Each camel's colour from a frame with the camels put on spaces ``first_space``.. in
    ``order``, alone. Refused when a camel is not where told, two look alike, or the order
    given fits the colours seen much worse than another order would. Where the profile holds
    the empty board's look (the track step's), what looks as it did there is not a camel."""
    _check_image(image)
    geo = profile.geometry
    if len(set(order)) != len(order) or set(order) - set(geo.colours):
        raise SetupRefused(
            Refusal.BAD_ORDER,
            f"the order must name each of {sorted(geo.colours)} once, got {order}",
        )
    loc = _locate(image, geo)
    spaces = [first_space + i for i in range(len(order))]
    others = [s for s in geo.spaces if s not in spaces]
    board, board_light = _board_look(image, loc, geo, others)
    learnt: dict[str, ColourStat] = {}
    for name, space in zip(order, spaces, strict=True):
        lin, ground = _camel_samples(image, loc, geo, space)
        ch = chromaticity(lin)
        apart = np.linalg.norm(ch - board, axis=1) > 0.08 if len(ch) else np.zeros(0, bool)
        if profile.background is not None and len(ch):
            # apart from the board as a whole, but just as the empty board looked right there
            # (the sand in the lamp's fall-off or in shade, a palm's foot): not a camel
            seen, known = profile.background.distance(ground, ch)
            apart &= ~known | (seen > SEEN_EMPTY_APART)
        far = ch[apart]
        if not _camel_stands_out(apart, lin.sum(axis=-1) / max(board_light, 1e-6)):
            raise SetupRefused(
                Refusal.CAMEL_NOT_FOUND,
                f"no camel seen on space {space}, where the {name} one should stand (if it "
                "is there, it looks too much like the board round it in this light, the "
                "lamp's glare on it?): move the lamp or turn the camel, or teach the colours "
                "from the setup roll's stacks instead",
            )
        use = far
        med = np.median(use, axis=0)
        keep = use[
            np.linalg.norm(use - med, axis=1) <= np.quantile(np.linalg.norm(use - med, axis=1), 0.7)
        ]
        centre = np.median(keep, axis=0)
        spread = float(np.sqrt(np.mean(np.sum((keep - centre) ** 2, axis=1))))
        learnt[name] = ColourStat(tuple(float(v) for v in centre), spread, len(keep))  # type: ignore[arg-type]
    names = list(learnt)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            d = float(np.linalg.norm(np.subtract(learnt[a].chroma, learnt[b].chroma)))
            if d < MIN_APART and {a, b} != {"black", "white"}:  # told apart by lightness
                raise SetupRefused(
                    Refusal.TWO_CAMELS_ONE_COLOUR,
                    f"the camels on spaces "
                    f"{spaces[names.index(a)]} and {spaces[names.index(b)]} look "
                    f"the same colour: is one camel there twice?",
                )
    _check_order(learnt, geo)
    anchors = {**profile.anchors, **learnt}
    return replace(profile, camels={**profile.camels, **learnt}, anchors=anchors, log=())


def learn_camels_from_stacks(
    profile: TableProfile, image: np.ndarray, track: dict[int, list[str]]
) -> TableProfile:
    """Each camel's colour from a frame of the setup roll's stacks as read and confirmed by a
    person (space -> colours bottom to top), instead of the five camels on spaces 1 to 5.

    Each camel's band is sampled where its level puts it on its space's column, the middle of
    its height (a camel's legs, the hump of the one below, the next one's shadow left out), and
    the samples far from the board's own colour kept. Refused as ``learn_camels`` is: a camel
    not found at its level, two camels alike, colours that fit another naming much better."""

    _check_image(image)
    geo = profile.geometry
    names = [c for stack in track.values() for c in stack]
    if len(set(names)) != len(names) or set(names) - set(geo.colours):
        raise SetupRefused(
            Refusal.BAD_ORDER, f"the stacks must name each camel at most once, got {track}"
        )
    if any(s not in geo.space_centres for s in track) or not names:
        raise SetupRefused(Refusal.BAD_ORDER, f"the stacks must stand on spaces 1-16: {track}")
    loc = _locate(image, geo)
    reading = read_track(image, geo, loc, all_camels=False)
    if not reading.ok:
        raise SetupRefused(Refusal.MARKER_NOT_SEEN, reading.reason or "the frame was not read")
    board = _board_look(image, loc, geo, [s for s in geo.spaces if s not in track])[0]
    learnt: dict[str, ColourStat] = {}
    for space, stack in track.items():
        col = reading.columns[space]
        for level, name in enumerate(stack):
            lo = int(col.base + (level + 0.3) * col.band)
            hi = int(np.ceil(col.base + (level + 0.95) * col.band))
            seg = col.lin[max(lo, 0) : max(hi, 0)]
            seg = seg[_has_hue(seg, geo)]
            ch = chromaticity(seg)
            far = ch[np.linalg.norm(ch - board, axis=1) > 0.08] if len(ch) else ch
            if len(far) < max(3, 0.4 * len(ch)):
                raise SetupRefused(
                    Refusal.CAMEL_NOT_FOUND,
                    f"no camel seen at level {level + 1} of space {space}, where the {name} one "
                    "should stand",
                )
            med = np.median(far, axis=0)
            d = np.linalg.norm(far - med, axis=1)
            keep = far[d <= np.quantile(d, 0.7)]
            centre = np.median(keep, axis=0)
            spread = float(np.sqrt(np.mean(np.sum((keep - centre) ** 2, axis=1))))
            if spread > MAX_BAND_SPREAD:
                # one camel's paint is one colour (bands spread 0.01-0.1): this band holds
                # two pieces, a camel partly hidden behind another stack
                raise SetupRefused(
                    Refusal.CAMEL_NOT_FOUND,
                    f"level {level + 1} of space {space} shows more than one colour where the "
                    f"{name} camel should stand (hidden behind another stack?): put the camels "
                    "on spaces 1 to 5 instead",
                )
            learnt[name] = ColourStat(
                (float(centre[0]), float(centre[1]), float(centre[2])), spread, len(keep)
            )
    where = {c: (s, lv + 1) for s, stack in track.items() for lv, c in enumerate(stack)}
    nominal = _nominal(geo)
    for name, st in learnt.items():
        # a stack in front can hide a camel's band: what is sampled there is another piece
        if float(np.linalg.norm(np.asarray(st.chroma) - nominal[name])) > NOT_THAT_CAMEL:
            s, lv = where[name]
            raise SetupRefused(
                Refusal.CAMEL_NOT_FOUND,
                f"what stands at level {lv} of space {s} does not look like the {name} camel "
                "(hidden behind another stack?): put the camels on spaces 1 to 5 instead",
            )
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            d = float(np.linalg.norm(np.subtract(learnt[a].chroma, learnt[b].chroma)))
            if d < MIN_APART and {a, b} != {"black", "white"}:  # told apart by lightness
                raise SetupRefused(
                    Refusal.TWO_CAMELS_ONE_COLOUR,
                    f"the {a} camel (space {where[a][0]}, level {where[a][1]}) and the {b} one "
                    f"(space {where[b][0]}, level {where[b][1]}) look the same colour",
                )
    _check_order(learnt, geo)
    anchors = {**profile.anchors, **learnt}
    return replace(profile, camels={**profile.camels, **learnt}, anchors=anchors, log=())


def _nominal(geo: BoardGeometry) -> dict[str, np.ndarray]:
    out = {}
    for k, rgb in {**geo.colours, **geo.tile_colours}.items():
        lin = (np.array(rgb[::-1], np.float64) / 255.0) ** 2.2
        out[k] = lin / lin.sum()
    return out


def _check_order(learnt: dict[str, ColourStat], geo: BoardGeometry) -> None:
    """The order a person gave must be the best fit to the nominal colours, or near it."""
    from itertools import permutations

    nom = _nominal(geo)
    names = list(learnt)
    cost = np.array(
        [
            [float(np.linalg.norm(np.asarray(learnt[a].chroma) - nom[b])) for b in names]
            for a in names
        ]
    )
    given = float(np.trace(cost))
    best = min(
        permutations(range(len(names))), key=lambda p: sum(cost[i, p[i]] for i in range(len(names)))
    )
    best_cost = sum(cost[i, best[i]] for i in range(len(names)))
    if given > 2.0 * best_cost + 0.15:
        seen = {names[i]: names[best[i]] for i in range(len(names)) if best[i] != i}
        raise SetupRefused(
            Refusal.BAD_ORDER,
            f"the camels do not stand in the order given; the colours look like {seen}",
        )


def learn_tiles(profile: TableProfile, image: np.ndarray, sides: dict[int, str]) -> TableProfile:
    """Each desert tile side's colour from a frame with tiles laid on ``sides`` (space -> side)."""
    _check_image(image)
    geo = profile.geometry
    loc = _locate(image, geo)
    others = [s for s in geo.spaces if s not in sides]
    board = _board_look(image, loc, geo, others)[0]
    learnt: dict[str, ColourStat] = {}
    for space, side in sides.items():
        if side not in geo.tile_colours or space not in geo.space_centres:
            raise SetupRefused(Refusal.BAD_ORDER, f"space {space}: {side!r} is no tile side")
        c = np.asarray(geo.space_centres[space])
        k = geo.tile_size * 0.35
        gx, gy = np.meshgrid(np.linspace(-k, k, 7), np.linspace(-k, k, 7))
        pts = c + np.column_stack([gx.ravel(), gy.ravel()])
        lin, inside, clipped = _balanced(image, loc, geo, pts, 0.0)
        # a tile is never white: a glared one's clipped colour is the lamp's, not the tile's
        usable = inside & ~clipped
        if usable.sum() < 0.25 * len(usable):
            raise SetupRefused(
                Refusal.TILE_NOT_FOUND,
                f"the tile on space {space} is not seen well enough (out of the frame, or "
                "the lamp's glare on it): move the lamp or the tile and take the snapshot again",
            )
        ch = chromaticity(lin[usable])
        far = ch[np.linalg.norm(ch - board, axis=1) > 0.02]
        if len(far) < 0.5 * max(len(ch), 1):
            raise SetupRefused(Refusal.TILE_NOT_FOUND, f"no desert tile seen on space {space}")
        centre = np.median(far, axis=0)
        spread = float(np.sqrt(np.mean(np.sum((far - centre) ** 2, axis=1))))
        learnt[side] = ColourStat(tuple(float(v) for v in centre), spread, len(far))  # type: ignore[arg-type]
    return replace(
        profile, tiles={**profile.tiles, **learnt}, anchors={**profile.anchors, **learnt}
    )


# --- step 4: refinement ------------------------------------------------------------------------
def refine(
    profile: TableProfile, samples: dict[str, list[tuple[float, float, float]]], source: str
) -> TableProfile:
    """Move each named colour towards its confirmed samples (chromaticities), logged.

    Bound: a colour never moves more than REFINE_BOUND from its set-up colour, and never ends
    nearer another colour than half their set-up distance. A sample nearer another colour than
    its own (a wrong correction) is refused whole, and nothing changes."""
    cur = {**profile.camels, **profile.tiles}
    for name, chs in samples.items():
        if name not in cur:
            raise SetupRefused(Refusal.BAD_ORDER, f"{name!r} has no learnt colour yet")
        for ch in chs:
            own = float(np.linalg.norm(np.subtract(ch, cur[name].chroma)))
            for other, st in cur.items():
                if other != name and float(np.linalg.norm(np.subtract(ch, st.chroma))) < 0.7 * own:
                    raise SetupRefused(
                        Refusal.SAMPLE_LOOKS_LIKE_OTHER,
                        f"a sample named {name} looks like {other}: the correction is refused",
                    )
    before: dict[str, ColourStat] = {}
    after: dict[str, ColourStat] = {}
    for name, chs in samples.items():
        if not chs:
            continue
        st = cur[name]
        anchor = np.asarray(profile.anchors.get(name, st).chroma)
        target = np.median(np.asarray(chs, np.float64), axis=0)
        new = np.asarray(st.chroma) + REFINE_RATE * (target - np.asarray(st.chroma))
        off = new - anchor
        if np.linalg.norm(off) > REFINE_BOUND:
            new = anchor + off * (REFINE_BOUND / np.linalg.norm(off))
        for other, ost in cur.items():
            if other == name:
                continue
            oa = np.asarray(profile.anchors.get(other, ost).chroma)
            if np.linalg.norm(new - np.asarray(ost.chroma)) < 0.5 * np.linalg.norm(anchor - oa):
                new = np.asarray(st.chroma)  # would drift onto another colour: keep it
        before[name] = st
        after[name] = ColourStat(tuple(float(v) for v in new), st.spread, st.n + len(chs))  # type: ignore[arg-type]
    if not after:
        return profile
    entry = Refinement(len(profile.log) + 1, time.time(), source, before, after)
    camels = {k: after.get(k, v) for k, v in profile.camels.items()}
    tiles = {k: after.get(k, v) for k, v in profile.tiles.items()}
    return replace(profile, camels=camels, tiles=tiles, log=(*profile.log, entry))


def undo(profile: TableProfile) -> TableProfile:
    """Take back the newest refinement: its colours return exactly to what they were."""
    if not profile.log:
        raise SetupRefused(Refusal.NOTHING_TO_UNDO, "no refinement to undo")
    last = profile.log[-1]
    camels = {k: last.before.get(k, v) for k, v in profile.camels.items()}
    tiles = {k: last.before.get(k, v) for k, v in profile.tiles.items()}
    return replace(profile, camels=camels, tiles=tiles, log=profile.log[:-1])


def samples_from_reading(
    image: np.ndarray, profile: TableProfile, track: dict[int, list[str]]
) -> dict[str, list[tuple[float, float, float]]]:
    """The labelled samples of a confirmed track: each camel's band, middle half, averaged."""

    geo = profile.geometry
    reading = read_track(image, geo, table=profile)
    if not reading.ok:
        raise SetupRefused(Refusal.MARKER_NOT_SEEN, reading.reason or "frame not read")
    out: dict[str, list[tuple[float, float, float]]] = {}
    for space, camels in track.items():
        col = reading.columns.get(int(space))
        if col is None:
            continue
        for level, name in enumerate(camels):
            if name not in profile.camels:
                continue
            # a camel's colour shows from a little above its base (legs, the hump of the one
            # below between them) to above its pitch: the half of that window nearest its
            # colour is its band; a wrong name still finds nothing near, and is refused
            lo = int(col.base + (level + 0.1) * col.band)
            hi = int(np.ceil(col.base + (level + 1.3) * col.band))
            seg = chromaticity(col.lin[max(lo, 0) : max(hi, 0)])
            if len(seg) < 2:
                continue
            d = np.linalg.norm(seg - np.asarray(profile.camels[name].chroma), axis=1)
            near = seg[d <= np.median(d)]
            ch = near.mean(axis=0)
            out.setdefault(name, []).append((float(ch[0]), float(ch[1]), float(ch[2])))
    return out


def capture_background(
    image: np.ndarray, geo: BoardGeometry, occupied: list[int] | None = None
) -> Background:
    """The board's look from a set-up frame; the spaces in ``occupied`` (pieces on them) and
    everything their pieces could hide are left unknown."""

    _check_image(image)
    loc = _locate(image, geo)
    gains = white_gains(image, loc, geo)
    if not gains:
        raise SetupRefused(Refusal.MARKER_NOT_SEEN, "the markers' white borders are not visible")
    step = BG_MM_PER_PX
    x0, y0 = -BG_PAD_MM, -BG_PAD_MM
    w = int(np.ceil((geo.width + 2 * BG_PAD_MM) / step))
    h = int(np.ceil((geo.height + 2 * BG_PAD_MM) / step))
    gx, gy = np.meshgrid(x0 + np.arange(w) * step, y0 + np.arange(h) * step)
    ground = np.column_stack([gx.ravel(), gy.ravel()])
    px = loc.to_image(ground).astype(np.float32)
    H, W = image.shape[:2]
    vals = cv2.remap(
        image,
        px[:, 0].reshape(h, w),
        px[:, 1].reshape(h, w),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0, 0, 0),
    )
    # the markers' gains vary smoothly over the board: work them out on a coarse grid
    cg = np.column_stack([gx[::8, ::8].ravel(), gy[::8, ::8].ravel()])
    coarse = gains_at(cg, gains, geo).reshape(gx[::8, ::8].shape + (3,)).astype(np.float32)
    fine = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_LINEAR).reshape(-1, 3)
    lin = linear(vals.reshape(-1, 3)) * fine
    valid = (
        (px[:, 0] >= 1)
        & (px[:, 0] < W - 1)
        & (px[:, 1] >= 1)
        & (px[:, 1] < H - 1)
        & (lin.sum(axis=1) > 0.03)
    )
    mask = np.zeros((H, W), np.uint8)
    for s in occupied or []:
        poly = stack_region(loc.pose, geo, s)
        cv2.fillConvexPoly(mask, np.round(poly).astype(np.int32), 1)
    xi = np.clip(np.round(px[:, 0]).astype(int), 0, W - 1)
    yi = np.clip(np.round(px[:, 1]).astype(int), 0, H - 1)
    valid &= mask[yi, xi] == 0
    on_board = (gx >= 0) & (gx <= geo.width) & (gy >= 0) & (gy <= geo.height)
    glare = _glare(lin.sum(axis=1).reshape(h, w), on_board, step).ravel() & valid
    valid &= ~glare
    return Background(
        (x0, y0),
        step,
        chromaticity(lin).reshape(h, w, 3).astype(np.float32),
        valid.reshape(h, w),
        (vals.astype(np.float32).mean(axis=-1) / 255.0).reshape(h, w),
        glare.reshape(h, w),
    )


# A specular spot in the set-up frame: the board there is this much brighter (blurred, white-
# balanced) than the board's median (tuning tables 100,000-100,012: 1.12-1.28 at most without a
# spot, 1.6-4.0 in its middle with one); its halo, connected to it, down to GLARE_HALO.
GLARE_CORE = 1.45
GLARE_HALO = 1.1
GLARE_SIGMA_MM = 12.0


def _glare(y: np.ndarray, on_board: np.ndarray, step: float) -> np.ndarray:
    """Cells of the board that a specular spot washed out in the set-up frame (h x w bool).

    Why: a spot adds the lamp's own (white) light, so the sand under it looks paler than the
    board does anywhere else. Kept as the empty board's look, every later frame without that
    spot showed the sand "unlike the empty board" there, and the reader abstained on empty
    spaces (tuning seeds 1,000,000+: 45 of 91 such abstentions, on the five tables whose set-up
    had a spot). The look under the spot is left unknown instead, as under a piece."""
    if not on_board.any():
        return np.zeros_like(on_board)
    med = float(np.median(y[on_board]))
    if med <= 0:
        return np.zeros_like(on_board)
    blur = cv2.GaussianBlur(y.astype(np.float32), (0, 0), GLARE_SIGMA_MM / step) / med
    halo = ((blur > GLARE_HALO) & on_board).astype(np.uint8)
    core = (blur > GLARE_CORE) & on_board
    if not core.any():
        return np.zeros_like(on_board)
    n, lab = cv2.connectedComponents(halo, connectivity=8)
    hit = np.unique(lab[core])
    return np.isin(lab, hit[hit > 0])
