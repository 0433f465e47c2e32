"""Read the camel stacks (and desert tiles) on every space of the track from one frame.

How: the markers give the camera pose (vision.board). For each space we take the vertical line
through the point of the stack's footprint nearest the camera and sample the image along it,
from just below the board up to well above a full stack. An oblique camera sees a stack as
coloured bands bottom to top along exactly that line (then the top face of the top camel, then
the board behind). Each sample is white-balanced against the markers' white borders and
classified by chromaticity (shading changes brightness, not chromaticity) as one of the five
camel colours, the board, or "unknown". Runs of one colour are camels; the five camels have five
different colours, so a run that repeats the colour below it is the top face, not a camel.

Honesty rules: a space where a hand (or anything not a camel nor the board) shows inside the
stack's image region is reported as uncertain, never guessed; so is a space whose bands do not
look like camels (too short, interrupted), and a space the stack in front of it may hide.

Across spaces (vision.track_global): each camel exists once and all five are on the track. A
colour read on two spaces makes both uncertain. A space that abstained only because its own
bands were unread (not a hand, a sleeve, a stack in front, glare) is then re-read with a band
model (each camel one band high at a known place, its middle averaged, clearly its colour),
from the colours no other space holds, kept only when exactly one stack fits; and when one
space alone is still unsure, the colours seen nowhere else must be on it, completed when
exactly one ordering of them fits its column (marked ``inferred``). The rule is a fact of the
game, not hub state; ``read_track(..., all_camels=False)`` turns the "all five" half off.

Desert tiles: read from the colour of the tile's centre on spaces without camels (oasis and
mirage sides are printed in clearly different colours); a hand over a tile makes it uncertain.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

import cv2
import numpy as np

from vision.background import (
    BOARD_MOVED,
    MOVED_GAIN,
    MOVED_MM,
    Background,
    board_shift,
    structure_points,
)
from vision.board import (
    BoardGeometry,
    BoardLocation,
    BoardNotFound,
    load_geometry,
    locate_board,
    reveal_zone_in_image,
    stack_region,
)
from vision.board_light import (
    chroma_brightness,
    chromaticity,
    gains_at,
    linear,
    sample,
    segment_distance,
    white_gains,
)
from vision.palette import BLACK_Y, CRAZY_CAMELS, NEUTRAL_SPLIT_Y
from vision.track_global import (
    TOP_WORD,
    WEAK,
    Column,
    FitRef,
    SpaceReading,
    StackFit,
    resolve,
)

if TYPE_CHECKING:
    from vision.table import TableProfile

__all__ = ["SpaceReading", "TrackReading", "read_track", "reveal_zone_in_image"]

BOARD = "board"
UNKNOWN = "unknown"


@dataclass
class TrackReading:
    """The whole track. ``reason`` is set (and the rest empty) when the frame could not be read."""

    track: dict[int, list[str]] = field(default_factory=dict)
    desert: dict[int, str] = field(default_factory=dict)
    confidence: float = 0.0
    uncertain: list[int] = field(default_factory=list)
    reason: str | None = None
    homography: np.ndarray | None = None
    spaces: dict[int, SpaceReading] = field(default_factory=dict)
    markers: dict[int, np.ndarray] = field(default_factory=dict)  # id -> 4x2 px corners
    location: BoardLocation | None = None
    columns: dict[int, Column] = field(default_factory=dict)  # each space's samples (diagnosis)

    @property
    def ok(self) -> bool:
        return self.reason is None

    def to_json(self) -> dict[str, Any]:
        """The `pyramid read-track --json` shape: spaces as strings, an error object if unread."""
        if self.reason is not None:
            return {"error": self.reason}
        return {
            "track": {str(s): c for s, c in sorted(self.track.items())},
            "desert": {str(s): d for s, d in sorted(self.desert.items())},
            "confidence": round(float(self.confidence), 3),
            "uncertain": [str(s) for s in self.uncertain],
        }


# --- colour ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Palette:
    names: list[str]  # camel colours, then "board", then tile sides
    chroma: np.ndarray  # len(names) x 2
    radius: np.ndarray  # acceptance radius per class (chromaticity units)
    # the second edition's crazy camels, black and white: (black, white) class indices, told
    # apart by lightness (vision.palette.NEUTRAL_SPLIT_Y) since their hue is the same
    neutral: tuple[int, int] | None = None
    # each class reaches from ``chroma`` to ``tip`` (the same point but for a learnt camel
    # colour: ``saturated_tip``)
    tip: np.ndarray | None = None
    # a learnt class's radius by its own spread alone, where a close neighbour cut ``radius``
    # short (``_classify``: beyond ``radius``, a sample within this and clearly nearer the
    # class than any other is the class); None: ``radius`` alone. ``reach`` for the camels
    # only (in a column a tile's colour is a blend of camels, never a tile: ``_decode``),
    # ``flat_reach`` for the tiles' sides as well (a space's middle, where a tile lies flat:
    # ``_read_tiles``)
    reach: np.ndarray | None = None
    flat_reach: np.ndarray | None = None
    # each class's stretch starts here rather than at ``chroma`` (a learnt camel colour's
    # washed-out end: ``washed_end``); None: at ``chroma``
    pale: np.ndarray | None = None

    def distance(self, ch: np.ndarray, idx: list[int] | slice | None = None) -> np.ndarray:
        """Distance from chromaticities ``ch`` (... x 3) to each class (``idx``: those)."""
        sel = slice(None) if idx is None else idx
        tip = self.chroma if self.tip is None else self.tip
        start = self.chroma if self.pale is None else self.pale
        return segment_distance(np.asarray(ch, np.float32), start[sel], tip[sel])


TIP_SATURATION = 0.15  # a learnt colour this far from grey has a hue to follow out
TIP_REACH = 2.0  # ... out to this many times as far from grey, or to the sensor's purest
TIP_MIN_REACH = 1.25  # a colour that could grow purer by less than this stays a point
TIP_CLEAR = 0.25  # ... coming no nearer another colour than the learnt one was, or than this
TIP_STEPS = 16
#: ... though it may pass another colour this share nearer than the learnt one was: a line from
#: grey that runs by a colour at a near-constant distance (the learnt orange beside yellow, 0.133
#: then 0.130 on the first steps, tuning table 224,729) is not coming near it
TIP_DIP = 0.03


def saturated_tip(ch: np.ndarray, others: np.ndarray) -> np.ndarray:
    """The purest chromaticity a learnt paint colour ``ch`` may show: on the line from grey
    through it, out to where a channel's share runs out (at most ``TIP_REACH`` times as far
    from grey), and stopped before it comes nearer any of ``others`` (m x 3, the palette's
    other colours) than the learnt colour was, or than ``TIP_CLEAR`` where that was farther.

    Why a camel's colour is a stretch and not a point: a painted piece's light is its paint's
    colour plus a share of the lamp's, whitened by the markers (the dichromatic model), and a
    camera's tone curve washes bright colours out further. The set-up snapshot may put a camel
    under the lamp's spot, where its blue or yellow reads half as saturated as the same camel in
    the lamp's fall-off in play (tuning tables 221,903 and 222,115: every blue or yellow camel
    of the game unread, each time "something neither camel nor board"). The washed-out end stays
    the learnt colour, so nothing nearer grey (the sand, a hand, the white camel) is taken in.
    A colour learnt nearly as pure as the sensor shows (``TIP_MIN_REACH``) was not washed out
    and stays a point: an orange stretched 11 % further took in a red tablecloth behind the
    stack it topped (tuning scene 2,232,307).

    Blends of two other colours are not kept clear of: yellow lies on the line between green
    and orange, and its stretch crosses it (tuning scenes 2,216,000..2,219,999, re-mounted
    camera: 25 spaces no longer abstained with the stretch, 5 had it stopped at blends)."""
    c = np.asarray(ch, np.float32)
    grey = np.full(3, 1.0 / 3.0, np.float32)
    v = c - grey
    if float(np.linalg.norm(v)) < TIP_SATURATION or not (v < 0).any():
        return c
    reach = min(TIP_REACH, float((grey[v < 0] / -v[v < 0]).min()))
    if reach < TIP_MIN_REACH or len(others) == 0:
        return c
    ks = np.linspace(1.0, reach, TIP_STEPS + 1)
    d = np.linalg.norm((grey + ks[:, None] * v)[:, None, :] - others, axis=-1)  # steps x others
    ok = np.cumprod((d >= (1.0 - TIP_DIP) * np.minimum(d[0], TIP_CLEAR)).all(axis=1)).astype(bool)
    return np.asarray(grey + float(ks[ok][-1]) * v, np.float32)


PALE_REACH = 0.55  # a learnt colour may wash out to this share of its distance from grey
PALE_FLOOR = 0.3  # ... never nearer grey than this
PALE_CLEAR = 0.2  # ... nor nearer any other class's stretch than this


#: skin's chromaticity (blue, green, red shares of linear light), from pale to deep (sRGB
#: 238, 200, 180 and 92, 58, 40, linearised): it lies on a narrow locus whatever the tone,
#: and that locus is a washed-out orange (a hand over the track is the commonest thing there
#: in no camel's colour)
SKIN = np.array([[0.243, 0.307, 0.450], [0.105, 0.238, 0.657]], np.float32)


def washed_end(ch: np.ndarray, others_a: np.ndarray, others_b: np.ndarray) -> np.ndarray:
    """The most washed-out chromaticity a learnt paint colour ``ch`` may show: on the line
    from it towards grey, down to ``PALE_REACH`` of its distance from grey (and no nearer grey
    than ``PALE_FLOOR``), stopped before it comes within ``PALE_CLEAR`` of any other class's
    stretch (``others_a``-``others_b``, m x 3).

    Why: the other side of ``saturated_tip``. A camel taught in the lamp's fall-off reads as
    pure as paint gets, and the same camel in play under the lamp's spot, or lit on its top
    face, reads washed out towards grey (a blue taught at 0.91, 0.06, 0.02 read 0.72, 0.16,
    0.12; an orange taught at 0.01, 0.05, 0.94 read 0.13, 0.20, 0.68): the space abstained,
    "something neither camel nor board covers the base". Near grey lie the sand, the white
    camel, the mirage tile and a hand: the clearance keeps the washed end away from those,
    so a yellow (whose grey side is the sand) does not wash at all, and a green only where
    the oasis tile lies far from it. Without ``SKIN`` among them an orange washed as far as
    a blue and took in the hands over the track (tuning scenes 2,256,000..2,257,999, camera
    re-mounted: 27 spaces fewer abstained, 46 more or read wrong under a hand; with it, 26
    fewer and 6 more, docs/table-setup.md)."""
    c = np.asarray(ch, np.float32)
    grey = np.full(3, 1.0 / 3.0, np.float32)
    v = c - grey
    norm = float(np.linalg.norm(v))
    if norm < TIP_SATURATION:
        return c
    low = max(PALE_REACH, PALE_FLOOR / norm)
    if low >= 1.0:
        return c
    ks = np.linspace(1.0, low, TIP_STEPS + 1)
    pts = grey + ks[:, None] * v
    a = np.concatenate([np.asarray(others_a, np.float32).reshape(-1, 3), SKIN[:1]])
    b = np.concatenate([np.asarray(others_b, np.float32).reshape(-1, 3), SKIN[1:]])
    d = segment_distance(pts, a, b)  # steps x others
    ok = np.cumprod((d >= PALE_CLEAR).all(axis=1)).astype(bool)
    if not ok.any():
        return c
    return np.asarray(grey + float(ks[ok][-1]) * v, np.float32)


def _palette(
    geo: BoardGeometry, board_lin: list[np.ndarray], table: TableProfile | None = None
) -> _Palette:
    names = list(geo.colours)
    rgb = np.array([geo.colours[n] for n in names], np.float32)
    ch = chromaticity(linear(rgb[:, ::-1]))
    learnt = table.colours() if table is not None else {}
    spreads = table.spreads() if table is not None else {}
    for i, n in enumerate(names):
        if n in learnt:  # this table's own paint under its lamp (vision.table)
            ch[i] = np.asarray(learnt[n], np.float32)
    board_ch = chromaticity(np.array(board_lin, np.float32))
    # a margin or field colour that came out the same as the spaces' (its sample points fell
    # on sand, or the light washes them together) is no colour of its own: a space's sand
    # must not be read as "the margin's colour in front of a stack"
    board_ch = board_ch[
        [0]
        + [i for i in range(1, len(board_ch)) if np.linalg.norm(board_ch[i] - board_ch[0]) > 0.06]
    ]
    tiles = list(geo.tile_colours)
    tch = chromaticity(linear(np.array([geo.tile_colours[t] for t in tiles], np.float32)[:, ::-1]))
    for i, t in enumerate(tiles):
        if t in learnt:
            tch[i] = np.asarray(learnt[t], np.float32)
    boards = [BOARD] + [f"{BOARD}{i}" for i in range(1, len(board_ch))]
    all_names = names + boards + tiles
    chroma = np.concatenate([ch, board_ch, tch]).astype(np.float32)
    tip = chroma.copy()
    for i, n in enumerate(names):
        if n in learnt and n not in CRAZY_CAMELS:
            tip[i] = saturated_tip(chroma[i], np.delete(chroma, i, axis=0))
    pale = chroma.copy()
    for i, n in enumerate(names):
        if n in learnt and n not in CRAZY_CAMELS:
            pale[i] = washed_end(chroma[i], np.delete(chroma, i, axis=0), np.delete(tip, i, axis=0))
    radius = np.full(len(all_names), 0.11, np.float32)
    if "white" in names:
        radius[names.index("white")] = 0.075
    radius[len(names) : len(names) + len(boards)] = 0.075
    neutral = None
    if "black" in names and "white" in names:
        neutral = (names.index("black"), names.index("white"))
        # black paint's colour is noisy (the classifier widens a dark sample's radius):
        # narrow, so the table's dark wood or the board's dark edge is not taken for it
        radius[neutral[0]] = 0.06
    flat_reach = radius.copy()
    for i, n in enumerate(all_names):
        if n in spreads:
            # a learnt colour: as wide as its own spread allows, never reaching half-way to
            # another class (its board included), and never wider than the nominal radius;
            # black and white are told apart by lightness, so not by their distance
            skip = [i] + ([j for j in neutral if j != i] if neutral and i in neutral else [])
            keep = [j for j in range(len(all_names)) if j not in skip]
            along = pale[i] + np.linspace(0.0, 1.0, 9)[:, None] * (tip[i] - pale[i])
            gap = float(segment_distance(along, pale[keep], tip[keep]).min())
            top = 0.06 if neutral is not None and i == neutral[0] else 0.11
            own = float(np.clip(3.0 * spreads[n] + 0.05, 0.06, top))
            radius[i] = min(own, 0.55 * gap)
            flat_reach[i] = own
    reach = np.where(np.arange(len(all_names)) < len(names), flat_reach, radius)
    return _Palette(all_names, chroma, radius, neutral, tip, reach, flat_reach, pale)


# Beyond a radius a close neighbour cut short, a sample is its class when it is within the
# class's own reach (its spread alone: ``_Palette.reach``) and its distance to the class is at
# most this share of its distance to any other class.
# Why: a learnt colour's radius never reaches half-way to another class. On a table whose green
# camel and oasis tile came out 0.05 apart under its lamp, both were cut to 0.028: the oasis
# tiles' middles (0.03-0.04 from their colour, twice as far from the camel's) and the green
# camel read as no colour, and 28 spaces of the table's 100 abstained (tuning table 223,915).
# Tuning scenes 2,234,000..2,237,999 (re-mounted), looked at: 10 spaces fewer abstained, 2
# more; checked after on 2,238,000..2,241,999 (re-mounted) 11 and 6, 2,242,000..2,243,999
# (same camera) 3 and 1, 2,244,000..2,245,999 (lamp changed) 3 and 0, second edition
# 2,246,000..2,246,299 2 and 0; no read wrong that was right, under a hand or not. With the
# tiles' sides keeping their reach in a space's middle only (``flat_reach``): re-mounted 10
# and 2, 11 and 5; second edition 0 and 0.
CLEAR_NEARER = 0.5


def _classify(
    pal: _Palette,
    lin: np.ndarray,
    dark: float,
    flat: bool = False,
    plain: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Class index per sample (len(names) = unknown) and the distance to the nearest class.
    ``flat``: the samples are of a space's middle, where a tile lies flat (``flat_reach``).
    ``plain`` (a mask like the samples'): these are judged without the camel colours'
    washed-out ends (``washed_end``): seen over the table beyond the board, where a cloth of
    any colour may lie, a greyish blue one under a warm lamp reads as a washed-out blue camel
    (tuning scenes 2,256,834 and 2,256,830: a lone blue camel's band ran on up the cloth)."""
    ch, y = chroma_brightness(lin)
    d = pal.distance(ch)  # ... x classes
    if plain is not None and pal.pale is not None and plain.any():
        unwashed = replace(pal, pale=None).distance(ch[plain])
        d[plain] = unwashed
    best = d.argmin(axis=-1)
    dist = np.take_along_axis(d, best[..., None], axis=-1)[..., 0]
    # dark samples have noisy chromaticity: allow them more room before calling them unknown.
    # Too dark for any hue is judged by the strongest channel: a saturated camel's shaded side
    # holds nearly all its light in one channel and keeps its hue where a grey of the same
    # mean does not (a blue camel's side under a steeper tone curve, y 0.002-0.004).
    # With the second edition's black camel on the track, by the mean as before: there a dark
    # sample with a cast is most often black paint, and naming it by its cast cost reads
    # (tuning scenes 2,191,000..2,191,299: six more abstentions, none fewer)
    widen = 1.0 + 0.01 / np.maximum(y, 0.002)
    radius = pal.radius[best] * widen
    too_dark = (lin.max(axis=-1) if pal.neutral is None else y) < dark
    # a class a close neighbour cut short keeps its own reach where the sample is clearly
    # nearer it than any other class (``CLEAR_NEARER``)
    clear = np.zeros(dist.shape, bool)
    reach = pal.flat_reach if flat else pal.reach
    if reach is not None and d.shape[-1] > 1:
        second = np.partition(d, 1, axis=-1)[..., 1]
        clear = (dist <= reach[best] * widen) & (dist <= CLEAR_NEARER * second)
    unknown = ((dist > radius) & ~clear) | too_dark
    if pal.neutral is not None:
        black, white = pal.neutral
        grey = (best == black) | (best == white)
        best = np.where(grey, np.where(y < NEUTRAL_SPLIT_Y, black, white), best)
        d_split = np.linalg.norm(ch - pal.chroma[best], axis=-1)
        dist = np.where(grey, d_split, dist)
        radius = np.where(grey, pal.radius[best] * widen, radius)
        # black and white are told apart by lightness: their own radius alone
        unknown = ((dist > radius) & ~(clear & ~grey)) | too_dark
        # black paint in a stack's shade is too dark for its (neutral) hue to be read: what is
        # that dark on the track and not strongly coloured is the black camel (the sand stays
        # far brighter in shade; a green camel in the shade of the one above stays green)
        pitch = _pitch(ch, y)
        unknown = np.where(pitch, False, unknown)
        best = np.where(pitch, black, best)
    best = np.where(unknown, len(pal.names), best)
    return best, dist


def _board_corrected(
    image: np.ndarray,
    loc: BoardLocation,
    geo: BoardGeometry,
    gains: dict[int, np.ndarray],
    background: Background,
) -> dict[int, np.ndarray]:
    """The markers' gains, corrected so the board's sand looks as it did at set-up.

    Why: the white card is a small reference that a bright lamp clips (its whitest channel
    stops at 255 and the balance tilts), and a lamp changed since set-up moves painted
    colours a little against it. The board is a large reference seen every frame: the median
    ratio of its colour at set-up to its colour now, over points where they roughly agree
    (a camel or a hand on a point drops it), is folded into the gains."""
    k = np.linspace(0.03, 0.97, 22) * geo.width
    gx, gy = np.meshgrid(k, np.linspace(0.03, 0.97, 22) * geo.height)
    pts = np.column_stack([gx.ravel(), gy.ravel()])
    vals, inside = sample(image, loc.to_image(pts), box=True)
    lin = linear(vals) * gains_at(pts, gains, geo)
    now, y = chroma_brightness(lin)
    want, known = background.lookup(pts)
    ok = inside & known & (y > 0.02) & (np.linalg.norm(now - want, axis=1) < 0.15)
    if ok.sum() < 100:
        return gains
    c = np.median(want[ok] / np.maximum(now[ok], 1e-4), axis=0)
    c = c / c.mean()
    if not np.all(np.isfinite(c)) or np.abs(c - 1).max() > 0.5:
        return gains
    return {m: g * c.astype(np.float32) for m, g in gains.items()}


# --- the reader -----------------------------------------------------------------------------
def _failed(reason: str, loc: BoardLocation | None = None) -> TrackReading:
    return TrackReading(
        reason=reason,
        location=loc,
        homography=None if loc is None else loc.homography,
        markers={} if loc is None else dict(loc.markers),
    )


def read_track(
    image: np.ndarray,
    geometry: BoardGeometry | None = None,
    location: BoardLocation | None = None,
    *,
    all_camels: bool = True,
    table: TableProfile | None = None,
) -> TrackReading:
    """Read every space of the track in ``image`` (BGR uint8). Never raises on a bad frame.

    Pass ``location`` (from a previous frame of a fixed camera) to skip marker detection.
    ``all_camels``: the five camels are all on the track (true in play and once set up); it
    lets an abstaining space be completed from the others (vision.track_global). Pass False
    for a board still being set up.
    """
    geo = geometry or load_geometry()
    if (
        not isinstance(image, np.ndarray)
        or image.dtype != np.uint8
        or image.ndim != 3
        or image.shape[2] != 3
        or image.shape[0] < 32
        or image.shape[1] < 32
    ):
        return _failed(f"not a BGR colour image: {getattr(image, 'shape', type(image).__name__)}")
    try:
        loc = location or locate_board(image, geo)
    except BoardNotFound as exc:
        return _failed(str(exc))
    gains = white_gains(image, loc, geo)
    if len(gains) < 1:
        return _failed("the markers' white borders are not visible: cannot balance colour", loc)
    if table is not None and table.background is not None:
        pts = structure_points(table.background, geo)
        moved, gain = board_shift(image, loc, geo, table.background, pts, gains)
        if moved >= MOVED_MM and gain > MOVED_GAIN:
            return _failed(BOARD_MOVED, loc)
        gains = _board_corrected(image, loc, geo, gains, table.background)
    sharp = _sharpness(image, loc, geo)
    if sharp < 0.12:
        return _failed(
            f"the frame is too blurred to read the stacks (edge contrast {sharp:.2f}): "
            "camera moving or out of focus?",
            loc,
        )
    pal = _palette(geo, _board_colours(image, loc, geo, gains), table)
    background = None if table is None else table.background
    line_seen = _front_line_seen(image, loc, geo, background)
    spaces, desert, columns = _read_spaces(image, loc, geo, gains, pal, background, line_seen)
    _mark_hidden(spaces, loc, geo)
    # a hand the colour of the sand passes for an empty space, but hides the space's front line
    for s, seen in zip(geo.spaces, line_seen, strict=True):
        if (
            seen < LINE_HIDDEN
            and not spaces[s].uncertain
            and not spaces[s].camels
            and s not in desert
        ):
            why = "the line in front of the space is hidden"
            spaces[s] = SpaceReading([], 0.0, True, why, read_empty=True)
    # each camel exists once, and all five are on the track: see vision.track_global
    ref = _fit_ref(pal, len(geo.colours))
    fitters: dict[int, StackFit] = {}

    def fitter(s: int) -> StackFit:
        if s not in fitters:
            fitters[s] = StackFit(columns[s], ref, geo.max_stack)
        return fitters[s]

    read = dict(spaces)

    def decode(s: int, free: list[str]) -> list[list[str]]:
        # a lone stack the band model finds must hold the camels the runs read within its
        # height (``StackFit.holds_runs``)
        found = fitter(s).decode(free)
        if len(found) == 1 and not fitter(s).holds_runs(found[0], read[s].runs_seen):
            return []
        return found

    spaces = resolve(
        spaces,
        list(geo.colours),
        lambda s, stack: fitter(s).fits(stack),
        decode,
        no_camels=set(desert),
        max_stack=geo.max_stack,
        all_camels=all_camels,
        peeks=partial(_peek_share, image, loc, geo, gains, pal),
        track_length=len(geo.spaces),
    )
    spaces = _thin_guard(spaces, columns)
    spaces = _overhung(spaces, loc, geo)
    track = {s: r.camels for s, r in spaces.items() if r.camels and not r.uncertain}
    uncertain = sorted(s for s, r in spaces.items() if r.uncertain)
    conf = float(min([r.confidence for r in spaces.values() if not r.uncertain] or [0.0]))
    return TrackReading(
        track=track,
        desert={
            **{s: d for s, d in desert.items() if s not in uncertain},
            **{s: r.faint_tile for s, r in spaces.items() if r.faint_tile and not r.uncertain},
        },
        confidence=conf,
        uncertain=uncertain,
        homography=loc.homography,
        spaces=spaces,
        markers=dict(loc.markers),
        location=loc,
        columns=columns,
    )


def _peek_share(
    image: np.ndarray,
    loc: BoardLocation,
    geo: BoardGeometry,
    gains: dict[int, np.ndarray],
    pal: _Palette,
    space: int,
    colour: str,
) -> float:
    """The share of points of ``space``'s lowest camel-high box (its footprint, from a fifth
    to four fifths of a camel's height) whose pixel shows ``colour``: where a camel covered
    by the one set askew over it still shows (``track_global._peeking``)."""
    c = np.asarray(geo.space_centres[space], np.float64)
    d = np.asarray(geo.direction(space), np.float64)
    across = np.array([-d[1], d[0]])
    fl, fw, z = np.meshgrid(
        np.linspace(-1.0, 1.0, 9), np.linspace(-1.0, 1.0, 5), np.array([0.2, 0.4, 0.6, 0.8])
    )
    pts = (
        c
        + d * (fl.reshape(-1, 1) * geo.camel_length / 2)
        + across * (fw.reshape(-1, 1) * geo.camel_width / 2)
    )
    vals, inside = sample(image, loc.to_image(pts, z.ravel() * geo.camel_height), box=True)
    lin = linear(vals) * gains_at(pts, gains, geo)
    cls, _ = _classify(pal, lin, dark=0.004)
    return float(np.mean((cls == pal.names.index(colour)) & inside))


# A steep view: a camel set this many mm (or fewer) nearer the camera than the one below it
# covers that one's whole band in the image. Hobbyists place camels a few mm askew, so where
# ``hide_mm`` is this small a stack's count is not fixed by its pixels.
THIN_HIDE_MM = 6.0


def _thin_guard(
    spaces: dict[int, SpaceReading], columns: dict[int, Column]
) -> dict[int, SpaceReading]:
    """Refuse a stack read from weak evidence where the view is too steep to check its count.

    Why: the band model, a filled gap and the five-camel completion name each band from a few
    pixels and trust that the bands they did not see are not there. Where the camera looks
    nearly straight down on a space (``hide_mm`` < THIN_HIDE_MM; only the stress range's
    steepest poses, never the build guide's), an upper camel askew can hide a lower one whole,
    so such a reading is an abstention instead (tuning seeds: 7 right answers given up in
    5,870 stress spaces for each wrong one removed; none as built)."""
    out = dict(spaces)
    for s, r in spaces.items():
        col = columns.get(s)
        if col is None or r.uncertain or not r.camels or r.confidence >= WEAK:
            continue
        if col.hide_mm < THIN_HIDE_MM:
            out[s] = SpaceReading(
                [], 0.0, True, f"bands too thin ({col.band_px:.1f} px) to trust a modelled read"
            )
    return out


OVERHUNG_WHY = "the stack in front, unsure, may reach over this space: its top camel read here?"


def _overhung(
    spaces: dict[int, SpaceReading], loc: BoardLocation, geo: BoardGeometry
) -> dict[int, SpaceReading]:
    """Doubt a stack read behind an unsure space whose stack could reach over its base.

    Why: the commonest confident wrong read on tuning scenes (5 of 9 in 2,000): the top camel
    of a tall stack, leaning back, or under a hand, shows in the column of the space behind
    it, right at that space's base, and is read there as a camel standing on it, while the
    stack itself abstains, its runs seeing that camel on top of its own. The game bounds that
    stack: it holds at most the camels read nowhere for sure, and the one read behind it. When
    the unsure space nearer the camera saw the bottom camel read behind it standing on another
    of its camels (``_stacked``), and a stack that tall there would show over the middle of
    that camel's band, the camel is read on two spaces at once, and the space behind abstains
    too. That band is where the column sampled it, at the footprint's edge nearest the camera
    (``_feet``), not over the space's centre, half a camel length farther back: judged there,
    a white camel on top of an unsure three was read as a white camel under the green behind
    it (tuning scenes 2,199,000..2,201,999: two confident wrong reads, now abstentions, and no
    right read given up).
    Without that colour in the stack in front the rule does not fire: a lone camel behind a
    stack under a hand is far more often there than an overhanging top (tuning scenes
    2,187,000..2,188,999 with any unsure space in front: 12 right reads given up for 5 wrong).
    ``_mark_hidden`` is the same doubt for a stack in front that was read, before the game's
    rules; this one asks after them, when the stack in front is still unsure.
    """
    unsure = [t for t, r in spaces.items() if r.uncertain]
    if not unsure:
        return spaces
    held = {c for r in spaces.values() if not r.uncertain for c in r.camels}
    levels = min(geo.max_stack, len(geo.colours) - len(held) + 1)
    cam = loc.pose.centre[:2]
    near = {q: float(np.linalg.norm(cam - np.asarray(c))) for q, c in geo.space_centres.items()}
    # the bottom camel's band as the column sampled it: half a camel up over the column's foot
    mids = loc.to_image(_feet(loc, geo).front, 0.5 * geo.camel_height)
    mid_of = dict(zip(geo.spaces, mids, strict=True))
    out = dict(spaces)
    for s, r in spaces.items():
        if r.uncertain or not r.camels or r.inferred:
            continue
        mid = mid_of[s]
        for t in unsure:
            if near[t] >= near[s] or r.camels[0] not in _stacked(spaces[t]):
                continue
            poly = stack_region(loc.pose, geo, t, levels).astype(np.float32)
            if cv2.pointPolygonTest(poly, (float(mid[0]), float(mid[1])), False) >= 0:
                out[s] = SpaceReading([], 0.0, True, OVERHUNG_WHY)
                break
    return out


def _stacked(r: SpaceReading) -> set[str]:
    """The colours an unsure space's runs saw standing on another of its runs: each run
    starting within a camel's reach above another's start. A run further up is the board
    behind, a camel of the space behind seen over the stack; a lone run may be either."""
    return {c for c, st in r.runs_seen if any(o < st <= o + r.camel_reach for _, o in r.runs_seen)}


def _fit_ref(pal: _Palette, n_camel: int) -> FitRef:
    boards = [i for i, n in enumerate(pal.names) if n.startswith(BOARD)]
    return FitRef(
        pal.names[:n_camel],
        pal.chroma[:n_camel],
        pal.radius[:n_camel],
        pal.chroma[boards],
        None if pal.neutral is None else pal.neutral[0],
        None if pal.tip is None else pal.tip[:n_camel],
    )


def _sharpness(image: np.ndarray, loc: BoardLocation, geo: BoardGeometry) -> float:
    """Contrast of the markers' black-white edges, 0..1: low when the frame is smeared."""
    s = geo.marker_size / 2
    pairs: list[np.ndarray] = []
    for mid in loc.markers:
        local = []
        # across the outer edge of the black square: white 3 mm outside, black 3 mm inside
        for t in (-0.5, 0.0, 0.5):
            for nx, ny in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                px, py = nx * s - ny * t * s, ny * s + nx * t * s
                local += [[px + nx * 3.0, py + ny * 3.0], [px - nx * 3.0, py - ny * 3.0]]
        pairs.append(geo.marker_point(mid, np.array(local)))
    if not pairs:
        return 0.0
    pts = loc.cards_to_image(np.concatenate(pairs)).reshape(-1, 2, 2)
    v, inside = sample(image, pts)
    ok = inside.all(axis=1)
    if not ok.any():
        return 0.0
    g = v.astype(np.float32).mean(axis=-1)[ok]  # m x 2 (outside, inside)
    return float(np.median((g[:, 0] - g[:, 1]) / np.maximum(g[:, 0], 1.0)))


def _board_colours(
    image: np.ndarray, loc: BoardLocation, geo: BoardGeometry, gains: dict[int, np.ndarray]
) -> list[np.ndarray]:
    """The board's own colours, white-balanced: the spaces (median over the corners of every
    space), the margin outside the ring and the field inside it. Learnt from the frame, so a
    differently printed board still reads."""
    k = geo.cell / 2 - 6.0
    cells = []
    for s in geo.spaces:
        cx, cy = geo.space_centres[s]
        cells += [(cx - k, cy - k), (cx + k, cy - k), (cx + k, cy + k), (cx - k, cy + k)]
    xs = np.array([p[0] for p in geo.space_centres.values()])
    ys = np.array([p[1] for p in geo.space_centres.values()])
    x0, x1 = xs.min() - geo.cell / 2, xs.max() + geo.cell / 2
    y0, y1 = ys.min() - geo.cell / 2, ys.max() + geo.cell / 2
    t = np.linspace(0.3, 0.7, 7)
    outer, inner = [], []
    for f in t:
        x, y = x0 + f * (x1 - x0), y0 + f * (y1 - y0)
        outer += [(x, y0 - 12), (x, y1 + 12), (x0 - 12, y), (x1 + 12, y)]
        inner += [
            (x, y0 + geo.cell + 10),
            (x, y1 - geo.cell - 10),
            (x0 + geo.cell + 10, y),
            (x1 - geo.cell - 10, y),
        ]
    out = []
    # a board with no margin has the table outside its ring: not a board colour
    groups = (cells, outer, inner) if geo.margin >= 20.0 else (cells, inner)
    for group in groups:
        pts = np.array(group)
        vals, inside = sample(image, loc.to_image(pts))
        if inside.sum() < 4:
            continue
        lin = linear(vals) * gains_at(pts, gains, geo)
        out.append(np.median(lin[inside], axis=0))
    return out


class _Feet(NamedTuple):
    """Where each space's column stands on the board (mm, one row per space of
    ``geo.spaces``): the space's centre, the unit vector from it towards the camera, the
    track's direction there and across it, and the footprint's edge nearest the camera
    (``front``, where the column rises) and farthest from it (``back``)."""

    centre: np.ndarray
    toward: np.ndarray
    direction: np.ndarray
    across: np.ndarray
    front: np.ndarray
    back: np.ndarray


def _feet(loc: BoardLocation, geo: BoardGeometry) -> _Feet:
    """Each space's ``_Feet`` as the camera at ``loc`` sees the track."""
    c = np.array([geo.space_centres[s] for s in geo.spaces])
    u = loc.pose.centre[:2] - c
    u /= np.maximum(np.linalg.norm(u, axis=1, keepdims=True), 1e-6)
    d = np.array([geo.direction(s) for s in geo.spaces])
    across = np.column_stack([-d[:, 1], d[:, 0]])
    # distance from the centre to the footprint's edge, towards the camera
    a = np.minimum(
        geo.camel_length / 2 / np.maximum(np.abs((u * d).sum(1)), 1e-6),
        geo.camel_width / 2 / np.maximum(np.abs((u * across).sum(1)), 1e-6),
    )
    return _Feet(c, u, d, across, c + u * (a * 0.9)[:, None], c - u * a[:, None])


def _read_spaces(
    image: np.ndarray,
    loc: BoardLocation,
    geo: BoardGeometry,
    gains: dict[int, np.ndarray],
    pal: _Palette,
    background: Background | None,
    line_seen: np.ndarray,
) -> tuple[dict[int, SpaceReading], dict[int, str], dict[int, Column]]:
    """Sample every space's column at once (one projection, one lookup), then decode each.
    Also returns each space's column, for the five-camel rule's check of a completion.
    ``line_seen``: ``_front_line_seen`` of this frame (the caller's hand test uses it too)."""
    ids = geo.spaces
    k = len(ids)
    c, u, d, across, front, back = _feet(loc, geo)
    cam = loc.pose.centre
    side = np.column_stack([-u[:, 1], u[:, 0]])
    hgt = geo.camel_height
    z_lo, z_hi = -1.2 * hgt, (geo.max_stack + 2.5) * hgt
    ends = loc.to_image(
        np.concatenate([front, front, front, back]), np.repeat([z_lo, z_hi, 0.0, hgt], k)
    ).reshape(4, k, 2)
    band_px_at = loc.to_image(front, hgt)
    length_px = np.linalg.norm(ends[1] - ends[0], axis=1)
    n = int(max(length_px.max(), 8))
    z = np.linspace(z_lo, z_hi, n)
    half = 0.3 * min(geo.camel_width, geo.camel_length)
    offs = np.array([-half, 0.0, half])
    xy = front[:, None, None, :] + side[:, None, None, :] * offs[None, :, None, None]
    xy = np.broadcast_to(xy, (k, 3, n, 2)).reshape(-1, 2)
    zz = np.broadcast_to(z, (k, 3, n)).reshape(-1)
    pts = loc.to_image(xy, zz).reshape(k, 3, n, 2)
    vals, inside = sample(image, pts, box=True)
    g = gains_at(front, gains, geo)  # k x 3
    band_s = geo.camel_height * (n - 1) / (z_hi - z_lo)  # samples per camel height
    # per height, the median of the three lines, each side line first slid onto the middle one
    # (a stack seen corner-on has its faces at different depths under each line): a seam or a
    # speck on one line does not count, and a band's edge is not smeared by the other lines'
    lines = _align_lines(linear(vals) * g[:, None, None, :], int(round(0.35 * band_s)))
    lin = np.median(lines, axis=1)  # k x n x 3
    # above a tall stack on a far space the column runs off the board onto the table: what is
    # seen there lies beyond the board (not on it), so it is background (``_off_board``)
    ground = cv2.perspectiveTransform(
        pts[:, 1].reshape(-1, 1, 2).astype(np.float64), np.linalg.inv(loc.homography)
    ).reshape(k, n, 2)
    off = (
        (ground[..., 0] < 1.0)
        | (ground[..., 0] > geo.width - 1.0)
        | (ground[..., 1] < 1.0)
        | (ground[..., 1] > geo.height - 1.0)
    )
    # over the table a camel colour's washed-out end is not taken (``_classify``'s ``plain``)
    labels, _ = _classify(pal, lin, dark=0.004, plain=off)
    labels = _local_board(image, loc, geo, gains, pal, c, u, lin, labels, line_seen)
    cell_end = _cell_end(ground, c, u, d, across, geo.cell)
    in_frame = inside.all(axis=1)  # k x n: all three lines' samples inside the frame
    labels = np.where(in_frame, labels, len(pal.names))
    explained = None
    known = None
    if background is not None:
        # what the set-up saw at the same spot of the board (or table) with nothing on it
        seen = chromaticity(lin)
        seen = seen - _background_offset(image, loc, geo, gains, background, c)[:, None, :]
        dist, known = background.distance(ground, seen, reach=1)
        explained = known & (dist < 0.045)
        pale = _sheen_paleness(vals, inside, ground, background, explained, line_seen)
        doubt = known & ~explained & (pale > 0.0)
        if doubt.any():
            pale_dist, _ = background.distance(
                ground[doubt], seen[doubt], reach=1, pale=pale[doubt]
            )
            explained[doubt] = pale_dist < 0.045
        if background.glare is not None and background.glare.any():
            # under the set-up's specular spot, a frame showing the same spot shows the board
            # (same camera and lamp); one without it is judged as before
            glare_dist, _ = background.distance(ground, seen, reach=1, glare=True)
            explained |= glare_dist < 0.045
        # an unknown colour the empty board showed there is the board, not "something"
        lift = np.arange(n)[None, :] > int(np.argmin(np.abs(z))) + 0.3 * band_s
        labels = np.where(
            explained & lift & (labels == len(pal.names)), pal.names.index(BOARD), labels
        )
    labels = _off_board(labels, off & in_frame, pal, len(geo.colours), band_s, explained)
    # a channel at the sensor's ceiling has lost its colour (orange turns yellow): flag it
    clipped = (vals >= 250).any(axis=-1).mean(axis=1)  # k x n share of the three lines
    band_px = np.linalg.norm(band_px_at - ends[2], axis=1)
    top_px = np.linalg.norm(ends[3] - band_px_at, axis=1)
    hide_mm = hgt * np.linalg.norm(cam[:2] - front, axis=1) / max(abs(float(cam[2])), 1e-6)
    base_idx = int(np.argmin(np.abs(z)))
    tiles, faint = _read_tiles(image, loc, geo, gains, pal)
    spaces: dict[int, SpaceReading] = {}
    desert: dict[int, str] = {}
    columns: dict[int, Column] = {}
    for i, s in enumerate(ids):
        top_face = float(top_px[i] / band_px[i]) * band_s
        columns[s] = Column(
            lin[i],
            base_idx,
            band_s,
            top_face,
            float(band_px[i]),
            float(hide_mm[i]),
            None if pal.neutral is None else _pitch(*chroma_brightness(lin[i])),
        )
        tile = tiles[i]
        if tile == TILE_NOT_FLAT:
            spaces[s] = SpaceReading(
                [], 0.0, True, "a tile's colour on something standing: a camel of its colour?"
            )
            continue
        if tile == TILE_FAINT:
            why = "a tile's colour over a middle with no board: a tile in other light?"
            spaces[s] = SpaceReading([], 0.0, True, why, faint_tile=faint[i])
            continue
        if tile is not None:  # a camel never stands on a desert tile
            spaces[s] = SpaceReading([], 0.9)
            desert[s] = tile
            continue
        px_per_sample = float(length_px[i]) / (n - 1)
        runs: list[tuple[str, float]] = []
        r = _decode(
            labels[i],
            pal,
            band_s,
            top_face,
            base_idx,
            geo,
            px_per_sample,
            lin[i],
            None if explained is None else explained[i],
            float(cell_end[i]),
            runs,
        )
        if runs:
            # a reading names the camels its runs read and where their runs start: in an
            # abstention, a read of the band model must hold those within its height
            # (``StackFit.holds_runs``), and the game may leave the space one of them
            # (vision.track_global), as it may a read later found hidden (``_mark_hidden``)
            r = replace(r, runs_seen=tuple(runs), camel_reach=band_s + 0.5 * top_face)
        if not r.camels and not r.uncertain and explained is not None and known is not None:
            # read empty: the space's own sand must look as it did on the empty board at
            # set-up; a hand the colour of the sand over a camel does not
            if _sand_unlike_setup(
                labels[i], known[i], explained[i], base_idx, band_s, len(geo.colours)
            ):
                why = "something not on the empty board covers it"
                r = SpaceReading([], 0.0, True, why, read_empty=True)
        top = base_idx + (len(r.camels) + 1) * band_s
        if r.camels and float(clipped[i, base_idx : int(top)].mean()) > 0.15:
            r = SpaceReading([], 0.0, True, "the stack is over-exposed (glare?): colours lost")
        spaces[s] = r
    return spaces, desert, columns


def _off_board(
    labels: np.ndarray,
    off: np.ndarray,
    pal: _Palette,
    n_camel: int,
    band: float,
    explained: np.ndarray | None,
) -> np.ndarray:
    """``labels`` (k columns x n samples) with the unknown samples whose ray meets the ground
    beyond the board (``off``) labelled board: above a tall stack on a far space the column
    runs off the board onto the table, and what it sees there is background, not "something".
    A stretch of unknown samples no longer than ``SEAM_OFF`` band between two camel runs
    stays unknown, a seam the decoder reads as one.

    Why the seams: the dark edges between the camels of a tall stack on a far space lie over
    the table too. Labelled board, each ended the stack, and the camels above it were taken
    for things behind: five camels on space 10 were read as the bottom two, confidently
    (tuning scene 2,199,398). A camel run the set-up saw there (a white card's border on the
    table: ``explained`` for half its samples or more) is the table, not a camel: a stretch
    beside it is background as before."""
    unknown = len(pal.names)
    board = pal.names.index(BOARD)
    out = labels.copy()
    for i in range(labels.shape[0]):
        if not off[i].any():
            continue
        runs = _runs(labels[i])
        # camel[k + 1]: is run k a camel's (and no camel beyond either end of the column)
        own = [
            cl < n_camel and (explained is None or float(explained[i, st : st + ln].mean()) < 0.5)
            for cl, st, ln in runs
        ]
        camel = [False, *own, False]
        for k, (cl, st, ln) in enumerate(runs):
            if cl != unknown or not off[i, st : st + ln].any():
                continue
            if ln <= SEAM_OFF * band and camel[k] and camel[k + 2]:
                continue
            out[i, st : st + ln] = np.where(off[i, st : st + ln], board, labels[i, st : st + ln])
    return out


# an unknown stretch off the board this many bands long or shorter, between two camel runs, is a
# seam in a stack, not the table behind it
SEAM_OFF = 0.5


def _sand_unlike_setup(
    label: np.ndarray,
    known: np.ndarray,
    explained: np.ndarray,
    base_idx: int,
    band: float,
    n_camel: int,
) -> bool:
    """Does the sand round the base of a space read empty look unlike the empty board there?

    Why: a hand the colour of the sand over a camel is labelled the board, and only the
    set-up's look of the empty board (``explained``) tells it from the sand. Within 0.6 band
    of the base, where the set-up saw the board (``known``, at least half the window), most
    samples must look as it did. A camel on the space in front, whose back reaches over this
    space's front, is left out of that share: a run of a camel colour a third of a band long
    or more (a band, not a blend) that ends below ``IN_FRONT_END`` band over the base, as
    the decoder takes such a run (no hand the sand's colour); counted, it made an empty space
    behind a camel abstain. So is one that starts under the space's front (``FRONT_LOW``),
    its pieces joined across gaps under half a band (the glint on a camel's top face splits
    its run). A shorter strip of a camel colour still counts against the sand: it may be a
    camel showing under a hand; and where the camel in front leaves less than ``SAND_LEFT``
    band of the window, the sand is not judged at all."""
    lo, hi = max(int(base_idx - 0.6 * band), 0), int(base_idx + 0.6 * band)
    in_front = np.zeros(len(label), bool)
    pieces: list[list[int]] = []  # a camel colour's runs joined across gaps under half a band
    for cl, st, ln in _runs(label):
        if ln >= 0.34 * band and _camel_in_front(cl, st + ln, n_camel, base_idx, band):
            in_front[st : _fragment_end(label, cl, st + ln, band)] = True
        if cl < n_camel:
            if pieces and pieces[-1][0] == cl and st - pieces[-1][2] <= 0.5 * band:
                pieces[-1][2] = st + ln
            else:
                pieces.append([cl, st, st + ln])
    for cl, st, en in pieces:
        # a camel in front that starts under the space's front, its top face's glint apart
        if (
            en - st >= 0.34 * band
            and st < base_idx - FRONT_LOW * band
            and _camel_in_front(cl, en, n_camel, base_idx, band, st)
        ):
            in_front[st : _fragment_end(label, cl, en, band)] = True
    k_win = known[lo:hi]
    sand = k_win & ~in_front[lo:hi]
    if k_win.mean() < 0.5 or sand.sum() < max(3.0, SAND_LEFT * band):
        # (a camel in front over nearly all the window leaves a sample or two of its blurred
        # edge: the decoder's look above it, ``_clear_above``, says more than they do)
        return False
    return bool(explained[lo:hi][sand].mean() < 0.5)


# the sand round an empty space's base is judged from this share of a band of it, at least
SAND_LEFT = 0.2

# a dark sample further than this (chromaticity) from grey keeps a hue: not the black camel
BLACK_HUE = 0.28


def _pitch(ch: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per sample (chromaticity ``ch`` and brightness ``y``: ``chroma_brightness``), paint too
    dark for a hue and not strongly coloured: on the track only the second edition's black camel
    is that dark (the sand stays far brighter in shade, a white camel in shade too). The samples
    the band model takes for black paint."""
    return np.asarray((y < BLACK_Y) & (np.linalg.norm(ch - 1.0 / 3.0, axis=-1) < BLACK_HUE))


# a lamp's sheen the set-up did not see (_sheen_paleness): where the board is at least
# SHEEN_GAIN times as bright as at set-up (linear light, the lamp's own change divided out) and
# the space's front line shows (SHEEN_LINE of it, ``_front_line_seen``), its look may be paler
# by the share of white that much light adds, at most SHEEN_PALE
SHEEN_GAIN = 1.5
SHEEN_LINE = 0.9
SHEEN_PALE = 0.5
SHEEN_REF_MIN = 50  # samples as at set-up needed to know the lamp's change


def _sheen_paleness(
    vals: np.ndarray,
    inside: np.ndarray,
    ground: np.ndarray,
    background: Background,
    explained: np.ndarray,
    line_seen: np.ndarray,
) -> np.ndarray:
    """Per column sample (k x n), how far towards grey a lamp's sheen may have taken the
    board's look there (``Background.distance``'s ``pale``; 0 where none).

    Why: a glossy board shows the lamp's mirror image, a bright spot that moves with the
    camera. Re-mounted since set-up, the camera sees it where the set-up did not: the sand
    there, 1.7-2.8 times as bright as its look, read 0.05-0.07 towards grey, beyond the 0.045
    that tells "as at set-up", and empty spaces abstained ("something not on the empty board
    covers it": 6 in 4,000 re-mounted tuning scenes). White light added to a look makes it
    paler by at most the share of the light it adds (``1 - 1 / gain``).

    Why the front line and the gain's floor: a pale hand over a camel on darker sand is both
    brighter and paler than the sand was (1.4-1.7 times), so paleness alone let four stacks
    under a hand be read empty. A sheen leaves the pebble line in front of the space in view;
    three of those hands hid it (``_front_line_seen`` under 0.7), and the fourth was 1.43
    times as bright. Grey levels as encoded are compared with the set-up's
    (``Background.luma``), their ratio taken relative to its median over the samples that look
    as at set-up (a lamp changed since scales them all)."""
    out = np.zeros(explained.shape, np.float32)
    if background.luma is None:
        return out
    level, known = background.luma_at(ground)
    then = level * 255.0
    now = np.median(vals.astype(np.float32).mean(axis=-1), axis=1)  # k x n, as encoded
    judged = known & inside.all(axis=1) & (then > 8.0)
    ok = judged & (line_seen >= SHEEN_LINE)[:, None]
    ref = judged & explained
    if int(ref.sum()) < SHEEN_REF_MIN:
        return out
    ratio = now / np.maximum(then, 1.0)
    lamp = max(float(np.median(ratio[ref])), 1e-3)
    gain = (ratio / lamp) ** 2.2  # in linear light
    sheen = ok & (gain >= SHEEN_GAIN)
    out[sheen] = np.minimum(1.0 - 1.0 / gain[sheen], SHEEN_PALE)
    return out


# the sand round a space, compared with the set-up's look of it: points further than this
# (chromaticity) from the set-up's colour are a piece, a hand or art that changed, not a cast
OFFSET_AGREE = 0.1
OFFSET_MAX = 0.08  # a local cast larger than this is not a cast: no correction


def _background_offset(
    image: np.ndarray,
    loc: BoardLocation,
    geo: BoardGeometry,
    gains: dict[int, np.ndarray],
    background: Background,
    centres: np.ndarray,
) -> np.ndarray:
    """Per space, the chromaticity by which the board round it now differs from its look at
    set-up (k x 3; zero where too little of it agrees to tell).

    Why: the frame-wide correction (``_board_corrected``) leaves local casts: a lamp's
    gradient or a bright patch whose red channel clips differently than at set-up shifts an
    empty space's sand 0.05-0.07 from its set-up look, beyond the 0.045 that tells "as at
    set-up" from "something covers it", so empty spaces abstained. The median over a square
    of three cells round the space, of points that roughly agree with the set-up (a camel, a
    hand or a tile on a point drops it), is that cast; a hand covering most of the square
    leaves too few agreeing points, or a cast larger than any lamp makes, and is not
    corrected away."""
    k = len(centres)
    t = np.linspace(-1.4, 1.4, 9) * geo.cell
    gx, gy = np.meshgrid(t, t)
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    pts = (centres[:, None, :] + grid[None]).reshape(-1, 2)
    vals, inside = sample(image, loc.to_image(pts), box=True)
    lin = linear(vals) * gains_at(pts, gains, geo)
    now, y = chroma_brightness(lin)
    want, known = background.lookup(pts)
    diff = (now - want).reshape(k, len(grid), 3)
    ok = (inside & known & (y > 0.01)).reshape(k, len(grid)) & (
        np.linalg.norm(diff, axis=-1) < OFFSET_AGREE
    )
    out = np.zeros((k, 3), np.float32)
    for i in range(k):
        if ok[i].sum() >= 0.4 * len(grid):
            off = np.median(diff[i][ok[i]], axis=0)
            if float(np.linalg.norm(off)) <= OFFSET_MAX:
                out[i] = off
    return out


def _align_lines(lines: np.ndarray, reach: int) -> np.ndarray:
    """Slide each space's side lines (k x 3 x n x 3, middle one at index 1) up or down by at
    most ``reach`` samples to where their chromaticity best matches the middle line's.

    Why: the three lines cross the stack's front side by side; a stack seen corner-on, or a
    camel set askew, shows its faces at different depths under each line, so the band edges
    sit at different heights on each and their median blends two colours at every edge."""
    if reach < 1:
        return lines
    k, _, n, _ = lines.shape
    ch = chromaticity(lines)
    mid = ch[:, 1]
    out = lines.copy()
    core = slice(reach, n - reach)
    for j in (0, 2):
        costs = np.stack(
            [
                np.abs(ch[:, j, reach + lag : n - reach + lag] - mid[:, core]).sum(-1).mean(-1)
                for lag in range(-reach, reach + 1)
            ],
            axis=1,
        )  # k x lags
        best = costs.argmin(axis=1) - reach
        idx = np.clip(np.arange(n)[None, :] + best[:, None], 0, n - 1)
        out[:, j] = np.take_along_axis(lines[:, j], idx[..., None], axis=1)
    return out


def _local_board(
    image: np.ndarray,
    loc: BoardLocation,
    geo: BoardGeometry,
    gains: dict[int, np.ndarray],
    pal: _Palette,
    centres: np.ndarray,
    towards: np.ndarray,
    lin: np.ndarray,
    labels: np.ndarray,
    line_seen: np.ndarray,
) -> np.ndarray:
    """Relabel as board the unknown samples of a column that match its own space's sand.

    Why: the board colour is learnt over the whole frame, and a lamp's gradient or a colour
    cast the markers do not quite correct leaves one space's sand outside it. The sand
    between the space's front edge and its stack (never under its own camels) is a local
    reference, used only when it is itself close to the frame's board colour."""
    k = len(centres)
    side = np.column_stack([-towards[:, 1], towards[:, 0]])
    d = geo.cell / 2 - 8.0
    offs = np.array([-0.6, -0.3, 0.0, 0.3, 0.6]) * geo.cell / 2
    pts = centres[:, None, :] + towards[:, None, :] * d + side[:, None, :] * offs[None, :, None]
    vals, inside = sample(image, loc.to_image(pts.reshape(-1, 2)), box=True)
    ref_lin = linear(vals).reshape(k, len(offs), 3) * gains_at(centres, gains, geo)[:, None]
    ref = np.median(ref_lin, axis=1)
    ref_ch = chromaticity(ref)
    board = pal.names.index(BOARD)
    near = np.linalg.norm(ref_ch - pal.chroma[board], axis=1) < 2.0 * pal.radius[board]
    # a hand whose skin is the colour of the sand would pass that test; it also hides the line
    # printed along the space's front edge, which must show
    ok = near & inside.reshape(k, len(offs)).all(axis=1) & (line_seen >= 0.7)
    ch = chromaticity(lin)
    match = np.linalg.norm(ch - ref_ch[:, None, :], axis=-1) < pal.radius[board]
    relabel = ok[:, None] & match & (labels == len(pal.names))
    return np.where(relabel, board, labels)


# the front-line test against the set-up's look (_front_line_seen). A space whose line passed
# the fixed contrasts on at least LINE_CLEAR of its samples on the empty board is judged by
# them as before. Elsewhere a sample of the line also shows when its contrast now is at least
# LINE_SHARE of what the empty board showed there, where that was at least LINE_FLOOR (below
# it a speck of noise could pass for a line), and its three points are within LINE_LEVEL of
# the set-up's grey levels once the frame's overall change is divided out; a space with fewer
# than LINE_MIN_SAMPLES such samples keeps the fixed contrasts.
# Why each part, on tuning scenes 2,196,000..2,196,199 (2 px blur) and 2,197,000..2,198,499:
# - the relative test: empty spaces judged hidden under the blur 481 of 2,082 -> 4;
# - the fixed contrasts kept where they saw the line at set-up: JPEG blocks at quality 60 made
#   the 2 mm look's texture pass for a faint line, and two empty spaces in 200 abstained;
# - the grey level: without it, a hand's texture passed for a faint line's contrast, and four
#   more stacks under a hand were read empty (17 -> 21 in 1,500 unprobed scenes; 17 with it).
LINE_SHARE = 0.4
LINE_FLOOR = 0.02
LINE_MIN_SAMPLES = 3
LINE_CLEAR = 0.5
LINE_LEVEL = 0.15
# a space read empty whose front line shows on less than this share is doubted: a hand over it
LINE_HIDDEN = 0.25


def _front_line_seen(
    image: np.ndarray,
    loc: BoardLocation,
    geo: BoardGeometry,
    background: Background | None = None,
) -> np.ndarray:
    """Per space, the share of its front border line (the edge nearest the camera) that shows
    as a printed line: darker or lighter than the board on both sides, or an edge between
    board and table.

    Judged by fixed contrasts; with the set-up's grey levels (``background.luma``), where
    those contrasts did not find the line on the empty board, a sample also shows it when
    its contrast is a good share of what the empty board showed there through this camera
    and its light is the sand's (see LINE_SHARE). Why: a soft lens or a blurred frame leaves
    a sparse pebble line a few hundredths of contrast, under any fixed threshold that still
    tells a hand from the board, and one empty space in four was doubted as hidden."""
    n_along = 9
    t = np.linspace(-0.4, 0.4, n_along) * geo.cell
    pts = []
    for edge, n, along in _front_edges(loc, geo):
        for off in (0.0, -4.0, 4.0):  # on the line, inside the space, outside it
            pts.append(edge + n * off + t[:, None] * along)
    k = len(geo.spaces)
    xy = np.array(pts).reshape(k * 3 * n_along, 2)
    vals, inside = sample(image, loc.to_image(xy))
    g = vals.astype(np.float32).mean(axis=-1).reshape(k, 3, n_along)
    ok = inside.reshape(k, 3, n_along).all(axis=1)
    now = _line_contrasts(g)  # 3 x k x n: dark line, light line, edge
    scale = np.array([0.05, 0.05, 0.08])[:, None, None]
    if geo.margin >= 4.0:
        # a board with a margin: its spaces are parted by dark printed lines only
        now[1:] = 0.0
    fixed = (now > scale).any(axis=0)
    seen_fixed = (fixed & ok).sum(axis=1) / np.maximum(ok.sum(axis=1), 1)
    if background is None or background.luma is None:
        return np.asarray(seen_fixed)
    lum, known = background.luma_at(xy)
    g0 = lum.reshape(k, 3, n_along) * 255.0
    then = _line_contrasts(g0)
    if geo.margin >= 4.0:
        then[1:] = 0.0
    both = ok & known.reshape(k, 3, n_along).all(axis=1)
    # where the fixed contrasts found the line on the empty board, they still judge it: the
    # set-up's look is a 2 mm grid, coarser than the line's texture under JPEG blocks
    clear_then = ((then > scale).any(axis=0) & both).sum(axis=1) >= LINE_CLEAR * np.maximum(
        both.sum(axis=1), 1
    )
    rel = then / scale  # each kind of contrast in units of its fixed threshold
    kind = rel.argmax(axis=0)  # k x n: what the empty board showed there
    want = np.take_along_axis(then, kind[None], axis=0)[0]
    got = np.take_along_axis(now, kind[None], axis=0)[0]
    judged = both & (want >= LINE_FLOOR)
    # the board there as bright as at set-up, but for the lamp: a hand's texture and edges
    # pass for a faint line's contrast, its light level seldom for the sand's
    ratio = g / np.maximum(g0, 1.0)
    known_ratio = ratio.transpose(0, 2, 1)[both]
    lamp = float(np.median(known_ratio)) if known_ratio.size else 1.0
    level = (np.abs(ratio / max(lamp, 1e-3) - 1.0) < LINE_LEVEL).all(axis=1)
    shows = (got >= LINE_SHARE * want) & judged & level
    seen_rel = shows.sum(axis=1) / np.maximum(judged.sum(axis=1), 1)
    use_rel = ~clear_then & (judged.sum(axis=1) >= LINE_MIN_SAMPLES)
    return np.asarray(np.where(use_rel, np.maximum(seen_rel, seen_fixed), seen_fixed))


def _front_edges(
    loc: BoardLocation, geo: BoardGeometry
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per space (``geo.spaces`` order), the middle of its front edge (the one facing the
    camera, board mm), the unit normal out of the space through it, and the edge's direction."""
    cam = loc.pose.centre[:2]
    out = []
    for s in geo.spaces:
        c = np.asarray(geo.space_centres[s])
        v = cam - c
        if abs(v[0]) > abs(v[1]):
            n = np.array([np.sign(v[0]), 0.0])
        else:
            n = np.array([0.0, np.sign(v[1])])
        out.append((c + n * geo.cell / 2, n, np.array([-n[1], n[0]])))
    return out


def _line_contrasts(g: np.ndarray) -> np.ndarray:
    """Grey levels k x 3 x n (on the line, inside the space, outside it) -> 3 x k x n: how
    much darker the line is than both sides, how much lighter (the first edition's white
    pebbles), and the step between the sides (the board's edge, the table beyond)."""
    on, a, b = g[:, 0], g[:, 1], g[:, 2]
    side = np.minimum(a, b)
    top = np.maximum(a, b)
    dark = (side - on) / np.maximum(side, 1.0)
    light = (on - top) / np.maximum(on, 1.0)
    edge = np.abs(a - b) / np.maximum(top, 1.0)
    return np.stack([dark, light, edge])


def _cell_end(
    ground: np.ndarray,
    centre: np.ndarray,
    u: np.ndarray,
    d: np.ndarray,
    across: np.ndarray,
    cell: float,
) -> np.ndarray:
    """Per column (k x n ``ground``: where each sample's ray meets the board, mm), the first
    sample whose ray meets it behind the back edge of the space's cell (seen from the camera,
    ``u`` pointing from the cell's ``centre`` towards it; ``d``/``across`` the cell's axes), or
    ``n`` when none does. Up to there the column may show a camel standing on this space; past
    it, only the ground beyond the space and what stands there."""
    behind = ((centre[:, None, :] - ground) * u[:, None, :]).sum(-1)
    half = cell / 2 / np.maximum(np.abs((u * d).sum(1)), np.abs((u * across).sum(1)))
    past = behind > half[:, None]
    end: np.ndarray = np.where(past.any(axis=1), np.argmax(past, axis=1), ground.shape[1])
    return end.astype(np.float64)


def _runs(label: np.ndarray) -> list[tuple[int, int, int]]:
    """(class, start, length) runs of a label sequence. Found by numpy where the label changes:
    a column's loop over its samples in Python was a tenth of a track read."""
    label = np.asarray(label)
    if len(label) == 0:
        return []
    cut = np.flatnonzero(label[1:] != label[:-1]) + 1
    starts = np.concatenate(([0], cut))
    lengths = np.diff(np.concatenate((starts, [len(label)])))
    return [
        (int(c), int(s), int(n))
        for c, s, n in zip(label[starts].tolist(), starts.tolist(), lengths.tolist(), strict=True)
    ]


def _join_fragments(
    runs: list[tuple[int, int, int]],
    band: float,
    unknown: int,
    n_camel: int,
    shortest: float,
    base_idx: int,
    explained: np.ndarray | None,
    tiles: frozenset[int] = frozenset(),
) -> list[tuple[int, int, int]]:
    """A camel colour's band joined with the short pieces of the same colour that only
    unknown stretches split from it, when that colour is most of the stretch they span.

    Why: a camel's side is not flat (neck, hump, legs, the grooves of a wooden dromedary), so
    under a lamp part of it falls in its own shade or the shade of the camel above, and those
    samples leave the colour's acceptance radius (a white camel's shaded side turns a grey
    that is no class). Its band then shows as a run of its colour with pieces a few samples
    long beside it between unknown ones; each piece, too short for a band (``shortest``), was
    dropped as a blur seam, and the band that was left started or ended a third of a band or
    more from where the camel's side does ("an unreadable band between two camels", "below
    the lowest camel"). A colour exists once on the track, so pieces of it this close to its
    band are that camel. Only what is no evidence of another thing joins:
    - only unknown seams: pieces of a colour near the sand's (yellow, orange) among board
      samples are the sand, not a camel. A crumb (under ``JOIN_PIECE`` band) of a desert
      tile's colour (``tiles``) is seam too: no tile stands inside a stack, so a sample or
      two of it there is a blend (a green camel's shaded side passes through the oasis's
      colour), and it had split a green band in two;
    - a band must be read already (a run of ``shortest`` or more): pieces alone make none;
    - no piece the set-up saw on the empty board there (the white pebbles printed along the
      track's edges beside a white camel), nor one starting in the lowest ``IN_FRONT_END``
      band over the base, where the camel on the space in front shows as well (a piece of
      its colour there joined to its band made that camel this stack's bottom one)."""
    seam = JOIN_SEAM * band
    low = base_idx + IN_FRONT_END * band
    crumb = JOIN_PIECE * band

    def piece(k: int) -> bool:
        _, st, ln = runs[k]
        if ln >= shortest:
            return True
        if st < low or ln < crumb:
            return False
        return explained is None or float(explained[st : st + ln].mean()) < 0.5

    out: list[tuple[int, int, int]] = []
    i = 0
    while i < len(runs):
        cl, st, ln = runs[i]
        j = i  # the last piece joined
        if cl < n_camel and piece(i):
            k, gap = i + 1, 0
            # a seam: unknown samples, and crumbs of the colour too short to count as pieces
            while k < len(runs) and gap <= seam:
                c2, _, l2 = runs[k]
                if c2 == cl and l2 >= crumb:
                    if not piece(k):
                        break
                    j, gap = k, 0
                elif c2 == unknown or (l2 < crumb and (c2 == cl or c2 in tiles)):
                    gap += l2
                else:
                    break
                k += 1
        if j > i:
            own = sum(r[2] for r in runs[i : j + 1] if r[0] == cl and r[2] >= crumb)
            end = runs[j][1] + runs[j][2]
            banded = any(r[0] == cl and r[2] >= shortest for r in runs[i : j + 1])
            if banded and own >= JOIN_SHARE * (end - st):
                out.append((cl, st, end - st))
                i = j + 1
                continue
        out.append(runs[i])
        i += 1
    return out


# a camel colour's pieces split from its band by unknown stretches of at most this many bands
# (in all, between two pieces) are that band when the colour is at least this share of the
# span they cover; a piece shorter than JOIN_PIECE bands is a crumb, counted as seam
JOIN_SEAM = 0.5
JOIN_SHARE = 0.5
JOIN_PIECE = 0.1


def _clean_runs(
    label: np.ndarray,
    band: float,
    unknown: int,
    n_camel: int,
    px: float = 1.0,
    base_idx: int = 0,
    explained: np.ndarray | None = None,
    tiles: frozenset[int] = frozenset(),
) -> list[list[int]]:
    """Runs with seams removed: very short runs (two colours blended by blur) and unknown runs
    between two camel colours no longer than a band (the dark edge between two blocks, blurred)
    become gaps, and a class split by a gap is joined. Returns [class, start, end) lists.

    First a camel colour's short pieces beside its band are joined to it (``_join_fragments``:
    its shaded parts broke it up); ``base_idx`` and ``explained`` (the set-up's look of the
    empty board, if any) say which pieces may not join; ``tiles``: the desert tiles' classes."""
    shortest = max(0.34 * band, 2.0 / px)
    joined = _join_fragments(
        _runs(label), band, unknown, n_camel, shortest, base_idx, explained, tiles
    )
    runs = [r for r in joined if r[2] >= shortest]
    kept = []
    for i, (cl, st, ln) in enumerate(runs):
        if cl == unknown:
            below = runs[i - 1][0] if i > 0 else unknown
            above = runs[i + 1][0] if i + 1 < len(runs) else unknown
            seam = below < n_camel and above < n_camel and ln <= max(0.9 * band, 6.0 / px)
            if seam or ln < max(0.6 * band, 4.0 / px):
                continue
        kept.append([cl, st, st + ln])
    merged: list[list[int]] = []
    for cl, st, en in kept:
        if merged and merged[-1][0] == cl and st - merged[-1][2] <= 0.8 * band:
            merged[-1][2] = en
        else:
            merged.append([cl, st, en])
    return merged


def _band_colour(
    pal: _Palette,
    lin: np.ndarray,
    start: float,
    end: float,
    n_camel: int,
    used: list[str],
    label: np.ndarray | None = None,
) -> str | None:
    """The camel colour of one band the run decoder could not read, or None if unsure.

    Why this reads what the per-sample classifier missed: a thin band under blur and JPEG has
    few samples, and its edges mix with the bands around it, so no single sample is clearly one
    colour. The middle half of the band, averaged, is, and it only has to be told from the
    camels not already in the stack."""
    a, b = start + 0.25 * (end - start), end - 0.25 * (end - start)
    lo, hi = int(np.floor(a)), int(np.ceil(b))
    if hi - lo < 2 or lo < 0 or hi > len(lin):
        return None
    ch, y = chroma_brightness(lin[lo:hi].mean(axis=0))
    if y < 0.003:
        return None
    free = [i for i in range(n_camel) if pal.names[i] not in used]
    if not free:
        return None
    d = pal.distance(ch, free)
    order = np.argsort(d)
    best = free[int(order[0])]
    d1 = float(d[order[0]])
    d2 = float(d[order[1]]) if len(order) > 1 else np.inf
    # near enough to one camel colour, and clearly nearer it than to any other free one
    if d1 > 1.3 * pal.radius[best] * (1.0 + 0.01 / max(float(y), 0.002)) or d2 < 1.8 * d1:
        return None
    if pal.names[best] == "white" and not _white_evenly_lit(lin[lo:hi]):
        return None
    if pal.neutral is not None and best == pal.neutral[0]:
        # black is told from white by lightness, not by this mean's hue: without black paint
        # in its middle the band is not the black camel (a white camel's shaded lower part
        # averaged grey under it: a lone white camel was read as black and white)
        if int(_pitch(*chroma_brightness(lin[lo:hi])).sum()) < PITCH_MIN:
            return None
    # and not better explained as the board (a gap in the stack shows the board)
    nb = min(
        float(np.linalg.norm(pal.chroma[j] - ch))
        for j in range(n_camel, len(pal.names))
        if pal.names[j].startswith(BOARD)
    )
    if nb < 1.5 * d1:
        return None
    if label is not None:
        # a band the runs missed is a camel's colour on average only; where a third of its
        # middle is labelled board sample by sample, it is the sand blended into the camel
        # above (blue over sand blurs to a neutral strip that averages white), not a camel
        is_board = np.array([n.startswith(BOARD) for n in pal.names] + [False])
        if float(is_board[label[lo:hi]].mean()) > FILL_BOARD_SHARE:
            return None
    return pal.names[best]


def _white_evenly_lit(lin: np.ndarray) -> bool:
    """Whether a band's middle samples, whose mean is white, are within ``WHITE_EVEN`` of one
    another in brightness.

    Why: white is the one camel colour a blend passes through. Blue and the orange sand lie on
    either side of grey, so a blue camel's shaded, blurred lower edge runs from the bright sand
    through grey and mauve into the dark blue paint, and its mean comes out white: it was read
    as a white camel under the blue, a wrong read whenever the real white camel was not also
    read elsewhere. One paint in one light varies little over a band's middle; a blend sweeps
    from one side's brightness to the other's. From darkest to brightest sample, the white
    camels filled so on tuning scenes (2,192,000..2,192,999 and 2,197,000..2,202,999) varied
    1.2-1.3 times, and 11 of the 12 blends found there 2.2-25 times (the twelfth, 1.7, still
    passes). Hue does not tell them apart: a white camel's shaded lower part takes on the sand's
    hue as a blend does (3 of 8 samples white one by one; the blends 0 to 6 of 7-12)."""
    y = chroma_brightness(lin)[1]
    return bool(float(y.max()) <= WHITE_EVEN * max(float(y.min()), 1e-4))


WHITE_EVEN = 2.0


def _fill_gap(
    pal: _Palette,
    lin: np.ndarray | None,
    start: float,
    end: float,
    band: float,
    n_camel: int,
    used: list[str],
    label: np.ndarray | None = None,
) -> list[str] | None:
    """Camels in an unread stretch of ``end - start`` samples: a whole number of bands, each
    one clear camel colour; None when the stretch is not that."""
    if lin is None:
        return None
    k = (end - start) / band
    n = int(round(k))
    if n < 1 or n > 2 or abs(k - n) > 0.3:
        return None
    step = (end - start) / n
    out: list[str] = []
    for j in range(n):
        c = _band_colour(
            pal, lin, start + j * step, start + (j + 1) * step, n_camel, used + out, label
        )
        if c is None:
            return None
        out.append(c)
    return out


def _another_camel_between(
    pal: _Palette,
    lin: np.ndarray | None,
    start: float,
    end: float,
    n_camel: int,
    camels: list[str],
    i: int,
) -> bool:
    """Whether the gap between camels ``i`` and ``i + 1`` looks like a camel not in the stack
    rather than a blend of those two: nearer (chromaticity) a free camel colour than to any
    mix of its neighbours. A camel leaning back between two others shows a thin band, often
    in their shadow (a dark green between white and blue): taken for the blend, the stack
    was read a camel short, confidently."""
    d = _gap_distances(pal, lin, start, end, n_camel, camels, i)
    return d is not None and d[0] < BETWEEN_RATIO * d[1]


def _gap_distances(
    pal: _Palette,
    lin: np.ndarray | None,
    start: float,
    end: float,
    n_camel: int,
    camels: list[str],
    i: int,
) -> tuple[float, float] | None:
    """The mean colour of the gap between camels ``i`` and ``i + 1``: its chromaticity
    distance to the nearest free camel colour, and to the nearest mix of those two camels
    (the segment between their colours); None when there is no gap, no light or no free
    colour."""
    if lin is None:
        return None
    lo, hi = int(np.floor(start)), int(np.ceil(end))
    if hi - lo < 1 or lo < 0 or hi > len(lin):
        return None
    ch, y = chroma_brightness(lin[lo:hi].mean(axis=0))
    if y < 0.001:
        return None
    free = [k for k in range(n_camel) if pal.names[k] not in camels]
    if not free:
        return None
    d_free = float(np.min(pal.distance(ch, free)))
    p = pal.chroma[pal.names.index(camels[i])]
    q = pal.chroma[pal.names.index(camels[i + 1])]
    t = float(np.clip((ch - p) @ (q - p) / max(float((q - p) @ (q - p)), 1e-9), 0.0, 1.0))
    d_blend = float(np.linalg.norm(p + t * (q - p) - ch))
    return d_free, d_blend


def _blend_by_height(
    pal: _Palette,
    lin: np.ndarray | None,
    spans: list[list[float]],
    camels: list[str],
    i: int,
    band: float,
    top_face: float,
    base_idx: int,
    n_camel: int,
) -> bool:
    """Whether the gap between camels ``i`` and ``i + 1`` is their blend, judged by the
    stack's height rather than by where their runs start: no taller than the camels read
    (``BLEND_EXCESS``), a gap under ``BLEND_GAP`` bands, its colour on their mix and far
    from every free camel's.

    Why: the runs' starts say where a camel's band begins only when its lower edge reads. A
    lower camel whose legs are in shade starts its run late, and the shaded side of the one
    above it (a yellow's side turns towards green over a green camel) reads as no colour: the
    runs start 1.6 bands apart, room for a camel by ``GAP_ROOM``, and the space abstained.
    The height is the check a hidden camel cannot pass: it stands a band taller."""
    gap = spans[i + 1][0] - spans[i][1]
    if gap > BLEND_GAP * band:
        return False
    if spans[-1][1] - base_idx > len(camels) * band + top_face + BLEND_EXCESS * band:
        return False
    d = _gap_distances(pal, lin, spans[i][1], spans[i + 1][0], n_camel, camels, i)
    return d is not None and d[1] <= BLEND_NEAR and d[0] >= BLEND_FREE_RATIO * d[1]


def _another_camel_run(
    pal: _Palette,
    label: np.ndarray,
    lin: np.ndarray | None,
    start: float,
    end: float,
    band: float,
    n_camel: int,
    camels: list[str],
    i: int,
) -> bool:
    """Whether a thin gap between camels ``i`` and ``i + 1`` holds a run (0.15 band or more)
    labelled a camel colour not in the stack, whose own samples are that camel rather than a
    blend of the two neighbours (``_another_camel_between`` on the run alone).

    Why: the gap's mean is diluted by the unknown samples round such a run: a thin orange band
    under a yellow camel set askew over it, between white and yellow, averaged near their
    blend, and once the white band's shaded pieces were joined to it (``_join_fragments``) the
    gap was thin enough to pass as a seam: the stack read a camel short."""
    lo, hi = int(np.ceil(start)), int(np.floor(end))
    best: tuple[int, int] | None = None
    for cl, st, ln in _runs(label[lo:hi]) if hi > lo else []:
        if cl < n_camel and pal.names[cl] not in camels and ln >= max(THIRD_RUN * band, 3.0):
            if best is None or ln > best[1] - best[0]:
                best = (lo + st, lo + st + ln)
    if best is None:
        return False
    return _another_camel_between(pal, lin, best[0], best[1], n_camel, camels, i)


# a run this many bands long (or more) of a camel colour not in the stack, inside a thin gap
THIRD_RUN = 0.15


def _lone_free_colour(
    pal: _Palette,
    label: np.ndarray,
    lin: np.ndarray | None,
    lo: int,
    hi: int,
    band: float,
    n_camel: int,
    camels: list[str],
) -> tuple[int, int, int] | None:
    """The one camel colour not in ``camels`` whose samples in ``label[lo:hi]`` make a band
    seen in pieces, as (class, start, end) of its longest run; None when there is none, or
    more than one colour could be it.

    Why: a camel squeezed between two others (or under the lowest one read) often shows only
    part of its side: the camel above it, set a little askew, covers the rest, and its own
    shade breaks what is left into runs just under the third of a band the run cleaner keeps.
    Its averaged colour (``_fill_gap``) is then a mix of those pieces and the unknown samples
    round them, and the space abstained. The pieces still name it: a colour exists once on the
    track, and is this one when its run is ``LONE_RUN`` band long, or its pieces add up to
    ``LONE_TOTAL`` band; no other free colour shows ``LONE_OTHER`` band there; and it is at
    least ``LONE_SHARE`` of the stretch. The black crazy camel is labelled from lightness
    alone (a white camel in deep shade is "black" sample by sample too), so it counts only
    with ``PITCH_MIN`` samples or more of paint too dark for any hue (``_pitch``) among them:
    a shaded white is never that dark."""
    if hi <= lo:
        return None
    total: dict[int, int] = {}
    longest: dict[int, tuple[int, int]] = {}
    for cl, st, ln in _runs(label[lo:hi]):
        if cl < n_camel and pal.names[cl] not in camels:
            total[cl] = total.get(cl, 0) + ln
            if cl not in longest or ln > longest[cl][1] - longest[cl][0]:
                longest[cl] = (lo + st, lo + st + ln)
    seen = [
        cl
        for cl, (a, b) in longest.items()
        if b - a >= LONE_RUN * band or (total[cl] >= LONE_TOTAL * band and b - a >= 3)
    ]
    if len(seen) != 1:
        return None
    cl = seen[0]
    if any(c != cl and n >= LONE_OTHER * band for c, n in total.items()):
        return None
    if total[cl] < LONE_SHARE * (hi - lo):
        return None
    if pal.neutral is not None and cl == pal.neutral[0]:
        if lin is None or int(_pitch(*chroma_brightness(lin[lo:hi])).sum()) < PITCH_MIN:
            return None
    return cl, longest[cl][0], longest[cl][1]


# a free colour's pieces are a camel's band with a run this many bands long, or pieces this
# many bands in all (the longest three samples or more); another free colour with this many
# bands of samples there makes it no longer the one; and it is this share of the stretch
LONE_RUN = 0.2
LONE_TOTAL = 0.3
LONE_OTHER = 0.1
LONE_SHARE = 0.25
# the black camel's pieces count with this many samples of paint too dark for a hue
PITCH_MIN = 3


def _camel_in_gap(
    pal: _Palette,
    label: np.ndarray,
    lin: np.ndarray | None,
    spans: list[list[float]],
    band: float,
    n_camel: int,
    camels: list[str],
    i: int,
) -> list[str] | None:
    """The camel between camels ``i`` and ``i + 1`` that ``_fill_gap`` could not read from its
    mean colour, read from its pieces (``_lone_free_colour``); None when unsure.

    Only where the two camels' bands start far enough apart for exactly one camel between
    them (``GAP_ROOM``: closer, the gap is their blend; further, two may hide there), and
    where the piece's colour is nearer that camel's than any blend of its neighbours (as
    ``_another_camel_between`` asks of a thin gap): a blue camel's shaded top over white
    blends through no camel's colour. A colour read on two spaces still makes both unsure
    (vision.track_global), and the band counts as read from its mean colour (a lower
    confidence, which the steep view's guard refuses)."""
    room = spans[i + 1][0] - spans[i][0]
    if not GAP_ROOM[0] * band < room <= GAP_ROOM[1] * band:
        return None
    lo, hi = int(np.ceil(spans[i][1])), int(np.floor(spans[i + 1][0]))
    found = _lone_free_colour(pal, label, lin, lo, hi, band, n_camel, camels)
    if found is None:
        return None
    cl, st, en = found
    if not _another_camel_between(pal, lin, st, en, n_camel, camels, i):
        return None
    return [pal.names[cl]]


# two camels whose bands start this many bands apart (above the first, up to the second) have
# room for exactly one camel between them; closer, the gap is their blend (see ``_decode``)
GAP_ROOM = (1.35, 2.5)


def _camel_below(
    pal: _Palette,
    label: np.ndarray,
    lin: np.ndarray | None,
    base_idx: int,
    spans: list[list[float]],
    band: float,
    n_camel: int,
    camels: list[str],
) -> list[str] | None:
    """The bottom camel under the lowest band read, from its colour's pieces between the
    space's base and that band (``_lone_free_colour``); None when unsure.

    Only where the lowest band starts ``BELOW_ROOM`` bands above the base (room for exactly
    one camel under it); where the pieces reach above the lowest ``IN_FRONT_END`` band (there
    the camel on the space in front shows as well); and where their colour is no blend of the
    sand in front of the space and the lowest band's colour (a green camel's shaded lower
    edge passes through yellow on its way to the sand)."""
    if lin is None:
        return None
    room = spans[0][0] - base_idx
    if not BELOW_ROOM[0] * band <= room <= BELOW_ROOM[1] * band:
        return None
    found = _lone_free_colour(pal, label, lin, base_idx, int(spans[0][0]), band, n_camel, camels)
    if found is None:
        return None
    cl, st, en = found
    if en < base_idx + IN_FRONT_END * band or _sand_blend(lin, base_idx, band, spans[0], st, en):
        return None
    return [pal.names[cl]]


# a lowest band starting this many bands above the base has room for one camel under it
BELOW_ROOM = (0.5, 1.6)


def _front(base_idx: int, band: float) -> slice:
    """The samples of the sand just in front of a space's base (0.2 to 0.8 band before it):
    what a camel's blurred lower edge blends into, and what its legs' gap is compared with."""
    return slice(int(max(base_idx - 0.8 * band, 0)), int(max(base_idx - 0.2 * band, 0)))


def _front_sand(ch: np.ndarray, base_idx: int, band: float) -> np.ndarray | None:
    """The median chromaticity of the sand in front of the space (``_front``), or None where
    fewer than two of its samples are in the column."""
    front = ch[_front(base_idx, band)]
    return np.median(front, axis=0) if len(front) >= 2 else None


def _sand_blend(
    lin: np.ndarray, base_idx: int, band: float, lowest: list[float], start: int, end: int
) -> bool:
    """Whether the mean colour of samples ``start:end`` lies on the line between the sand in
    front of the space and the lowest band's colour (within ``BLEND_OFF_LINE``): a blend of
    the two, as a band's blurred lower edge in its shadow is, not a camel of its own. True
    when the sand in front is not seen (nothing to tell a blend by)."""
    if int(lowest[1]) - int(lowest[0]) < 1:
        return True
    ch = chromaticity(lin)
    sand = _front_sand(ch, base_idx, band)
    if sand is None:
        return True
    band_colour = np.median(ch[int(lowest[0]) : int(lowest[1])], axis=0)
    return float(_off_blend(ch[start:end].mean(axis=0), sand, band_colour)) <= BLEND_OFF_LINE


def _off_blend(ch: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How far each chromaticity of ``ch`` (... x 3) lies from the line between colours ``a``
    and ``b``, ends included: 0 for every blend of the two."""
    d = b - a
    v = ch - a
    t = np.clip((v @ d) / max(float(d @ d), 1e-9), 0.0, 1.0)
    return np.asarray(np.linalg.norm(v - np.asarray(t)[..., None] * d, axis=-1))


def _grey_strip_below(
    pal: _Palette,
    label: np.ndarray,
    lin: np.ndarray | None,
    explained: np.ndarray | None,
    base_idx: int,
    lowest: list[float],
    band: float,
    camels: list[str],
) -> bool:
    """Does a strip of grey or white, no blend of the sand and the lowest band, show between
    the space's base and its lowest band when the stack holds no white camel?

    Why: a white camel under a camel set askew over it shows a strip a fifth to a third of a
    band high, grey in the shade of the camel above (labelled black, white or no class) or
    white: too short for the stretch under the lowest band to be asked about (0.35 band), the
    stack was read a white camel short. The sand in shade keeps its hue; a blend of the sand
    and the band's colour lies on the line between them and is no brighter than both (blue
    over sand blurs through a grey). Only samples the set-up did not see there (the white
    pebbles printed along the track are)."""
    if lin is None or explained is None or "white" not in pal.names or "white" in camels:
        return False
    lo, hi = int(base_idx), int(lowest[0])
    if hi - lo < 2 or int(lowest[1]) - int(lowest[0]) < 1:
        return False
    ch, y = chroma_brightness(lin)
    sand = _front_sand(ch, base_idx, band)
    if sand is None:
        return False
    white = pal.names.index("white")
    grey = (np.linalg.norm(ch[lo:hi] - 1.0 / 3.0, axis=-1) < GREY_CHROMA) & (y[lo:hi] > GREY_Y)
    grey = (grey | (label[lo:hi] == white)) & ~explained[lo:hi]
    off = _off_blend(ch[lo:hi], sand, np.median(ch[int(lowest[0]) : int(lowest[1])], axis=0))
    y_sand = float(np.median(y[_front(base_idx, band)]))
    y_band = float(np.median(y[int(lowest[0]) : int(lowest[1])]))
    blend = (off <= BLEND_OFF_LINE) & (y[lo:hi] <= max(y_sand, y_band))
    return int((grey & ~blend).sum()) >= STRIP_BAND * band


# a sample this near grey (chromaticity) and lighter than GREY_Y is a white camel's paint in
# shade; a strip of this many bands of it under the lowest band is a white camel under it
GREY_CHROMA = 0.06
STRIP_BAND = 0.2


def _unread(
    why: str,
    bands_read: list[str] | None = None,
    unread_at: int | None = None,
    base_unread: bool = False,
    front_colour: str | None = None,
) -> SpaceReading:
    """An abstention about the stack's own bands (not about something in front of it): the
    five-camel rule (vision.track_global) may complete it from the other spaces.
    ``bands_read``: the camels the runs read, when the only doubt is a camel more;
    ``unread_at``: when that doubt is one unread band, where it lies among them;
    ``base_unread``: those camels stand above an unread base; ``front_colour``: the colour
    at the base taken for a camel in front, which may be this stack's bottom camel."""
    return SpaceReading(
        [],
        0.0,
        True,
        why,
        resolvable=True,
        bands_read=tuple(bands_read or ()),
        unread_at=unread_at,
        base_unread=base_unread,
        front_colour=front_colour,
    )


def _base_as_at_setup(
    label: np.ndarray,
    names: list[str],
    explained: np.ndarray | None,
    base_idx: int,
    start: int,
    band: float,
    cell_end: float | None = None,
) -> bool:
    """Whether a column shows, from the space's front up to ``start``, the board just as the
    set-up saw it with nothing on it: then a camel colour starting there is seen beyond the
    space (a stack on the space behind, a betting tile on the table), not its upper camels.

    Why: a lower camel left unread is read as board only where its paint is the sand's
    colour; the set-up's look of the empty board (within 0.045 in chromaticity, after the
    local cast) tells sand from such paint, so a base that is board and explained all the way
    up holds no camel.

    The quarter band under ``start`` is not counted where it is seen beyond the space's cell
    (``cell_end``: the first sample whose ground lies behind the cell's back edge): there it
    is the far camel's lower edge blurred into the sand (a few samples no class), while the
    cell itself was seen empty all the way back. A camel on this space shows its lower edge
    over the cell's own ground, so there the edge still counts (a steep view sees the side
    of a camel set back on its space well over a band above the space's front)."""
    if explained is None:
        return False
    edge = start - 0.25 * band
    lo = int(max(base_idx - 0.25 * band, 0))
    hi = int(edge) if cell_end is not None and edge >= cell_end else int(start)
    if hi - lo < band:
        return False
    board = np.array([n.startswith(BOARD) for n in names] + [False])
    # a sample the set-up saw just so is the empty board, whatever its class (the white
    # pebbles printed along the track are labelled the white camel's colour)
    empty = board[label[lo:hi]] | explained[lo:hi]
    return bool(empty.mean() >= 0.95 and explained[lo:hi].mean() >= 0.85)


def _clear_above(
    label: np.ndarray, names: list[str], explained: np.ndarray | None, lo: float, hi: float
) -> bool:
    """Is the column from ``lo`` to ``hi`` the empty board, by the palette and as the set-up
    saw it there (at least three samples)?

    Why: a camel on the space in front whose back ends below a band above this space's base
    hides at most the lowest part of a bottom camel here; the rest of that camel's band would
    show above it. Where that stretch is plain sand that looks as it did on the empty board,
    there is no camel to hide, and the space is read on (tuning seeds: 22 of 29 "a camel in
    front" abstentions were empty spaces)."""
    if explained is None:
        return False
    a, b = int(np.ceil(lo)), int(min(hi, len(label)))
    if b - a < 3:
        return False
    board = np.array([n.startswith(BOARD) for n in names] + [False])
    return bool(board[label[a:b]].mean() >= 0.95 and explained[a:b].mean() >= 0.85)


def _leg_gap(
    label: np.ndarray,
    names: list[str],
    lin: np.ndarray | None,
    explained: np.ndarray | None,
    base_idx: int,
    start: float,
    band: float,
) -> bool:
    """Is the gap between the space's base and its lowest band the bottom camel's legs?

    A dromedary's body stands on legs: seen low, the board shows between them and the body's
    band starts up to a band above the base. No camel fits in less than a band, but a camel
    whose paint is near the sand's colour, or a dark one whose colour is lost, can be taken
    for the board (an earlier, looser test lost a dark bottom camel that way). So the gap
    counts as legs only when every part of it is the board by both tests: labelled board by
    the palette and looking as the empty board did there at set-up, and not darker than the
    board's shade allows (the sand in the camel's own shadow stays far brighter than paint
    too dark to show its colour)."""
    if explained is None or lin is None or start - base_idx > 1.05 * band:
        return False
    # the band's lower edge is blurred into the gap over a quarter band: not counted
    lo, hi = int(base_idx), int(start - 0.25 * band)
    if hi - lo < 2:
        return False
    board = np.array([n.startswith(BOARD) for n in names] + [False])
    share = float(board[label[lo:hi]].mean())
    # the set-up's look is the weaker test from a re-mounted camera (its view of the empty
    # board is warped onto this one): where every sample is the board's colour, less of it
    if share < 0.9 or explained[lo:hi].mean() < (LEG_EXPLAINED_ALL if share >= 1.0 else 0.85):
        return False
    front = lin[_front(base_idx, band)]
    if len(front) < 2:
        return False
    y_gap = float(np.median(lin[lo:hi].sum(axis=-1)))
    y_front = float(np.median(front.sum(axis=-1)))
    return y_gap >= 0.3 * y_front


# a gap below the lowest band whose every sample is labelled the board's colour is the legs'
# gap when this share of it (or more) also looks as the empty board did at set-up
LEG_EXPLAINED_ALL = 0.7
# a camel's legs lift its band's lower edge this many bands over its space's base; a lowest
# band standing higher over a gap seen to be the board is a camel set back on its space, and
# the stack's height (``TALLER_BANDS``) counts from its legs, not from the space's front
LEG_LIFT = 0.4
# a space's lowest camel colour that ends below this many bands above the base is a camel in
# front (a bottom camel's band runs about a band up from the base)
IN_FRONT_END = 0.4
# ... or one that starts this many bands under the base (the lowest a stack of this space
# may start, ``_decode``'s "below the space's front") and ends below FRONT_HIGH bands over it
FRONT_LOW = 1.0
FRONT_HIGH = 1.3


def _fragment_end(label: np.ndarray, cl: int, end: int, band: float) -> int:
    """Where class ``cl``'s samples really end above a run of it that ends at ``end``: its
    pieces past the run (each too short to be a run of its own, ``_clean_runs``) joined on
    across gaps of at most two samples, within half a band.

    Why: the back of a camel in front, its top edge blurred, ended as a run a few samples
    short of its last piece of colour, and the stretch meant to show plain board above it
    began on that piece (tuning scene 2,194,961: an empty space behind a yellow camel
    abstained, "a camel in front hides the base")."""
    out = end
    i = end
    stop = min(len(label), int(end + 0.5 * band))
    while i < stop:
        if label[i] == cl:
            out = i + 1
        elif i - out >= 2:
            break
        i += 1
    return out


def _camel_in_front(
    cl: int, end: float, n_camel: int, base_idx: int, band: float, start: float | None = None
) -> bool:
    """Whether a run of class ``cl`` ending at ``end`` is the back of a camel on the space in
    front: a camel colour that ends below ``IN_FRONT_END`` band over this space's base, or,
    given its ``start``, one that starts over ``FRONT_LOW`` bands under the base (where no
    camel of this space stands) and ends below ``FRONT_HIGH`` bands over it. One test for the
    decoder (a camel too many at the base) and the empty space's sand check."""
    if cl >= n_camel:
        return False
    if end < base_idx + IN_FRONT_END * band:
        return True
    return (
        start is not None
        and start < base_idx - FRONT_LOW * band
        and end < base_idx + FRONT_HIGH * band
    )


# a stack whose top stands this many bands (or more) above its camels' height plus the top
# face holds a camel not read (tuning scenes: right reads stood up to about +0.7 band over)
TALLER_BANDS = 0.85
# an upper camel colour whose samples this share (or more) look as the empty board did there
# at set-up is the board or table behind the stack, not a camel
EXPLAINED_UPPER = 0.6
# a band the runs missed, whose middle shows more than this share of board samples, is no camel
FILL_BOARD_SHARE = 0.34
# a gap between two camels nearer a free camel colour than this share of its distance to any
# blend of the two is a camel hidden between them, not their blend
BETWEEN_RATIO = 0.7
# a gap between two camels is their blend, whatever room their runs' starts leave, when it is
# under this many bands, the stack stands no more than BLEND_EXCESS bands taller than the
# camels read, and its mean colour lies this near their mix and BLEND_FREE_RATIO times as far
# from every free camel colour (``_blend_by_height``)
BLEND_GAP = 1.25
BLEND_EXCESS = 0.25
BLEND_NEAR = 0.03
BLEND_FREE_RATIO = 4.0
# an empty read needs the board where a bottom camel would stand: no more than this many
# bands of it neither the board's colour nor the set-up's look of the empty board
UNEXPLAINED_BANDS = 0.5
# nor this many within a two-camel stack's height: a bottom camel in the board's colour (a
# yellow camel under glare) under one that is read as nothing (a blue in its own shade)
STRAY_UPTO = 3.0
STRAY_BANDS = 1.0
STRAY_WHY = "something not the empty board stands above the space's base"
# a camel run starting this many bands over the base, above a base of no colour, stands on
# a camel unread there (the lowest band seen starts higher than a band when the stack stands
# at the back of its space; tuning scenes 2,189,199 and 2,189,369: 2.0 and 1.8)
BASE_UNREAD_FROM = 0.6
BASE_UNREAD_TO = 2.2
# no colour at the base where this share (or more) of its samples look as the empty board did
# there at set-up is the board (the pyramid's edge over a far space's front line, tuning scene
# 2,193,746), not something standing on the space
BASE_SEEN_SHARE = 0.9
BASE_SEEN_WHY = "a camel colour at the base, all as the empty board showed it there: its sand?"


def _lower_edge(
    label: np.ndarray,
    is_board: np.ndarray,
    lin: np.ndarray | None,
    start: int,
    base_idx: int,
    band: float,
    reach: float = 0.5,
    min_contrast: float = 0.0,
) -> float:
    """Where the lowest band's colour really begins: ``start`` lowered over the samples just
    below it (at most ``reach`` bands) that are a blend of that colour and the sand; ``start``
    itself unless the colour is at least ``min_contrast`` (chromaticity) from the sand.

    Why: a band's lower edge is blurred into the sand and the camel's shadow, so its first
    samples are a blend (green over sand reads as the oasis, or as nothing) that the run
    cleaner drops as too short; the run then starts up to half a band too high, and a bottom
    camel on its legs looked a band and a third above the base, "a camel unread below" (the
    biggest share of that abstention on the tuning seeds). Only a blend of these two colours
    (chromaticity on the line between them) lowers it: a strip of another colour there is a
    camel under a leaning one (a sliver of green under a white camel), and keeps the gap. The
    gap below the edge is still checked sample by sample as legs (``_leg_gap``)."""
    top = int(min(start + max(0.5 * band, 2.0), len(label)))
    if lin is None or top - start < 2:
        return float(start)
    ch = chromaticity(lin)
    sand = _front_sand(ch, base_idx, band)
    if sand is None:
        return float(start)
    d = np.median(ch[start:top], axis=0) - sand
    dd = float(d @ d)
    if dd < max(1e-6, min_contrast**2):
        return float(start)
    i = start
    while i - 1 >= 0 and start - (i - 1) <= reach * band and not is_board[label[i - 1]]:
        v = ch[i - 1] - sand
        t = float(np.clip((v @ d) / dd, 0.0, 1.0))
        if float(np.linalg.norm(v - t * d)) > BLEND_OFF_LINE:
            return float(start)
        i -= 1
    return float(i)


def _blend_edge(
    label: np.ndarray, lin: np.ndarray, n_camel: int, start: int, base_idx: int, band: float
) -> float:
    """Where the lowest band's colour really begins, by colour alone: ``start`` lowered over
    the samples below it that lie on the line from the sand in front of the space towards
    that colour, at least ``EDGE_T_MIN`` of the way (a blend, not the sand itself), at most
    ``EDGE_REACH`` band, whatever their label but another camel's colour.

    Why: a lone camel set back on its space, its legs and belly in its own shadow, shows a
    stretch under its side that blends into the sand; a white camel's turns a grey that is no
    class, partly labelled the board. ``_lower_edge`` stops at the first board sample, so the
    band seemed to start a band and more above the base and the space abstained ("the
    lowest band starts too high: a camel unread below?"). A camel of another colour hidden
    there is off that line (its own colour, in shade or not); a paint near the sand (yellow,
    orange) lies short of ``EDGE_T_MIN`` towards the colour, or beyond the sand, and stops
    the edge. The gap left below is still checked sample by sample as the legs' gap."""
    top = int(min(start + max(0.5 * band, 2.0), len(label)))
    if top - start < 2:
        return float(start)
    ch = chromaticity(lin)
    sand = _front_sand(ch, base_idx, band)
    if sand is None:
        return float(start)
    d = np.median(ch[start:top], axis=0) - sand
    dd = float(d @ d)
    if dd < 1e-6:
        return float(start)
    own = int(label[start])
    i = start
    while i - 1 >= base_idx and start - (i - 1) <= EDGE_REACH * band:
        cl = int(label[i - 1])
        if cl < n_camel and cl != own:
            break
        v = ch[i - 1] - sand
        t = float(v @ d) / dd
        if not EDGE_T_MIN <= t <= 1.1 or float(np.linalg.norm(v - t * d)) > BLEND_OFF_LINE:
            break
        i -= 1
    return float(i)


# a sample this share of the way from the sand towards the lowest band's colour (or more),
# and on that line, is the band's blurred edge; followed down at most this many bands
EDGE_T_MIN = 0.15
EDGE_REACH = 0.8


# the stretch under a camel's band read as its blurred, shaded lower edge: at most this many
# bands, and only under a colour this far (chromaticity) from the sand, so that a camel of
# another colour hidden there cannot lie on the line between them (yellow and orange are near
# the sand: their edges stay unread)
BLEND_REACH = 0.8
BLEND_CONTRAST = 0.3
# a sample further than this (chromaticity) from the line between the sand and a band's colour
# is no blend of the two (tuning: blends 0.03-0.06 off it, a sliver of another camel 0.2 and up)
BLEND_OFF_LINE = 0.08


def _stands_unexplained(
    label: np.ndarray,
    names: list[str],
    explained: np.ndarray | None,
    base_idx: int,
    band: float,
    upto: float = 1.6,
    need: float = UNEXPLAINED_BANDS,
    start: int = 0,
) -> bool:
    """Does something stand where a bottom camel would (``upto`` bands above the base), that
    is neither board nor camel colour? (at least ``need`` bands of it; only above ``start``,
    where the back of a camel in front, set aside by the decoder, ends)

    Why: a camel far from its taught colour (in its own shade, or a lamp that turns it) is
    "unknown" sample by sample; its short runs of its colour are dropped as seams, and the
    decoder, finding nothing camel-coloured at the base, read the space as empty: a camel
    lost, the commonest wrong read. An empty space shows the board behind it there, as the
    set-up saw it (or in its colour). Only with the set-up's look (``explained``)."""
    if explained is None:
        return False
    lo, hi = int(base_idx + 0.1 * band), int(base_idx + upto * band)
    lo, hi = max(lo, start, 0), min(hi, len(label))
    if hi - lo < 2:
        return False
    board = np.array([n.startswith(BOARD) for n in names] + [False])
    odd = ~board[label[lo:hi]] & ~explained[lo:hi]
    return bool(odd.sum() >= need * band)


def _outline_dip(
    runs: list[list[int]],
    k: int,
    names: list[str],
    camels: list[str],
    spans: list[list[float]],
    band: float,
    expect: float,
    explained: np.ndarray | None,
) -> bool:
    """Is the board run ``runs[k]``, above the top camel read so far, the sand seen through a
    dip in that camel's outline (between its head and hump), with the same camel above it?

    Why: a camel's outline is not a block. A column through the dip between its neck and its
    hump meets its side, then the sand behind it, then its hump and top face: the stack
    seemed to end at the dip, its top band too short for a camel, and the space abstained
    ("the top band is too short to be the top camel"). A colour exists once on the track, so
    the same colour again just above a short stretch of sand is that camel when: the stretch
    is at most ``DIP_BANDS`` band and looks as the empty board did behind (it is seen past
    the camel), the colour's run starts within the camel's expected side and top face
    (``expect``) from its band's start and ends within the top band's greatest height
    (``TOP_TALL``: a dark hand labelled a camel's colour runs on above), and the set-up did
    not see that colour there on the empty board (the white pebbles printed on it, a cloth
    behind)."""
    if explained is None or not camels or k + 1 >= len(runs):
        return False
    if not names[runs[k][0]].startswith(BOARD) or runs[k][2] - runs[k][1] > DIP_BANDS * band:
        return False
    cl, st, en = runs[k + 1]
    if cl >= len(names) or names[cl] != camels[-1]:
        return False
    top = spans[-1][0]
    if st >= top + expect or en > top + TOP_TALL * expect:
        return False
    dip = float(explained[runs[k][1] : runs[k][2]].mean())
    return dip >= 0.5 and float(explained[st:en].mean()) < 0.5


# the sand seen through a dip in the top camel's outline: at most this many bands of it
DIP_BANDS = 0.6
# the top camel's run (its side and top face) is at most this share of their expected height
TOP_TALL = 1.22


def _longest(mask: np.ndarray) -> int:
    """The length of the longest stretch of True in ``mask``."""
    return max((n for on, _, n in _runs(np.asarray(mask, np.int64)) if on), default=0)


def _grey_in_black(
    pal: _Palette,
    label: np.ndarray,
    lin: np.ndarray | None,
    camels: list[str],
    spans: list[list[float]],
    band: float,
) -> bool:
    """Does a band read as the black camel hold a stretch of grey (labelled black, but too
    light for black paint) while the stack has no white camel read, or with no black paint in
    that band at all?

    Why: black and white are told apart by lightness alone (``NEUTRAL_SPLIT_Y``), and a white
    camel in a stack's shade, or under a lamp at its dimmest, turns a grey darker than the
    split: labelled black sample by sample, it joined the black camel's band beside it (a
    stack read a white camel short) or made a black camel of its own (a white at a stack's
    base read as the black camel standing on another space, both spaces lost). Black paint
    stays far darker: on the second edition's tuning scenes 1,900,000..1,900,399 no stack
    without a white camel showed such a stretch longer than 0.11 band; the white camels in
    shade showed 0.35-0.85 band. With the white camel read above it, a band of grey with no
    sample dark enough for black paint (``_pitch``) is that white camel's shaded lower part,
    labelled black just under the split (a lone white camel read as black and white). Only
    the second edition, whose palette has the neutral pair."""
    if pal.neutral is None or lin is None:
        return False
    black, white = pal.neutral
    ch, y = chroma_brightness(lin)
    pitch = _pitch(ch, y)
    for name, (st, en) in zip(camels, spans, strict=True):
        if name != pal.names[black]:
            continue
        a, b = int(st), int(en)
        grey = (label[a:b] == black) & (y[a:b] > GREY_Y)
        if _longest(grey) < GREY_BAND * band:
            continue
        if pal.names[white] not in camels or int(pitch[a:b].sum()) < PITCH_MIN:
            return True
    return False


# a sample labelled black but lighter than this is grey: a white camel in shade, not black
# paint (tuning scenes 1,900,000+: black paint's stretches stayed under 0.02 but for a sample
# or two, the shaded whites that were read black lay at 0.05-0.09)
GREY_Y = 0.03
# a stretch of grey this many bands long inside a black band is a white camel's side
GREY_BAND = 0.25
GREY_WHY = "a grey stretch in the black camel's band: the white camel in shade?"


def _camel_over(
    runs: list[list[int]],
    k: int,
    names: list[str],
    camels: list[str],
    band: float,
    n_camel: int,
    explained: np.ndarray | None,
) -> bool:
    """Does another camel, one the set-up did not see there, stand right on run ``k``?

    Why: an upper camel colour that looks as the empty board did at set-up may be the board
    or table behind the stack (``EXPLAINED_UPPER``), but only above the stack's top: between
    two camels nothing of the board shows. The set-up's look is chromaticity alone, so a
    white camel in front of the white pebble lines or number flags looks "explained"; with a
    camel of another colour, itself unexplained, starting within half a band of its end, it
    is a camel of the stack. Without the set-up's look (``explained`` None): no."""
    if explained is None:
        return False
    end = runs[k][2]
    for cl, st, en in runs[k + 1 :]:
        if st > end + CAMEL_OVER_GAP * band:
            return False
        if (
            cl < n_camel
            and names[cl] not in camels
            and cl != runs[k][0]
            and en - st >= 0.5 * band
            and float(explained[st:en].mean()) <= EXPLAINED_UPPER
        ):
            return True
    return False


# a camel run starting within this many bands of an explained camel-coloured run's end
# shows that run is a camel of the stack, not the board behind it
CAMEL_OVER_GAP = 0.5


def _decode(
    label: np.ndarray,
    pal: _Palette,
    band: float,
    top_face: float,
    base_idx: int,
    geo: BoardGeometry,
    px: float = 1.0,
    lin: np.ndarray | None = None,
    explained: np.ndarray | None = None,
    cell_end: float | None = None,
    seen: list[tuple[str, float]] | None = None,
) -> SpaceReading:
    """Camels bottom to top from the classified samples of one space's column.

    ``lin`` (white-balanced linear colour per sample) lets a band the runs missed be read from
    the expected band height: a gap below or between camels that is a whole number of bands
    high, each clearly one free camel colour, is read as those camels (lower confidence).
    ``cell_end``: the first sample seen beyond the back of the space's cell on the ground;
    ``seen``: filled with the camels the runs read and the sample each run starts at, before
    any band is filled in."""
    names = pal.names
    n_camel = len(geo.colours)
    unknown = len(names)
    camels: list[str] = []
    spans: list[list[float]] = []
    started = False
    # doubts that name no place for a camel more: an upper camel colour the set-up saw right
    # there (it ends the stack read so far), a camel in front hiding the base (read above it)
    seen_above: str | None = None
    in_front: str | None = None
    front_colour: str | None = None  # the colour of that camel in front
    # camel colours read above an unread base: a camel (or two) under them went unread
    above_base: str | None = None
    front_end = 0.0  # where the camel in front ends: its samples are not this stack's
    front_clear = 0  # where a camel in front set aside (the board clear above it) ends
    reach = base_idx + (geo.max_stack - 0.5) * band  # above: the board behind, not this stack
    tiles = frozenset(i for i in range(n_camel, unknown) if not names[i].startswith(BOARD))
    runs = _clean_runs(label, band, unknown, n_camel, px, base_idx, explained, tiles)
    for k, (cl, st, en) in enumerate(runs):
        # how much of the run looks as the set-up saw the empty board there (0: no set-up)
        seen_share = 0.0 if explained is None else float(explained[st:en].mean())
        # a run at the base nine tenths as the empty board looked: the board's own look
        base_seen = not started and seen_share >= BASE_SEEN_SHARE
        if en < base_idx - 0.25 * band and not started:
            # ends before this space's front: the board in front of the stack, or the top of
            # a neighbour's stack reaching into this column (a band of ours ends above there)
            continue
        if not started and st > base_idx + 1.6 * band:
            if (
                cl < n_camel
                and st < reach
                and en - st >= 0.5 * band
                and seen_share <= 0.6
                and not _base_as_at_setup(label, names, explained, base_idx, st, band, cell_end)
            ):
                # a camel's colour where only the upper part of a stack could be: the lower
                # camels are there but unread. Never call that space empty, unless the set-up
                # saw that very colour there on the empty board (a palm, the table). The
                # camels above are read on, in doubt: with this space the only one unsure,
                # the game may say which camel (or none) is under them
                above_base = "camel colours above an unread base"
            else:
                break  # nothing camel-coloured at the base: an empty space
        if not started and _camel_in_front(cl, en, n_camel, base_idx, band, st):
            # the lowest camel colour ends at the space's front base: a bottom camel's band
            # runs a whole band up from there, so this is a camel on a space in front, whose
            # back hides the base of this stack (read as this stack's bottom camel, it was
            # a camel too many); or it starts under the space's front, where no camel of this
            # space stands, and ends within a band or so over the base
            # (an abstention the five-camel rule may complete: an empty space whose camels
            # are all read elsewhere stays read)
            tail = _fragment_end(label, cl, en, band)
            clear_to = max(base_idx + 1.2 * band, tail + 0.75 * band)
            if _clear_above(label, names, explained, tail + 0.25 * band, clear_to):
                # but it ends low: a bottom camel here would show most of its band above it,
                # and the column there is the empty board as the set-up saw it (the camel in
                # front is no "something standing" here either: ``_stands_unexplained``);
                # one ending higher must leave half a band of that board above it
                front_clear = max(front_clear, tail)
                continue
            # the camels above are read on, in doubt: the five-camel rule keeps them when the
            # camel in front, and every other one, is read on another space (if not, it may be
            # this stack's bottom camel, mostly hidden by the one above it leaning forward)
            in_front = "a camel in front hides the base of the space"
            front_colour = names[cl]
            front_end = float(en)
            continue
        if cl < n_camel:
            if camels and names[cl] == camels[-1]:
                spans[-1][1] = en  # the top face of the same camel
            elif base_seen and not _camel_over(runs, k, names, camels, band, n_camel, explained):
                # the bottom camel's colour, but all of it as the set-up saw the empty board
                # there (the sand's darker grain named yellow under a steeper tone curve): a
                # camel of the sand's very colour would look so too, so neither is read
                return _unread(BASE_SEEN_WHY)
            elif (
                started
                and seen_share > EXPLAINED_UPPER
                and not _camel_over(runs, k, names, camels, band, n_camel, explained)
            ):
                # an upper camel's colour that the set-up saw right there on the empty board
                # or table (a green cloth behind an edge space's stack): no evidence of a camel,
                # nor of none (a camel the table's colour hides nothing the set-up saw). The
                # stack ends in doubt: its camels below are checked on, and if they pass, the
                # five-camel rule may keep them when that colour is read on another space
                seen_above = "a camel colour the empty board showed there: the table behind?"
                break
            else:
                camels.append(names[cl])
                spans.append([st, en])
                if seen is not None:
                    seen.append((names[cl], float(st)))
            started = True
            continue
        if (
            not started
            and n_camel <= cl < unknown
            and not names[cl].startswith(BOARD)
            and st < base_idx + 1.2 * band
            and en > base_idx - 0.25 * band
            and en - st >= 0.5 * band
        ):
            # a desert tile's colour at the base of a space without a tile (tiles are read
            # apart): camels blended into it (a tall stack's yellow and green under a warm
            # lamp look like the oasis), never the empty board. Read as empty, a whole stack
            # was lost.
            return _unread("a desert tile's colour at the base of a space without a tile")
        if cl == unknown:
            # (the top's doubt is named by the phrase the game's rules look for: TOP_WORD)
            where = "covers the base of the space" if not started else TOP_WORD
            if st > base_idx + (geo.max_stack + 0.5) * band + top_face:
                break  # above anything a stack could reach: not ours
            if base_seen:
                # as the set-up saw the empty board there: the board's own look. Above the
                # base such samples were taken for the board already; at it they were not, a
                # stack's own shadow has the sand's hue, but a stack standing there would
                # show its colours above (read on from here as any camel run is)
                continue
            above = [
                (names[c2], float(s2))
                for c2, s2, e2 in runs[k + 1 :]
                if c2 < n_camel
                and s2 < reach
                and e2 - s2 >= 0.5 * band
                and not (explained is not None and float(explained[s2:e2].mean()) > 0.6)
            ]
            if seen is not None:
                # the camel colours above it are seen all the same: with every other camel
                # read elsewhere, the one its runs saw here may be this space's (an orange
                # camel whose shaded legs read as no colour; ``_the_one_camel_left``)
                seen.extend(above)
            rise = above[0][1] - base_idx if above else -1.0
            if not started and BASE_UNREAD_FROM * band <= rise <= BASE_UNREAD_TO * band:
                # camels standing a band or two up over it: it is where a camel under them
                # went unread (a blue one in its own shade), the place the game may put the
                # one camel it leaves (``_runs_and_the_game``)
                return _unread(f"something neither camel nor board {where}", None, 0)
            return _unread(f"something neither camel nor board {where}")
        if (
            not started
            and names[cl] != BOARD
            and cl < n_camel + 1 + 10
            and names[cl].startswith(BOARD)
            and en > base_idx - 0.3 * band
            and geo.margin >= 4.0  # without a margin the ring's inner field lies in front
        ):
            # the margin's colour right in front of a stack cannot be there: skin looks like it
            return SpaceReading([], 0.0, True, "something the colour of the margin covers the base")
        if started and _outline_dip(
            runs, k, names, camels, spans, band, band + top_face, explained
        ):
            continue  # the sand seen through a dip in the top camel's outline
        if started:
            break  # the board behind the stack: the stack ends here
    if _grey_in_black(pal, label, lin, camels, spans, band):
        return _unread(GREY_WHY)
    if not camels and in_front is not None:
        return _unread(in_front)
    if not camels:
        if _stands_unexplained(label, names, explained, base_idx, band, start=front_clear):
            return _unread("something not the empty board stands on the space, in no camel colour")
        if _stands_unexplained(
            label, names, explained, base_idx, band, STRAY_UPTO, STRAY_BANDS, front_clear
        ):
            return _unread(STRAY_WHY)
        return SpaceReading([], 0.9)
    conf = 0.95
    filled = False  # a band read from its mean colour (``_fill_gap``), not from the runs
    # a camel more than the runs read may be here (unread below, between two, hidden in the
    # height): the space abstains on the first such doubt, but the stack's other checks still
    # run, and only a stack that passes them all tells the five-camel rule which camels its
    # runs read (``bands_read``: with every other camel read elsewhere, it holds just those)
    # (or on top: an upper colour the set-up saw there, ``seen_above``; or in front; or
    # under camels read above an unread base, ``above_base``)
    doubt: str | None = above_base or in_front or seen_above
    # where in the camels read each doubt puts the camel it fears (0: under the lowest; i + 1:
    # between camels i and i + 1): a lone doubt tells the five-camel rule where the one camel
    # the game leaves for this space stands (``unread_at``; none for a doubt on top)
    unread_at: list[int] = [0] if above_base is not None else []

    def lone_at() -> int | None:
        # where the one unread band lies, when every doubt names that place (two doubts about
        # the band under the lowest camel are one place) and the camels are the runs' own
        lone = len(set(unread_at)) == 1 and seen_above is None and in_front is None
        return unread_at[0] if lone and not filled else None

    def stop(r: SpaceReading) -> SpaceReading:
        # a check failed after a doubt names a place of its own for a camel more (a band two
        # camels high, a top band too short for the top camel): the doubt's is no longer the
        # one place (``unread_at`` left unset)
        return _unread(doubt, front_colour=front_colour) if doubt is not None else r

    # anything not board just below the lowest band is an unread camel, or something in front
    is_board = np.array([n.startswith(BOARD) for n in names] + [False])
    below_lo = int(max(base_idx - 0.3 * band, front_end, 0))
    below_hi = int(spans[0][0] - max(0.25 * band, 3.0 / px))
    if below_hi > below_lo:
        nonboard = ~is_board[label[below_lo:below_hi]]
        if nonboard.any():
            first = below_lo + int(np.argmax(nonboard))
            edge = _lower_edge(
                label, is_board, lin, int(spans[0][0]), base_idx, band, BLEND_REACH, BLEND_CONTRAST
            )
            if edge <= first and int(nonboard.sum()) >= max(0.35 * band, 3.0 / px):
                # the stretch is the band's own lower edge in its shadow, a blend of its
                # colour and the sand all the way down (a blue camel's belly and legs)
                spans[0][0] = edge
            elif int(nonboard.sum()) >= max(0.35 * band, 3.0 / px):
                lo = float(min(first, base_idx))
                extra = _fill_gap(pal, lin, lo, spans[0][0], band, n_camel, camels, label)
                if extra is None:
                    extra = _camel_below(pal, label, lin, base_idx, spans, band, n_camel, camels)
                    lo = float(base_idx)
                if extra is None:
                    doubt = doubt or "an unreadable band below the lowest camel"
                    unread_at.append(0)
                else:
                    camels = extra + camels
                    step = (spans[0][0] - lo) / len(extra)
                    spans = [
                        [lo + j * step, lo + (j + 1) * step] for j in range(len(extra))
                    ] + spans
                    conf = 0.6
                    filled = True
    if spans[0][0] < base_idx - 1.0 * band:
        # the lowest band starts below where the space's front can be: a neighbour's camel
        return stop(_unread("the lowest band is below the space's front"))
    # where the lowest band's lower edge stands over a gap seen to be the board (its legs, or
    # the sand in front of a camel set back on its space): the stack's height counts from there
    legs_at: float | None = None
    if spans[0][0] > base_idx + 0.8 * band:
        extra = _fill_gap(pal, lin, float(base_idx), spans[0][0], band, n_camel, camels, label)
        edge = _lower_edge(label, is_board, lin, int(spans[0][0]), base_idx, band)
        if extra is None and _leg_gap(label, names, lin, explained, base_idx, edge, band):
            extra = []
            legs_at = float(edge)
        if extra is None and lin is not None:
            # the band's blurred edge followed down by colour alone, through board samples
            low = _blend_edge(label, lin, n_camel, int(spans[0][0]), base_idx, band)
            if low < edge and _leg_gap(label, names, lin, explained, base_idx, low, band):
                extra = []
                legs_at = float(low)
        if extra is None:
            extra = _camel_below(pal, label, lin, base_idx, spans, band, n_camel, camels)
        if extra is None:
            doubt = doubt or "the lowest band starts too high: a camel unread below?"
            unread_at.append(0)
        elif extra:
            step = (spans[0][0] - base_idx) / len(extra)
            spans = [
                [base_idx + j * step, base_idx + (j + 1) * step] for j in range(len(extra))
            ] + spans
            camels = extra + camels
            conf = 0.6
            filled = True
    elif spans[0][0] > base_idx + LEG_LIFT * band and _leg_gap(
        label, names, lin, explained, base_idx, spans[0][0], band
    ):
        legs_at = spans[0][0]
    if doubt is None and _grey_strip_below(
        pal, label, lin, explained, base_idx, spans[0], band, camels
    ):
        # after the lowest band is followed down and a camel under it read: a white camel
        # read there is in ``camels`` by now
        doubt = "a grey strip under the lowest camel: the white camel under it?"
        unread_at.append(0)
    i = 0
    while i + 1 < len(spans):
        gap_st, gap_en = spans[i][1], spans[i + 1][0]
        if 0.3 * band < gap_en - gap_st <= 0.55 * band and (
            _another_camel_between(pal, lin, gap_st, gap_en, n_camel, camels, i)
            or _another_camel_run(pal, label, lin, gap_st, gap_en, band, n_camel, camels, i)
        ):
            # too thin for a band of its own, too unlike both neighbours for their blend
            doubt = doubt or "a thin band of another camel's colour between two camels"
            unread_at.append(i + 1)
            i += 1
            continue
        if gap_en - gap_st > 0.55 * band:
            extra = _fill_gap(pal, lin, gap_st, gap_en, band, n_camel, camels, label)
            if extra is None and (
                (
                    spans[i + 1][0] - spans[i][0] <= 1.35 * band
                    and not _another_camel_between(pal, lin, gap_st, gap_en, n_camel, camels, i)
                )
                or _blend_by_height(pal, lin, spans, camels, i, band, top_face, base_idx, n_camel)
            ):
                # no room for a camel between: the lower camel's band, blended with the next
                # at its top (blue under orange turns brown), not a missing camel; by the
                # runs' starts, or by a stack no taller than its camels (``_blend_by_height``)
                i += 1
                continue
            if extra is None:
                extra = _camel_in_gap(pal, label, lin, spans, band, n_camel, camels, i)
            if extra is None:
                doubt = doubt or "an unreadable band between two camels"
                unread_at.append(i + 1)
                i += 1
                continue
            step = (gap_en - gap_st) / len(extra)
            spans[i + 1 : i + 1] = [
                [gap_st + j * step, gap_st + (j + 1) * step] for j in range(len(extra))
            ]
            camels[i + 1 : i + 1] = extra
            conf = 0.6
            filled = True
            i += len(extra)
        i += 1
    if len(camels) > geo.max_stack or len(set(camels)) != len(camels):
        return stop(_unread("the bands do not make a legal stack"))
    read_only = None if filled or doubt is not None else camels
    if pal.neutral is not None and spans[-1][1] - base_idx > (len(camels) + 0.7) * band + top_face:
        # seven camels make tall stacks, where a middle band blended into its neighbours
        # goes unseen: a stack taller than its camels read holds one more
        return stop(_unread("the stack stands taller than the camels read in it", read_only))
    lengths = [en - st for st, en in spans]
    for ln in lengths[:-1]:
        ratio = ln / band
        if ratio < 0.3 or ratio > 1.9:
            # another camel may hide in a band that tall: the runs' order is not the stack's
            return replace(stop(_unread(f"a band {ratio:.1f} camels high")), tall_band=True)
        conf = min(conf, 0.95 - 0.5 * abs(ratio - 1.0))
    top = lengths[-1]
    # the top camel shows its side and its top face: a run much shorter than both is a lower
    # camel whose upper neighbours were not read; much longer, two camels read as one
    if top < 0.5 * (band + top_face):
        return stop(_unread("the top band is too short to be the top camel"))
    if top > TOP_TALL * (band + top_face):
        top = _board_cut(label, names, int(spans[-1][0]), int(spans[-1][1]), band + top_face)
    if top > TOP_TALL * (band + top_face):
        top = _seen_behind_cut(explained, int(spans[-1][0]), int(spans[-1][1]), band + top_face)
    if top > TOP_TALL * (band + top_face):
        return stop(SpaceReading([], 0.0, True, "the top band is too tall for a camel (a sleeve?)"))
    height = spans[-1][0] + top - base_idx
    if legs_at is not None and not filled:
        # a camel set back on its space stands as much higher as its band starts: counted
        # from the space's front, a lone camel set back a band stood "taller than its camels"
        # (the five-camel rule still finds a camel the column missed beside it: one seen on
        # no space makes every space it may hide on unsure)
        height -= max(0.0, legs_at - base_idx - LEG_LIFT * band)
    if height > (len(camels) + TALLER_BANDS) * band + top_face:
        # the column holds more than the camels read: a middle camel hidden behind the one
        # above it (a camel leaning forward covers a thin band whole). Not resolvable: the
        # band model, blind to the height, re-read such a stack one camel short
        at = lone_at() if doubt is not None else None
        if at is not None and height <= (len(camels) + 1 + TALLER_BANDS) * band + top_face:
            # unless one unread band the doubt placed is that camel more: the stack stands
            # just one camel taller than its runs read, so the game's one camel left, if
            # any, goes there (vision.track_global's ``_runs_and_the_game``)
            return _unread(doubt or "", None, at, above_base is not None, front_colour)
        why = "the stack stands taller than the camels read in it"
        return stop(SpaceReading([], 0.0, True, why, bands_read=tuple(read_only or ())))
    if doubt is not None:
        read = None if filled else camels
        return _unread(doubt, read, lone_at(), above_base is not None, front_colour)
    return SpaceReading(camels, max(conf, 0.3))


def _board_cut(label: np.ndarray, names: list[str], start: int, end: int, expect: float) -> float:
    """The top run's length up to the first board sample past 0.6 of ``expect`` (the top
    camel's side and top face), or its whole length when the board does not show there.

    Why: the run decoder joins two runs of one colour across a gap shorter than a seam, so
    the white top camel of a tall stack and a white marker border or tile edge seen just
    behind it, with a sliver of board between, make one run too tall for a camel. The board
    between them ends the stack: it is seen through above the top face."""
    lo = start + int(np.ceil(0.6 * expect))
    for i in range(max(lo, start), min(end, len(label))):
        cl = int(label[i])
        if cl < len(names) and names[cl].startswith(BOARD):
            return float(i - start)
    return float(end - start)


def _seen_behind_cut(explained: np.ndarray | None, start: int, end: int, expect: float) -> float:
    """The top run's length up to where the rest of it, past 0.6 of ``expect`` (the top
    camel's side and top face), looks as the empty board or table did there at set-up; its
    whole length when no such stretch ends it.

    Why: above the top camel the column sees what stands behind the stack. On an edge space
    that is the table, and a grey or white cloth is labelled the white camel's colour (a sand
    table, yellow's): the camel's run goes on into it, too tall for a camel, and the space
    abstained as if a sleeve stood on it. A sleeve or hand was not there at set-up, so it is
    not explained and is never cut away; the camel's own side, in front of the board, is not
    explained either (it hides what the set-up saw)."""
    if explained is None:
        return float(end - start)
    lo = start + int(np.ceil(0.6 * expect))
    for i in range(max(lo, start), min(end, len(explained)) - SEEN_BEHIND_MIN + 1):
        if explained[i] and float(explained[i:end].mean()) >= SEEN_BEHIND_SHARE:
            return float(i - start)
    return float(end - start)


# the top run is cut where the rest of it (this many samples or more) looks, for this share
# of its samples or more, as the empty board or table did there at set-up
SEEN_BEHIND_MIN = 3
SEEN_BEHIND_SHARE = 0.9


def _read_tiles(
    image: np.ndarray,
    loc: BoardLocation,
    geo: BoardGeometry,
    gains: dict[int, np.ndarray],
    pal: _Palette,
) -> tuple[list[str | None], list[str | None]]:
    """Per space, 'oasis' / 'mirage' when most of its middle shows that side's colour;
    ``TILE_NOT_FLAT`` when it does but the board shows too, ``TILE_FAINT`` when some of it
    shows and no board does. And per space, for ``TILE_FAINT``, the side its middle shows
    alone (``_faint_side``), else None."""
    c = np.array([geo.space_centres[s] for s in geo.spaces])
    k = geo.tile_size * 0.35
    gx, gy = np.meshgrid(np.linspace(-k, k, 7), np.linspace(-k, k, 7))
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    pts = (c[:, None, :] + grid[None]).reshape(-1, 2)
    vals, inside = sample(image, loc.to_image(pts), box=True)
    lin = linear(vals).reshape(len(c), -1, 3) * gains_at(c, gains, geo)[:, None, :]
    cls, _ = _classify(pal, lin, dark=0.004, flat=True)
    cls = np.where(inside.reshape(len(c), -1), cls, len(pal.names))
    out: list[str | None] = []
    faint: list[str | None] = []
    boards = [i for i, n in enumerate(pal.names) if n.startswith(BOARD)]
    sides = {n: pal.names.index(n) for n in geo.tile_colours}
    for row in cls:
        # samples of each side's colour in the middle
        counts = {n: int(np.sum(row == k)) for n, k in sides.items()}
        side = None
        for name, count in counts.items():
            if count / row.size > 0.35:
                side = name
        board = float(np.mean(np.isin(row, boards)))
        if side is not None and board >= TILE_BOARD_SHARE:
            side = TILE_NOT_FLAT
        elif side is None and board < TILE_FAINT_BOARD:
            if max(counts.values(), default=0) / row.size >= TILE_FAINT_SHARE:
                side = TILE_FAINT
        out.append(side)
        faint.append(_faint_side(counts) if side == TILE_FAINT else None)
    return out, faint


def _faint_side(counts: dict[str, int]) -> str | None:
    """The desert tile's side a faint tile shows (``counts``: its middle's samples of each
    side's colour), when it shows FAINT_ALONE times as many of that side's colour as of the
    other's; else None.

    Why: a tall stack beside a tile covers half its middle, so neither side fills the share
    a tile needs, and the board does not show (``TILE_FAINT``): the space abstained. The
    half left shows the tile's own side (tuning scenes 2,203,000..2,206,499: seven tiles,
    the four looked at beside stacks of five), and the camels' edges over it add a few
    samples of the other.
    The side alone is not a reading: the space stays unsure until the rules of the game
    account for every camel elsewhere (vision.track_global's ``_empty_when_all_elsewhere``)."""
    ranked = sorted(((c, n) for n, c in counts.items()), reverse=True)
    if not ranked or ranked[0][0] == 0:
        return None
    if len(ranked) > 1 and ranked[0][0] < FAINT_ALONE * ranked[1][0]:
        return None
    return ranked[0][1]


# A tile covers the whole middle of its space: where this share of the middle shows the board
# beside the tile's colour, the tile's colour is on something standing there (a pale green
# camel under a warm lamp looks like the oasis; the sand shows between its legs), or a hand.
# Tuning tables 120,015..120,020: every clear tile showed 0-2 % board; a stack read as an oasis
# 29 %, hands over tiles 10-43 %.
TILE_BOARD_SHARE = 0.15
TILE_NOT_FLAT = "?"

# The other way round: a middle that shows no board (under this share) but a tile's colour on
# this share or more, too little to read the tile, is a tile whose colour the camera renders
# otherwise than at set-up, not camels. Why: under a darker tone curve than the set-up's sRGB
# assumption (the "dark" camera probe, docs/table-setup.md) a mirage tile's middle read 35 %
# "white" and 6-24 % mirage, and was read as a white camel. A camel's or a stack's middle
# nearly always shows board around its legs; on 300 tuning scenes with each of three probes
# (2,180,000+: plain, darker and brighter curves) and 600 plain ones (2,181,000+) no space read
# as camels had both; 9 tiles did, 7 of them under the darker curve.
TILE_FAINT = "~"
TILE_FAINT_BOARD = 0.05
TILE_FAINT_SHARE = 0.05
FAINT_ALONE = 3  # a faint tile shows its side this many times as often as the other side


def _mark_hidden(spaces: dict[int, SpaceReading], loc: BoardLocation, geo: BoardGeometry) -> None:
    """A tall stack between the camera and a space may hide that space's lower camels.

    Unless the space's camels share no colour with that stack: then the column at its base
    showed its own bottom camel, not the stack in front. Were that stack over the base, its
    colours would show there, and the decoder either reads them as this space's (a colour
    read on both spaces) or abstains on them ("a camel in front hides the base"); a lower
    camel hidden above them leaves its band's height unexplained ("the lowest band starts
    too high"). Where both stacks were read with no colour in common, the space is read as
    it is (tuning seeds: 48 such spaces, all read right; every space read wrong under a stack
    in front shared a colour with it).

    A stack in front that abstained only on a grey stretch in its black band (``GREY_WHY``:
    black or white, which) still stands there, as tall as its runs read (``runs_seen``):
    counted as read, or the empty space behind it showed that stack's yellow camel at its base
    and was read as yellow (tuning scene 1,900,009; counting every abstaining stack in front
    that way cost 13 right reads on 2,000 tuning scenes for 3 wrong ones)."""
    cam = loc.pose.centre
    for s, r in list(spaces.items()):
        if r.uncertain or not r.camels:
            # an empty reading saw the board at this space's front base and above it, so the
            # base is not hidden (a stack in front would show its colours there instead)
            continue
        c = np.asarray(geo.space_centres[s])
        # the ray from the camera to this space's front base point
        u = cam[:2] - c
        dist = np.linalg.norm(u)
        u /= max(dist, 1e-6)
        foot = c + u * 0.5 * geo.camel_width
        for o, other in spaces.items():
            # a stack in front whose only doubt is black or white still stands there: the
            # camels its runs read
            theirs = other.camels
            if other.why == GREY_WHY:
                theirs = [c for c, _ in other.runs_seen]
            if o == s or not theirs:
                continue
            oc = np.asarray(geo.space_centres[o])
            along = (oc - foot) @ u
            perp = abs((oc - foot) @ np.array([-u[1], u[0]]))
            if along <= 0 or along > dist or perp > 0.5 * geo.camel_length + 8:
                continue
            # height of the sight line above the board where it passes the other stack's back
            back = along - 0.5 * geo.camel_length - 4
            sight = max(back, 0.0) * (-cam[2]) / dist
            if len(theirs) * geo.camel_height > sight and set(theirs) & set(r.camels):
                why = f"may be hidden by the stack on space {o}"
                spaces[s] = SpaceReading(
                    [], 0.0, True, why, runs_seen=r.runs_seen, camel_reach=r.camel_reach
                )
                break
