"""The empty board's look, kept from the set-up, and the check that the board has moved since.

Why a module of its own: the table's set-up (vision.table) captures the look and the track
reader (vision.track) uses it on every read, to call a space whose column shows the board's own
art empty and to refuse a board moved against the marker cards. Both import it from here, so
neither needs the other at run time.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.board import BoardGeometry, BoardLocation
from vision.board_light import (
    chromaticity,
    gains_at,
    linear,
    point_segment_distance,
    sample,
    white_gains,
)

__all__ = [
    "BG_MM_PER_PX",
    "BG_PAD_MM",
    "BOARD_MOVED",
    "MOVED_GAIN",
    "MOVED_MM",
    "PALE_SATURATION",
    "Background",
    "board_shift",
    "paled_distance",
    "structure_points",
]


# --- the board's own look (captured at set-up: vision.table.capture_background) ----------------
BG_MM_PER_PX = 2.0
BG_PAD_MM = 220.0  # the table round the board: a tall stack's column ends up over it
GLARE_ALPHA = 96  # the file's alpha for a cell under the set-up's specular spot
PALE_SATURATION = 0.15  # a look this far from grey or further may be seen paled by a sheen


def paled_distance(chroma: np.ndarray, want: np.ndarray, pale: np.ndarray) -> np.ndarray:
    """Distance from each ``chroma`` (... x 3) to the stretch from its ``want`` towards grey,
    ``pale`` (...) of the way there: what white light added on top of ``want`` makes of it,
    when that white is at most a share ``pale`` of the light seen.

    Why: a lamp's sheen on a glossy board adds the lamp's own light, white once balanced, so
    the board under it is paler than its look, never of another hue. A look nearer grey than
    ``PALE_SATURATION`` keeps its point: paled, it would reach any grey piece."""
    to_grey = np.float32(1.0 / 3.0) - want
    sat = np.linalg.norm(to_grey, axis=-1)
    t_max = np.where(sat >= PALE_SATURATION, np.clip(pale, 0.0, 1.0), 0.0)
    return point_segment_distance(chroma, want, want + t_max[..., None] * to_grey)


@dataclass(frozen=True, eq=False)
class Background:
    """What the board and the table round it look like with nothing on them, in board mm:
    white-balanced chromaticity per cell of ``mm_per_px`` from ``origin``, and where known;
    ``luma``, the frame's own grey level there (0..1, as the camera encoded it), or None in a
    profile saved before it was kept.

    Why: the board's art (palms, flags, a pyramid's face) and the table (a wooden top the
    colour of an orange camel) show camel-like colours above an empty space's column. Seen at
    set-up, they are explained: the track reader then calls the space empty instead of
    abstaining. Kept in board mm, so a camera moved since set-up still finds it.

    Why the grey level: the printed lines' contrast at set-up is what this camera makes of
    them (a soft lens halves it), so it is the measure a line seen now is judged by
    (vision.track's front-line test). Ratios of grey levels, not the levels, are used: a lamp
    changed since set-up scales them alike."""

    origin: tuple[float, float]
    mm_per_px: float
    chroma: np.ndarray  # h x w x 3 float32
    valid: np.ndarray  # h x w bool
    luma: np.ndarray | None = None  # h x w float32; None in a profile saved before it was kept
    # cells a specular spot washed out at set-up: not ``valid``, but their look is kept, as
    # evidence only that a frame showing the same spot shows the empty board (``distance``)
    glare: np.ndarray | None = None  # h x w bool

    def lookup(self, ground: np.ndarray, glare: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Chromaticity and validity at board points (... x 2 mm), nearest cell; with
        ``glare``, the cells under the set-up's specular spot count as known too."""
        h, w = self.valid.shape
        j = np.round((ground[..., 0] - self.origin[0]) / self.mm_per_px).astype(np.int64)
        i = np.round((ground[..., 1] - self.origin[1]) / self.mm_per_px).astype(np.int64)
        ok = (i >= 0) & (i < h) & (j >= 0) & (j < w)
        i, j = np.clip(i, 0, h - 1), np.clip(j, 0, w - 1)
        known = self.valid[i, j]
        if glare and self.glare is not None:
            known = known | self.glare[i, j]
        return self.chroma[i, j], known & ok

    def distance(
        self,
        ground: np.ndarray,
        chroma: np.ndarray,
        reach: int = 1,
        glare: bool = False,
        pale: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Chromaticity distance from ``chroma`` (... x 3) to the nearest look the empty board
        showed within ``reach`` cells of each point, and whether any was known there. Why the
        reach: a camera moved since set-up, and the board standing a few mm above the cards,
        put an edge a millimetre or two from where the set-up saw it. ``glare``: the looks
        under the set-up's specular spot count too (for a match only: a frame without the
        spot shows the sand unlike them, and that says nothing). ``pale`` (per point, 0..1):
        each look may be seen that far paled towards grey (``paled_distance``)."""
        best = np.full(ground.shape[:-1], np.inf, np.float32)
        any_known = np.zeros(ground.shape[:-1], bool)
        for dy in range(-reach, reach + 1):
            for dx in range(-reach, reach + 1):
                off = np.array([dx, dy], np.float64) * self.mm_per_px
                want, known = self.lookup(ground + off, glare)
                if pale is None:
                    d = np.linalg.norm(chroma - want, axis=-1).astype(np.float32)
                else:
                    d = paled_distance(chroma, want, pale).astype(np.float32)
                best = np.where(known, np.minimum(best, d), best)
                any_known |= known
        return best, any_known

    def luma_at(self, ground: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The set-up's grey level at board points (... x 2 mm), interpolated between cells
        (the printed lines are only a cell or two wide), and where it is known. All unknown
        when the background has no grey level."""
        shape = ground.shape[:-1]
        if self.luma is None:
            return np.zeros(shape, np.float32), np.zeros(shape, bool)
        h, w = self.valid.shape
        fx = ((ground[..., 0] - self.origin[0]) / self.mm_per_px).astype(np.float32)
        fy = ((ground[..., 1] - self.origin[1]) / self.mm_per_px).astype(np.float32)
        flat_x, flat_y = fx.reshape(1, -1), fy.reshape(1, -1)
        val = cv2.remap(
            self.luma, flat_x, flat_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        # known where all four cells it blends are known
        ok = (fx >= 0) & (fx <= w - 1) & (fy >= 0) & (fy <= h - 1)
        j0 = np.clip(np.floor(fx).astype(np.int64), 0, w - 1)
        i0 = np.clip(np.floor(fy).astype(np.int64), 0, h - 1)
        j1, i1 = np.minimum(j0 + 1, w - 1), np.minimum(i0 + 1, h - 1)
        v = self.valid
        ok &= v[i0, j0] & v[i0, j1] & v[i1, j0] & v[i1, j1]
        return val.reshape(shape), ok

    def to_json(self) -> dict[str, Any]:
        # alpha: 255 known, GLARE_ALPHA under the set-up's spot (a reader from before it was
        # kept takes that as unknown, as it did), 0 unknown
        alpha = self.valid.astype(np.uint8) * 255
        if self.glare is not None:
            alpha[self.glare & ~self.valid] = GLARE_ALPHA
        rgba = np.dstack([np.clip(np.round(self.chroma * 255), 0, 255).astype(np.uint8), alpha])
        ok, buf = cv2.imencode(".png", rgba)
        out: dict[str, Any] = {
            "origin": list(self.origin),
            "mm_per_px": self.mm_per_px,
            "png": base64.b64encode(buf.tobytes()).decode("ascii"),
        }
        if self.luma is not None:
            # 16 bits: a soft line's contrast is a few hundredths of the sand's level
            grey = np.clip(np.round(self.luma * 65535), 0, 65535).astype(np.uint16)
            ok, buf = cv2.imencode(".png", grey)
            out["luma_png"] = base64.b64encode(buf.tobytes()).decode("ascii")
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Background:
        raw = np.frombuffer(base64.b64decode(d["png"]), np.uint8)
        rgba = cv2.imdecode(raw, cv2.IMREAD_UNCHANGED)
        if rgba is None or rgba.ndim != 3 or rgba.shape[2] != 4:
            raise ValueError("background: not a 4-channel PNG")
        luma = None
        if d.get("luma_png") is not None:
            raw = np.frombuffer(base64.b64decode(d["luma_png"]), np.uint8)
            grey = cv2.imdecode(raw, cv2.IMREAD_UNCHANGED)
            if grey is None or grey.dtype != np.uint16 or grey.shape != rgba.shape[:2]:
                raise ValueError("background: the grey level is not a 16-bit PNG of its size")
            luma = grey.astype(np.float32) / 65535.0
        return cls(
            (float(d["origin"][0]), float(d["origin"][1])),
            float(d["mm_per_px"]),
            rgba[..., :3].astype(np.float32) / 255.0,
            rgba[..., 3] > 127,
            luma,
            (rgba[..., 3] > GLARE_ALPHA // 2) & (rgba[..., 3] <= 127),
        )


# --- has the board moved since set-up? -----------------------------------------------------------
# the board has moved when its edges match the set-up's look best this far (mm) from where
# the set-up put them, and by this much more of them than there (board_shift). Tuning tables:
# unmoved, same camera 0 mm; another camera placement <= 5.7 mm (gain <= 0.27); moved 6-20 mm:
# found 8.9-20 mm, gain 0.18-0.50.
MOVED_MM = 8.0
MOVED_GAIN = 0.15
BOARD_MOVED = (
    "the board has moved against the marker cards since set-up: confirm the track overlay "
    "again (pyramid calibrate track); until then the track is not read"
)


def structure_points(bg: Background, geo: BoardGeometry) -> np.ndarray:
    """Board points (N x 2 mm) on the ring where the empty board's look changes within a few
    millimetres (pebble lines, flags, the board's edge): where a moved board shows it.
    Worked out once per background (kept on it)."""
    cached = bg.__dict__.get("_structure")
    if cached is not None:
        return np.asarray(cached)
    pts = _structure_points(bg, geo)
    object.__setattr__(bg, "_structure", pts)
    return pts


def _structure_points(bg: Background, geo: BoardGeometry) -> np.ndarray:
    ch = bg.chroma
    h, w = bg.valid.shape
    s = max(1, int(round(4.0 / bg.mm_per_px)))
    diff = np.zeros((h, w), np.float32)
    for dy, dx in ((0, s), (s, 0)):
        a = ch[: h - dy, : w - dx]
        b = ch[dy:, dx:]
        d = np.linalg.norm(a - b, axis=-1)
        diff[: h - dy, : w - dx] = np.maximum(diff[: h - dy, : w - dx], d)
    ok = bg.valid & (diff > 0.06)
    ys, xs = np.nonzero(ok)
    pts = np.column_stack([bg.origin[0] + xs * bg.mm_per_px, bg.origin[1] + ys * bg.mm_per_px])
    side = 5 * geo.cell
    on_ring = (pts[:, 0] > -3) & (pts[:, 0] < side + 3) & (pts[:, 1] > -3) & (pts[:, 1] < side + 3)
    pts = pts[on_ring]
    if len(pts) > 1500:  # enough to tell; cheaper to sample
        pts = pts[:: len(pts) // 1500]
    return pts


def board_shift(
    image: np.ndarray,
    loc: BoardLocation,
    geo: BoardGeometry,
    bg: Background,
    pts: np.ndarray,
    gains: dict[int, np.ndarray] | None = None,
) -> tuple[float, float]:
    """How far (mm) the board seems to have moved against the cards since set-up, and how much
    better the board's edges match there than where the set-up put them (share of points).

    The structure points' colours now are compared with the empty board's look shifted by
    every offset up to 16 mm: the offset where most match is the board's move. Why the peak
    and not the share at zero: another camera placement or a hand lowers every offset's share
    alike, a moved board moves the peak. ``gains``: the markers' white gains of this frame
    when the caller has them (the track reader does), so they are not measured twice.

    All 81 offsets are looked up at once (one gather, one distance): this runs on every
    track read, and offset by offset it was the read's largest single cost."""
    if len(pts) < 50:
        return 0.0, 0.0  # too little structure to judge: never refuse on it
    if gains is None:
        gains = white_gains(image, loc, geo)
    if not gains:
        return 0.0, 0.0
    sub = pts[:: max(1, len(pts) // 800)]
    vals, inside = sample(image, loc.to_image(sub), box=True)
    now = chromaticity(linear(vals) * gains_at(sub, gains, geo))
    steps = np.arange(-16.0, 16.1, 4.0)
    dy, dx = np.meshgrid(steps, steps, indexing="ij")  # row-major: dy outer, dx inner
    offs = np.column_stack([dx.ravel(), dy.ravel()])  # m x 2
    share = _shift_shares(bg, sub, now, inside, offs)
    if float(share.max()) < 0.0:
        return 0.0, -1.0
    zero = int(np.flatnonzero((offs[:, 0] == 0) & (offs[:, 1] == 0))[0])
    at_zero = max(float(share[zero]), 0.0)
    top = int(np.argmax(share))  # the first best, in the order the offsets were tried
    return float(np.hypot(*offs[top])), float(share[top]) - at_zero


def _shift_shares(
    bg: Background, sub: np.ndarray, now: np.ndarray, inside: np.ndarray, offs: np.ndarray
) -> np.ndarray:
    """Per offset (m x 2 mm), the share of the points whose colour now is within 0.05 of the
    empty board's look there shifted by it; -1 where fewer than 40 points were known.

    The points' cells are found once; an offset that is a whole number of cells (the set-up's
    2 mm cells, 4 mm steps) moves them by whole cells, as ``bg.lookup`` of the shifted points
    would, and needs no rounding of its own. Any other offset goes through ``bg.lookup``."""
    h, w = bg.valid.shape
    cells = offs / bg.mm_per_px
    if not np.allclose(cells, np.round(cells)) or np.any(np.round(cells) % 2 != 0):
        want, known = bg.lookup(sub[None, :, :] + offs[:, None, :])
        ok = inside[None, :] & known
        close = (np.linalg.norm(now[None] - want, axis=-1) < 0.05) & ok
    else:
        # round(a + 2k) == round(a) + 2k even for numpy's round-half-to-even
        step = np.round(cells).astype(np.int64)
        j0 = np.round((sub[:, 0] - bg.origin[0]) / bg.mm_per_px).astype(np.int64)
        i0 = np.round((sub[:, 1] - bg.origin[1]) / bg.mm_per_px).astype(np.int64)
        j = j0[None, :] + step[:, 0:1]
        i = i0[None, :] + step[:, 1:2]
        ok = (i >= 0) & (i < h) & (j >= 0) & (j < w)
        flat = np.clip(i, 0, h - 1) * w + np.clip(j, 0, w - 1)
        ok &= np.take(bg.valid.reshape(-1), flat) & inside[None, :]
        d2 = np.zeros(flat.shape, np.float32)
        for c, plane in enumerate(_planes(bg)):  # three flat gathers beat one of triples
            dc = np.take(plane, flat)
            dc -= now[None, :, c].astype(np.float32)
            d2 += dc * dc
        close = (d2 < 0.05**2) & ok
    n_ok = ok.sum(axis=1)
    return np.where(n_ok >= 40, close.sum(axis=1) / np.maximum(n_ok, 1), -1.0)


def _planes(bg: Background) -> tuple[np.ndarray, ...]:
    """The background's three chromaticity channels, each flat and contiguous; made once per
    background (kept on it, like its structure points)."""
    cached = bg.__dict__.get("_planes")
    if cached is None:
        cached = tuple(np.ascontiguousarray(bg.chroma[..., c]).reshape(-1) for c in range(3))
        object.__setattr__(bg, "_planes", cached)
    return tuple(cached)
