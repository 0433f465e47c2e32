"""A lone unsure stack whose runs read the camels the game leaves it, in the frame's order.

Each camel exists once and all are on the track. A stack read but for a doubt (a sliver
between two camels, a bottom camel in shade) that then failed a check of its bands' heights
kept no ``bands_read``, and the band model, which seldom confirms a shaded white or a sliver,
found no one ordering: it abstained. With every other space read strongly, the colours seen
nowhere else are on it; when its runs saw each of them (or all but one, with its one unread
band placed, ``unread_at``), the order is the one its runs read. The scene tests read tuning
scenes (seeds 2,100,000..2,199,999) that abstained before; the others build readings by
hand."""

from __future__ import annotations

import pytest

from tests.vision._trackkit import assert_space_read
from vision.track_global import SpaceReading, resolve

COLOURS = ["blue", "green", "orange", "yellow", "white"]
HIGH = "a band 2.0 camels high"
GAP = "an unreadable band between two camels"


@pytest.mark.parametrize(
    ("seed", "space", "stack"),
    [
        (2_120_906, 9, ["blue", "yellow", "green"]),  # yellow between, the stack taller
        (2_120_927, 13, ["white", "blue", "orange", "yellow"]),  # white under blue
        (2_120_372, 1, ["blue"]),  # a lone blue whose band failed a check
    ],
)
def test_a_stack_the_runs_and_the_game_complete_is_read(seed, space, stack):
    assert_space_read(seed, space, stack, condition="other")


@pytest.mark.parametrize(
    ("seed", "space", "stack"),
    [
        (2_101_833, 16, ["green", "yellow", "white", "blue", "orange"]),
        (2_101_835, 1, ["orange", "yellow", "blue", "green"]),
    ],
)
def test_a_bottom_camel_taken_for_one_in_front_is_read(seed, space, stack):
    assert_space_read(seed, space, stack)


def _no_fit(s: int, stack: list[str]) -> float | None:
    return None  # the band model finds nothing: only the runs and the game decide


def _runs(*colours: str) -> tuple[tuple[str, float], ...]:
    return tuple((c, 30.0 + 20.0 * i) for i, c in enumerate(colours))


def _spaces(unsure: SpaceReading) -> dict[int, SpaceReading]:
    return {3: SpaceReading(["orange", "green"], 0.95), 9: SpaceReading([], 0.9), 12: unsure}


def test_the_runs_order_the_colours_the_game_leaves():
    unsure = SpaceReading(
        [], 0.0, True, HIGH, resolvable=True, runs_seen=_runs("white", "blue", "yellow")
    )
    out = resolve(_spaces(unsure), COLOURS, _no_fit)
    assert out[12].camels == ["white", "blue", "yellow"] and out[12].inferred
    # the runs saw a colour read on another space: not this stack's order alone
    unsure = SpaceReading(
        [], 0.0, True, HIGH, resolvable=True, runs_seen=_runs("white", "orange", "yellow")
    )
    assert resolve(_spaces(unsure), COLOURS, _no_fit)[12].uncertain
    # an abstention about something in front (not resolvable): the runs are not asked
    unsure = SpaceReading([], 0.0, True, HIGH, runs_seen=_runs("white", "blue", "yellow"))
    assert resolve(_spaces(unsure), COLOURS, _no_fit)[12].uncertain


def test_not_when_another_read_is_weak_or_another_space_unsure():
    unsure = SpaceReading(
        [], 0.0, True, HIGH, resolvable=True, runs_seen=_runs("white", "blue", "yellow")
    )
    spaces = _spaces(unsure)
    spaces[3] = SpaceReading(["orange", "green"], 0.6)  # a filled band, not confirmed
    assert resolve(spaces, COLOURS, _no_fit)[12].uncertain
    spaces = _spaces(unsure)
    spaces[7] = SpaceReading([], 0.0, True, "something covers it")
    assert resolve(spaces, COLOURS, _no_fit)[12].uncertain


def test_one_camel_more_only_in_the_one_band_the_doubt_placed():
    runs = _runs("white", "yellow")
    # blue seen nowhere else, the doubt's unread band between white and yellow: it is there
    unsure = SpaceReading([], 0.0, True, GAP, resolvable=True, runs_seen=runs, unread_at=1)
    assert resolve(_spaces(unsure), COLOURS, _no_fit)[12].camels == ["white", "blue", "yellow"]
    # no band placed: where would blue go?
    unsure = SpaceReading([], 0.0, True, GAP, resolvable=True, runs_seen=runs)
    assert resolve(_spaces(unsure), COLOURS, _no_fit)[12].uncertain
    # a band placed but no camel left for it: the frame and the game disagree
    spaces = _spaces(SpaceReading([], 0.0, True, GAP, resolvable=True, runs_seen=runs, unread_at=1))
    spaces[5] = SpaceReading(["blue"], 0.95)
    assert spaces[12].uncertain and resolve(spaces, COLOURS, _no_fit)[12].uncertain


def test_the_band_model_still_decides_when_it_finds_one_ordering():
    unsure = SpaceReading(
        [], 0.0, True, HIGH, resolvable=True, runs_seen=_runs("white", "blue", "yellow")
    )

    def only(s: int, stack: list[str]) -> float | None:
        return 5.0 if s != 12 or stack == ["blue", "white", "yellow"] else None

    assert resolve(_spaces(unsure), COLOURS, only)[12].camels == ["blue", "white", "yellow"]

    def two(s: int, stack: list[str]) -> float | None:
        ok = (["blue", "white", "yellow"], ["yellow", "white", "blue"])
        return 5.0 if s != 12 or stack in ok else None

    # two orderings fit, neither the runs': no read
    assert resolve(_spaces(unsure), COLOURS, two)[12].uncertain


def test_the_camel_taken_for_one_in_front_is_the_bottom_one_when_seen_nowhere_else():
    front = "a camel in front hides the base of the space"
    unsure = SpaceReading(
        [],
        0.0,
        True,
        front,
        resolvable=True,
        bands_read=("yellow", "blue"),
        runs_seen=_runs("yellow", "blue"),
        front_colour="white",
    )
    out = resolve(_spaces(unsure), COLOURS, _no_fit)
    assert out[12].camels == ["white", "yellow", "blue"] and out[12].inferred
    # white read on the space in front: the camel in front is that one, and this stack
    # holds a camel the game leaves (and no band says where): no read
    spaces = _spaces(unsure)
    spaces[11] = SpaceReading(["white"], 0.95)
    spaces[3] = SpaceReading(["orange"], 0.95)
    assert resolve(spaces, COLOURS, _no_fit)[12].uncertain


@pytest.mark.parametrize(("space", "stack"), [(1, ["white"]), (3, ["orange"])])
def test_two_unsure_stacks_whose_runs_split_the_camels_left_are_read(space, stack):
    # 1: a camel in front (yellow, read on 2) at its base; 3: the lowest band below its front
    assert_space_read(2_100_418, space, stack)


def test_two_unsure_stacks_take_the_colours_their_runs_saw():
    spaces = {
        3: SpaceReading(["orange", "green"], 0.95),
        7: SpaceReading([], 0.0, True, HIGH, resolvable=True, runs_seen=_runs("green", "white")),
        12: SpaceReading([], 0.0, True, HIGH, resolvable=True, runs_seen=_runs("blue", "yellow")),
    }
    out = resolve(spaces, COLOURS, _no_fit)
    # 7's green is 3's, seen over its base: the split is white / blue and yellow
    assert out[7].camels == ["white"] and out[12].camels == ["blue", "yellow"]
    # both saw yellow: no split
    spaces[7] = SpaceReading(
        [], 0.0, True, HIGH, resolvable=True, runs_seen=_runs("white", "yellow")
    )
    out = resolve(spaces, COLOURS, _no_fit)
    assert out[7].uncertain and out[12].uncertain
    # a colour seen in neither (blue): it may be under either
    spaces[7] = SpaceReading([], 0.0, True, HIGH, resolvable=True, runs_seen=_runs("white"))
    spaces[12] = SpaceReading([], 0.0, True, HIGH, resolvable=True, runs_seen=_runs("yellow"))
    out = resolve(spaces, COLOURS, _no_fit)
    assert out[7].uncertain and out[12].uncertain
    # a band one doubt placed: a camel more there, which the split does not say
    spaces[12] = SpaceReading(
        [], 0.0, True, GAP, resolvable=True, runs_seen=_runs("blue", "yellow"), unread_at=1
    )
    out = resolve(spaces, COLOURS, _no_fit)
    assert out[7].uncertain and out[12].uncertain


def test_no_split_when_both_stacks_end_in_something_of_no_colour():
    top = "something neither camel nor board covers the top of the stack"
    spaces = {
        3: SpaceReading(["orange", "green"], 0.95),
        7: SpaceReading([], 0.0, True, top, resolvable=True, runs_seen=_runs("white")),
        12: SpaceReading([], 0.0, True, top, resolvable=True, runs_seen=_runs("blue", "yellow")),
    }
    # a camel may stand unread on either top, and 7's "white" need not be a camel at all
    # (tuning scene 2,180,126 under a darker tone curve: a mirage tile's white waves)
    out = resolve(spaces, COLOURS, _no_fit)
    assert out[7].uncertain and out[12].uncertain
    # with one of the two doubts a band two camels high: split as the runs read them
    spaces[7] = SpaceReading([], 0.0, True, HIGH, resolvable=True, runs_seen=_runs("white"))
    out = resolve(spaces, COLOURS, _no_fit)
    assert out[7].camels == ["white"] and out[12].camels == ["blue", "yellow"]
