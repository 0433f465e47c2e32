"""The five-camel rule across the track: complete or refuse space readings with what the others say.

Why: each space is first read on its own (vision.track), and a space whose bands are too thin or
too dark to name abstains. But the game fixes a hard fact the frame alone lets us use: the five
camels are always all on the track, each exactly once. So when every other space is read with
confidence, the colours not seen anywhere must be on the one space that abstained, and its
stack is one ordering of them. That is still only a hypothesis until the space's own pixels
agree: ``fit_stack`` checks each camel-high band of its column against the colour the ordering
puts there (nearer that colour than every other camel colour and the board, by a margin), and a
completion is made only when exactly one ordering fits. With two such spaces, the missing
colours are split between them, made only when exactly one split fits both columns. A lone
unsure space whose only doubt was a camel more than its runs read (one unread below it, in a
gap, or hidden in the stack's height), and whose runs read exactly the colours seen nowhere
else, holds those as read, when every other read is strong (``_no_camel_more``). The rule
also works the other way: a colour read on two spaces is wrong on at least one (both become
uncertain), and a colour read nowhere while no space abstains means some stack lost a camel —
it is put back only where it alone fits, else the spaces it might be hiding under become
uncertain (every stack with room for it, when one camel fits nowhere: an upper camel set askew
towards a steep camera can cover the one below it whole), or only the one stack it peeks out
of, under a lone camel read there (``_peeking``).

Never completed with camels: a space whose abstention is about something in front of it (a hand,
a sleeve, a stack hiding it, glare), unless it is the only unsure space, the game leaves it one
camel and its own runs saw that camel there (``_the_one_camel_left``); nor any space while a
third one is uncertain. A lone unsure stack whose runs saw the colours the game leaves it (or
all but one, with one band unread) is read in the order its runs read them when the band model
cannot order them (``_runs_and_the_game``). Two unsure stacks whose runs saw the colours seen
nowhere else, each colour in one of them, are read so when the band model finds no split
(``_runs_pair``). With every camel read, with confidence, on other spaces, any unsure space is
empty, whatever covers it (a space abstaining on a desert tile's colour excepted: the tile may
be unread); a space whose runs read no camel is empty with every camel read elsewhere, weakly or
not (``read_empty``).
Vision stays pure: the rule is a fact of the game, not state from the hub; ``all_camels=False``
turns it off for a board being set up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property, partial
from itertools import combinations, permutations

import numpy as np

from vision.board_light import chroma_brightness, segment_distance

__all__ = ["Column", "FitRef", "SpaceReading", "fit_stack", "resolve"]


@dataclass(frozen=True)
class SpaceReading:
    """One space: camels bottom to top, how sure, and why not if unsure.

    ``resolvable``: the abstention is about the colour of bands in the stack itself, so the
    five-camel rule may complete it; ``inferred``: the camels were completed that way;
    ``bands_read``: an abstention whose doubt is only a camel more than the runs read (one
    unread below, between or hidden in the stack's height), those camels bottom to top;
    ``runs_seen``: the camels the runs read in an abstaining stack, whatever its doubt, each
    with the sample its run starts at (a read of its column by the band model must hold those
    within its height, ``StackFit.holds_runs``); ``unread_at``: with ``bands_read``, when
    the only doubt is one unread band, where it lies among them (0: under the lowest, i:
    between camels i - 1 and i); ``base_unread``: those camels stand high above an unread
    base, where a camel or two went unread (or a camel set back shows its side high): only the
    game with no other space unsure may say which, if any (``_no_camel_left`` leaves it);
    ``front_colour``: the colour at the base whose band ends at the space's front, taken for
    a camel on the space in front (its back hides this base): if the game puts that camel on
    no other space, it is this stack's bottom camel, mostly hidden by the one above;
    ``read_empty``: the runs read no camel on the space, which abstains only on the look of
    its sand or its hidden front line (``_empty_when_all_elsewhere``); ``camel_reach``: the
    samples a top camel spans up its column, its band and half its top face, in the units
    of ``runs_seen``'s starts (a run starting within that above a camel's stands on it);
    ``tall_band``: a band below the top one stood two camels high or more, where another
    camel may hide, so the runs' order is not the stack's (``_own_runs`` leaves them);
    ``faint_tile``: the desert tile's side a space abstaining on a faint tile's colour showed
    alone (vision.track's ``TILE_FAINT``), its desert once every camel is read elsewhere."""

    camels: list[str]
    confidence: float
    uncertain: bool = False
    why: str | None = None
    resolvable: bool = False
    inferred: bool = False
    bands_read: tuple[str, ...] = ()
    runs_seen: tuple[tuple[str, float], ...] = ()
    unread_at: int | None = None
    base_unread: bool = False
    front_colour: str | None = None
    read_empty: bool = False
    camel_reach: float = 0.0
    tall_band: bool = False
    faint_tile: str | None = None


@dataclass(frozen=True)
class Column:
    """One space's samples up the vertical line at its stack's front (see vision.track).

    ``lin``: white-balanced linear BGR per sample, bottom to top; ``base``: index of the board's
    surface; ``band``: samples per camel height; ``top_face``: samples the top camel's top face
    adds above its side; ``band_px``: image pixels of the lowest camel's band (the samples are
    spread evenly over the column, so a thin band in pixels is a band read from few pixels);
    ``hide_mm``: how far (board mm) a camel placed nearer the camera than the one below it must
    stand to cover that one's whole band in the image (camel height x tan of the view's angle
    from vertical): small for a steep view, where an upper camel askew can hide a lower one;
    ``dark``: per sample, whether it is paint too dark for a hue, the second edition's black
    camel (vision.track's ``_pitch``); None for the first edition's five camels."""

    lin: np.ndarray
    base: int
    band: float
    top_face: float
    band_px: float = 0.0
    hide_mm: float = float("inf")
    dark: np.ndarray | None = None


@dataclass(frozen=True)
class FitRef:
    """The colours a band may be: the camels' chromaticities (in ``names`` order), their
    acceptance radii, and the board's own colours as the frame shows them."""

    names: list[str]
    camel: np.ndarray  # len(names) x 3
    radius: np.ndarray  # len(names)
    board: np.ndarray  # m x 3
    black: int | None = None  # the index of the second edition's black camel in ``names``
    tip: np.ndarray | None = None  # each colour reaches from ``camel`` to this (vision.track)

    def distance(self, ch: np.ndarray) -> np.ndarray:
        """Distance from chromaticities ``ch`` (... x 3) to each camel colour (... x colours)."""
        return segment_distance(ch, self.camel, self.camel if self.tip is None else self.tip)


MARGIN = 1.5  # a band must be this much nearer its colour than to any other camel or the board
REACH = 2.0  # ... and within this many acceptance radii of it
SPREAD = 1.0  # ... and its samples spread around their mean by at most this many radii
SCALES = (0.94, 0.97, 1.0, 1.03)  # band heights tried, as shares of the model's
STRONG_FIT = 2.0  # a read another space's leans on: its stack fits this many MARGINs clearly
WEAK = 0.7  # readings below this confidence came from a model or a filled gap (vision.track)
DARK_SHARE = 0.25  # a band with more of its samples read as black paint is no other colour
# black paint this many bands long within a stack without the black camel: it is hidden there
DARK_INSIDE = 0.2
DARK_FREE = 0.12  # ... this many when no other space holds the black camel
STRIP = 0.2  # bands of another camel's paint round the lowest band's lower edge: a camel under it
TILE_WORD = "tile's colour"  # in the reasons of an abstention about a desert tile (vision.track)
# in the reason of an abstention over something of no colour above a stack's runs (vision.track)
TOP_WORD = "covers the top of the stack"


class StackFit:
    """How one space's column fits candidate stacks: every band of every pose, once.

    Why a model and not run lengths: blur blends 5-8 px bands into their neighbours, so no
    single sample may be clearly one colour, but the middle half of a band of known height at
    a known place, averaged, is; and a candidate stack says which colour each band must be.
    A band fits its colour when its mean is within REACH acceptance radii of it and MARGIN
    times nearer it than any other camel colour and the board. The poses: the base may sit
    half a band off the model (a block placed off-centre, its front face nearer the camera
    than the sampled line), the bands a few per cent shorter or taller (camels differ;
    parallax between face and line scales them). The top camel's band runs on over its top
    face (same colour); the tables hold both kinds of band for every level."""

    def __init__(self, col: Column, ref: FitRef, levels: int = 5) -> None:
        self.names = ref.names
        band = col.band
        total = len(col.lin)
        ch, y = chroma_brightness(np.asarray(col.lin, np.float64))
        # running sums of colour, chromaticity and its square: any band's mean and spread
        dark = np.zeros(total) if col.dark is None else np.asarray(col.dark, np.float64)
        cs = np.concatenate(
            [
                np.zeros((1, 8)),
                np.cumsum(np.column_stack([col.lin, ch, (ch**2).sum(1), dark]), axis=0),
            ]
        )
        shift = np.arange(-0.5 * band, 0.5 * band + 1e-6, max(band / 8.0, 1.0))
        shifts = np.repeat(shift, len(SCALES))
        bands = np.tile(np.array(SCALES), len(shift)) * band
        starts = col.base + shifts[:, None] + np.arange(levels)[None] * bands[:, None]
        ends = starts + bands[:, None]
        trim = 0.25 * bands[:, None]
        self.side_ok, self.side_margin = self._table(cs, total, starts, ends, trim, ref)
        # the band just below the lowest camel: the board, for a stack read on its own (a
        # darker camel under the lowest one read would show here instead)
        below = starts[:, :1] - bands[:, None]
        self.board_below = self._board(cs, total, below, starts[:, :1], trim[:, :1], ref)[:, 0]
        self.top_ok, self.top_margin = self._table(
            cs, total, starts, ends + col.top_face, trim, ref
        )
        # the band just above the top camel's top face: black paint there is a black camel
        # on top of the stack (or the one above it), not the board behind
        lo = np.clip(np.round(ends + col.top_face).astype(np.int64), 0, total)
        hi = np.clip(np.round(ends + col.top_face + bands[:, None]).astype(np.int64), 0, total)
        self.black_above = (cs[hi, 7] - cs[lo, 7]) / np.maximum(hi - lo, 1) > DARK_SHARE
        self.black = None if ref.black is None else ref.names[ref.black]
        # what strip_other reads, kept for the one case that asks (a lone stack decoded)
        self._strip_args = (col, ch, y, ref, starts[:, 0], trim[:, 0], total)
        self.col = col

    @cached_property
    def strip_other(self) -> np.ndarray:
        """(poses x colours) the stretch where the lowest camel's band meets what is under it
        (the board's window below and the lowest band's trimmed edge) holds samples clearly
        another camel's colour: a camel under the stack that shows only a strip. Made only
        when :meth:`decode` finds a lone stack, not for every column (about 1 ms a frame)."""
        return self._strip(*self._strip_args)

    @staticmethod
    def _table(
        cs: np.ndarray,
        total: int,
        starts: np.ndarray,
        ends: np.ndarray,
        trim: np.ndarray,
        ref: FitRef,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(poses x levels x colours) whether that band fits that colour, and its margin."""
        lo = np.round(starts + trim).astype(np.int64)
        hi = np.minimum(np.round(ends - trim).astype(np.int64), total)  # a top face may run out
        inside = (lo >= 0) & (hi - lo >= 1)
        lo, hi = np.clip(lo, 0, total), np.clip(hi, 0, total)
        mean = (cs[hi] - cs[lo]) / np.maximum(hi - lo, 1)[..., None]
        ch, y = chroma_brightness(mean[..., :3])
        # a band must be one colour throughout, not a mix whose mean happens to look like one
        # (blue over orange averages to grey, which is white's chromaticity)
        spread = np.sqrt(np.maximum(mean[..., 6] - (mean[..., 3:6] ** 2).sum(-1), 0.0))
        d = ref.distance(ch)  # poses x levels x colours
        d_board = np.linalg.norm(ch[..., None, :] - ref.board, axis=-1).min(axis=-1)
        k = d.shape[-1]
        others = np.where(np.eye(k, dtype=bool), np.inf, d[..., None, :]).min(axis=-1)
        nearest_other = np.minimum(others, d_board[..., None])
        dark = (1.0 + 0.01 / np.maximum(y, 0.002))[..., None]
        limit = REACH * ref.radius * dark
        margin = nearest_other / np.maximum(d, 1e-6)
        even = spread[..., None] <= SPREAD * ref.radius * dark
        ok = (inside & (y >= 0.003))[..., None] & (d <= limit) & (margin >= MARGIN) & even
        if ref.black is not None:
            # the second edition's black camel: its paint is too dark for a hue, so its band
            # mixed into a neighbour's window leaves that window's mean colour as it was (a
            # black camel on a white one, or under blue, went unseen: the stack was read
            # without it). A window showing that much black paint is no other camel's
            # colour; a black band shows mostly black paint
            share = ((cs[hi, 7] - cs[lo, 7]) / np.maximum(hi - lo, 1))[..., None]
            black = np.arange(k) == ref.black
            ok &= np.where(black, share > 1.0 - DARK_SHARE, share <= DARK_SHARE)
        return ok, margin

    @staticmethod
    def _strip(
        col: Column,
        ch: np.ndarray,
        y: np.ndarray,
        ref: FitRef,
        start: np.ndarray,
        trim: np.ndarray,
        total: int,
    ) -> np.ndarray:
        """(poses x colours) whether the stretch round the lowest band's lower edge (from the
        top of the board's window below to the bottom of the band's own window) holds a strip
        of another camel's paint, were that colour the lowest camel: STRIP bands or more of
        samples each MARGIN times nearer another camel colour than to the rest and the board
        (black paint: too dark for a hue, the black camel's)."""
        d = ref.distance(ch)  # samples x colours
        d_board = np.linalg.norm(ch[:, None, :] - ref.board, axis=-1).min(axis=-1)
        k = d.shape[1]
        others = np.where(np.eye(k, dtype=bool), np.inf, d[:, None, :]).min(axis=-1)
        clear = (MARGIN * d <= np.minimum(others, d_board[:, None])) & (y >= 0.003)[:, None]
        if ref.black is not None and col.dark is not None:
            dark = np.asarray(col.dark, bool)
            clear[dark] = np.arange(k) == ref.black
        cs = np.concatenate([np.zeros((1, k)), np.cumsum(clear, axis=0)])
        lo = np.clip(np.round(start - trim).astype(np.int64), 0, total)
        hi = np.clip(np.round(start + trim).astype(np.int64), 0, total)
        count = cs[hi] - cs[lo]  # poses x colours
        other = count.sum(axis=1, keepdims=True) - count
        return np.asarray(other >= STRIP * col.band)

    @staticmethod
    def _board(
        cs: np.ndarray,
        total: int,
        starts: np.ndarray,
        ends: np.ndarray,
        trim: np.ndarray,
        ref: FitRef,
    ) -> np.ndarray:
        """Whether each band is clearly the board: nearer it than any camel colour."""
        lo = np.clip(np.round(starts + trim).astype(np.int64), 0, total)
        hi = np.clip(np.round(ends - trim).astype(np.int64), 0, total)
        mean = (cs[hi] - cs[lo]) / np.maximum(hi - lo, 1)[..., None]
        ch, y = chroma_brightness(mean[..., :3])
        d = ref.distance(ch).min(axis=-1)
        d_board = np.linalg.norm(ch[..., None, :] - ref.board, axis=-1).min(axis=-1)
        # black paint is no board, whatever its (unreadable) hue: a black camel under the
        # lowest one read
        share = (cs[hi, 7] - cs[lo, 7]) / np.maximum(hi - lo, 1)
        return np.asarray(
            (hi - lo >= 1) & (y >= 0.003) & (d >= MARGIN * d_board) & (share <= DARK_SHARE)
        )

    def fits(self, stack: list[str]) -> float | None:
        """How clearly the column shows ``stack`` (bottom to top): the smallest band margin,
        best over the poses; None when no pose shows every band in its colour. An empty stack
        fits trivially (1.0): there is nothing to check."""
        n = len(stack)
        if n == 0:
            return 1.0
        if n > self.side_ok.shape[1]:
            return None
        idx = [self.names.index(c) for c in stack]
        lv = np.arange(n)
        ok = self._poses(stack)
        if not ok.any():
            return None
        margin = np.minimum(
            self.top_margin[:, n - 1, idx[-1]], self.side_margin[:, lv, idx].min(axis=1)
        )
        return float(margin[ok].max())

    def _poses(self, stack: list[str]) -> np.ndarray:
        """The poses in which the column shows the non-empty ``stack`` (bottom to top):
        every camel's side band, the top one's also with its top face, and no black paint
        above it unless the black camel is in it."""
        n = len(stack)
        idx = [self.names.index(c) for c in stack]
        ok = self.top_ok[:, n - 1, idx[-1]] & self.side_ok[:, np.arange(n), idx].all(axis=1)
        if self.black not in stack:
            ok &= ~self.black_above[:, n - 1]
        return np.asarray(ok)

    def decode(self, free: list[str]) -> list[list[str]]:
        """Every stack of one or more of the ``free`` colours (each at most once) that fits.

        A lone stack found is also checked for a strip of another camel's paint round its
        lowest band's lower edge (``strip_other``): a lower camel the one above covers but for
        a strip a quarter of a band high (an upper camel set askew towards the camera) falls
        in the trimmed edges of the windows, and the band model read the stack without it.
        With no pose free of such a strip it returns no stack (the space stays unsure), never
        the stacks that remain: a check that only dropped poses would let a second candidate,
        which made the read ambiguous, become the one read."""
        idx = [self.names.index(c) for c in free]
        found: list[list[str]] = []
        levels = self.side_ok.shape[1]

        def grow(prefix: list[int], mask: np.ndarray) -> None:
            j = len(prefix)
            for c in idx:
                if c in prefix:
                    continue
                side = mask & self.side_ok[:, j, c]
                if not side.any():
                    continue
                top = side & self.top_ok[:, j, c]
                stack = [self.names[i] for i in prefix + [c]]
                if self.black not in stack:
                    top &= ~self.black_above[:, j]
                if top.any():
                    found.append(stack)
                if j + 1 < levels:
                    grow(prefix + [c], side)

        grow([], self.board_below.copy())
        if len(found) != 1:
            return found
        # the one stack found must also fit with nothing of another camel's colour right
        # under its lowest band; else a lower camel showing only a strip was missed: none
        lowest = self.names.index(found[0][0])
        ok = self._poses(found[0]) & self.board_below & ~self.strip_other[:, lowest]
        if self._black_inside(found[0], self.black in free):
            return []
        return found if ok.any() else []

    def holds_runs(self, stack: list[str], seen: tuple[tuple[str, float], ...]) -> bool:
        """Whether ``stack``, read by the band model, holds every camel the runs read (``seen``:
        colour and the sample its run starts at) whose run starts within its height (its bands
        and the top camel's top face over the base).

        Why: the band model checks the bands of the stack it proposes, and the top one with
        its top face, but not what stands above: a tall stack of the second edition whose
        middle band was unreadable was decoded as its lowest three camels, a fourth read
        clearly by the runs inside the third's top face left out. A run that starts above the
        proposed stack's height is often no camel of it (the stack behind, seen over it), so
        only those within count (tuning scenes 1,900,000..1,901,999: counting every run
        refused 15 right band-model reads for 3 wrong ones; counting those within, none of
        those 15)."""
        top = self._top(stack)
        return all(c in stack for c, start in seen if start < top)

    def _top(self, stack: list[str]) -> float:
        """The sample where ``stack``'s height ends: its bands and the top camel's top face
        over the column's base."""
        return self.col.base + len(stack) * self.col.band + self.col.top_face

    def _black_inside(self, stack: list[str], black_free: bool = False) -> bool:
        """Whether the column shows black paint (``Column.dark``), ``DARK_INSIDE`` band of
        samples or more, within the height of ``stack`` (its bands and the top
        camel's top face over the base) when the black camel is not in it; ``DARK_FREE``
        band when no other space holds the black camel (``black_free``).

        Why: each band's window is trimmed a quarter band at both ends, and the windows of a
        stack one camel short can fall on its neighbours' paint: a black camel set back
        between two, or under one, showed only in the trimmed edges, and the band model read
        the stack without it (tuning scenes 1,900,000..1,901,999: five of 316 band-model reads
        without black were such stacks, with 0.22-0.56 band of black paint; of the right ones
        one showed 0.28 band, refused too, the rest 0.17 or less). Nothing else on the track
        is that dark. The black camel is on the track: read on no other space, it is here or
        hidden somewhere, and less of its paint names it (two more wrong reads, 0.13 and 0.14
        band, refused; the right reads with 0.10-0.17 band had black read elsewhere, or
        showed 0.10)."""
        col = self.col
        if col.dark is None or self.black is None or self.black in stack:
            return False
        lo = max(int(col.base), 0)
        hi = int(self._top(stack))
        least = DARK_FREE if black_free else DARK_INSIDE
        return int(np.asarray(col.dark[lo:hi], bool).sum()) >= least * col.band


def fit_stack(col: Column, stack: list[str], ref: FitRef) -> float | None:
    """``StackFit(col, ref).fits(stack)``: one candidate, one column."""
    return StackFit(col, ref).fits(stack)


def _orderings(fixed: list[str], extra: list[str]) -> Iterator[list[str]]:
    """Every stack that keeps ``fixed`` in order and adds ``extra`` in any order anywhere."""
    n = len(fixed) + len(extra)
    for slots in combinations(range(n), len(extra)):
        for perm in permutations(extra):
            out: list[str] = []
            fi = iter(fixed)
            pi = iter(perm)
            for i in range(n):
                out.append(next(pi) if i in slots else next(fi))
            yield out


def _duplicates(
    out: dict[int, SpaceReading], fits: Callable[[int, list[str]], float | None]
) -> None:
    """Each camel exists once: a colour read on two spaces is wrong on at least one of them.
    Both become unsure, unless the band model finds exactly one of their reads clearly in
    its own column (``_fits_strongly``): that one is kept.

    Why: a colour read twice was nearly always one true camel and one phantom, and the
    phantom made the true camel abstain too. The phantoms were a hand under a warm lamp
    read as a lone yellow camel (confidence 0.95 from clean runs, so the runs' confidence
    cannot tell it from the real one), and a sliver of yellow where a green camel's edge
    blends into the orange one above it, filled as a camel between them. In the band model
    neither phantom fits its column (a hand's band is no camel's height; the stack with the
    sliver as a whole band does not fit), or fits only weakly, while the true camel's read
    fits it clearly. Tuning scenes 2,203,000..2,206,499 (three conditions): in 13 of 14
    colours read twice exactly one read fitted clearly, and it was the true one each time;
    in the fourteenth both did, and both stay unsure."""
    where: dict[str, list[int]] = {}
    for s, r in out.items():
        for c in r.camels if not r.uncertain else []:
            where.setdefault(c, []).append(s)
    for c, on in where.items():
        if len(on) > 1:
            strong = [s for s in on if _fits_strongly(partial(fits, s, out[s].camels))]
            keep = strong[0] if len(strong) == 1 else None
            for s in on:
                if s != keep:
                    out[s] = SpaceReading([], 0.0, True, f"{c} seen on spaces {on}")


def _fits_strongly(fit: Callable[[], float | None]) -> bool:
    """Whether the band model finds a read's stack in its column (``fit``: the margin, None
    for no fit) by STRONG_FIT times the margin a fit needs: two reads of the same pixels
    agree, by far."""
    margin = fit()
    return margin is not None and margin >= STRONG_FIT * MARGIN


def _complete_lone(
    out: dict[int, SpaceReading],
    colours: list[str],
    fits: Callable[[int, list[str]], float | None],
    max_stack: int,
) -> bool:
    """All five camels are on the track: with exactly one space unsure, the colours seen
    nowhere else are on it. Completes it as its runs read it when they read just those
    (``_no_camel_more``), with the one camel left in its one unread band
    (``_camel_in_unread_band``), as that one camel alone when its runs saw it
    (``_the_one_camel_left``), else when exactly one ordering of them fits its column, or
    else in the order its runs read them (``_runs_and_the_game``); True when it did."""
    unsure = [s for s, r in out.items() if r.uncertain]
    if len(unsure) != 1:
        return False
    s = unsure[0]
    seen = {c for r in out.values() if not r.uncertain for c in r.camels}
    missing = [c for c in colours if c not in seen]
    if _no_camel_more(out, s, missing, fits):
        why = "its bands as read: every other camel is read elsewhere"
        out[s] = SpaceReading(list(out[s].bands_read), 0.5, why=why, inferred=True)
        return True
    in_band = _camel_in_unread_band(out, s, missing, fits, max_stack)
    if in_band is not None:
        why = "the one camel seen nowhere else, in the band its runs did not read"
        out[s] = SpaceReading(in_band, 0.5, why=why, inferred=True)
        return True
    if _the_one_camel_left(out, s, missing, fits):
        why = "the one camel seen nowhere else, which its runs saw here"
        out[s] = SpaceReading(list(missing), 0.5, why=why, inferred=True)
        return True
    if not out[s].resolvable or len(missing) > max_stack:
        return False
    found = [st for st in _orderings([], missing) if fits(s, st) is not None]
    if len(found) != 1:
        by_runs = _runs_and_the_game(out, s, missing, fits, max_stack)
        if by_runs is None or (found and by_runs not in found):
            return False
        why = "the camels seen nowhere else, in the order its runs read them"
        out[s] = SpaceReading(by_runs, 0.5, why=why, inferred=True)
        return True
    why = "the camel colours seen nowhere else" if found[0] else "all five camels elsewhere"
    out[s] = SpaceReading(found[0], 0.5, why=why, inferred=True)
    return True


def _no_camel_more(
    out: dict[int, SpaceReading],
    s: int,
    missing: list[str],
    fits: Callable[[int, list[str]], float | None],
) -> bool:
    """Whether space ``s`` abstained only for fear of a camel more than its runs read, and the
    game leaves no camel for it: the colours seen nowhere else are exactly those its runs read,
    and every other space's camels are strong reads (``_strong``).

    Why: a lone white camel standing at the back of its space, its shaded legs read as no
    colour, starts too high for a camel on its legs, and the reader abstained ("a camel unread
    below?"); so did a stack with a gap it could not name. The band model, which tells colours
    by hue, seldom confirms a white camel, so the lone-space rule left it. But with the other
    camels all read elsewhere there is no camel left to be under it or in the gap: the space
    holds exactly the camels its own runs read, two reads (the runs and the game) agreeing.
    Strong reads only: a wrong read elsewhere (a phantom white under blue) would otherwise
    take its colour from this space's candidates and make a second wrong read."""
    r = out[s]
    if not r.bands_read or sorted(r.bands_read) != sorted(missing):
        return False
    return _others_strong(out, fits, {s})


def _camel_in_unread_band(
    out: dict[int, SpaceReading],
    s: int,
    missing: list[str],
    fits: Callable[[int, list[str]], float | None],
    max_stack: int,
) -> list[str] | None:
    """The stack of the lone unsure space ``s`` when its only doubt is one unread band (under
    its lowest camel or between two, ``unread_at``) and the game leaves exactly one camel
    for it: the camels its runs read, with that one in the unread band. None when not so.

    Why: a camel squeezed between two others, set back or in their shade, shows a sliver of
    its side that neither its mean colour nor its pieces name, and the stack abstained ("an
    unreadable band between two camels"; tuning scenes: most were stacks of four or five);
    so did a bottom camel in the shade of the one above ("a camel unread below?"). The runs
    read every other band, the unread one had room for one camel (a gap whose neighbours'
    bands start more than a band and a third apart; a lowest band starting high) and nothing
    else in the column was in doubt. With every other space read, strongly (``_strong``),
    and one camel seen nowhere, that camel stands on this space, and the only place the
    column leaves for it is that band. The band model is not asked: it is what fails there."""
    r = out[s]
    if r.unread_at is None or not r.bands_read or len(r.bands_read) >= max_stack:
        return None
    extra = [c for c in missing if c not in r.bands_read]
    if len(extra) != 1 or not set(r.bands_read) <= set(missing):
        return None
    if not _others_strong(out, fits, {s}):
        return None
    k = r.unread_at
    return [*r.bands_read[:k], *extra, *r.bands_read[k:]]


def _the_one_camel_left(
    out: dict[int, SpaceReading],
    s: int,
    missing: list[str],
    fits: Callable[[int, list[str]], float | None],
) -> bool:
    """Whether the lone unsure space ``s`` holds just the one camel seen nowhere else: every
    other space's read is strong (``_strong``) and the space's own runs saw that camel's
    colour (``runs_seen``), whatever its doubt.

    Why: a lone yellow camel whose top band ran on into something yellow behind it abstained
    ("a sleeve?"), as did a stack whose runs read a camel of the stack in front as well (its
    base "hidden by the stack" there, or "below the space's front"): not resolvable, the band
    model was not asked. But with every other camel read elsewhere, strongly, the game leaves
    this space exactly that one camel, and its own runs saw it here: two reads agreeing. A
    space whose runs saw no camel (a hand the sand's colour, a tile's colour) is not read so:
    the camel may have been lost from a stack read elsewhere. Nor one whose runs saw another
    colour start within ``camel_reach`` above that camel, where its top face would show: a
    camel standing on it, which the read of another space claimed wrongly (a stack behind,
    seen over a lone camel, starts above its top face). Colours seen above it further up,
    or below it (the stack in front), are other spaces' camels."""
    r = out[s]
    if len(missing) != 1:
        return False
    starts = [st for c, st in r.runs_seen if c == missing[0]]
    if not starts:
        return False
    low = min(starts)
    if any(c != missing[0] and low < st < low + r.camel_reach for c, st in r.runs_seen):
        return False
    return _others_strong(out, fits, {s})


def _runs_and_the_game(
    out: dict[int, SpaceReading],
    s: int,
    missing: list[str],
    fits: Callable[[int, list[str]], float | None],
    max_stack: int,
) -> list[str] | None:
    """The stack of the lone unsure space ``s`` from the camels its runs read (``runs_seen``,
    bottom to top), when the game leaves it exactly those, or those and one more where the
    column says one band is unread (``unread_at``); None when not so, or when another
    space's read is not strong (``_strong``).

    Why: a stack whose bands were read but for a doubt (a sliver between two camels, a
    bottom camel in shade) and that then failed a check of its bands' heights keeps no
    ``bands_read``; and the band model, which seldom confirms a shaded white or a sliver,
    fitted no one ordering of the colours the game leaves it. But those colours must all be
    on this space, and its runs saw each of them, each a band at its own height: the order
    is the one the frame shows. With one colour more than the runs saw, it goes in the one
    band the column leaves for it: a doubt that placed one unread band in a stack standing
    just one camel taller than its runs read (vision.track). A stack whose doubt placed an
    unread band while the game leaves no camel for it contradicts the one or the other, and
    is left. The runs' lowest camels read on other spaces are the stack in front's, seen
    over this base (each camel exists once); a colour taken for a camel in front that no
    other space holds is this stack's bottom camel (``front_colour``). Asked only when the
    band model does not find exactly one ordering, and kept only when it finds none or
    this one among several. Tuning scenes: a white in shade above orange, a yellow between
    blue and green, a bottom white under blue, a green under yellow taken for one in front."""
    r = out[s]
    runs = _own_runs(r, missing, front=True)
    if runs is None:
        return None
    # one camel more where the column says one is unread (``unread_at``), else none: a stack
    # whose doubt placed an unread band with no camel left for it contradicts the game
    extra = [c for c in missing if c not in runs]
    if len(extra) != int(r.unread_at is not None) or len(runs) + len(extra) > max_stack:
        return None
    if not _others_strong(out, fits, {s}):
        return None
    k = len(runs) if r.unread_at is None else r.unread_at
    return [*runs[:k], *extra, *runs[k:]]


def _own_runs(r: SpaceReading, missing: list[str], front: bool) -> list[str] | None:
    """The camels an abstaining stack's runs read (``runs_seen``, bottom to top), as its own:
    the lowest ones read on other spaces left out (the stack in front's, seen over this
    base; each camel exists once), and with ``front`` a colour taken for a camel in front
    that no other space holds put under them (``front_colour``: this stack's bottom camel).
    None when the stack is not about its own bands, its runs read nothing, a colour twice,
    or a colour read on another space above its lowest own camel, or one of its bands stood
    two camels high (``tall_band``: tuning scene 1,680,195 re-mounted, a white camel unread
    between blue and orange whose band was read three high, and a marker card's white
    border behind the stack read on top, in white's place)."""
    if not r.resolvable or not r.runs_seen or r.tall_band:
        return None
    runs = [c for c, _ in sorted(r.runs_seen, key=lambda cs: cs[1])]
    if front and r.front_colour in missing and r.front_colour not in runs:
        # the camel taken for one in front stands on no other space: it is this stack's
        # bottom camel, whose band the camel above it, leaning forward, leaves short
        runs = [r.front_colour, *runs]
    while runs and runs[0] not in missing:
        # a camel read on another space at the base: the stack in front's, seen over it
        runs = runs[1:]
    if not runs or len(set(runs)) != len(runs) or not set(runs) <= set(missing):
        return None
    return runs


def _runs_pair(
    out: dict[int, SpaceReading],
    colours: list[str],
    fits: Callable[[int, list[str]], float | None],
) -> bool:
    """All five camels are on the track: with exactly two spaces unsure, both about their own
    bands and neither with a band its doubt placed (``unread_at``), each read as its own
    runs read it (``_own_runs``) when those split the colours seen nowhere else between the
    two exactly (each colour on one space, none left), every other read strong. True when
    it did.

    Why: two stacks abstained at once (a camel in front at one's base, a sliver in the
    other), and the band model, which seldom confirms a shaded white, fitted no one split;
    the lone-space rules wait for one unsure space. But the game leaves exactly those
    colours for the two, and each was seen in exactly one of the two columns, each a band
    at its own height: both reads agree with the game. A colour taken for a camel in front
    is not put under either stack here: that camel may be the other unsure space's."""
    unsure = [s for s, r in out.items() if r.uncertain]
    if len(unsure) != 2 or any(out[s].unread_at is not None for s in unsure):
        return False
    if all(TOP_WORD in (out[s].why or "") for s in unsure):
        # both stacks end in something of no colour, where a camel may stand unread: the
        # runs need not hold every camel of the two, and the split they make is not forced
        # (tuning scene 2,180,126 under a darker tone curve: the white camel on top of one
        # stack unread, and an unread mirage tile's white waves on the other space taken
        # for it). With one such stack the split stays (second-edition tuning scene
        # 2,191,122: both right)
        return False
    seen = {c for r in out.values() if not r.uncertain for c in r.camels}
    missing = [c for c in colours if c not in seen]
    own = [_own_runs(out[s], missing, front=False) for s in unsure]
    a, b = own
    if a is None or b is None or set(a) & set(b) or set(a) | set(b) != set(missing):
        return False
    if not _others_strong(out, fits, set(unsure)):
        return False
    why = "the camels seen nowhere else, split as the two unsure spaces' runs read them"
    for s, stack in zip(unsure, (a, b), strict=True):
        out[s] = SpaceReading(stack, 0.5, why=why, inferred=True)
    return True


def _no_camel_left(
    out: dict[int, SpaceReading],
    colours: list[str],
    fits: Callable[[int, list[str]], float | None],
) -> None:
    """Read as its runs read it each unsure space whose only doubt is a camel more, when the
    game leaves no camel for that doubt: every colour its runs did not read is read strongly
    (``_strong``) on another space, whatever other spaces are unsure.

    Why: ``_no_camel_more`` asks this of a lone unsure space only; a hand over other spaces
    (unsure, holding no camel the count leaves) kept a stack whose five bands, or four with
    the fifth read elsewhere, were all read from its runs abstaining for fear of a camel
    more ("an unreadable band between two camels" where a blend of two neighbours looked
    like no camel). The camels it may fear are all accounted for: each exists once. Not when
    another unsure space's runs read one of its colours too (two claims on one camel), nor
    for camels read above an unread base (``base_unread``): with a hand over another space,
    they may be that space's, seen past this one."""
    for s, r in list(out.items()):
        if not (r.uncertain and r.bands_read) or r.base_unread:
            continue
        mine = set(r.bands_read)
        certain = {c for o, q in out.items() if o != s and not q.uncertain for c in q.camels}
        strong = {
            c
            for o, q in out.items()
            if o != s and not q.uncertain and q.camels and _strong(q, partial(fits, o, q.camels))
            for c in q.camels
        }
        claimed = {c for o, q in out.items() if o != s and q.uncertain for c in q.bands_read}
        if mine & certain or mine & claimed or mine | strong != set(colours):
            continue
        why = "its bands as read: every other camel is read elsewhere"
        out[s] = SpaceReading(list(r.bands_read), 0.5, why=why, inferred=True)


def _splits(missing: list[str]) -> Iterator[tuple[list[str], list[str]]]:
    """Every way to put ``missing`` on two spaces, each at least one camel, in any order."""
    for k in range(1, len(missing)):
        for first in combinations(missing, k):
            rest = [c for c in missing if c not in first]
            for a in permutations(first):
                for b in permutations(rest):
                    yield list(a), list(b)


def _complete_pair(
    out: dict[int, SpaceReading],
    colours: list[str],
    fits: Callable[[int, list[str]], float | None],
    max_stack: int,
) -> bool:
    """All five camels are on the track: with exactly two spaces unsure, both about their own
    bands, the colours seen nowhere else are split between them. Each space's column alone
    may fit several stacks (which is why both abstained), but the split must fit both columns
    at once; it is made only when exactly one split does. True when it did.

    Why it is safe: every colour is placed exactly once, each column must show every band of
    its share in its colour (StackFit), and any second split that fits both refuses it."""
    unsure = [s for s, r in out.items() if r.uncertain]
    if len(unsure) != 2 or not all(out[s].resolvable for s in unsure):
        return False
    s1, s2 = unsure
    seen = {c for r in out.values() if not r.uncertain for c in r.camels}
    missing = [c for c in colours if c not in seen]
    if len(missing) < 2:
        return False
    fit1: dict[tuple[str, ...], bool] = {}
    fit2: dict[tuple[str, ...], bool] = {}
    found: list[tuple[list[str], list[str]]] = []
    for a, b in _splits(missing):
        if len(a) > max_stack or len(b) > max_stack:
            continue
        ka, kb = tuple(a), tuple(b)
        if ka not in fit1:
            fit1[ka] = fits(s1, a) is not None
        if not fit1[ka]:
            continue
        if kb not in fit2:
            fit2[kb] = fits(s2, b) is not None
        if fit2[kb]:
            found.append((a, b))
            if len(found) > 1:
                return False
    if len(found) != 1:
        return False
    why = "the camel colours seen nowhere else, split between two unsure spaces"
    out[s1] = SpaceReading(found[0][0], 0.5, why=why, inferred=True)
    out[s2] = SpaceReading(found[0][1], 0.5, why=why, inferred=True)
    return True


def _others_strong(
    out: dict[int, SpaceReading],
    fits: Callable[[int, list[str]], float | None],
    skip: set[int],
) -> bool:
    """Whether every space outside ``skip`` that holds camels is read strongly (``_strong``):
    what the rules of the game lean on before they complete the spaces in ``skip``."""
    return all(
        _strong(q, partial(fits, o, q.camels)) for o, q in out.items() if o not in skip and q.camels
    )


def _strong(r: SpaceReading, fit: Callable[[], float | None]) -> bool:
    """Whether a reading is strong enough for another space's read to lean on it.

    Strong: read from clear runs (confidence at least WEAK), or its stack fits its column's
    bands by the band model with STRONG_FIT times the margin a fit needs (two reads of the
    same pixels agree, by far). A read with a band far off a camel's height, or a gap filled
    from its mean colour, whose stack the band model does not find clearly is weak: the sand
    between a blue camel's legs, blurred with its shadow, averages white, and a run of it a
    third of a camel high was read as a white camel under the blue one (confidence 0.63)."""
    return r.confidence >= WEAK or _fits_strongly(fit)


def _empty_when_all_elsewhere(
    out: dict[int, SpaceReading],
    colours: list[str],
    fits: Callable[[int, list[str]], float | None] | None = None,
    track_length: int = 16,
) -> None:
    """Every camel is read, strongly, on some other space: an unsure space holds none.

    Why: a space abstains on what covers it (the back of the stack in front, whose colours
    reach over its base; a hand; the table seen behind it), but the game puts every camel on
    the track exactly once, so with all of them accounted for elsewhere the space is empty
    whatever covers it. Its pixels are not asked: this is the rule of the game, the way a
    person reads a space half hidden behind the stack in front. Only when nothing is unsure
    about those camels: a colour read twice has already made both spaces unsure, and a
    stack still being laid out is read with ``all_camels=False``. And only on strong reads
    (``_strong``; ``fits`` None: every read counts as strong): a wrong read elsewhere (a
    phantom white under blue) would make the space where that camel stands read empty, one
    wrong read made two.

    But a space whose own runs read it empty (``read_empty``: it abstains only because the
    sand round its base looks unlike the empty board, a shadow or a hand the sand's colour,
    or because its front line is hidden) is empty with every camel read elsewhere, weak reads
    included. Two reads agree there, its pixels and the game: for a camel to stand on it, a
    hand the sand's colour would have to hide it whole and another space read a phantom of
    its very colour. Tuning scenes: empty spaces in the shadow of a tall stack abstained
    while a stack elsewhere was read from the band model (confidence 0.5), all camels read.

    So is a space whose runs saw only camels read on the spaces beside it
    (``_neighbours_camels``), weak reads included: the pixels and the game agree again. What
    it saw is the stack beside it leaning over its base, or the top of a tall stack in front
    seen over it, and with that stack read there and every other camel read too, none is
    left for it. Tuning scenes 2,203,000..2,206,499: 8 such spaces, all empty, had abstained
    beside stacks read with uneven bands (confidence 0.6-0.65, below WEAK), as camels that
    lean are; none was made wrong."""
    # where each camel is read: its colours are the camels read on some space
    held = {c: s for s, r in out.items() if not r.uncertain for c in r.camels}
    seen = {
        c
        for s, r in out.items()
        if not r.uncertain and r.camels and (fits is None or _strong(r, partial(fits, s, r.camels)))
        for c in r.camels
    }
    if not set(colours) <= seen:
        if set(colours) <= held.keys():
            for s, r in list(out.items()):
                if r.uncertain and r.read_empty:
                    why = "its runs read no camel, and every camel is read on another space"
                    out[s] = SpaceReading([], 0.6, why=why, inferred=True)
                elif r.uncertain and _neighbours_camels(r, s, held, track_length):
                    why = "its runs saw only camels read beside it, and every camel is read"
                    out[s] = SpaceReading([], 0.6, why=why, inferred=True)
        return
    for s, r in list(out.items()):
        # a tile's colour there may be a tile not read: empty of camels, but the reading says
        # nothing of the desert for an unsure space, so it stays unsure, unless the tile
        # showed one side alone (``faint_tile``): the camels' colours over it are theirs
        if r.uncertain and TILE_WORD not in (r.why or ""):
            out[s] = SpaceReading(
                [], 0.6, why="every camel is read on another space", inferred=True
            )
        elif r.uncertain and r.faint_tile is not None:
            why = f"every camel is read on another space: the {r.faint_tile} tile, half hidden"
            out[s] = SpaceReading([], 0.6, why=why, inferred=True, faint_tile=r.faint_tile)


# The spaces along the track either side of a space whose stacks can reach over its base
# in the frame: the next ones, and the ones after them at the board's corners.
BESIDE = 2


def _neighbours_camels(r: SpaceReading, s: int, held: dict[str, int], n_spaces: int) -> bool:
    """Whether the unsure space ``s``'s runs saw camels (``runs_seen``) and every one of
    them is read (``held``: colour -> space) on a space at most BESIDE along the track from
    it (the track is a ring of ``n_spaces``), and its doubt is not about a desert tile."""
    if not r.runs_seen or TILE_WORD in (r.why or ""):
        return False
    for c, _ in r.runs_seen:
        if c not in held:
            return False
        step = abs(held[c] - s) % n_spaces
        if min(step, n_spaces - step) > BESIDE:
            return False
    return True


def resolve(
    spaces: dict[int, SpaceReading],
    colours: list[str],
    fits: Callable[[int, list[str]], float | None],
    decode: Callable[[int, list[str]], list[list[str]]] | None = None,
    *,
    no_camels: set[int] | frozenset[int] = frozenset(),
    max_stack: int = 5,
    all_camels: bool = True,
    peeks: Callable[[int, str], float] | None = None,
    track_length: int = 16,
) -> dict[int, SpaceReading]:
    """The readings after the camel rules (a new dict; the input is not changed).

    ``fits(space, stack)`` says whether the space's own pixels show ``stack`` (None: no);
    ``decode(space, free)`` lists every stack of the ``free`` colours its pixels show;
    ``no_camels``: spaces that cannot hold a camel (a desert tile lies there);
    ``peeks(space, colour)``: the share of the space's lowest camel-high box that shows the
    colour (``_peeking``); ``track_length``: the spaces in the track's ring (which spaces are
    beside which, ``_neighbours_camels``).

    Steps: a colour on two spaces makes both uncertain, unless the band model finds exactly
    one of the two reads clearly (``_duplicates``); then, while all five camels must be
    on the track, a space that fears only a camel more keeps its runs' camels when every
    other colour is read strongly elsewhere (``_no_camel_left``, again after the band
    model); a lone unsure space is completed (``_complete_lone``; as its runs read it
    when no camel is left for its doubt, ``_no_camel_more``); otherwise each unsure
    space whose bands were unread is decoded on its own from the colours no other space holds
    (each camel at most once), kept only when exactly one stack fits; then the lone-space rule
    again, and with two unsure spaces the split of the missing colours that alone fits both
    (``_complete_pair``); last, a camel seen nowhere while no space is unsure is put back
    where it alone fits. With every camel read elsewhere, an unsure space is empty
    (``_empty_when_all_elsewhere``): on strong reads, or on any when its runs saw no camel or
    only camels read beside it.
    """
    out = _resolve(spaces, colours, fits, decode, no_camels, max_stack, all_camels, peeks)
    if all_camels:
        _empty_when_all_elsewhere(out, colours, fits, track_length)
    return out


def _resolve(
    spaces: dict[int, SpaceReading],
    colours: list[str],
    fits: Callable[[int, list[str]], float | None],
    decode: Callable[[int, list[str]], list[list[str]]] | None,
    no_camels: set[int] | frozenset[int],
    max_stack: int,
    all_camels: bool,
    peeks: Callable[[int, str], float] | None = None,
) -> dict[int, SpaceReading]:
    out = dict(spaces)
    _duplicates(out, fits)
    if all_camels:
        _no_camel_left(out, colours, fits)
    if all_camels and _complete_lone(out, colours, fits, max_stack):
        return out
    if decode is not None:
        for s, r in list(out.items()):
            if not (r.uncertain and r.resolvable):
                continue
            held = {c for o, q in out.items() if o != s and not q.uncertain for c in q.camels}
            found = decode(s, [c for c in colours if c not in held])
            if len(found) == 1:
                out[s] = SpaceReading(found[0], 0.5, why="read from the band model")
        _duplicates(out, fits)
    if not all_camels:
        return out
    # a stack the band model found clearly accounts for its camels as well
    _no_camel_left(out, colours, fits)
    if _complete_lone(out, colours, fits, max_stack):
        return out
    if _complete_pair(out, colours, fits, max_stack) or _runs_pair(out, colours, fits):
        return out
    unsure = [s for s, r in out.items() if r.uncertain]
    seen = {c for r in out.values() if not r.uncertain for c in r.camels}
    missing = [c for c in colours if c not in seen]
    if unsure or not missing:
        return out
    # no space is unsure, yet a camel is seen nowhere: a stack lost it (a band read as its
    # neighbour's seam, or the lowest camel dark against its shadow)
    homes = []
    for s, r in out.items():
        if s in no_camels or len(r.camels) + len(missing) > max_stack:
            continue
        for st in _orderings(r.camels, missing):
            if fits(s, st) is not None:
                homes.append((s, st))
    if len(homes) == 1:
        s, st = homes[0]
        out[s] = SpaceReading(st, 0.5, why="a camel seen nowhere else fits here", inferred=True)
        return out
    where = {s for s, _ in homes}
    if not where and len(missing) == 1:
        # one camel fits nowhere: hidden whole (an upper camel set askew towards the camera
        # covers the one below it in a steep view). The frame contradicts the game, so no
        # stack it may be in is kept: every stack with room for it. Several camels missing at
        # once are a board still being laid out (or a test's partial position) far more often
        # than several hidden camels, and are left as read
        where = {
            s
            for s, r in out.items()
            if s not in no_camels and r.camels and len(r.camels) < max_stack
        }
    if peeks is not None and len(missing) == 1 and len(where) > 1:
        where = _peeking(out, where, missing[0], peeks)
    for s in where:
        out[s] = SpaceReading([], 0.0, True, f"{', '.join(missing)} not seen: may be here")
    return out


# The share of a stack's lowest camel-high box (``peeks``) that must show a camel seen nowhere
# else for that stack to hold it, and the most any other stack with room may show. Tuning
# scenes 2,183,000..2,183,999: where the lower camel peeked out beside the one over it, 4-12 %
# of its stack's box showed it, every other stack 0-1 %; a camel only a sliver of which shows
# (1 %) is left to the doubt.
PEEK_SHOWS = 0.03
PEEK_NONE = 0.01


def _peeking(
    out: dict[int, SpaceReading],
    where: set[int],
    colour: str,
    peeks: Callable[[int, str], float],
) -> set[int]:
    """Of the stacks a camel seen nowhere may hide under, the one it peeks out of.

    Why: an upper camel set askew covers most of the one below, but its paint often still
    shows beside it in the lowest camel-high box of the space, where no other stack shows that
    colour. When exactly one stack shows it there and none of the others does, the others keep
    their reads; a stack of one camel then holds this one under it (the top camel always
    shows, so there is no other place for it), and a taller stack stays in doubt (which band it
    is, the box does not say). Otherwise every stack stays in doubt."""
    shown = {s: peeks(s, colour) for s in where}
    holds = [s for s, v in shown.items() if v >= PEEK_SHOWS]
    if len(holds) != 1 or any(v > PEEK_NONE for s, v in shown.items() if s != holds[0]):
        return where
    s = holds[0]
    if len(out[s].camels) == 1:
        out[s] = SpaceReading(
            [colour, *out[s].camels],
            0.5,
            why=f"{colour}, seen nowhere else, shows under the camel here",
            inferred=True,
        )
        return set()
    return {s}
