"""Camel colours read high above a space's base, with the base itself unread.

A camel colour starting more than a band and a half over the base, where only the upper part
of a stack could be, abstained at once ("camel colours above an unread base"): a camel or two
under it went unread (or one set back shows its side that high). Now the camels above are
read on, in doubt, and the game decides, but only with this space the one unsure: the one
camel seen nowhere else goes under them, or, with none left, they stand alone. With another
space unsure (a hand), they may be that space's camels seen past this one: left unsure.
Tuning scenes (seeds 2,000,000..2,099,999) that abstained before."""

from __future__ import annotations

import pytest

from tests.vision._trackkit import assert_space_read
from vision.track_global import SpaceReading, resolve

COLOURS = ["blue", "green", "orange", "yellow", "white"]
WHY = "camel colours above an unread base"


@pytest.mark.parametrize(
    ("seed", "space", "stack", "condition"),
    [
        # orange under the four others, unread: the one camel seen nowhere else
        (2_000_549, 16, ["orange", "blue", "green", "white", "yellow"], "same"),
        # a lone green camel set back on its space: no camel is left to be under it
        (2_050_021, 5, ["green"], "other"),
    ],
)
def test_camels_above_an_unread_base_are_completed_by_the_game(seed, space, stack, condition):
    assert_space_read(seed, space, stack, condition)


def _no_fit(s: int, stack: list[str]) -> float | None:
    return None


def test_camels_above_an_unread_base_stay_unsure_while_another_space_is():
    high = SpaceReading(
        [], 0.0, True, WHY, resolvable=True, bands_read=("green",), unread_at=0, base_unread=True
    )
    spaces = {
        3: SpaceReading(["blue", "orange", "yellow", "white"], 0.95),
        9: SpaceReading([], 0.9),
        12: high,
    }
    # the lone unsure space: green is seen nowhere else, and no camel is left to be under it
    assert resolve(spaces, COLOURS, _no_fit)[12].camels == ["green"]
    # a hand over space 9: the green seen high over space 12 may be a camel standing there
    spaces[9] = SpaceReading([], 0.0, True, "something neither camel nor board covers it")
    assert resolve(spaces, COLOURS, _no_fit)[12].uncertain
