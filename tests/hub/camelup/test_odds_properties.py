"""Property tests of the fast odds: probabilities behave, and match a plain exact enumerator."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hub.games.camelup.odds import COLOURS, position_odds
from tests.hub.camelup.reference_odds import reference_odds


@st.composite
def positions(draw, min_space: int = 1, max_tiles: int = 3):
    """A legal position: five camels on min_space..16, a subset of dice, legal desert tiles."""
    order = draw(st.permutations(COLOURS))
    track: dict[int, list[str]] = {}
    for colour in order:
        track.setdefault(draw(st.integers(min_space, 16)), []).append(colour)
    dice = draw(st.lists(st.sampled_from(COLOURS), unique=True, max_size=5))
    desert: dict[int, str] = {}
    for space in draw(st.lists(st.integers(2, 16), max_size=max_tiles, unique=True)):
        if space in track or space - 1 in desert or space + 1 in desert:
            continue
        desert[space] = draw(st.sampled_from(["oasis", "mirage"]))
    return track, dice, desert


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_probabilities_sum_to_one_and_stay_in_range(pos) -> None:
    track, dice, desert = pos
    a = position_odds(track, dice, desert)
    for group, keys in (("leg", ("first", "second")), ("race", ("win", "lose"))):
        for key in keys:
            values = [a[group][c][key] for c in COLOURS]
            assert all(-1e-12 <= v <= 1 + 1e-12 for v in values), (key, values)
            assert sum(values) == pytest.approx(1.0, abs=1e-9), key
    for c in COLOURS:  # nobody is both first and second in the same outcome
        assert a["leg"][c]["first"] + a["leg"][c]["second"] <= 1 + 1e-12
    assert 0.0 <= a["game_ends_this_leg"] <= 1.0
    assert set(a["desert_landings"]) == {str(s) for s in desert}
    assert all(0 <= x <= len(dice) for x in a["desert_landings"].values())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(max_tiles=4))
def test_fast_leg_odds_equal_the_exact_enumerator(pos) -> None:
    track, dice, desert = pos
    a = position_odds(track, dice, desert)
    ref = reference_odds(track, dice, desert)
    for c in COLOURS:
        for key in ("first", "second"):
            assert a["leg"][c][key] == pytest.approx(float(ref["leg"][c][key]), abs=1e-12)
    assert a["game_ends_this_leg"] == pytest.approx(float(ref["game_ends_this_leg"]), abs=1e-12)
    for s, x in ref["desert_landings"].items():
        assert a["desert_landings"][s] == pytest.approx(float(x), abs=1e-12)


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(min_space=14, max_tiles=2))
def test_fast_race_odds_equal_the_exact_enumerator_near_the_finish(pos) -> None:
    # near the finish the reference can recurse over whole legs in seconds
    track, dice, desert = pos
    a = position_odds(track, dice, desert)
    ref = reference_odds(track, dice, desert, with_race=True)
    for c in COLOURS:
        for key in ("win", "lose"):
            assert a["race"][c][key] == pytest.approx(float(ref["race"][c][key]), abs=1e-9)


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(min_space=13, max_tiles=2))
def test_joint_winner_loser_and_leg_order_equal_the_exact_enumerator(pos) -> None:
    """The joint (winner, loser) table and the leg's whole finishing order, exact to 1e-12."""
    track, dice, desert = pos
    a = position_odds(track, dice, desert, order=True)
    ref = reference_odds(track, dice, desert, with_race=True)
    for w in COLOURS:
        assert set(a["race_pairs"][w]) == set(COLOURS) - {w}
        for lo, p in a["race_pairs"][w].items():
            assert p == pytest.approx(float(ref["race_pairs"][w][lo]), abs=1e-12), (w, lo)
        for place in range(5):
            assert a["leg_order"][w][place] == pytest.approx(
                float(ref["leg_order"][w][place]), abs=1e-12
            )
    # its margins are the race odds, which come from the other table
    for c in COLOURS:
        assert sum(a["race_pairs"][c].values()) == pytest.approx(a["race"][c]["win"], abs=1e-12)
        assert sum(a["race_pairs"][w][c] for w in COLOURS if w != c) == pytest.approx(
            a["race"][c]["lose"], abs=1e-12
        )
