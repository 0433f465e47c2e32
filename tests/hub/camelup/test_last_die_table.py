"""The leg's last rolls finished by table equal the last rolls rolled out leaf by leaf.

``odds_of`` finishes the rows with two dice left by :func:`racetable.last_two_table` and those
with one die left by :func:`racetable.last_die_table` when no tile is in the movers' reach
(``run_leg_table_last``); ``run_leg_merged`` rolls every leaf.
Both are exact, so on any position their leg counts agree exactly and their race sums to
rounding.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from hub.games.camelup import legkernel, racetable
from hub.games.camelup.model import COLOURS
from hub.games.camelup.odds import _start, odds_of, validate_position


def positions(n: int, seed: int) -> list[tuple[dict, list, dict]]:
    """Starts, mid-race spreads and near-finish tracks (many rows end before the last roll),
    with and without tiles, every number of dice left."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        lo, hi = [(1, 3), (2, 9), (8, 16), (12, 16)][i % 4]
        track: dict[int, list[str]] = {}
        for c in rng.sample(COLOURS, 5):
            track.setdefault(rng.randint(lo, hi), []).append(c)
        desert: dict[int, str] = {}
        for _ in range(rng.randint(0, 3)):
            s = rng.randint(2, 16)
            if s not in track and not {s - 1, s, s + 1} & set(desert):
                desert[s] = rng.choice(["oasis", "mirage"])
        out.append((track, rng.sample(COLOURS, rng.randint(0, 5)), desert))
    return out


def carried_within_reach() -> list[tuple[dict, list, dict]]:
    """Two camels whose dice are left share a space and a tile lies 4-6 spaces ahead: out of
    either unit's own reach, but reached when one carries the other and the other rolls on
    (the two-dice table must not be used there)."""
    out = []
    for ahead in (4, 5, 6):
        for side in ("oasis", "mirage"):
            track = {3: ["blue", "green"], 1: ["orange"], 2: ["yellow", "white"]}
            out.append((track, ["blue", "green"], {3 + ahead: side}))
            out.append((track, ["orange", "blue", "green"], {3 + ahead: side}))
    return out


@pytest.mark.parametrize(
    ("track", "dice", "desert"), positions(24, 11) + positions(12, 5) + carried_within_reach()
)
def test_the_table_finishes_the_leg_as_the_leaves_do(track, dice, desert) -> None:
    position = validate_position(track, dice, desert)
    by_table = odds_of(position, race=True)
    keys, cols = _start(position)
    k = 0 if position.finished else len(position.dice_left)
    tiles = legkernel.tile_lookup(position.desert) if position.desert else None
    leaves = legkernel.run_leg_merged(keys, k, tiles)
    n, w = leaves.sequences, leaves.weight
    rk = legkernel.ranks(leaves.keys).copy()
    first = ((rk == 0) * w).sum(axis=1)
    second = ((rk == 1) * w).sum(axis=1)
    race = (racetable.race_values(leaves.keys, rk, racetable.load_table()) * w).sum(axis=1) / n
    assert np.array_equal(by_table.first[cols], first / n)
    assert np.array_equal(by_table.second[cols], second / n)
    assert by_table.game_ends == w[leaves.ended].sum() / n
    assert by_table.landings == {s: float(leaves.landings[s]) for s in sorted(position.desert)}
    assert by_table.win[cols] == pytest.approx(race.real, abs=1e-14)
    assert by_table.lose[cols] == pytest.approx(race.imag, abs=1e-14)


@pytest.mark.parametrize("config", [(16, 16, 16, 16, 16), (9, 7, 7, 3, 1), (15, 14, 2, 2, 2)])
def test_the_two_dice_table_holds_the_rolled_out_sequences(config) -> None:
    """Each entry of the two-dice table is its configuration's two-dice legs rolled out."""
    two = racetable.last_two_table()
    table = racetable.load_table()
    i = racetable.config_index(config)
    for pair, (a, b) in enumerate(itertools.combinations(range(5), 2)):
        perm = [a, b] + [s for s in range(5) if s not in (a, b)]
        keys = np.array(racetable.config_keys(config), dtype=np.int16)[perm][:, None]
        leaves = legkernel.run_leg(keys, 2)
        rk = legkernel.ranks(leaves.keys).copy()
        values = racetable.race_values(leaves.keys, rk, table).sum(axis=1)
        row = i * racetable.N_PAIRS + pair
        assert two.ended[row] == leaves.ended.sum()
        for j, slot in enumerate(perm):
            cell = row * 5 + slot
            assert [two.places[p][cell] for p in range(5)] == [(rk[j] == p).sum() for p in range(5)]
            assert two.race[cell] == pytest.approx(values[j], abs=1e-14)
