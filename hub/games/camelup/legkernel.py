"""The vectorised leg kernel: every remaining die order and face of a leg, level by level, in numpy.

A leg with k dice left has k! * 3^k equally likely roll sequences (29,160 for five dice). Instead
of recursing through them in Python (~50 ms), the kernel walks the tree of sequences one level at
a time: level L holds one row per sequence of length L (15, 180, 1,620, 9,720, 29,160 rows for a
fresh leg) and all rows of a level move their camel in a handful of whole-array operations.

State encoding (why it is cheap to move): each camel is one small integer
``key = space * 8 + height`` (height 0 = bottom of its stack). Larger key = further ahead, so the
ranking is simply the order of the keys. The camels carried by a mover are exactly those with the
same space and a key >= the mover's key, and moving a unit is adding one shift to their keys.
Keys are stored camel-major, shape ``(5, rows)``, so each per-row quantity broadcasts along rows.

Rows whose race has already ended (a unit reached space 17+) keep being expanded so that every
level stays a complete, equally weighted tree, but they move by 0 and carry nobody: a no-op.

The camel axis is permuted so the camels whose dice are still in the pyramid come first; then
the shape of the tree (which slot moves in which row, with which face, from which parent) depends
only on the number of dice left and is computed once per k and cached (:func:`tree_plan`).

:func:`run_leg_layouts` answers the advisor's question "what if my desert tile lay here?" for
every legal placement at once: it rolls out the tiles shared by all layouts once, spawns a
layout's copy of a sequence only where it first lands on that layout's own tile, and merges rows
that reach the same state by different die orders (integer weights keep it exact).

This module knows nothing about colours, JSON or the game engine: plain integer arrays in and
out. :mod:`hub.games.camelup.odds` wraps it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from math import factorial

import numpy as np

N_CAMELS = 5
FACES = (1, 2, 3)
FINISH = 17  # first space beyond the finish line: reaching it ends the race
HEIGHT_BITS = 3  # heights 0..4 fit in 3 bits
MAX_SPACE = 16 + 3  # furthest a unit can get: from 16 with a 3 (oasis tiles lie on 2..16)
TILE_SLOTS = 24  # spaces reported for landings; > MAX_SPACE + 1
KEY_DTYPE = np.int16
# mover key used in rows whose race is over: above every real key, so nobody moves; its fake
# space (4000) + 3 + 1 still indexes the tile lookup, and (space + 4) * 8 fits in int16
_NO_MOVER = np.int16(32000)
TILE_LOOKUP = (int(_NO_MOVER) >> HEIGHT_BITS) + 8


def encode_key(space: int, height: int) -> int:
    """One camel's key: space and height packed so that a bigger key is further ahead."""
    return (space << HEIGHT_BITS) | height


@dataclass(frozen=True)
class Level:
    """One level of the sequence tree: every parent row rolls each die left with each face.

    Child row ``(f * left + j) * parent_rows + p`` is parent p rolling its j-th remaining die with
    face f + 1, so a level is a (5, 3, left, parent_rows) block built by broadcasting the parent
    arrays: no gather, and the camels carried (which do not depend on the face) are found once
    per (die, parent) instead of once per child.
    """

    left: int  # dice left before this level's roll
    mover_flat: np.ndarray  # (left, parent_rows): mover camel * parent_rows + parent row
    rows: int  # child rows: 3 * left * parent_rows


@dataclass(frozen=True)
class TreePlan:
    """The shape of the tree for k dice left and a batch of B start positions (row = l*B + b)."""

    k: int
    batch: int
    levels: tuple[Level, ...]

    @property
    def leaves(self) -> int:
        """Sequences per start position: k! * 3^k."""
        return int(factorial(self.k) * 3**self.k)


def _single_tree(k: int) -> list[np.ndarray]:
    """Per level, the (left, parent_rows) mover slots, for one start position."""
    levels = []
    used = np.zeros((1, k), dtype=bool)  # which slots the sequence of each row already rolled
    for depth in range(k):
        left = k - depth
        parents = len(used)
        # the slots not yet rolled by each parent row, ascending, as (left, parents)
        free = np.nonzero(~used)[1].reshape(parents, left).T
        levels.append(free)
        # children (face, j, parent): each inherits its parent's used slots plus die j
        child_used = np.broadcast_to(used, (len(FACES), left, parents, k)).copy()
        child_used[:, np.arange(left)[:, None], np.arange(parents)[None, :], free] = True
        used = child_used.reshape(-1, k)
    return levels


@lru_cache(maxsize=16)
def tree_plan(k: int, batch: int = 1) -> TreePlan:
    """The cached tree for k dice left, replicated for a batch of start positions."""
    if not 0 <= k <= N_CAMELS:
        raise ValueError(f"k must be 0..{N_CAMELS}, not {k}")
    if batch < 1:
        raise ValueError("batch must be at least 1")
    out = []
    for free in _single_tree(k):
        left, parents = free.shape
        prow = parents * batch
        mover = np.repeat(free, batch, axis=1)  # parent row = l * batch + b
        flat = mover * prow + np.arange(prow)[None, :]
        out.append(Level(left=left, mover_flat=flat.astype(np.intp), rows=len(FACES) * left * prow))
    return TreePlan(k=k, batch=batch, levels=tuple(out))


def tile_lookup(desert: dict[int, int]) -> np.ndarray:
    """Per-space tile effect (+1 oasis, -1 mirage, 0 none) as a lookup array.

    It is long enough to be indexed by the fake spaces of rows whose race is over (see
    ``_NO_MOVER``), which read 0: no tile, no landing.
    """
    t = np.zeros(TILE_LOOKUP, dtype=KEY_DTYPE)
    for space, effect in desert.items():
        t[space] = effect
    return t


@dataclass
class LegLeaves:
    """Where every roll sequence of the leg ends.

    keys: (5, leaves) camel keys at leg end (or when the race ended), camel axis in plan order.
    ended: (leaves,) True where the race ended during the leg.
    landings: (TILE_SLOTS,) expected number of unit landings per tile space (for a batch, the
    sum over the batch).

    ``keys`` may live in this thread's scratch buffers: it is valid until the next
    :func:`run_leg` in the same thread (copy it to keep it).
    """

    keys: np.ndarray
    ended: np.ndarray
    landings: np.ndarray


_FACE_COL = np.array(FACES, dtype=KEY_DTYPE)[:, None, None]  # (3, 1, 1)
_scratch = threading.local()


def scratch(name: str, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """A reusable per-thread buffer.

    Why: arrays above glibc's mmap threshold (~128 KiB) come back from the kernel as fresh pages
    on every allocation, and the page faults cost more than the arithmetic on the big last level
    (measured: ~0.5 ms of a ~1 ms leg). Reusing buffers for the few largest arrays avoids that.
    """
    bufs = _scratch.__dict__.setdefault("bufs", {})
    buf = bufs.get(name)
    if buf is None or buf.shape != shape or buf.dtype != dtype:
        buf = np.empty(shape, dtype=dtype)
        bufs[name] = buf
    return buf  # type: ignore[no-any-return]


def drop_scratch() -> None:
    """Free this thread's scratch buffers: after building a table over every configuration
    they are sized for that build (megabytes), not for a position's rows."""
    _scratch.__dict__.pop("bufs", None)


@dataclass
class Moved:
    """One level's children: keys (5, rows) and ended (rows,) in child-row order, plus where each
    (face, die, parent) move landed before any tile (dest) and the tile it met there (tile; None
    on a track without tiles), both shaped (3, left, parent_rows)."""

    keys: np.ndarray
    ended: np.ndarray
    dest: np.ndarray
    tile: np.ndarray | None


def _level(
    keys: np.ndarray,
    ended: np.ndarray,
    mover_flat: np.ndarray,
    tile_at: Callable[[np.ndarray], np.ndarray] | None,
    has_mirage: bool,
    big: bool = False,
) -> Moved:
    """Every parent row rolls each of its dice left with each face (see :class:`Level`).

    tile_at maps the (3, left, prow) landing spaces to tile effects: one table for a plain leg,
    a per-row table for the rows of a batch of desert layouts (:func:`run_leg_layouts`).
    big: use this thread's scratch buffers (for the leaf level of :func:`run_leg` only).
    """
    # the mover of each (die, parent); in rows whose race is over a key above every camel,
    # so nobody moves and the fake space lies far past the finish (and past any tile)
    mover_key = np.where(ended, _NO_MOVER, keys.ravel()[mover_flat])  # (left, prow)
    pos = mover_key >> HEIGHT_BITS
    hi = keys >> HEIGHT_BITS
    # the unit: the camels on the mover's space at or above it (5, left, prow)
    movers = (hi[:, None, :] == pos) & (keys[:, None, :] >= mover_key)
    dest = pos + _FACE_COL  # (3, left, prow)
    if tile_at is not None:
        tile = tile_at(dest)
        final = dest + tile
    else:
        tile = None
        final = dest
    shape = (N_CAMELS, *final.shape)
    at_final = np.equal(
        hi[:, None, None, :], final, out=scratch("at_final", shape, np.bool_) if big else None
    )  # (5, 3, left, prow)
    n_final = at_final[0].astype(KEY_DTYPE)  # camel by camel: a reduce over axis 0 is slower
    for row in at_final[1:]:
        n_final += row
    # on top: the unit's bottom goes to height n_final on the final space
    shift = (final << HEIGHT_BITS) - mover_key + n_final
    prod = scratch("prod", shape, KEY_DTYPE) if big else None
    out = scratch("leaves", shape, KEY_DTYPE) if big else None
    if has_mirage and tile is not None:
        # a mirage sends the unit under the camels on the final space: its bottom goes to
        # height 0, not n_final, and the camels there go up by the unit's size. A unit that
        # bounces back onto its own space is in at_final too (it was there before the move), so
        # it would be lifted with the others: take that off its shift. Done densely: one more
        # multiply-add beats gathering the mirage rows (measured on the advisor's layouts).
        mirage = tile < 0
        unit = np.add.reduce(movers.view(np.int8), axis=0, dtype=KEY_DTYPE)  # (left, prow)
        shift += np.where(mirage, -(n_final + unit * (final == pos)), 0).astype(KEY_DTYPE)
        prod = np.multiply(movers[:, None], shift, out=prod)
        new = np.add(keys[:, None, None, :], prod, out=out)
        new += at_final * (unit * mirage).astype(KEY_DTYPE)
    else:
        prod = np.multiply(movers[:, None], shift, out=prod)
        new = np.add(keys[:, None, None, :], prod, out=out)
    return Moved(new.reshape(N_CAMELS, -1), (final >= FINISH).reshape(-1), dest, tile)


def run_leg(start_keys: np.ndarray, k: int, tiles: np.ndarray | None = None) -> LegLeaves:
    """Roll out every sequence of the k dice left from a batch of start positions.

    start_keys: (5, B) int16 keys, the first k camels being those whose dice are left.
    tiles: per-space effects from :func:`tile_lookup`, or None for a track without tiles.
    """
    keys = np.ascontiguousarray(start_keys, dtype=KEY_DTYPE)
    batch = keys.shape[1]
    plan = tree_plan(k, batch)
    ended = (keys >> HEIGHT_BITS).max(axis=0) >= FINISH
    tile_at = tiles.__getitem__ if tiles is not None and np.any(tiles) else None
    has_mirage = tiles is not None and bool(np.any(tiles < 0))
    landings = np.zeros(TILE_SLOTS)
    last = len(plan.levels) - 1
    for depth, level in enumerate(plan.levels):
        # big: the leaves, big enough that fresh allocations page-fault
        moved = _level(keys, ended, level.mover_flat, tile_at, has_mirage, big=depth == last)
        if moved.tile is not None:
            hit = moved.tile != 0
            if hit.any():  # each row of this level has probability batch / rows
                landings += np.bincount(moved.dest[hit], minlength=TILE_SLOTS)[:TILE_SLOTS] * (
                    batch / level.rows
                )
        keys, ended = moved.keys, moved.ended
    return LegLeaves(keys=keys, ended=ended, landings=landings)


@dataclass
class WeightedLeaves:
    """The distinct end states of a leg, each standing for ``weight`` of its ``sequences``
    equally likely roll sequences (:func:`run_leg_merged`).

    keys: (5, n) camel keys (plan order); ended: (n,) the race ended; weight: (n,) int64;
    landings: (TILE_SLOTS,) expected unit landings per tile space.
    """

    keys: np.ndarray
    ended: np.ndarray
    weight: np.ndarray
    sequences: int
    landings: np.ndarray
    last: LastDie | None = None  # rows whose last roll is left to the caller
    last_two: LastTwo | None = None  # rows whose last two rolls are left to the caller


@dataclass
class LastDie:
    """Rows with one die left whose last roll :func:`run_leg_table_last` left to its caller,
    each standing for ``weight`` sequences (one if None): none has ended, and no tile lies on
    the three spaces its mover can reach, so the last roll's outcome depends on the colour-free
    configuration and the mover alone (a table's job). keys: (5, n); mover: (n,) the camel
    (plan order) of the die left; weight: (n,) int64 or None."""

    keys: np.ndarray
    mover: np.ndarray
    weight: np.ndarray | None = None


@dataclass
class LastTwo:
    """Rows with two dice left that :func:`run_leg_table_last` left to its caller, each
    standing for its 18 sequences: none has ended, and no tile lies on a space either mover's
    unit can reach in the two rolls (its own roll from where it stands, or, sharing a space,
    carried one to three and rolling one to three on), so what follows depends on the
    colour-free configuration and the two movers alone. keys: (5, n); movers: (2, n) the
    camels (plan order) of the dice left."""

    keys: np.ndarray
    movers: np.ndarray


def run_leg_merged(
    start_keys: np.ndarray, k: int, tiles: np.ndarray | None = None
) -> WeightedLeaves:
    """Every sequence of the k dice left from one start position, as its distinct end states.

    The same roll-out as :func:`run_leg`, but after each level the rows that reached the same
    state (camel keys and dice rolled) by different die orders are merged into one with an
    integer weight, since their futures are the same: a fresh leg's 9,720 rows with one die
    left are typically 700-2,500 states, so the last level and every lookup on the leaves
    (ranks, the race table) run on about a tenth of the 29,160 leaves. Weights are integers, so
    every count is as exact as :func:`run_leg`'s.
    """
    keys = np.ascontiguousarray(start_keys, dtype=KEY_DTYPE)
    if keys.shape[1] != 1:
        raise ValueError("run_leg_merged takes a single start position")
    tile_at = tiles.__getitem__ if tiles is not None and np.any(tiles) else None
    has_mirage = tiles is not None and bool(np.any(tiles < 0))
    zero = np.zeros(1, dtype=np.int64)
    rows = _Rows(
        keys,
        (keys >> HEIGHT_BITS).max(axis=0) >= FINISH,
        np.zeros(1, np.uint8),
        np.ones(1, dtype=np.int64),
        zero,
    )
    landings = np.zeros(TILE_SLOTS)
    sequences = 1
    for left in range(k, 0, -1):
        sequences *= left * len(FACES)
        moved, used, weight = rows.expand(left, tile_at, has_mirage)
        if moved.tile is not None:
            hit = np.flatnonzero(moved.tile)
            if hit.size:
                dest = moved.dest.reshape(-1)[hit]
                # times 1 / sequences, as run_leg_layouts sums them: the same floats
                landings += _weighted_count(dest, weight[hit], TILE_SLOTS)[:TILE_SLOTS] * (
                    1 / sequences
                )
        rows = _Rows(moved.keys, moved.ended, used, weight, np.zeros(weight.size, np.int64))
        if left > 1:  # the leaves need no merging: they are only counted
            rows = rows.merged()
    return WeightedLeaves(rows.keys, rows.ended, rows.weight, sequences, landings)


def run_leg_table_last(
    start_keys: np.ndarray, k: int, tiles: np.ndarray | None = None
) -> WeightedLeaves:
    """:func:`run_leg` for one start position, but the last two rolls left to tables where they
    can be.

    The first k - 2 levels are the fixed tree of :func:`run_leg` (1,620 rows with two dice left
    for a fresh leg, no sorting). Of those rows, the ones that have not ended and have no tile
    within their two movers' reach come back in ``last_two`` (:class:`LastTwo`) for the caller
    to finish by :func:`racetable.last_two_table`; a row whose race is over is its own leaf for
    all 18 sequences (weight 18); the others (near a tile) roll one die here. Of the rows with
    one die left, those that have not ended and have no tile in their mover's reach come back in
    ``last`` (:class:`LastDie`) for :func:`racetable.last_die_table`; only the rows whose last
    roll can meet a tile are rolled here (weight 1 per leaf; an ended row is one leaf of weight
    3). A fresh leg's 9,720-row level, and every lookup on its 29,160 leaves, shrink to the few
    rows near a tile.
    """
    keys = np.ascontiguousarray(start_keys, dtype=KEY_DTYPE)
    if keys.shape[1] != 1:
        raise ValueError("run_leg_table_last takes a single start position")
    plan = tree_plan(k, 1)
    ended = (keys >> HEIGHT_BITS).max(axis=0) >= FINISH
    tile_at = tiles.__getitem__ if tiles is not None and np.any(tiles) else None
    has_mirage = tiles is not None and bool(np.any(tiles < 0))
    landings = np.zeros(TILE_SLOTS)
    if k == 0:
        return WeightedLeaves(keys, ended, np.ones(1, dtype=np.int64), 1, landings)

    def count(moved: Moved, rows: int, weight: np.ndarray | None = None) -> None:
        """Add a level's tile landings; each of its ``rows`` rows has probability 1 / rows (as
        in run_leg), and a merged row stands for ``weight`` of them (integer sums: the same
        floats)."""
        if moved.tile is not None:
            hit = moved.tile.reshape(-1) != 0
            if hit.any():
                dest = moved.dest.reshape(-1)[hit]
                if weight is None:
                    n_hit = np.bincount(dest, minlength=TILE_SLOTS)
                else:
                    n_hit = _weighted_count(dest, weight[hit], TILE_SLOTS)
                landings[:] += n_hit[:TILE_SLOTS] * (1 / rows)

    for level in plan.levels[: max(k - 2, 0)]:
        moved = _level(keys, ended, level.mover_flat, tile_at, has_mirage)
        count(moved, level.rows)
        keys, ended = moved.keys, moved.ended
    leaves = _LeafParts()
    last_two = None
    if k >= 2:  # the rows with two dice left: by table, over, or one die rolled here
        level = plan.levels[-2]
        n = keys.shape[1]
        movers = level.mover_flat // n  # (2, n): the two camels whose dice are left, per row
        by_table = ~ended
        if tiles is not None and tile_at is not None:
            pos = keys[movers, np.arange(n)] >> HEIGHT_BITS
            for face in FACES:  # either unit's own roll, from where it stands
                by_table &= (tiles[pos[0] + face] == 0) & (tiles[pos[1] + face] == 0)
            for reach in (4, 5, 6):  # one unit on the same space carries the other, which rolls
                by_table &= (pos[0] != pos[1]) | (tiles[pos[0] + reach] == 0)
        over = np.flatnonzero(ended)
        if over.size:  # a row whose race is over is one leaf for its 18 sequences
            leaves.add(np.take(keys, over, axis=1), True, 2 * len(FACES) ** 2)
        if by_table.all():
            return leaves.result(plan, landings, None, LastTwo(keys, movers))
        last_two = LastTwo(np.compress(by_table, keys, axis=1), np.compress(by_table, movers, 1))
        near = np.flatnonzero(~by_table & ~ended)
        if not near.size:
            return leaves.result(plan, landings, None, last_two)
        # rows reached by different die orders have the same future: merged, with a weight
        near_keys, sub, near_weight = _merge_near(np.take(keys, near, axis=1), movers[:, near])
        m = near_weight.size
        moved = _level(
            near_keys, np.zeros(m, dtype=bool), sub * m + np.arange(m), tile_at, has_mirage
        )
        weight = np.tile(near_weight, 2 * len(FACES))
        count(moved, level.rows, weight)
        # child (face, j, row) rolled die j of its row: the other one is left
        mover = np.tile(sub[::-1].ravel(), len(FACES))
        keys, ended = moved.keys, moved.ended
    else:
        mover = plan.levels[-1].mover_flat[0]  # one row, one die left
        weight = np.ones(1, dtype=np.int64)
    n = keys.shape[1]
    by_table = ~ended
    if tiles is not None and tile_at is not None:
        pos1 = keys[mover, np.arange(n)] >> HEIGHT_BITS
        for face in FACES:  # a reachable tile makes the last roll depend on more than the camels
            by_table &= tiles[np.minimum(pos1 + face, TILE_LOOKUP - 1)] == 0
    # a row whose race is over stays as it is for its three faces: one leaf of weight 3
    over = np.flatnonzero(ended)
    if over.size:
        leaves.add(np.take(keys, over, axis=1), True, weight[over] * len(FACES))
    rolled = np.flatnonzero(~by_table & ~ended)
    m = rolled.size
    if m:
        sub_mover = (mover[rolled] * m + np.arange(m))[None, :]
        moved = _level(np.take(keys, rolled, axis=1), ended[rolled], sub_mover, tile_at, has_mirage)
        rolled_weight = np.tile(weight[rolled], len(FACES))
        count(moved, plan.levels[-1].rows, rolled_weight)
        leaves.add(moved.keys, moved.ended, rolled_weight)
    table = LastDie(np.compress(by_table, keys, axis=1), mover[by_table], weight[by_table])
    return leaves.result(plan, landings, table, last_two)


class _LeafParts:
    """The leaves :func:`run_leg_table_last` collects, part by part, as one WeightedLeaves."""

    def __init__(self) -> None:
        self.keys: list[np.ndarray] = []
        self.ended: list[np.ndarray] = []
        self.weight: list[np.ndarray] = []

    def add(self, keys: np.ndarray, ended: np.ndarray | bool, weight: np.ndarray | int) -> None:
        n = keys.shape[1]
        self.keys.append(keys)
        self.ended.append(np.broadcast_to(ended, (n,)))
        self.weight.append(np.broadcast_to(np.asarray(weight, dtype=np.int64), (n,)))

    def result(
        self,
        plan: TreePlan,
        landings: np.ndarray,
        last: LastDie | None,
        last_two: LastTwo | None,
    ) -> WeightedLeaves:
        if not self.keys:
            self.add(np.zeros((N_CAMELS, 0), dtype=KEY_DTYPE), False, 0)
        return WeightedLeaves(
            np.concatenate(self.keys, axis=1),
            np.concatenate(self.ended),
            np.concatenate(self.weight),
            plan.levels[-1].rows,
            landings,
            last,
            last_two,
        )


def _merge_near(keys: np.ndarray, movers: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows with two dice left (keys (5, n), their movers (2, n) ascending, none ended) merged
    where keys and movers are equal: the distinct rows, their movers and their integer weights.
    A fresh leg's rows near a tile merge about three to one, and everything after this (a roll,
    the last-die lookups, the leaves) scales with them."""
    packed = movers[0] << 3
    packed |= movers[1]
    for row in keys:  # keys are below 256: 8 bits each, 46 bits in all
        packed <<= 8
        packed |= row
    order = np.argsort(packed)
    ordered = packed[order]
    new = np.empty(packed.size, dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    keep = order[new]
    weight = np.bincount(np.cumsum(new) - 1, minlength=keep.size).astype(np.int64)
    return np.take(keys, keep, axis=1), np.take(movers, keep, axis=1), weight


def _children_used(used: np.ndarray, free: np.ndarray) -> np.ndarray:
    """Child rows (face, j, parent) inherit their parent's rolled dice plus die ``free[j, p]``."""
    child = used[None, :] | (np.uint8(1) << free.astype(np.uint8))  # (left, parents)
    return np.tile(child.ravel(), len(FACES))


@dataclass
class LayoutOdds:
    """Leg figures of one start position under L desert layouts, as exact integer counts.

    first, second: (L, 5) sequences in which each camel (plan order) ends first / second;
    ended: (L,) sequences in which the race ends; sequences: the count they are out of.
    landings: (L, TILE_SLOTS) expected unit landings per space holding one of the layout's tiles.
    race: (L, 5) complex, when asked for: the sum over sequences of the race table's
    P(win) + 1j * P(lose) of the configuration each ends in (divide by ``sequences``).
    """

    first: np.ndarray
    second: np.ndarray
    ended: np.ndarray
    sequences: int
    landings: np.ndarray
    race: np.ndarray | None = None


def _top_two(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The camel (plan order) ending first and second in every row: the two biggest keys.

    Keys are distinct and below 2^12, so key * 8 + camel fits int16 and each maximum carries
    its camel; a running (best, runner-up) over the 5 camel rows is ~14 contiguous passes
    (an argmax over axis 0, or masking out the best, is several times slower).
    """
    rows = [(keys[i] << 3) | i for i in range(N_CAMELS)]
    best = np.maximum(rows[0], rows[1])
    runner = np.minimum(rows[0], rows[1])
    for row in rows[2:]:
        np.maximum(runner, np.minimum(best, row), out=runner)
        np.maximum(best, row, out=best)
    return best & 7, runner & 7


def _land_on_tile(keys: np.ndarray, space: np.ndarray, effect: np.ndarray) -> np.ndarray:
    """Keys after the unit that just landed alone on ``space`` meets a tile there.

    Only for an empty space that has just been reached (see :func:`run_leg_layouts`): the camels
    on ``space`` are exactly the unit, at heights 0..u-1. Oasis: one on, on top of the camels
    there. Mirage: one back, under the camels there (which go up by the unit's size u).
    """
    space = space.astype(KEY_DTYPE)
    effect = effect.astype(KEY_DTYPE)
    hi = keys >> HEIGHT_BITS
    unit = hi == space
    target = hi == space + effect
    u = np.add.reduce(unit.view(np.int8), axis=0, dtype=KEY_DTYPE)
    n_target = np.add.reduce(target.view(np.int8), axis=0, dtype=KEY_DTYPE)
    oasis = effect > 0
    # oasis: the unit one space on, its bottom at height n_target; mirage: one space back, the
    # unit's bottom at height 0 (where it is now) and the camels there lifted by u
    unit_shift = np.where(oasis, (1 << HEIGHT_BITS) + n_target, -(1 << HEIGHT_BITS))
    lift = np.where(oasis, 0, u)
    return keys + unit * unit_shift.astype(KEY_DTYPE) + target * lift.astype(KEY_DTYPE)  # type: ignore[no-any-return]


@dataclass
class _Rows:
    """Distinct states of one level, each standing for ``weight`` equally likely sequences.

    keys (5, n); ended (n,); used (n,) bit mask of the dice rolled; weight (n,) int64;
    tag (n,) int64: for the base tree the mask of extra spaces landed on, for layout copies the
    layout index. Rows with equal keys, used and tag have the same future, so they are merged.
    """

    keys: np.ndarray
    ended: np.ndarray
    used: np.ndarray
    weight: np.ndarray
    tag: np.ndarray

    def expand(
        self, left: int, tile_at: Callable[[np.ndarray], np.ndarray] | None, mirage: bool
    ) -> tuple[Moved, np.ndarray, np.ndarray]:
        """Every row rolls each of its ``left`` dice with each face: the move, and per child
        (in child order) the dice rolled and the weight."""
        n = self.weight.size
        free = _free_table(self.used, left)
        moved = _level(self.keys, self.ended, free * n + np.arange(n), tile_at, mirage)
        return moved, _children_used(self.used, free), np.tile(self.weight, len(FACES) * left)

    def merged(self) -> _Rows:
        """The same rows with duplicates merged (weights added): a level-by-level DP."""
        if self.weight.size < MERGE_FROM:
            return self
        packed = self.tag << 5
        packed |= self.used
        for row in self.keys:  # keys are below 256: 8 bits each, 40 in all
            packed <<= 8  # in place: no int64 temporaries
            packed |= row
        order = np.argsort(packed)
        ordered = packed[order]
        new = np.empty(packed.size, dtype=bool)
        new[0] = False
        np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
        starts = np.flatnonzero(new)
        if starts.size == packed.size - 1:
            return self
        keep = order[np.concatenate(([0], starts))]  # any row of a group stands for it
        group = np.cumsum(new)
        weight = np.bincount(group, weights=self.weight[order], minlength=keep.size)
        return _Rows(
            np.take(self.keys, keep, axis=1),  # C order: a [:, keep] result is F order
            self.ended[keep],
            self.used[keep],
            weight.astype(np.int64),
            self.tag[keep],
        )


MERGE_FROM = 64  # rows: below this a sort costs more than the duplicates it saves (measured)


def _free_table(used: np.ndarray, left: int) -> np.ndarray:
    """(left, n): the dice each row has not rolled yet, ascending, from its bit mask.

    C-contiguous on purpose: a transposed view makes every array derived from it F-ordered, and
    the level's broadcasts then run ~3x slower (measured).
    """
    return np.ascontiguousarray(_FREE_T[:left, used])


def _free_lookup() -> np.ndarray:
    table = np.zeros((1 << N_CAMELS, N_CAMELS), dtype=np.intp)
    for mask in range(1 << N_CAMELS):
        free = [i for i in range(N_CAMELS) if not mask >> i & 1]
        table[mask, : len(free)] = free
    return table


_FREE_T = np.ascontiguousarray(_free_lookup().T)  # (5, 32): slot j of each mask


def _weighted_count(index: np.ndarray, weight: np.ndarray, size: int) -> np.ndarray:
    """Exact integer sums of weights per index (bincount sums in float64: exact below 2^53)."""
    return np.bincount(index, weights=weight, minlength=size).astype(np.int64)


def run_leg_layouts(
    start_keys: np.ndarray,
    k: int,
    base: dict[int, int],
    extras: list[dict[int, int]],
    leaf_values: Callable[[np.ndarray], np.ndarray] | None = None,
    race_layouts: np.ndarray | None = None,
) -> LayoutOdds:
    """Exact leg odds of one start position under many desert layouts, in one pass.

    Layout i is the tiles ``base`` plus ``extras[i]`` (spaces disjoint from base; every layout
    legal: no tile under a camel, none adjacent). Why it is cheap:

    * A tile changes nothing until a unit lands on it, and a space holding no tile can only be
      reached by landing on it (a tile next door would be adjacent). So a sequence of layout i
      follows the *base* tree exactly until its first landing on one of extras[i]. The base tree
      is rolled out once, each row carrying a bit mask of the extra spaces it landed on; where a
      base move first lands on a space of extras[i] (empty until then, so the unit is all that
      stands there), a layout-i copy is spawned with the tile's effect applied. The copies of all
      layouts roll on together as one batch, each row reading its own layout's tile table.
      Layout i counts the base leaves whose mask misses extras[i], plus its own copies; so a
      layout costs only the share of sequences that land on its tile (unreachable: nothing).
    * Sequences that reach the same state (camel keys, dice rolled, mask or layout) by different
      die orders have the same future: after each level such rows are merged, with an integer
      weight (a fresh leg's 29,160 sequences end in ~4,000 states).

    All counts stay integers (weights), summed level by level like :func:`run_leg`'s landings,
    so the figures equal one :func:`run_leg` per layout exactly.

    leaf_values: maps leaf keys (5, n) to per-camel complex values (5, n), the race table's
    P(win) + 1j * P(lose) (:func:`racetable.race_values`, passed in because this module knows
    no tables); with it, each layout's values are summed over its leaves the same way (``race``).
    race_layouts: (L,) bool, the layouts that need them (default all): the others' rows of
    ``race`` are NaN, and their own copies are never looked up.
    """
    keys = np.ascontiguousarray(start_keys, dtype=KEY_DTYPE)
    if keys.shape[1] != 1:
        raise ValueError("run_leg_layouts takes a single start position")
    n_layouts = len(extras)
    tiles = tile_lookup(base)
    table = np.repeat(tiles[None, :], n_layouts, axis=0)  # (L, TILE_LOOKUP)
    masks = np.zeros(n_layouts, dtype=np.int64)
    layouts_on: dict[int, list[int]] = {}  # extra space -> the layouts having a tile there
    for i, extra in enumerate(extras):
        for space, effect in extra.items():
            if space in base or not 2 <= space < FINISH:
                raise ValueError(f"extra tile space {space} is off the track or in the base")
            table[i, space] = effect
            masks[i] |= 1 << space
            layouts_on.setdefault(space, []).append(i)
    bit_of = np.zeros(TILE_LOOKUP, dtype=np.int64)  # landing space -> its bit if some extra
    width = max((len(v) for v in layouts_on.values()), default=1)
    candidates = np.full((FINISH, width), n_layouts, dtype=np.intp)  # n_layouts: padding
    for space, lays in layouts_on.items():
        bit_of[space] = 1 << space
        candidates[space, : len(lays)] = lays
    masks_pad = np.append(masks, 0)
    flat_table = table.reshape(-1)
    base_at = tiles.__getitem__ if np.any(tiles) else None
    base_mirage = bool(np.any(tiles < 0))
    has_mirage = bool(np.any(table < 0))

    one = np.ones(1, dtype=np.int64)
    zero = np.zeros(1, dtype=np.int64)
    tree = _Rows(
        keys, (keys >> HEIGHT_BITS).max(axis=0) >= FINISH, np.zeros(1, np.uint8), one, zero
    )
    copies = _Rows(
        np.zeros((N_CAMELS, 0), KEY_DTYPE),
        np.zeros(0, bool),
        np.zeros(0, np.uint8),
        np.zeros(0, np.int64),
        np.zeros(0, np.int64),
    )
    landings = np.zeros((n_layouts, TILE_SLOTS))
    slots = n_layouts * TILE_SLOTS
    for depth, left in enumerate(range(k, 0, -1)):
        rows = factorial(k) // factorial(left - 1) * 3 ** (depth + 1)  # sequences at this level
        counts = np.zeros(slots, dtype=np.int64)  # (layout, space) landings at this level
        # the base tree
        moved, used, weight = tree.expand(left, base_at, base_mirage)
        prior = np.tile(tree.tag, len(FACES) * left)  # parent's mask per child
        dest = moved.dest.reshape(-1)
        if moved.tile is not None:
            hit = np.flatnonzero(moved.tile)
            if hit.size:  # base landings, less those of sequences a layout left earlier
                w = weight[hit]
                counts += np.tile(_weighted_count(dest[hit], w, TILE_SLOTS)[:TILE_SLOTS], n_layouts)
                pairs, inv = np.unique(prior[hit] * TILE_SLOTS + dest[hit], return_inverse=True)
                pair_w = np.bincount(inv, weights=w)
                lay, pair = np.nonzero(masks[:, None] & (pairs // TILE_SLOTS)[None, :])
                counts -= _weighted_count(
                    lay * TILE_SLOTS + pairs[pair] % TILE_SLOTS, pair_w[pair], slots
                )
        new_bit = bit_of[dest]
        # first landings on an extra space: a copy for each layout with a tile there that this
        # sequence has not left yet
        first_hits = np.flatnonzero(new_bit & ~prior)
        spawned = []
        if first_hits.size:
            hit_space = dest[first_hits]
            cand = candidates[hit_space]  # (hits, width)
            ok = (masks_pad[cand] & prior[first_hits][:, None]) == 0
            ok &= cand < n_layouts
            which, col = np.nonzero(ok)
            lay = cand[which, col]
            row = first_hits[which]
            sp = hit_space[which]
            counts += _weighted_count(lay * TILE_SLOTS + sp, weight[row], slots)
            s_keys = _land_on_tile(np.take(moved.keys, row, axis=1), sp, table[lay, sp])
            spawned.append(
                _Rows(
                    s_keys,
                    (s_keys >> HEIGHT_BITS).max(axis=0) >= FINISH,
                    used[row],
                    weight[row],
                    lay.astype(np.int64),
                )
            )
        tree = _Rows(moved.keys, moved.ended, used, weight, prior | new_bit)
        # the copies roll on, each row reading its own layout's tiles
        if copies.weight.size:
            offset = copies.tag * TILE_LOOKUP

            def tile_at(d: np.ndarray, offset: np.ndarray = offset) -> np.ndarray:
                return flat_table[offset + d]  # type: ignore[no-any-return]

            m, c_used, c_weight = copies.expand(left, tile_at, has_mirage)
            c_lay = np.tile(copies.tag, len(FACES) * left)
            assert m.tile is not None
            hit = np.flatnonzero(m.tile)
            counts += _weighted_count(
                c_lay[hit] * TILE_SLOTS + m.dest.reshape(-1)[hit], c_weight[hit], slots
            )
            spawned.insert(0, _Rows(m.keys, m.ended, c_used, c_weight, c_lay))
        if spawned:
            copies = _Rows(
                *(
                    np.concatenate([getattr(r, f) for r in spawned], axis=-1)
                    for f in ("keys", "ended", "used", "weight", "tag")
                )
            )
        landings += counts.reshape(n_layouts, TILE_SLOTS) * (1 / rows)
        if left > 1:  # the leaves need no merging: they are only counted
            tree = tree.merged()
            copies = copies.merged()
    # leaves: the base ones a layout never left, plus that layout's own copies
    groups, inv = np.unique(tree.tag, return_inverse=True)
    gone = ((masks[:, None] & groups[None, :]) != 0).astype(np.int64)  # (L, groups)
    out = []
    for camel in _top_two(tree.keys):
        per_group = _weighted_count(inv * N_CAMELS + camel, tree.weight, groups.size * N_CAMELS)
        total = _weighted_count(camel, tree.weight, N_CAMELS)
        out.append(total[None, :] - gone @ per_group.reshape(groups.size, N_CAMELS))
    ended_w = tree.weight * tree.ended
    ended_n = int(ended_w.sum()) - gone @ _weighted_count(inv, ended_w, groups.size)
    if copies.weight.size:
        for i, camel in enumerate(_top_two(copies.keys)):
            out[i] += _weighted_count(
                copies.tag * N_CAMELS + camel, copies.weight, n_layouts * N_CAMELS
            ).reshape(n_layouts, N_CAMELS)
        ended_n += _weighted_count(copies.tag, copies.weight * copies.ended, n_layouts)
    race = None
    if leaf_values is not None:
        wanted = (
            np.ones(n_layouts, dtype=bool)
            if race_layouts is None
            else np.asarray(race_layouts, dtype=bool)
        )
        race = _layout_race(tree, inv, groups.size, gone, copies, wanted, leaf_values)
    return LayoutOdds(
        first=out[0],
        second=out[1],
        ended=ended_n,
        sequences=factorial(k) * 3**k,
        landings=landings,
        race=race,
    )


_CAMEL_COL = np.arange(N_CAMELS)[:, None]


def _weighted_race(
    rows: _Rows, group: np.ndarray, n_groups: int, leaf_values: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """(n_groups, 5) complex: the weighted sums of the rows' leaf values, per group."""
    values = leaf_values(rows.keys)  # (5, n) complex
    weight = rows.weight.astype(np.float64)  # exact: counts below 2^53
    cells = N_CAMELS * n_groups
    index = (group[None, :] * N_CAMELS + _CAMEL_COL).ravel()  # group-major: (groups, 5)
    # real and imaginary parts weighted apart: the same products as a complex multiply by a
    # real weight, without converting the weights to complex and multiplying four ways
    real = np.bincount(index, weights=(values.real * weight).ravel(), minlength=cells)
    imag = np.bincount(index, weights=(values.imag * weight).ravel(), minlength=cells)
    return (real + 1j * imag).reshape(n_groups, N_CAMELS)


def _layout_race(
    tree: _Rows,
    inv: np.ndarray,
    n_groups: int,
    gone: np.ndarray,
    copies: _Rows,
    wanted: np.ndarray,
    leaf_values: Callable[[np.ndarray], np.ndarray],
) -> np.ndarray:
    """Per wanted layout, the summed race values of its leaves: the base leaves it never left
    (all of them, less the groups of masks it left) plus its own copies; NaN for the others."""
    per_group = _weighted_race(tree, inv, n_groups, leaf_values)
    race = per_group.sum(axis=0)[None, :] - gone @ per_group
    if copies.weight.size:
        keep = wanted[copies.tag]
        if keep.any():
            rows = _Rows(
                np.compress(keep, copies.keys, axis=1),
                copies.ended[keep],
                copies.used[keep],
                copies.weight[keep],
                copies.tag[keep],
            )
            race = race + _weighted_race(rows, rows.tag, wanted.size, leaf_values)
    race[~wanted] = np.nan
    return race  # type: ignore[no-any-return]


def ranks(keys: np.ndarray, buffers: str = "") -> np.ndarray:
    """Rank slot of every camel in every row (0 = leader): how many camels have a bigger key.

    The result lives in this thread's scratch buffers named by ``buffers``: a caller ranking
    two sets of rows of different sizes in turn names one set apart, so neither reallocates."""
    n = keys.shape[1]
    ahead = scratch(f"ahead{buffers}", (N_CAMELS, N_CAMELS, n), np.bool_)
    np.greater(keys[:, None, :], keys[None, :, :], out=ahead)  # [j, i]: camel j ahead of i
    out = scratch(f"ranks{buffers}", (N_CAMELS, n), np.int8)
    return np.add.reduce(ahead.view(np.int8), axis=0, dtype=np.int8, out=out)
