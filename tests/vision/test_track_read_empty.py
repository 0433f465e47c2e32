"""A space whose runs read no camel, abstaining on the look of its sand, is empty when every
camel is read elsewhere, weak reads included.

A space in the shadow of a tall stack, or behind a hand the sand's colour, reads empty by its
runs but abstains ("something not on the empty board covers it"; "the line in front of the
space is hidden"). With every camel read on another space it holds none: its pixels and the
game agree. Other abstentions still need every camel read strongly (a phantom elsewhere would
empty the space its camel stands on). The scene test reads a tuning scene (seeds
2,100,000..2,199,999) that abstained before; the others build readings by hand."""

from __future__ import annotations

from tests.vision._trackkit import assert_space_read
from vision.track_global import SpaceReading, resolve

COLOURS = ["blue", "green", "orange", "yellow", "white"]
SAND = "something not on the empty board covers it"
HAND = "something neither camel nor board covers the base of the space"


def test_an_empty_space_in_a_stack_s_shadow_is_read_empty():
    # every camel is on space 6, read from the band model (a weak read)
    assert_space_read(2_120_089, 3, [], condition="other")


def _no_fit(s: int, stack: list[str]) -> float | None:
    return None  # the band model confirms nothing: weak reads stay weak


def test_the_runs_and_the_game_agree_on_an_empty_space():
    spaces = {
        2: SpaceReading(["white", "blue"], 0.95),
        6: SpaceReading(["green", "yellow", "orange"], 0.5),  # weak: from the band model
        9: SpaceReading([], 0.0, True, SAND, read_empty=True),
        11: SpaceReading([], 0.0, True, HAND, resolvable=True),
    }
    out = resolve(spaces, COLOURS, _no_fit)
    assert out[9].camels == [] and not out[9].uncertain and out[9].inferred
    # a hand over the base: not read empty by its runs, so the weak read is not enough
    assert out[11].uncertain
    # a camel seen nowhere: it may stand under the shadow's hand
    spaces[6] = SpaceReading(["green", "yellow"], 0.5)
    assert resolve(spaces, COLOURS, _no_fit)[9].uncertain
