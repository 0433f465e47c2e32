"""Spaces the reader abstained on where a person reads them at a glance, now read right.

Tuning scenes (seeds 1,000,000+), rendered exactly as ``python -m vision.eval.table`` draws
them and read after their table's set-up with the same camera and lamp. Each space abstained
on the previous reader; each cause had a share of the held-out abstentions. The last case is a
guard: the same shape of column with another camel's sliver in it must still abstain."""

from __future__ import annotations

import pytest

from vision.eval import table as et
from vision.track import TrackReading


def _read(seed: int) -> tuple[TrackReading, dict[int, list[str]]]:
    scene = et.render_scene(seed, "same")
    reading = scene.read()
    assert reading.ok, reading.reason
    return reading, scene.truth.track


@pytest.mark.parametrize(
    ("seed", "spaces"),
    [
        # the set-up's empty board had a lamp's specular spot on spaces 4 and 5: kept as the
        # board's look, the plain sand there later "covered" both empty spaces
        (1_000_143, (4, 5)),
        # a lone green camel on its legs: its blurred lower edge (read as the oasis) was cut
        # off, so its band seemed to start 1.3 bands above the base
        (1_000_003, (1,)),
        # a lone white camel at the back of its space, 1.5 bands above the base, its shaded
        # legs no colour ("a camel unread below?"); every other camel is read elsewhere, so
        # none is left to be under it (vision.track_global: its bands as read)
        (1_640_062, (5,)),
    ],
)
def test_a_space_a_person_reads_is_read(seed, spaces):
    reading, track = _read(seed)
    for space in spaces:
        assert space not in reading.uncertain, reading.spaces[space].why
        assert reading.track.get(space, []) == track.get(space, [])


def test_an_empty_space_behind_a_camel_reaching_its_front_is_never_read_wrongly():
    # an empty space whose front the back of a green camel on the space before reaches. Read
    # (the sand above it as the set-up saw it) when the board and the cards were one plane;
    # since the board's top is taken 2 mm above the cards, its base window no longer looks as
    # at set-up and it abstains. On 210 tuning scenes that rule now turns no abstention into a
    # right read: kept as a guard that the space is at least never read wrongly
    reading, track = _read(1_000_045)
    assert track.get(8, []) == [] and track[7] == ["green"]
    assert 8 in reading.uncertain or reading.track.get(8, []) == []


def test_a_sliver_of_another_camel_under_the_lowest_band_is_never_read_as_white_alone():
    # green under a white camel leaning forward: a few samples of green under the white band,
    # the sand below. Lowering the white band's start over them read the green's legs as the
    # white camel's: "white" alone, a camel lost. The runs still doubt a camel under the
    # white one; with every other camel read elsewhere, the game puts green there
    # (vision.track_global, ``unread_at``): never white alone
    reading, track = _read(1_000_088)
    assert track[11] == ["green", "white"]
    assert 11 in reading.uncertain or reading.track[11] == ["green", "white"]
    assert "runs did not read" in (reading.spaces[11].why or "")


def test_a_stack_whose_lower_camel_looks_like_sand_still_abstains():
    # white under blue (scene 5,000,526, first seen on the 5,000,000+ range): a looser test
    # of the column below a camel colour (its lowest half band not counted as the empty
    # board) called this space empty. Kept strict: the half band under the colour counts
    reading, track = _read(5_000_526)
    assert track[10] == ["white", "blue"]
    assert 10 in reading.uncertain


def test_a_thin_band_of_another_camel_between_two_is_not_taken_for_their_blend():
    # white, green, blue, yellow, orange: the green camel leans back in the stack's shadow and
    # shows 0.4 of a band between the white and the blue, too thin for a band of its own.
    # Once the board's height put the bands where they are, the gap was taken for white
    # blending into blue and the stack read confidently without its green. Green is far off
    # every mix of white and blue (mixing keeps a colour on the line between the two)
    reading, track = _read(1_000_044)
    assert track[16] == ["white", "green", "blue", "yellow", "orange"]
    assert 16 in reading.uncertain
    assert "thin band" in (reading.spaces[16].why or "")


def test_a_stack_whose_runs_fail_a_later_check_is_not_completed_as_read():
    # re-mounted tuning scene 1,680,195: all five camels on space 8, the thin white band
    # between blue and orange unread, and the white border of a marker card behind the stack
    # read as a white camel on top. Completed as its runs read it (every camel is on that
    # space, so none is "left" for the gap), it read yellow, green, blue, orange, white; the
    # runs' stack fails a later check (the orange band, the white border above it, is three
    # bands high), so they are not leant on
    scene = et.render_scene(1_680_195, "other")
    reading = scene.read()
    assert reading.ok, reading.reason
    assert scene.truth.track[8] == ["yellow", "green", "blue", "white", "orange"]
    assert 8 in reading.uncertain or reading.track[8] == scene.truth.track[8]
