"""leg_odds_many: one pass over many desert layouts equals one leg_odds call per layout, exactly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hub.games.camelup.odds import COLOURS, PositionError, leg_odds, leg_odds_many
from tests.hub.camelup.reference_odds import reference_odds

SIDES = ("oasis", "mirage")


def assert_same(batched, single) -> None:
    """Bit-for-bit: the batch sums the same integer counts in the same order."""
    assert np.array_equal(batched.first, single.first)
    assert np.array_equal(batched.second, single.second)
    assert batched.game_ends == single.game_ends
    assert batched.landings == single.landings


def legal_layouts(track: dict, base: dict[int, str]) -> list[dict[int, str]]:
    """What the advisor asks: the base tiles plus one more tile, on every legal space and side."""
    out = []
    for space in range(2, 17):
        if space in track or any(s in base for s in (space - 1, space, space + 1)):
            continue
        out += [{**base, space: side} for side in SIDES]
    return out


@st.composite
def positions(draw, min_space: int = 1, finished: bool = False):
    """A legal position; ``finished``: the leader already stands past the line (17..19)."""
    order = draw(st.permutations(COLOURS))
    track: dict[int, list[str]] = {}
    for colour in order:
        track.setdefault(draw(st.integers(min_space, 16)), []).append(colour)
    if finished:
        lead = max(track)
        track[draw(st.integers(17, 19))] = track.pop(lead)
    dice = draw(st.lists(st.sampled_from(COLOURS), unique=True, max_size=5))
    base: dict[int, str] = {}
    for space in draw(st.lists(st.integers(2, 16), max_size=3, unique=True)):
        if space in track or space - 1 in base or space + 1 in base:
            continue
        base[space] = draw(st.sampled_from(SIDES))
    return track, dice, base


@st.composite
def layout_sets(draw, min_space: int = 1, finished: bool = False):
    """A position and a list of layouts: the advisor's, thinned out and mixed with others
    (a base tile removed or flipped, the base itself), so the layouts' shared part varies."""
    track, dice, base = draw(positions(min_space, finished))
    layouts = [d for d in legal_layouts(track, base) if draw(st.booleans())]
    if base and draw(st.booleans()):
        space = draw(st.sampled_from(sorted(base)))
        flipped = dict(base)
        flipped[space] = SIDES[1 - SIDES.index(base[space])]
        fewer = {s: v for s, v in base.items() if s != space}
        layouts += [flipped, fewer] + legal_layouts(track, fewer)[:4]
    if draw(st.booleans()):
        layouts.append(dict(base))
    return track, dice, draw(st.permutations(layouts))


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(layout_sets())
def test_batch_equals_one_call_per_layout(case) -> None:
    track, dice, layouts = case
    batch = leg_odds_many(track, dice, layouts)
    assert len(batch) == len(layouts)
    for desert, got in zip(layouts, batch, strict=True):
        assert_same(got, leg_odds(track, dice, desert))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layout_sets(min_space=12))
def test_batch_near_the_finish_where_races_end_mid_leg(case) -> None:
    track, dice, layouts = case
    for desert, got in zip(layouts, leg_odds_many(track, dice, layouts), strict=True):
        assert_same(got, leg_odds(track, dice, desert))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layout_sets(min_space=10, finished=True))
def test_batch_of_a_race_already_over(case) -> None:
    track, dice, layouts = case
    for desert, got in zip(layouts, leg_odds_many(track, dice, layouts), strict=True):
        assert_same(got, leg_odds(track, dice, desert))
        assert got.game_ends == 1.0
        assert all(x == 0.0 for x in got.landings.values())


def test_mirage_bounce_back_onto_the_own_space_matches_the_reference() -> None:
    # Blue sits on orange on 5; green alone on 4. A mirage on 6 sends blue (face 1) back to 5
    # *under* orange, the camel it just left; green (face 2) lands on 6 and goes under the stack.
    track = {5: ["orange", "blue"], 4: ["green"], 1: ["yellow"], 2: ["white"]}
    dice = ["blue", "green", "orange"]
    layouts = [{6: "mirage"}, {6: "oasis"}, {6: "mirage", 9: "oasis"}, {8: "mirage"}, {}]
    for desert, got in zip(layouts, leg_odds_many(track, dice, layouts), strict=True):
        ref = reference_odds(track, dice, desert)
        for i, c in enumerate(COLOURS):
            assert got.first[i] == pytest.approx(float(ref["leg"][c]["first"]), abs=1e-12)
            assert got.second[i] == pytest.approx(float(ref["leg"][c]["second"]), abs=1e-12)
        assert got.game_ends == pytest.approx(float(ref["game_ends_this_leg"]), abs=1e-12)
        for s, x in ref["desert_landings"].items():
            assert got.landings[int(s)] == pytest.approx(float(x), abs=1e-12)


def test_a_fresh_leg_with_every_placement() -> None:
    track = {1: ["blue", "green"], 2: ["orange"], 3: ["yellow", "white"]}
    layouts = legal_layouts(track, {})
    assert len(layouts) == 26
    for desert, got in zip(layouts, leg_odds_many(track, None, layouts), strict=True):
        assert_same(got, leg_odds(track, None, desert))


def test_no_layouts_no_work() -> None:
    assert leg_odds_many({1: list(COLOURS)}, None, []) == []


@pytest.mark.parametrize(
    ("desert", "message"),
    [
        ({4: "oasis"}, "lies under a camel"),
        ({6: "oasis", 7: "mirage"}, "adjacent"),
        ({1: "oasis"}, "space 1"),
        ({6: "sand"}, "unknown side"),
        ({17: "oasis"}, "off the track"),
    ],
)
def test_a_bad_layout_is_refused_like_leg_odds_refuses_it(desert, message) -> None:
    track = {4: list(COLOURS)}
    with pytest.raises(PositionError, match=message) as single:
        leg_odds(track, None, desert)
    with pytest.raises(PositionError, match=message) as batched:
        leg_odds_many(track, None, [{9: "oasis"}, desert])
    assert str(batched.value) == str(single.value)


def test_a_bad_position_is_refused_once() -> None:
    with pytest.raises(PositionError, match="missing"):
        leg_odds_many({4: ["blue"]}, None, [{9: "oasis"}])
