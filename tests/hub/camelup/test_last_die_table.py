"""The leg's last roll finished by table equals the last roll rolled out leaf by leaf.

``odds_of`` finishes the rows with one die left by :func:`racetable.last_die_table` when no
tile is in the mover's reach (``run_leg_table_last``); ``run_leg_merged`` rolls every leaf.
Both are exact, so on any position their leg counts agree exactly and their race sums to
rounding.
"""

from __future__ import annotations

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


@pytest.mark.parametrize(("track", "dice", "desert"), positions(24, 11))
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
