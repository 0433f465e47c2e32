"""A stack whose top shows, above its camels, a camel colour the empty board showed there.

The set-up saw that colour right there (a white cloth or the pebbles behind an edge space's
stack): no evidence of a camel on top, nor of none (a camel the table's colour hides nothing
the set-up saw). The space abstained at once. Now the stack ends there in doubt and its
camels are checked on; when the colour is read strongly on another space, no camel is left
to stand on top, and the five-camel rule keeps the camels its runs read. Tuning scenes
(seeds 2,000,000..2,099,999) that abstained before."""

from __future__ import annotations

import pytest

from tests.vision._trackkit import assert_space_read, without_washed_end


@pytest.mark.parametrize(
    ("seed", "space", "stack", "condition"),
    [
        (2_000_899, 9, ["blue"], "same"),  # white pebbles behind a lone blue camel
        (2_050_172, 13, ["yellow"], "other"),
    ],
)
def test_a_stack_under_a_colour_seen_at_set_up_is_read(seed, space, stack, condition):
    assert_space_read(seed, space, stack, condition)


def test_a_stack_under_a_colour_seen_at_set_up_is_read_without_the_washed_end(monkeypatch):
    # with the washed end, the stack's blue top read in space 1's column, behind it, leaves
    # that space unsure, and the five-camel rule no longer decides (tuning scene 2,000,444)
    without_washed_end(monkeypatch)
    assert_space_read(2_000_444, 2, ["orange", "yellow", "blue"])


def test_a_colour_read_by_the_band_model_elsewhere_accounts_for_its_camel_too():
    # a lone blue camel, white pebbles above it as the set-up saw them; yellow, the other
    # stack left unsure by its runs, is found clearly by the band model: every colour but
    # blue is then accounted for, and the blue space is read after it
    assert_space_read(2_000_367, 9, ["blue"])
