"""Where to put the camera: height and tilt that see the whole track and the reveal zone.

Why a function and not just a number in the build guide: boards, tables and lenses differ. From
the board geometry (hardware/board.yaml) and a lens's field of view this computes, with a plain
pinhole camera, whether a given placement sees every marker, every space with a full stack of
camels and the reveal zone, how many pixels one camel's band gets (the track reader tells stacked
camels apart by those bands), and whether the pyramid or a stack hides another stack. A small
search then gives the lowest placement that passes: lower means a shorter, steadier arm and more
pixels per camel. hardware/camera_geometry.md writes the same calculation out by hand.

Frame: board millimetres as in board.yaml (x to the right, y towards the player who sits at the
near edge, y = board height), z up from the board's surface. The camera stands beyond the near
edge (`setback` mm behind it), centred in x, and looks into the board, tilted `tilt` degrees
from straight down. Pure functions: no I/O but the optional YAML loader.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Vec = tuple[float, float, float]


@dataclass(frozen=True)
class Lens:
    """A camera at the resolution the vision reads frames at (landscape, long side along x)."""

    name: str
    hfov_deg: float
    vfov_deg: float
    width_px: int = 1280
    height_px: int = 720

    @property
    def fx(self) -> float:
        return (self.width_px / 2) / math.tan(math.radians(self.hfov_deg) / 2)

    @property
    def fy(self) -> float:
        return (self.height_px / 2) / math.tan(math.radians(self.vfov_deg) / 2)


# Fields of view from the Raspberry Pi camera documentation. The Camera Module 2's 16:9 modes
# use the full sensor width, so its vertical field shrinks to 37.5 degrees at 1280x720.
LENSES: dict[str, Lens] = {
    "cm3": Lens("Camera Module 3 (standard, 66 x 41 deg)", 66.0, 41.0),
    "cm3-wide": Lens("Camera Module 3 Wide (102 x 67 deg)", 102.0, 67.0),
    "cm2": Lens("Camera Module 2 (62.2 x 37.5 deg at 16:9)", 62.2, 37.5),
}


@dataclass(frozen=True)
class Layout:
    """What the camera must see, in board millimetres (read from board.yaml)."""

    width: float
    depth: float
    spaces: tuple[tuple[float, float, bool], ...]  # centre x, y, track runs along x there
    camel_length: float
    camel_width: float
    camel_height: float
    max_stack: int
    reveal_zone: tuple[tuple[float, float], ...]
    die_size: float
    pyramid_centre: tuple[float, float]
    pyramid_base: float
    # Not in board.yaml: the assembled first-edition pyramid stands about 10 cm tall; measure
    # yours and pass it (it decides whether the far row is seen over it).
    pyramid_height: float = 100.0
    camels: int = 5  # camels in the game: a stack that hides another cannot be taller than 5 - k
    # the marker cards' white squares' corners: on a board with no margin (the first edition,
    # a version-2 board file) the cards lie on the table beside the board, outside it
    cards: tuple[tuple[float, float], ...] = ()


@dataclass(frozen=True)
class Placement:
    height_mm: float  # lens above the board's surface
    tilt_deg: float  # 0 = straight down; towards the far edge
    setback_mm: float  # horizontal distance of the lens behind the board's near edge


@dataclass
class View:
    """What a placement sees. `problems` is empty when it sees all it must."""

    placement: Placement
    lens: Lens
    margin_px: float  # smallest distance of a must-see point to the frame's edge (< 0: outside)
    min_band_px: float  # smallest band of one camel, any space, any level of a stack
    worst_space: int
    band_px: dict[int, float]  # space -> band of the bottom camel
    die_px: float  # side of a die lying in the middle of the reveal zone
    px_per_mm_near: float
    px_per_mm_far: float
    hidden: list[str] = field(default_factory=list)  # every camel something can hide
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def layout_from_board(board: Mapping[str, Any], pyramid_height: float = 100.0) -> Layout:
    """Build a Layout from parsed board.yaml; raise ValueError naming what is missing."""
    try:
        w = float(board["board"]["width"])
        d = float(board["board"]["height"])
        track = board["track"]
        cell = float(track["cell"])
        ox, oy = (float(v) for v in track["origin"])
        cells = [(int(r), int(c)) for r, c in track["cells"]]
        camel = board["camel"]
        zone = tuple((float(x), float(y)) for x, y in board["reveal_zone"]["polygon"])
        die = float(board["reveal_zone"]["die_size"])
        pyr = board["pyramid"]
        pc = (float(pyr["centre"][0]), float(pyr["centre"][1]))
        pbase = float(pyr["size"])
        camel_dims = (float(camel["length"]), float(camel["width"]), float(camel["height"]))
        max_stack = int(camel["max_stack"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"board geometry lacks or garbles {exc}") from exc
    spaces = []
    for i, (r, c) in enumerate(cells):
        # a camel faces the next space: along x when that space is in the same row
        along_x = cells[(i + 1) % len(cells)][0] == r
        spaces.append((ox + (c + 0.5) * cell, oy + (r + 0.5) * cell, along_x))
    return Layout(
        w,
        d,
        tuple(spaces),
        *camel_dims,
        max_stack,
        zone,
        die,
        pc,
        pbase,
        pyramid_height,
        cards=_card_corners(board.get("markers")),
    )


def _card_corners(markers: Any) -> tuple[tuple[float, float], ...]:
    """Corners of every marker's white square (board mm), from the board file's markers."""
    if not isinstance(markers, Mapping) or not isinstance(markers.get("placements"), Mapping):
        return ()
    half = float(markers.get("size", 0.0)) / 2 + float(markers.get("white_border", 0.0))
    out: list[tuple[float, float]] = []
    for place in markers["placements"].values():
        x, y = float(place[0]), float(place[1])
        a = math.radians(float(place[2])) if len(place) > 2 else 0.0
        for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
            dx, dy = sx * half, sy * half
            out.append(
                (x + dx * math.cos(a) - dy * math.sin(a), y + dx * math.sin(a) + dy * math.cos(a))
            )
    return tuple(out)


def load_layout(path: str | Path | None = None, pyramid_height: float = 100.0) -> Layout:
    """Read hardware/board.yaml (or `path`) into a Layout."""
    import yaml

    path = Path(path) if path else Path(__file__).resolve().parents[1] / "hardware" / "board.yaml"
    with open(path, encoding="utf-8") as fh:
        return layout_from_board(yaml.safe_load(fh), pyramid_height)


# --- the pinhole camera -------------------------------------------------------------------


def _axes(tilt_deg: float) -> tuple[Vec, Vec, Vec]:
    """Image right, image down and the optical axis, in board coordinates."""
    t = math.radians(tilt_deg)
    return (1.0, 0.0, 0.0), (0.0, math.cos(t), -math.sin(t)), (0.0, -math.sin(t), -math.cos(t))


def _centre(p: Placement, layout: Layout) -> Vec:
    return (layout.width / 2, layout.depth + p.setback_mm, p.height_mm)


def project(point: Vec, p: Placement, lens: Lens, layout: Layout) -> tuple[float, float] | None:
    """Pixel (u, v) of a board point, or None when it is behind the camera."""
    c = _centre(p, layout)
    rel = (point[0] - c[0], point[1] - c[1], point[2] - c[2])
    right, down, fwd = _axes(p.tilt_deg)
    z = sum(a * b for a, b in zip(rel, fwd, strict=True))
    if z <= 1e-6:
        return None
    x = sum(a * b for a, b in zip(rel, right, strict=True))
    y = sum(a * b for a, b in zip(rel, down, strict=True))
    return lens.width_px / 2 + lens.fx * x / z, lens.height_px / 2 + lens.fy * y / z


def _edge_margin(uv: tuple[float, float] | None, lens: Lens) -> float:
    if uv is None:
        return -math.inf
    u, v = uv
    return min(u, lens.width_px - u, v, lens.height_px - v)


def _must_see(layout: Layout) -> list[Vec]:
    """Board corners, the marker cards (beside a board with no margin, or on its margin), full
    stacks on every space, the reveal zone."""
    pts: list[Vec] = [
        (0, 0, 0),
        (layout.width, 0, 0),
        (0, layout.depth, 0),
        (layout.width, layout.depth, 0),
    ]
    pts += [(x, y, 0) for x, y in layout.cards]
    top = layout.camel_height * layout.max_stack
    for x, y, along_x in layout.spaces:
        hx, hy = _half(layout, along_x)
        pts += [(x + sx * hx, y + sy * hy, z) for sx in (-1, 1) for sy in (-1, 1) for z in (0, top)]
    pts += [(x, y, z) for x, y in layout.reveal_zone for z in (0, layout.die_size)]
    return pts


def _half(layout: Layout, along_x: bool) -> tuple[float, float]:
    return (
        (layout.camel_length / 2, layout.camel_width / 2)
        if along_x
        else (layout.camel_width / 2, layout.camel_length / 2)
    )


def _ray_hits_box(a: Vec, b: Vec, lo: Vec, hi: Vec) -> bool:
    """Whether the segment a-b passes through the axis-aligned box lo-hi (slab method)."""
    t0, t1 = 0.0, 1.0
    for i in range(3):
        d = b[i] - a[i]
        if abs(d) < 1e-12:
            if not lo[i] <= a[i] <= hi[i]:
                return False
            continue
        ta, tb = (lo[i] - a[i]) / d, (hi[i] - a[i]) / d
        if ta > tb:
            ta, tb = tb, ta
        t0, t1 = max(t0, ta), min(t1, tb)
        if t0 > t1:
            return False
    return True


def _ray_hits_pyramid(a: Vec, b: Vec, layout: Layout) -> bool:
    """Whether the segment a-b passes through the square pyramid standing on its place.

    Inside the pyramid means |x - px| <= r(z), |y - py| <= r(z), 0 <= z <= h with
    r(z) = half * (1 - z / h): every condition is linear in the segment's parameter t, so the
    points inside form one interval of t, found exactly.
    """
    (px, py), half, h = layout.pyramid_centre, layout.pyramid_base / 2, layout.pyramid_height
    d = tuple(b[k] - a[k] for k in range(3))
    # each constraint as c0 + c1 * t <= 0
    k = half / h
    constraints = [
        (-a[2], -d[2]),  # z >= 0
        (a[2] - h, d[2]),  # z <= h
    ]
    for i, c in ((0, px), (1, py)):
        for sign in (1, -1):  # sign * (coord - c) <= half - k * z
            constraints.append((sign * (a[i] - c) - half + k * a[2], sign * d[i] + k * d[2]))
    lo, hi = 0.0, 1.0
    for c0, c1 in constraints:
        if abs(c1) < 1e-12:
            if c0 > 0:
                return False
        elif c1 > 0:
            hi = min(hi, -c0 / c1)
        else:
            lo = max(lo, -c0 / c1)
        if lo > hi:
            return False
    return True


def camera_view(
    p: Placement,
    lens: Lens,
    layout: Layout,
    min_band_px: float = 8.0,
    min_margin_px: float = 16.0,
    max_hiding_stack: int = 2,
) -> View:
    """Everything a placement sees or misses; `problems` says why it would not do.

    A placement fails when a must-see point is within `min_margin_px` of the frame's edge, a
    camel's band is under `min_band_px`, the pyramid hides any camel or the reveal zone, or a
    stack of at most `max_hiding_stack` camels hides a camel on another space. Taller stacks
    hiding the space behind them are listed in `hidden` only: from one oblique camera no height
    avoids them all without making the near row too thin, and they are rare (4 of the 5 camels
    on one space); the track reader marks such a space uncertain and the engine knows it.
    """
    margin = min(_edge_margin(project(q, p, lens, layout), lens) for q in _must_see(layout))
    cam = _centre(p, layout)
    h = layout.camel_height
    bands: dict[int, float] = {}
    worst, worst_space = math.inf, 0
    hidden: list[str] = []
    blocking: list[str] = []
    for n, (x, y, along_x) in enumerate(layout.spaces, start=1):
        hx, hy = _half(layout, along_x)
        face_y = y + hy  # the side of the camel facing the camera
        for k in range(layout.max_stack):
            a = project((x, face_y, k * h), p, lens, layout)
            b = project((x, face_y, (k + 1) * h), p, lens, layout)
            band = math.dist(a, b) if a and b else 0.0
            if k == 0:
                bands[n] = band
            if band < worst:
                worst, worst_space = band, n
            target = (x, face_y + 0.5, (k + 0.5) * h)
            why, stack = _hider(cam, target, n, k, layout)
            if why:
                text = f"space {n}, camel {k + 1} from the bottom: behind {why}"
                hidden.append(text)
                if stack <= max_hiding_stack:
                    blocking.append(text)
    zone_x = sum(q[0] for q in layout.reveal_zone) / len(layout.reveal_zone)
    zone_y = sum(q[1] for q in layout.reveal_zone) / len(layout.reveal_zone)
    s = layout.die_size
    die = _px_between((zone_x - s / 2, zone_y, s), (zone_x + s / 2, zone_y, s), p, lens, layout)
    for q in layout.reveal_zone:
        if _ray_hits_pyramid(cam, (q[0], q[1], 1.0), layout):
            hidden.append(f"reveal zone corner {q}: behind the pyramid")
            blocking.append(hidden[-1])
    near_y = max(y for _, y, _ in layout.spaces)
    far_y = min(y for _, y, _ in layout.spaces)
    cx = layout.width / 2
    problems = []
    if margin < min_margin_px:
        problems.append(
            f"the board, a full stack or the reveal zone comes within "
            f"{margin:.0f} px of the frame's edge (want >= {min_margin_px:g})"
        )
    if worst < min_band_px:
        problems.append(
            f"a camel on space {worst_space} is only {worst:.1f} px tall (want >= {min_band_px:g})"
        )
    problems += blocking
    return View(
        placement=p,
        lens=lens,
        margin_px=margin,
        min_band_px=worst,
        worst_space=worst_space,
        band_px=bands,
        die_px=die,
        px_per_mm_near=_px_between((cx - 50, near_y, 0), (cx + 50, near_y, 0), p, lens, layout)
        / 100,
        px_per_mm_far=_px_between((cx - 50, far_y, 0), (cx + 50, far_y, 0), p, lens, layout) / 100,
        hidden=hidden,
        problems=problems,
    )


def _px_between(a: Vec, b: Vec, p: Placement, lens: Lens, layout: Layout) -> float:
    ua, ub = project(a, p, lens, layout), project(b, p, lens, layout)
    return math.dist(ua, ub) if ua and ub else 0.0


def _hider(cam: Vec, target: Vec, space: int, level: int, layout: Layout) -> tuple[str | None, int]:
    """What hides this camel from the camera, and how tall it is in camels (0: the pyramid).

    Stacks: the lowest that hides it, up to what the remaining camels can make on another
    space (5 camels in all: with level+1 on this space, 4-level are left).
    """
    if _ray_hits_pyramid(cam, target, layout):
        return "the pyramid", 0
    for others in range(1, layout.camels - level):
        top = others * layout.camel_height
        for n, (x, y, along_x) in enumerate(layout.spaces, start=1):
            if n == space:
                continue
            hx, hy = _half(layout, along_x)
            if _ray_hits_box(cam, target, (x - hx, y - hy, 0.0), (x + hx, y + hy, top)):
                return f"a stack of {others} on space {n}", others
    return None, 0


# --- the search -----------------------------------------------------------------------------


def centred_tilt(height_mm: float, setback_mm: float, lens: Lens, layout: Layout) -> float:
    """The tilt that leaves equal room above and below what must be seen (bisection)."""
    pts = _must_see(layout)

    def balance(tilt: float) -> float:
        p = Placement(height_mm, tilt, setback_mm)
        vs = []
        for q in pts:
            uv = project(q, p, lens, layout)
            if uv is None:
                return 1e9  # something behind the camera: tilted too far
            vs.append(uv[1])
        return min(vs) - (lens.height_px - max(vs))  # top room minus bottom room

    lo, hi = 0.0, 89.0
    # more tilt brings the far edge down into the frame: the room above grows with the tilt
    for _ in range(40):
        mid = (lo + hi) / 2
        if balance(mid) < 0:
            lo = mid
        else:
            hi = mid
    return round((lo + hi) / 2, 2)


def lowest_placement(
    lens: Lens,
    layout: Layout,
    setback_mm: float = 150.0,
    min_band_px: float = 8.0,
    min_margin_px: float = 16.0,
    heights: Sequence[float] | None = None,
) -> View | None:
    """The lowest lens height (10 mm steps) whose centred tilt sees everything, or None.

    Scans 50 mm steps first, then the 10 mm steps below the first height that passes.
    """

    def at(h: float) -> View:
        tilt = centred_tilt(h, setback_mm, lens, layout)
        return camera_view(Placement(h, tilt, setback_mm), lens, layout, min_band_px, min_margin_px)

    coarse = list(heights) if heights else list(range(250, 2001, 50))
    for i, h in enumerate(coarse):
        view = at(float(h))
        if view.ok:
            if heights or i == 0:
                return view
            for fine in range(int(coarse[i - 1]) + 10, int(h), 10):
                finer = at(float(fine))
                if finer.ok:
                    return finer
            return view
    return None


def placement_table(
    layout: Layout,
    lenses: Sequence[str] = ("cm3", "cm3-wide", "cm2"),
    setbacks: Sequence[float] = (0, 100, 200, 300),
) -> list[str]:
    """Markdown rows: for each lens and setback, the lowest placement and what it gives."""
    rows = [
        "| lens | setback mm | height mm | tilt deg | min camel band px | die px | "
        "px/mm near..far | margin px |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for key in lenses:
        lens = LENSES[key]
        for sb in setbacks:
            v = lowest_placement(lens, layout, float(sb))
            if v is None:
                rows.append(f"| {key} | {sb:g} | none up to 2000 | | | | | |")
                continue
            p = v.placement
            rows.append(
                f"| {key} | {sb:g} | {p.height_mm:.0f} | {p.tilt_deg:.1f} | "
                f"{v.min_band_px:.1f} (space {v.worst_space}) | {v.die_px:.1f} | "
                f"{v.px_per_mm_far:.2f}..{v.px_per_mm_near:.2f} | {v.margin_px:.0f} |"
            )
    return rows


# The build guide's arm (hardware/README.md, "The camera arm"): lens 550 mm above the board,
# 200 mm behind its near edge, tilted 37 degrees from straight down.
BUILD_PLACEMENT = Placement(height_mm=550.0, tilt_deg=37.0, setback_mm=200.0)


def focus_distance_mm(p: Placement, layout: Layout) -> float:
    """Lens to the middle of the reveal zone, where the die is read: the distance to focus at.

    Why the reveal zone: the die is the smallest thing read (its pips are ~2 mm); the track is
    read from whole camels, which a little defocus does not hurt. At 0.6-0.7 m the Camera Module
    3's depth of field (f/1.8, 4.74 mm) spans about 0.6-0.85 m, the whole board from the arm."""
    zx = sum(x for x, _ in layout.reveal_zone) / len(layout.reveal_zone)
    zy = sum(y for _, y in layout.reveal_zone) / len(layout.reveal_zone)
    cx, cy, cz = _centre(p, layout)
    return math.dist((cx, cy, cz), (zx, zy, 0.0))


def lens_position_dioptres(p: Placement, layout: Layout) -> float:
    """libcamera's ``LensPosition`` for a placement: 1 / the focus distance in metres."""
    return 1000.0 / focus_distance_mm(p, layout)


def default_lens_position(board: str | Path | None = None) -> float:
    """The lens position for the build guide's arm over this board (hardware/board.yaml)."""
    return lens_position_dioptres(BUILD_PLACEMENT, load_layout(board))


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m firmware.geometry`: the placement table, or one placement checked."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m firmware.geometry", description=main.__doc__)
    ap.add_argument("--board", type=Path, default=None, help="board.yaml (default: hardware/)")
    ap.add_argument("--pyramid-height", type=float, default=100.0, help="mm, measure yours")
    ap.add_argument("--lens", choices=sorted(LENSES), default=None)
    ap.add_argument("--height", type=float, default=None, help="check this lens height (mm)")
    ap.add_argument("--setback", type=float, default=200.0, help="mm behind the near edge")
    ap.add_argument(
        "--tilt", type=float, default=None, help="deg from straight down (default: centred)"
    )
    args = ap.parse_args(argv)
    layout = load_layout(args.board, args.pyramid_height)
    if args.height is None:
        lenses = [args.lens] if args.lens else ["cm3", "cm3-wide", "cm2"]
        print("\n".join(placement_table(layout, lenses)))
        return 0
    lens = LENSES[args.lens or "cm3"]
    tilt = (
        args.tilt
        if args.tilt is not None
        else centred_tilt(args.height, args.setback, lens, layout)
    )
    v = camera_view(Placement(args.height, tilt, args.setback), lens, layout)
    print(
        f"{lens.name}: height {args.height:g} mm, setback {args.setback:g} mm, tilt {tilt:.1f} deg"
    )
    print(f"  margin to the frame's edge: {v.margin_px:.0f} px")
    print(f"  thinnest camel band: {v.min_band_px:.1f} px (space {v.worst_space})")
    print(
        "  bottom camel band by space: " + ", ".join(f"{n}: {b:.0f}" for n, b in v.band_px.items())
    )
    print(
        f"  die in the reveal zone: {v.die_px:.1f} px; board {v.px_per_mm_far:.2f} px/mm "
        f"(far row) .. {v.px_per_mm_near:.2f} px/mm (near row)"
    )
    placement = Placement(args.height, tilt, args.setback)
    print(
        f"  focus: [camera] lens_position = {lens_position_dioptres(placement, layout):.2f} "
        f"(dioptres; {focus_distance_mm(placement, layout):.0f} mm to the reveal zone)"
    )
    for line in v.hidden:
        print(f"  hidden: {line}")
    print("OK: sees everything it must" if v.ok else "NOT OK:\n  " + "\n  ".join(v.problems))
    return 0 if v.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
