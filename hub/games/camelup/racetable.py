"""The race table: P(win) and P(lose) per rank slot for every colour-free start-of-leg position.

Why a table: a future leg starts with all five dice in the pyramid and no desert tiles, so what
happens from then on depends only on where the camels stand, not on their colours. Listing the
camels from leader to last, their spaces form a non-increasing sequence of five spaces out of 16,
a multiset: C(20, 5) = 15,504 configurations (camels on one space stack in rank order, so the
sequence says everything). For each, the table holds the probability that the camel in each rank
slot wins or loses the race.

Index: the combinatorial number system. Slot r (0 = leader) on space s_r maps to
c_r = s_r - 1 + (4 - r), a strictly decreasing 5-combination of {0..19}, whose rank is
sum_r C(c_r, 5 - r). Because that is a sum over camels of a function of (space, slot), the kernel
computes it for thousands of rows with one lookup per camel (:data:`INDEX_LUT`).

Build: backward induction. Without tiles every camel moves at least one space per leg, so every
end-of-leg configuration of a leg started at position sum S has sum >= S + 5; filling the table in
order of decreasing sum, each leg (run by the vectorised leg kernel, batched over all
configurations of one sum) only looks up entries already known. Legs that end the race score the
known result directly. ``scripts/build_race_table.py`` (``make race-table``) writes
``data/race_table.npz``; :func:`load_table` reads it once, lazily.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, combinations_with_replacement
from math import comb
from pathlib import Path

import numpy as np

from .legkernel import (
    FACES,
    HEIGHT_BITS,
    N_CAMELS,
    TILE_SLOTS,
    drop_scratch,
    encode_key,
    ranks,
    run_leg,
    scratch,
)

SPACES = 16
N_CONFIGS = comb(SPACES + N_CAMELS - 1, N_CAMELS)  # 15,504
TABLE_PATH = Path(__file__).with_name("data") / "race_table.npz"
SLOT_MASK = ~((1 << HEIGHT_BITS) - 1)  # keys & SLOT_MASK = space * 8, room for a rank slot


def _index_lut() -> tuple[np.ndarray, int]:
    """LUT[space * 8 + slot] = 5 * C(space - 1 + 4 - slot, 5 - slot): summed over the five
    camels of a row, the flat offset (index * 5) of its configuration's row in the table.

    A camel past the finish line (only ever the top slots, the unit that crossed) adds ENDED * 5
    in slot 0 and nothing in the others, so a row whose race is over lands in the block of rows
    from ENDED on, all holding the known result (leader wins, last loses): no special case.
    """
    lut = np.zeros(TILE_SLOTS << HEIGHT_BITS, dtype=np.int32)
    for space in range(1, SPACES + 1):
        for slot in range(N_CAMELS):
            lut[(space << HEIGHT_BITS) + slot] = N_CAMELS * comb(space - 1 + 4 - slot, 5 - slot)
    for space in range(SPACES + 1, TILE_SLOTS):
        lut[space << HEIGHT_BITS] = N_CAMELS * N_CONFIGS
    span = sum(int(lut[(SPACES << HEIGHT_BITS) + slot]) for slot in range(1, N_CAMELS))
    return lut, span // N_CAMELS + 1


INDEX_LUT, _ENDED_SPAN = _index_lut()
ENDED = N_CONFIGS  # first of the rows holding "the race is over"
TABLE_ROWS = N_CONFIGS + _ENDED_SPAN


def config_index(spaces: tuple[int, ...] | list[int]) -> int:
    """Table index of a configuration given as five spaces, leader first (non-increasing)."""
    s = list(spaces)
    if len(s) != N_CAMELS or any(not 1 <= x <= SPACES for x in s) or s != sorted(s, reverse=True):
        raise ValueError(f"a configuration is five spaces 1..16, leader first, not {spaces!r}")
    return sum(comb(x - 1 + 4 - r, 5 - r) for r, x in enumerate(s))


def all_configs() -> Iterator[tuple[int, ...]]:
    """Every configuration, leader first."""
    yield from combinations_with_replacement(range(SPACES, 0, -1), N_CAMELS)


def config_keys(spaces: tuple[int, ...]) -> list[int]:
    """Kernel keys of a configuration's camels: camel i is rank slot i, stacked in rank order."""
    return [
        encode_key(s, sum(1 for r2 in range(r + 1, N_CAMELS) if spaces[r2] == s))
        for r, s in enumerate(spaces)
    ]


def race_values(keys: np.ndarray, rk: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Per camel and row, P(win) + 1j * P(lose) looked up for the end-of-leg keys.

    keys: (5, rows) kernel keys; rk: their rank slots (:func:`legkernel.ranks`); table: the flat
    complex table of :func:`load_table`. Win and lose share one complex gather (half the work).
    The result lives in this thread's scratch buffers (valid until the next call).
    """
    shape = keys.shape
    slot = (keys & SLOT_MASK) | rk  # space * 8 + rank slot, int16
    # mode="clip": numpy buffers `take` into `out` in its default bounds-checking mode
    parts = np.take(INDEX_LUT, slot, out=scratch("parts", shape, np.int32), mode="clip")
    index5 = np.add.reduce(parts, axis=0, out=scratch("index5", shape[1:], np.int32))
    flat = np.add(index5, rk, out=scratch("flat", shape, np.int32))
    return np.take(table, flat, out=scratch("values", shape, np.complex128), mode="clip")


def _complex_table(win: np.ndarray, lose: np.ndarray) -> np.ndarray:
    t = np.zeros((TABLE_ROWS, N_CAMELS), dtype=np.complex128)
    t[:N_CONFIGS] = win + 1j * lose
    t[ENDED:, 0] += 1.0
    t[ENDED:, N_CAMELS - 1] += 1j
    return t.ravel()


def build_table(
    batch: int = 48, progress: Callable[[int, int], None] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Compute the (N_CONFIGS, 5) win and lose tables by backward induction (see module doc)."""
    by_sum: dict[int, list[tuple[int, ...]]] = {}
    for c in all_configs():
        by_sum.setdefault(sum(c), []).append(c)
    nan = np.full((N_CONFIGS, N_CAMELS), np.nan)
    table = _complex_table(nan, nan)  # NaN until computed: a premature lookup would show
    done = 0
    for total in sorted(by_sum, reverse=True):
        group = by_sum[total]
        for start in range(0, len(group), batch):
            chunk = group[start : start + batch]
            b = len(chunk)
            start_keys = np.array([config_keys(c) for c in chunk], dtype=np.int16).T
            leaves = run_leg(start_keys, N_CAMELS)
            values = race_values(leaves.keys, ranks(leaves.keys), table)
            # rows are leaf-major, batch-minor: (5, leaves, b) -> mean over the leaves
            mean = values.reshape(N_CAMELS, -1, b).mean(axis=1)
            for j, c in enumerate(chunk):
                i = config_index(c)
                table[i * N_CAMELS : (i + 1) * N_CAMELS] = mean[:, j]
            done += b
            if progress is not None:
                progress(done, N_CONFIGS)
    t = table[: N_CONFIGS * N_CAMELS].reshape(N_CONFIGS, N_CAMELS)
    if np.isnan(t).any():
        raise RuntimeError("race table build looked up an entry before computing it")
    return t.real.copy(), t.imag.copy()


def save_table(win: np.ndarray, lose: np.ndarray, path: Path, build_seconds: float) -> None:
    """Write the table compressed, with the build time for the benchmark to report."""
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        path,
        win=win.astype(np.float64),
        lose=lose.astype(np.float64),
        build_seconds=np.float64(build_seconds),
        built=np.bytes_(time.strftime("%Y-%m-%dT%H:%M:%S")),
    )


class TableMissing(RuntimeError):
    """The shipped race table file is absent: run `make race-table`."""


@lru_cache(maxsize=1)
def load_table() -> np.ndarray:
    """The flat complex table (win + 1j * lose, TABLE_ROWS * 5), read from disk once."""
    if not TABLE_PATH.exists():
        raise TableMissing(f"race table {TABLE_PATH.name} is missing: run `make race-table`")
    with np.load(TABLE_PATH) as data:
        win, lose = data["win"], data["lose"]
    if win.shape != (N_CONFIGS, N_CAMELS) or lose.shape != (N_CONFIGS, N_CAMELS):
        raise TableMissing(f"race table {TABLE_PATH.name} has the wrong shape: rebuild it")
    return _complex_table(win, lose)


@dataclass(frozen=True)
class LastDieTable:
    """For every configuration and the rank slot of the one camel whose die is left: what the
    last roll of a leg gives, summed over its three faces, per rank slot of the camels before
    the roll. Valid when no tile lies within reach of the mover (the kernel checks that).

    Cell ``(config * 5 + mover slot) * 5 + slot``: race (cells,) complex, the race table's
    P(win) + 1j * P(lose) of that slot's camel summed over the faces; places (5, cells) int8,
    per place of the leg how many faces leave that slot's camel there. ended (config * 5 +
    mover slot,) int8: how many faces cross the line. Flat, so a lookup is one 1-D ``take``.
    """

    race: np.ndarray
    places: np.ndarray
    ended: np.ndarray


@lru_cache(maxsize=1)
def last_die_table(chunk: int = 2048) -> LastDieTable:
    """Built on first use from the race table (5 batched one-die legs over every
    configuration, ~0.1 s): the first edition's odds finish a leg's last roll by lookup
    instead of rolling its three faces and looking each up."""
    table = load_table()
    configs = list(all_configs())
    index = np.array([config_index(c) for c in configs])
    base = np.array([config_keys(c) for c in configs], dtype=np.int16).T  # (5, N): slot order
    n = len(configs)
    cells = N_CONFIGS * N_CAMELS * N_CAMELS
    race = np.zeros(cells, dtype=np.complex128)
    places = np.zeros((N_CAMELS, cells), dtype=np.int8)
    ended = np.zeros(N_CONFIGS * N_CAMELS, dtype=np.int8)
    for mover in range(N_CAMELS):
        perm = [mover] + [s for s in range(N_CAMELS) if s != mover]  # kernel camel j = slot perm[j]
        for start in range(0, n, chunk):  # in chunks: the kernel's buffers stay small
            sub = np.ascontiguousarray(base[perm, start : start + chunk])
            m = sub.shape[1]
            leaves = run_leg(sub, 1)  # rows face * m + config
            keys = leaves.keys.copy()
            rk = ranks(keys).copy()
            values = race_values(keys, rk, table).reshape(N_CAMELS, len(FACES), m).sum(axis=1)
            rows = index[start : start + m] * N_CAMELS + mover
            cell = rows[None, :] * N_CAMELS + np.array(perm)[:, None]  # (kernel camel, config)
            race[cell] = values
            for place in range(N_CAMELS):
                places[place, cell] = (rk == place).reshape(N_CAMELS, len(FACES), m).sum(axis=1)
            ended[rows] = leaves.ended.reshape(len(FACES), m).sum(axis=0)
    drop_scratch()  # sized for the build, not for a position's rows
    return LastDieTable(race, places, ended)


def last_die_rows(keys: np.ndarray, rk: np.ndarray, mover: np.ndarray) -> np.ndarray:
    """Rows of :func:`last_die_table` for kernel keys (5, n) with rank slots rk and the mover
    camel of each row."""
    slot = (keys & SLOT_MASK) | rk
    # 5 * C(...) per camel: summed, the index times 5 (scratch: no fresh pages per call)
    parts = np.take(INDEX_LUT, slot, out=scratch("last_parts", keys.shape, np.int32), mode="clip")
    rows = parts[0] + rk[mover, np.arange(keys.shape[1])]
    for part in parts[1:]:  # row by row: a sum over the short axis 0 is slower
        rows += part
    return rows  # type: ignore[no-any-return]


# The last two dice of a leg, by table.
#
# Why: with two dice left, a row's future (two dice in either order, three faces each: 18
# sequences) depends only on its colour-free configuration and the rank slots of the two camels
# whose dice are left, as long as no tile lies within their reach. A fresh leg has 1,620 such
# rows against 9,720 with one die left, so finishing the leg from there removes the kernel's
# biggest level and shrinks every lookup six-fold.

N_PAIRS = N_CAMELS * (N_CAMELS - 1) // 2  # unordered pairs of mover slots: 10


def _pair_lut() -> np.ndarray:
    """PAIR_INDEX[a * 5 + b]: the index 0..9 of the unordered pair of slots {a, b} (a != b)."""
    lut = np.zeros(N_CAMELS * N_CAMELS, dtype=np.int32)
    for i, (a, b) in enumerate(combinations(range(N_CAMELS), 2)):
        lut[a * N_CAMELS + b] = lut[b * N_CAMELS + a] = i
    return lut


PAIR_INDEX = _pair_lut()


@dataclass(frozen=True)
class LastTwoTable:
    """For every configuration and unordered pair of rank slots whose dice are left: what the
    leg's last two rolls give, summed over their 18 sequences, per rank slot of the camels
    before the rolls. Valid when no tile lies within the movers' reach (the kernel checks).

    Cell ``((config * 10 + pair) * 5 + slot)``: race (cells,) complex, the race table's
    P(win) + 1j * P(lose) of that slot's camel summed over the sequences; places (5, cells)
    int8, per place of the leg how many sequences leave that slot's camel there. ended
    (config * 10 + pair,) int8: how many sequences cross the line. About 16 MB in all.
    """

    race: np.ndarray
    places: np.ndarray
    ended: np.ndarray


@lru_cache(maxsize=1)
def last_two_table(chunk: int = 512) -> LastTwoTable:
    """Built on first use from the race table (two-dice legs over every configuration and pair
    of movers, in chunks of 512 configurations: a process peaks 2 MB above the table, against
    22 MB in chunks of 4,096; ~0.4 s here): the first edition's odds finish a
    leg's last two rolls by lookup."""
    table = load_table()
    configs = list(all_configs())
    index = np.array([config_index(c) for c in configs])
    base = np.array([config_keys(c) for c in configs], dtype=np.int16).T  # (5, N): slot order
    cells = N_CONFIGS * N_PAIRS * N_CAMELS
    race = np.zeros(cells, dtype=np.complex128)
    places = np.zeros((N_CAMELS, cells), dtype=np.int8)
    ended = np.zeros(N_CONFIGS * N_PAIRS, dtype=np.int8)
    sequences = 2 * len(FACES) ** 2
    for pair, (a, b) in enumerate(combinations(range(N_CAMELS), 2)):
        perm = [a, b] + [s for s in range(N_CAMELS) if s not in (a, b)]  # kernel j = slot perm[j]
        for start in range(0, len(configs), chunk):
            sub = np.ascontiguousarray(base[perm, start : start + chunk])
            n = sub.shape[1]
            leaves = run_leg(sub, 2)  # rows leaf * n + config
            keys = leaves.keys.copy()
            rk = ranks(keys).copy()
            values = race_values(keys, rk, table).reshape(N_CAMELS, sequences, n).sum(axis=1)
            rows = index[start : start + n] * N_PAIRS + pair
            cell = rows[None, :] * N_CAMELS + np.array(perm)[:, None]  # (kernel camel, config)
            race[cell] = values
            for place in range(N_CAMELS):
                places[place, cell] = (rk == place).reshape(N_CAMELS, sequences, n).sum(axis=1)
            ended[rows] = leaves.ended.reshape(sequences, n).sum(axis=0)
    drop_scratch()  # sized for the build, not for a position's rows
    return LastTwoTable(race, places, ended)


def last_two_rows(keys: np.ndarray, rk: np.ndarray, movers: np.ndarray) -> np.ndarray:
    """Rows (config * 10 + pair) of :func:`last_two_table` for kernel keys (5, n) with rank
    slots rk and the two camels of each row whose dice are left, movers (2, n)."""
    slot = (keys & SLOT_MASK) | rk
    parts = np.take(INDEX_LUT, slot, mode="clip")  # 5 * C(...): summed, the index times 5
    rows = parts[0] + parts[1]
    for part in parts[2:]:
        rows += part
    col = np.arange(keys.shape[1])
    pair = rk[movers[0], col].astype(np.int32) * N_CAMELS + rk[movers[1], col]
    rows *= 2  # index * 10
    rows += np.take(PAIR_INDEX, pair)
    return rows  # type: ignore[no-any-return]


def recorded_build_seconds(path: Path = TABLE_PATH) -> float | None:
    """The build time the script stored with the table (or the joint table), if any."""
    if not path.exists():
        return None
    with np.load(path) as data:
        return float(data["build_seconds"]) if "build_seconds" in data else None


# ---------------------------------------------------------------------------------------------
# The joint table: P(slot i wins and slot j loses) per configuration
#
# Why a second table: win and lose per slot are marginals; "blue wins and red comes last" needs
# the joint distribution, which the marginals do not determine. It is built the same way (same
# index, same backward induction by decreasing sum), each configuration holding a 5x5 matrix
# (zero on the diagonal: one camel cannot both win and lose). Its row sums are the win table and
# its column sums the lose table, which the tests check.

PAIRS_PATH = Path(__file__).with_name("data") / "race_pairs.npz"
PAIR_CELLS = N_CAMELS * N_CAMELS


def _pairs_flat(pairs: np.ndarray) -> np.ndarray:
    """The (N_CONFIGS, 5, 5) joint table as a flat array with the race-over rows appended."""
    t = np.zeros((TABLE_ROWS, N_CAMELS, N_CAMELS))
    t[:N_CONFIGS] = pairs
    t[ENDED:, 0, N_CAMELS - 1] = 1.0  # the race is over: the leader won, the last lost
    return t.ravel()


def pair_values(keys: np.ndarray, rk: np.ndarray, flat: np.ndarray) -> np.ndarray:
    """Per row, P(camel a wins and camel b loses) for the end-of-leg keys: (5, 5, rows).

    keys: (5, rows) kernel keys; rk their rank slots; flat: :func:`load_pairs_table`. Camel a
    holding slot r_a and b slot r_b read cell (r_a, r_b) of the row's configuration.
    """
    slot = (keys & SLOT_MASK) | rk
    parts = np.take(INDEX_LUT, slot, mode="clip")  # 5 * C(...): the row's offset, times 5
    index5 = parts[0] + parts[1]
    for row in parts[2:]:
        index5 += row
    base = index5 * N_CAMELS  # configuration index * 25
    cell = rk.astype(np.int32)
    where = base[None, None, :] + cell[:, None, :] * N_CAMELS + cell[None, :, :]
    values: np.ndarray = np.take(flat, where, mode="clip")
    return values


def build_pairs_table(
    batch: int = 48, progress: Callable[[int, int], None] | None = None
) -> np.ndarray:
    """Compute the (N_CONFIGS, 5, 5) joint (winner slot, loser slot) table, as build_table."""
    by_sum: dict[int, list[tuple[int, ...]]] = {}
    for c in all_configs():
        by_sum.setdefault(sum(c), []).append(c)
    flat = _pairs_flat(np.full((N_CONFIGS, N_CAMELS, N_CAMELS), np.nan))
    done = 0
    for total in sorted(by_sum, reverse=True):
        group = by_sum[total]
        for start in range(0, len(group), batch):
            chunk = group[start : start + batch]
            b = len(chunk)
            start_keys = np.array([config_keys(c) for c in chunk], dtype=np.int16).T
            leaves = run_leg(start_keys, N_CAMELS)
            values = pair_values(leaves.keys, ranks(leaves.keys), flat)
            mean = values.reshape(N_CAMELS, N_CAMELS, -1, b).mean(axis=2)  # (5, 5, b)
            for j, c in enumerate(chunk):
                i = config_index(c)
                flat[i * PAIR_CELLS : (i + 1) * PAIR_CELLS] = mean[:, :, j].ravel()
            done += b
            if progress is not None:
                progress(done, N_CONFIGS)
    t = flat[: N_CONFIGS * PAIR_CELLS].reshape(N_CONFIGS, N_CAMELS, N_CAMELS)
    if np.isnan(t).any():
        raise RuntimeError("joint table build looked up an entry before computing it")
    return t.copy()


def save_pairs_table(pairs: np.ndarray, path: Path, build_seconds: float) -> None:
    """Write the joint table compressed, with its build time."""
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        path,
        pairs=pairs.astype(np.float64),
        build_seconds=np.float64(build_seconds),
        built=np.bytes_(time.strftime("%Y-%m-%dT%H:%M:%S")),
    )


@lru_cache(maxsize=1)
def load_pairs_table() -> np.ndarray:
    """The flat joint table (TABLE_ROWS * 25), read from disk once."""
    if not PAIRS_PATH.exists():
        raise TableMissing(f"race table {PAIRS_PATH.name} is missing: run `make race-table`")
    with np.load(PAIRS_PATH) as data:
        pairs = data["pairs"]
    if pairs.shape != (N_CONFIGS, N_CAMELS, N_CAMELS):
        raise TableMissing(f"race table {PAIRS_PATH.name} has the wrong shape: rebuild it")
    return _pairs_flat(pairs)
