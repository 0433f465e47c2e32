"""A stack behind the back of a camel on the space in front, read above it.

The lowest camel colour of the column ended below 0.4 band over the space's base: the back
of a camel on the space in front, hiding the base. The space abstained at once ("a camel in
front hides the base of the space"), though its own camels stood in full view above. Now the
camels above are read on, in doubt (the colour in front may be this stack's own bottom camel,
mostly hidden by the one above it leaning forward): the five-camel rule keeps them when the
camel in front, and every other one, is read strongly on another space. Tuning scenes (seeds
2,000,000..2,099,999) that abstained before."""

from __future__ import annotations

import pytest

from tests.vision._trackkit import assert_space_read


@pytest.mark.parametrize(
    ("seed", "space", "stack", "condition"),
    [
        (2_000_302, 12, ["green"], "same"),  # the back of an orange camel in front
        (2_050_011, 7, ["green"], "other"),  # the back of a white camel in front
    ],
)
def test_a_stack_behind_a_camel_in_front_is_read(seed, space, stack, condition):
    assert_space_read(seed, space, stack, condition)
