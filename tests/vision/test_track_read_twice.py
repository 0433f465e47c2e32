"""A colour read on two spaces stays with the one read the band model finds clearly; a space
whose runs saw only the camels read beside it is empty once every camel is read.

Both rules come from abstention pairs on tuning scenes 2,203,000..2,206,499: a hand under a
warm lamp read as a lone yellow camel, or a sliver of yellow between a green camel and the
orange one over it, made the true yellow camel abstain as well; an empty space behind a stack
of leaning camels (read with uneven bands, a weak read) abstained on that stack's colours.
The scene tests read scenes that abstained before; the others build readings by hand."""

from __future__ import annotations

from tests.vision._trackkit import assert_space_read
from vision.track_global import SpaceReading, resolve

COLOURS = ["blue", "green", "orange", "yellow", "white"]
HAND = "something neither camel nor board covers the base of the space"


def _fits(clear: dict[int, list[str]]):
    """A band model that finds each space's ``clear`` stack by far, and nothing else."""

    def fits(s: int, stack: list[str]) -> float | None:
        return 10.0 if clear.get(s) == stack else None

    return fits


def test_a_hand_read_as_a_yellow_camel_does_not_unseat_the_real_one():
    # tuning scene (other): a hand under the lamp read as a lone yellow on space 8
    assert_space_read(2_205_213, 1, ["yellow"], condition="other")


def test_a_yellow_sliver_between_green_and_orange_does_not_unseat_the_real_one():
    # tuning scene (other): green under orange on space 13 read with yellow between them
    assert_space_read(2_205_010, 11, ["yellow"], condition="other")


def test_the_read_the_band_model_finds_clearly_is_kept():
    spaces = {
        1: SpaceReading(["yellow"], 0.95),
        8: SpaceReading(["yellow"], 0.95),  # a hand, from clean runs as well
        4: SpaceReading(["blue", "green", "orange", "white"], 0.95),
    }
    out = resolve(spaces, COLOURS, _fits({1: ["yellow"], 4: spaces[4].camels}))
    assert out[1].camels == ["yellow"] and not out[1].uncertain
    # and with every camel read, the hand's space holds none
    assert out[8].camels == [] and out[8].inferred


def test_a_colour_read_twice_clearly_or_not_at_all_leaves_both_unsure():
    spaces = {
        1: SpaceReading(["yellow"], 0.95),
        8: SpaceReading(["green", "yellow"], 0.6),
        4: SpaceReading(["blue", "orange", "white"], 0.95),
    }
    both = _fits({1: ["yellow"], 8: ["green", "yellow"], 4: spaces[4].camels})
    neither = _fits({4: spaces[4].camels})
    for fits in (both, neither):
        out = resolve(spaces, COLOURS, fits, all_camels=False)
        assert out[1].uncertain and out[8].uncertain


def test_an_empty_space_behind_a_leaning_stack_is_read_empty():
    # tuning scenes (same): the five camels on space 7 read with uneven bands (0.64), space 8
    # behind them saw their green top; two camels on 10 leaning over 11's base
    assert_space_read(2_203_069, 8, [])
    assert_space_read(2_203_466, 11, [])


def _beside(seen: str, where: int) -> dict[int, SpaceReading]:
    return {
        where: SpaceReading(["blue", "green", "orange"], 0.62),  # uneven bands: a weak read
        14: SpaceReading(["yellow", "white"], 0.62),
        8: SpaceReading([], 0.0, True, HAND, runs_seen=((seen, 20.0),)),
    }


def test_only_the_camels_read_beside_it_make_a_space_empty():
    none = _fits({})
    out = resolve(_beside("green", 7), COLOURS, none)
    assert out[8].camels == [] and not out[8].uncertain and out[8].inferred
    out = resolve(_beside("green", 10), COLOURS, none)  # two spaces on: still beside it
    assert not out[8].uncertain
    # the green it saw is read three spaces away: not a stack reaching over its base
    assert resolve(_beside("green", 11), COLOURS, none)[8].uncertain
    # nor when a camel is read nowhere: it may be the one standing here
    spaces = _beside("green", 7)
    spaces[14] = SpaceReading(["yellow"], 0.62)
    assert resolve(spaces, COLOURS, none)[8].uncertain
