"""A space behind a tall stack: abstain only where the stack in front may really be what its
column shows.

The camera's sight line to a space's front base passes under the top of a tall stack in
front: that stack may hide the space's lower camels. But where the space's camels share no
colour with that stack, its column showed its own bottom camel at the base, not the stack in
front (tuning scenes, seeds below 2,000,000, read after their table's set-up)."""

from __future__ import annotations

import pytest

from vision.eval import table as et


@pytest.mark.parametrize(
    ("seed", "space", "stack"),
    [(1_200_079, 3, ["blue"]), (1_200_325, 1, ["orange"]), (1_200_413, 15, ["orange"])],
)
def test_a_space_with_no_colour_of_the_stack_in_front_is_read(seed, space, stack):
    # before, "may be hidden by the stack on space ..."
    scene = et.render_scene(seed, "same")
    reading = scene.read()
    assert scene.truth.track.get(space) == stack
    assert space not in reading.uncertain, reading.spaces[space].why
    assert reading.track[space] == stack


@pytest.mark.parametrize(("seed", "space"), [(1_200_118, 8), (1_200_751, 10)])
def test_a_colour_of_the_stack_in_front_seen_behind_it_stays_uncertain(seed, space):
    # an empty space behind a stack: its column shows that stack's camel (blue, orange)
    # where its own bottom camel would stand
    scene = et.render_scene(seed, "same")
    reading = scene.read()
    assert scene.truth.track.get(space, []) == []
    assert space in reading.uncertain or reading.track.get(space, []) == []
