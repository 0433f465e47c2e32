"""A camel seen nowhere, while no space abstains, is placed in the one stack it peeks out of.

An upper camel set askew covers most of the one below it, so a stack can lose its lower camel
while every space reads with confidence. The game says the camel is somewhere; before, every
stack with room for it became uncertain. Its paint often still shows beside the camel over it,
in the lowest camel-high box of its space, and nowhere else: that stack alone stays in doubt,
and a stack of one camel holds it underneath. The scene tests read tuning scenes (seeds
2,183,000..2,183,999) where the rule fires; the others build readings by hand."""

from __future__ import annotations

from tests.vision._trackkit import assert_space_read
from vision.eval import table as et
from vision.track_global import SpaceReading, resolve

COLOURS = ["blue", "green", "orange", "yellow", "white"]


def test_a_white_camel_under_a_blue_one_is_read_where_it_peeks_out():
    # before: spaces 2, 11 and 15 were all "white not seen: may be here"
    assert_space_read(2_183_900, 15, ["white", "blue"])
    assert_space_read(2_183_900, 2, ["yellow"])
    assert_space_read(2_183_900, 11, ["green", "orange"])


def test_a_taller_stack_it_peeks_out_of_stays_in_doubt_alone():
    # the orange camel under a yellow and a blue one: which band it is the box does not say
    scene = et.render_scene(2_183_751)
    reading = scene.read()
    assert reading.uncertain == [13]
    assert scene.truth.track[13] == ["orange", "yellow", "blue"]
    assert reading.track[6] == ["white"] and reading.track[14] == ["green"]


def _no_fit(s: int, stack: list[str]) -> float | None:
    return None


def _spaces() -> dict[int, SpaceReading]:
    # the white camel is read nowhere, and no stack fits it anywhere
    return {
        2: SpaceReading(["yellow"], 0.95),
        11: SpaceReading(["green", "orange"], 0.9),
        15: SpaceReading(["blue"], 0.95),
    }


def test_placed_only_when_one_stack_shows_it_and_no_other_does():
    def peeks(shown: dict[int, float]):
        return lambda s, colour: shown.get(s, 0.0) if colour == "white" else 0.0

    out = resolve(_spaces(), COLOURS, _no_fit, peeks=peeks({15: 0.09}))
    assert out[15].camels == ["white", "blue"] and out[15].inferred
    assert not out[2].uncertain and not out[11].uncertain
    # a second stack shows some of it too: every stack with room stays in doubt
    out = resolve(_spaces(), COLOURS, _no_fit, peeks=peeks({15: 0.09, 2: 0.02}))
    assert all(out[s].uncertain for s in (2, 11, 15))
    # a sliver only: too little to say
    out = resolve(_spaces(), COLOURS, _no_fit, peeks=peeks({15: 0.02}))
    assert all(out[s].uncertain for s in (2, 11, 15))
    # without the measurement (the rule's callers before it): as before
    out = resolve(_spaces(), COLOURS, _no_fit)
    assert all(out[s].uncertain for s in (2, 11, 15))
