"""The shipped race table, checked against computations that do not use the numpy kernel."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from importlib import resources

import numpy as np
import pytest

from hub.games.camelup import racetable
from tests.hub.camelup import reference_odds as ref

SLOT_COLOURS = ref.COLOURS  # slot r of a configuration is played by colour r


@pytest.fixture(scope="module")
def table() -> tuple[np.ndarray, np.ndarray]:
    with np.load(racetable.TABLE_PATH) as data:
        return data["win"], data["lose"]


def track_of(config: tuple[int, ...]) -> dict[int, list[str]]:
    """The colour track of a configuration: on each space, lower slots on top."""
    track: dict[int, list[str]] = {}
    for slot in reversed(range(5)):
        track.setdefault(config[slot], []).append(SLOT_COLOURS[slot])
    return track


def test_the_table_ships_as_package_data() -> None:
    shipped = resources.files("hub.games.camelup") / "data" / "race_table.npz"
    assert shipped.is_file()
    win = racetable.load_table().real
    assert win.shape == ((racetable.TABLE_ROWS) * 5,)
    assert racetable.load_table() is racetable.load_table()  # read once


def test_index_is_a_bijection_onto_the_table() -> None:
    indices = [racetable.config_index(c) for c in racetable.all_configs()]
    assert sorted(indices) == list(range(racetable.N_CONFIGS))
    with pytest.raises(ValueError):
        racetable.config_index((3, 4, 1, 1, 1))  # not leader first


def test_every_row_is_a_distribution(table) -> None:
    win, lose = table
    assert win.shape == lose.shape == (racetable.N_CONFIGS, 5)
    assert np.all((win >= 0) & (win <= 1)) and np.all((lose >= 0) & (lose <= 1))
    np.testing.assert_allclose(win.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(lose.sum(axis=1), 1.0, atol=1e-12)
    # all five stacked on 16: the first die carries the top camel over the line, the bottom
    # one is left behind or crosses under everyone
    i = racetable.config_index((16, 16, 16, 16, 16))
    np.testing.assert_allclose(win[i], [1, 0, 0, 0, 0], atol=1e-12)
    np.testing.assert_allclose(lose[i], [0, 0, 0, 0, 1], atol=1e-12)


NEAR_FINISH = [c for c in racetable.all_configs() if c[-1] >= 14]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sampled_entries_near_the_finish_equal_the_exact_recursion(table, seed) -> None:
    win, lose = table
    config = random.Random(seed).choice(NEAR_FINISH)
    w, lo = ref.race(ref.freeze_track(track_of(config)))
    i = racetable.config_index(config)
    for slot, colour in enumerate(SLOT_COLOURS):
        assert win[i, slot] == pytest.approx(float(w.get(colour, 0)), abs=1e-12), config
        assert lose[i, slot] == pytest.approx(float(lo.get(colour, 0)), abs=1e-12), config


def test_an_early_entry_is_the_average_of_its_leg_end_entries(table) -> None:
    """Bellman check for an entry far from the finish: enumerate one leg exactly with the plain
    enumerator and average the table entries of the positions it ends in."""
    win, lose = table
    config = (6, 5, 5, 4, 2)
    *_, ends = ref.leg(ref.freeze_track(track_of(config)), ref.COLOURS, ())
    expect_w = {c: Fraction(0) for c in SLOT_COLOURS}
    expect_l = {c: Fraction(0) for c in SLOT_COLOURS}
    for end, p in ends.items():
        order = ref.ranking(end)
        spaces = [next(s for s, st in end if c in st) for c in order]
        assert max(spaces) <= 16  # too far from the line to finish in one leg
        j = racetable.config_index(spaces)
        for slot, colour in enumerate(order):
            expect_w[colour] += p * Fraction(win[j, slot])
            expect_l[colour] += p * Fraction(lose[j, slot])
    i = racetable.config_index(config)
    for slot, colour in enumerate(SLOT_COLOURS):
        assert win[i, slot] == pytest.approx(float(expect_w[colour]), abs=1e-12)
        assert lose[i, slot] == pytest.approx(float(expect_l[colour]), abs=1e-12)


def simulate_race(track: dict[int, list[str]], rng: random.Random) -> tuple[str, str]:
    """One race played out die by die in plain Python: (winner, loser)."""
    stacks = {s: list(st) for s, st in track.items()}
    while True:
        dice = list(ref.COLOURS)
        rng.shuffle(dice)
        for colour in dice:
            src = next(s for s, st in stacks.items() if colour in st)
            at = stacks[src].index(colour)
            unit, stacks[src] = stacks[src][at:], stacks[src][:at]
            dst = src + rng.randint(1, 3)
            stacks.setdefault(dst, []).extend(unit)
            if dst >= 17:
                order = [c for s in sorted(stacks, reverse=True) for c in reversed(stacks[s])]
                return order[0], order[-1]


def test_monte_carlo_agrees_with_a_start_position(table) -> None:
    win, lose = table
    config = (3, 2, 2, 1, 1)
    i = racetable.config_index(config)
    rng = random.Random(2024)
    n = 3000
    wins = {c: 0 for c in SLOT_COLOURS}
    losses = {c: 0 for c in SLOT_COLOURS}
    for _ in range(n):
        w, lo = simulate_race(track_of(config), rng)
        wins[w] += 1
        losses[lo] += 1
    for slot, colour in enumerate(SLOT_COLOURS):
        for p, count in ((win[i, slot], wins[colour]), (lose[i, slot], losses[colour])):
            sigma = math.sqrt(p * (1 - p) / n)
            assert abs(count / n - p) < 4.5 * sigma + 1e-9, (colour, p, count / n)


@pytest.fixture(scope="module")
def pairs() -> np.ndarray:
    with np.load(racetable.PAIRS_PATH) as data:
        return data["pairs"]


def test_the_joint_table_agrees_with_the_marginal_table(table, pairs) -> None:
    """Built apart (25 lookups per sequence against 5): its row sums are P(win), its column
    sums P(lose), and no camel both wins and loses."""
    win, lose = table
    assert pairs.shape == (racetable.N_CONFIGS, 5, 5)
    assert np.all(pairs >= 0)
    np.testing.assert_array_equal(np.einsum("nii->ni", pairs), 0.0)
    np.testing.assert_allclose(pairs.sum(axis=2), win, atol=1e-12)
    np.testing.assert_allclose(pairs.sum(axis=1), lose, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sampled_joint_entries_near_the_finish_equal_the_exact_recursion(pairs, seed) -> None:
    config = random.Random(100 + seed).choice(NEAR_FINISH)
    want = ref.race_pairs(ref.freeze_track(track_of(config)))
    i = racetable.config_index(config)
    for a, wa in enumerate(SLOT_COLOURS):
        for b, lb in enumerate(SLOT_COLOURS):
            got = pairs[i, a, b]
            assert got == pytest.approx(float(want.get((wa, lb), 0)), abs=1e-12), (config, a, b)
