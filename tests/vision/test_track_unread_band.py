"""A stack whose only doubt is a camel more than its runs read, where the game decides it.

Each camel exists once and all are on the track. A stack read but for one unread band (a
sliver between two camels, a bottom camel in the shade of the one above) abstained; with
every other space read strongly and one camel seen nowhere, that camel is in that band
(``unread_at``). And a stack that fears a camel more while every camel its runs did not read
is read strongly elsewhere holds just its runs' camels, whatever other spaces a hand makes
unsure. The scene tests read tuning scenes (seeds 2,000,000..2,099,999) that abstained
before; the others build readings by hand."""

from __future__ import annotations

import pytest

from tests.vision._trackkit import assert_space_read, without_washed_end
from vision.track_global import SpaceReading, resolve

COLOURS = ["blue", "green", "orange", "yellow", "white"]
GAP = "an unreadable band between two camels"
BELOW = "the lowest band starts too high: a camel unread below?"
HAND = "something neither camel nor board covers the base of the space"


@pytest.mark.parametrize(
    ("seed", "space", "stack"),
    [
        (2_000_161, 4, ["white", "yellow", "blue"]),  # white under yellow
        (2_000_124, 11, ["white", "orange", "blue", "green"]),  # a hand on 4, 5 and 6
    ],
)
def test_a_stack_the_game_completes_is_read(seed, space, stack):
    assert_space_read(seed, space, stack)


def test_a_stack_the_game_completes_is_read_without_the_washed_end(monkeypatch):
    # yellow between; with the washed end this tall stack abstains, "yellow not seen: may be
    # here" (tuning scene 2,000,067)
    without_washed_end(monkeypatch)
    assert_space_read(2_000_067, 14, ["blue", "white", "orange", "yellow", "green"])


def _no_fit(s: int, stack: list[str]) -> float | None:
    return None  # the band model finds nothing: only the runs and the game decide


def _strong_fit(s: int, stack: list[str]) -> float | None:
    return 10.0


def _spaces(unsure: SpaceReading) -> dict[int, SpaceReading]:
    return {3: SpaceReading(["orange"], 0.95), 9: SpaceReading([], 0.9), 12: unsure}


def test_the_one_camel_left_goes_in_the_unread_gap():
    unsure = SpaceReading(
        [], 0.0, True, GAP, resolvable=True, bands_read=("blue", "white", "green"), unread_at=2
    )
    spaces = _spaces(unsure)
    spaces[5] = SpaceReading(["yellow"], 0.95)
    # every other camel read elsewhere: none is left for the gap (``_no_camel_more``)
    assert resolve(spaces, COLOURS, _no_fit)[12].camels == ["blue", "white", "green"]
    # orange seen nowhere: it is the camel in the gap, above white
    spaces[3] = SpaceReading([], 0.9)
    out = resolve(spaces, COLOURS, _no_fit)
    assert out[12].camels == ["blue", "white", "orange", "green"] and out[12].inferred


def test_the_one_camel_left_goes_under_the_lowest_band():
    unsure = SpaceReading(
        [], 0.0, True, BELOW, resolvable=True, bands_read=("yellow", "blue"), unread_at=0
    )
    spaces = _spaces(unsure)
    spaces[3] = SpaceReading(["orange", "green"], 0.95)
    out = resolve(spaces, COLOURS, _no_fit)
    assert out[12].camels == ["white", "yellow", "blue"] and not out[12].uncertain


def test_no_camel_in_the_band_unless_exactly_one_is_left_and_the_rest_read_strongly():
    unsure = SpaceReading(
        [], 0.0, True, BELOW, resolvable=True, bands_read=("yellow",), unread_at=0
    )
    # two camels seen nowhere (white and blue): which one, if any, is under yellow?
    spaces = _spaces(unsure)
    spaces[3] = SpaceReading(["orange", "green"], 0.95)
    assert resolve(spaces, COLOURS, _no_fit)[12].uncertain
    # one left, but the read of another space is weak (a filled band, not found by the model)
    spaces[3] = SpaceReading(["orange", "green", "blue"], 0.6)
    assert resolve(spaces, COLOURS, _no_fit)[12].uncertain
    assert resolve(spaces, COLOURS, _strong_fit)[12].camels == ["white", "yellow"]
    # another space unsure as well: the camel left may be there
    spaces[3] = SpaceReading(["orange", "green", "blue"], 0.95)
    spaces[7] = SpaceReading([], 0.0, True, HAND, resolvable=True)
    assert resolve(spaces, COLOURS, _no_fit)[12].uncertain


def test_a_hand_elsewhere_does_not_stop_a_stack_whose_camels_are_all_accounted_for():
    unsure = SpaceReading(
        [], 0.0, True, GAP, resolvable=True, bands_read=("white", "orange", "blue", "green")
    )
    spaces = _spaces(unsure)
    spaces[3] = SpaceReading(["yellow"], 0.95)
    spaces[4] = SpaceReading([], 0.0, True, HAND, resolvable=True)
    spaces[5] = SpaceReading([], 0.0, True, HAND, resolvable=True)
    out = resolve(spaces, COLOURS, _no_fit)
    assert out[12].camels == ["white", "orange", "blue", "green"] and out[12].inferred
    assert out[4].uncertain and out[5].uncertain  # the hands' spaces stay unsure
    # yellow read weakly: it may stand in the stack's gap instead
    spaces[3] = SpaceReading(["yellow"], 0.6)
    assert resolve(spaces, COLOURS, _no_fit)[12].uncertain
    # another unsure stack's runs read one of its colours: two claims on one camel
    spaces[3] = SpaceReading(["yellow"], 0.95)
    spaces[5] = SpaceReading([], 0.0, True, GAP, resolvable=True, bands_read=("blue",))
    assert resolve(spaces, COLOURS, _no_fit)[12].uncertain
