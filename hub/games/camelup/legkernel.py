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

This module knows nothing about colours, JSON or the game engine: plain integer arrays in and
out. :mod:`hub.games.camelup.odds` wraps it.
"""

from __future__ import annotations

import threading
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
        return factorial(self.k) * 3**self.k


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
    return buf


def run_leg(start_keys: np.ndarray, k: int, tiles: np.ndarray | None = None) -> LegLeaves:
    """Roll out every sequence of the k dice left from a batch of start positions.

    start_keys: (5, B) int16 keys, the first k camels being those whose dice are left.
    tiles: per-space effects from :func:`tile_lookup`, or None for a track without tiles.
    """
    keys = np.ascontiguousarray(start_keys, dtype=KEY_DTYPE)
    batch = keys.shape[1]
    plan = tree_plan(k, batch)
    ended = (keys >> HEIGHT_BITS).max(axis=0) >= FINISH
    has_tiles = tiles is not None and bool(np.any(tiles))
    has_mirage = has_tiles and bool(np.any(tiles < 0))
    landings = np.zeros(TILE_SLOTS)
    last = len(plan.levels) - 1
    for depth, level in enumerate(plan.levels):
        # the mover of each (die, parent); in rows whose race is over a key above every camel,
        # so nobody moves and the fake space lies far past the finish (and past any tile)
        mover_key = np.where(ended, _NO_MOVER, keys.ravel()[level.mover_flat])  # (left, prow)
        pos = mover_key >> HEIGHT_BITS
        hi = keys >> HEIGHT_BITS
        # the unit: the camels on the mover's space at or above it (5, left, prow)
        movers = (hi[:, None, :] == pos) & (keys[:, None, :] >= mover_key)
        dest = pos + _FACE_COL  # (3, left, prow)
        if has_tiles:
            tile = tiles[dest]
            final = dest + tile
            hit = tile != 0
            if hit.any():  # each row of this level has probability batch / rows
                landings += np.bincount(dest[hit], minlength=TILE_SLOTS)[:TILE_SLOTS] * (
                    batch / level.rows
                )
        else:
            final = dest
        shape = (N_CAMELS, *final.shape)
        big = depth == last  # the leaves: big enough that fresh allocations page-fault
        at_final = np.equal(
            hi[:, None, None, :], final, out=scratch("at_final", shape, np.bool_) if big else None
        )  # (5, 3, left, prow)
        n_final = np.add.reduce(at_final.view(np.int8), axis=0, dtype=KEY_DTYPE)
        # on top: the unit's bottom goes to height n_final on the final space
        shift = (final << HEIGHT_BITS) - mover_key + n_final
        prod = scratch("prod", shape, KEY_DTYPE) if big else None
        out = scratch("leaves", shape, KEY_DTYPE) if big else None
        if has_mirage:
            # mirage landings are a minority of rows: correct just those, sparsely. The unit
            # goes under: its bottom to height 0 (not n_final) and the camels there up by its
            # size. Movers that bounce back onto their own space are in at_final too, so they
            # would be lifted with the others: take that off their shift first.
            hit_m = np.flatnonzero(tile < 0)
            parent = hit_m % movers[0].size  # (face, j, p) row -> its (j, p) unit
            unit = np.add.reduce(movers.reshape(N_CAMELS, -1)[:, parent].view(np.int8), axis=0)
            shift = shift.reshape(-1)
            shift[hit_m] -= n_final.reshape(-1)[hit_m] + unit * (
                final.reshape(-1)[hit_m] == pos.reshape(-1)[parent]
            )
            shift = shift.reshape(final.shape)
            prod = np.multiply(movers[:, None], shift, out=prod)
            new = np.add(keys[:, None, None, :], prod, out=out).reshape(N_CAMELS, -1)
            new[:, hit_m] += at_final.reshape(N_CAMELS, -1)[:, hit_m] * unit.astype(KEY_DTYPE)
        else:
            prod = np.multiply(movers[:, None], shift, out=prod)
            new = np.add(keys[:, None, None, :], prod, out=out)
        keys = new.reshape(N_CAMELS, -1)
        ended = (final >= FINISH).reshape(-1)
    return LegLeaves(keys=keys, ended=ended, landings=landings)


def ranks(keys: np.ndarray) -> np.ndarray:
    """Rank slot of every camel in every row (0 = leader): how many camels have a bigger key."""
    n = keys.shape[1]
    ahead = scratch("ahead", (N_CAMELS, N_CAMELS, n), np.bool_)
    np.greater(keys[:, None, :], keys[None, :, :], out=ahead)  # [j, i]: camel j ahead of i
    out = scratch("ranks", (N_CAMELS, n), np.int8)
    return np.add.reduce(ahead.view(np.int8), axis=0, dtype=np.int8, out=out)
