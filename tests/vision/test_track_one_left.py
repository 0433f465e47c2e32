"""A lone unsure space holds the one camel the game leaves when its own runs saw it there.

Each camel exists once and all are on the track. A lone yellow camel whose top band ran on
into something yellow behind it abstained ("a sleeve?"), as did a stack whose runs also read a
camel of the stack in front; neither was resolvable. With every other camel read strongly
elsewhere, the space holds exactly the one left, when its runs saw that colour. The scene tests
read tuning scenes (seeds 2,100,000..2,199,999) that abstained before; the others build
readings by hand."""

from __future__ import annotations

import pytest

from tests.vision._trackkit import assert_space_read
from vision.track_global import SpaceReading, resolve

COLOURS = ["blue", "green", "orange", "yellow", "white"]
SLEEVE = "the top band is too tall for a camel (a sleeve?)"


@pytest.mark.parametrize(
    ("seed", "space", "stack"),
    [
        (2_100_640, 5, ["yellow"]),  # a yellow whose top band runs on (a sleeve?)
        (2_101_633, 15, ["white"]),  # "may be hidden by the stack on space 16"
        (2_101_717, 2, ["yellow"]),  # another yellow whose top band runs on
    ],
)
def test_the_one_camel_left_is_read_where_the_runs_saw_it(seed, space, stack):
    assert_space_read(seed, space, stack)


def _no_fit(s: int, stack: list[str]) -> float | None:
    return None


def _spaces(unsure: SpaceReading) -> dict[int, SpaceReading]:
    return {
        3: SpaceReading(["orange", "green"], 0.95),
        7: SpaceReading(["white", "blue"], 0.9),
        12: unsure,
    }


def test_one_camel_left_and_seen_by_the_runs():
    unsure = SpaceReading([], 0.0, True, SLEEVE, runs_seen=(("yellow", 30.0),))
    out = resolve(_spaces(unsure), COLOURS, _no_fit)
    assert out[12].camels == ["yellow"] and out[12].inferred
    # the runs saw another colour only: the space's pixels do not agree with the game
    unsure = SpaceReading([], 0.0, True, SLEEVE, runs_seen=(("white", 30.0),))
    assert resolve(_spaces(unsure), COLOURS, _no_fit)[12].uncertain
    # nothing seen at all (a hand the sand's colour): the camel may be lost elsewhere
    unsure = SpaceReading([], 0.0, True, SLEEVE)
    assert resolve(_spaces(unsure), COLOURS, _no_fit)[12].uncertain


def test_not_with_a_weak_read_elsewhere_nor_two_camels_left():
    unsure = SpaceReading([], 0.0, True, SLEEVE, runs_seen=(("yellow", 30.0),))
    spaces = _spaces(unsure)
    spaces[7] = SpaceReading(["white", "blue"], 0.6)  # a filled band the model does not find
    assert resolve(spaces, COLOURS, _no_fit)[12].uncertain
    spaces = _spaces(unsure)
    spaces[7] = SpaceReading(["white"], 0.95)  # blue seen nowhere as well: which, or both?
    assert resolve(spaces, COLOURS, _no_fit)[12].uncertain
