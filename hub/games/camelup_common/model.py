"""What the two editions' boards and piles have in common: the dice faces, the sixteen spaces,
the starting money, the overall-bet piles and what a correct card on them pays, and where a
camel stands. Each edition's ``model`` re-exports these beside its own camels, tiles and moves.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = [
    "FACES",
    "PILES",
    "SPACES",
    "STARTING_MONEY",
    "WINNER_PAYOUTS",
    "Track",
    "find_camel",
    "overall_payout",
]

FACES: tuple[int, ...] = (1, 2, 3)
SPACES = 16
STARTING_MONEY = 3
PILES: tuple[str, ...] = ("winner", "loser")
WINNER_PAYOUTS: tuple[int, ...] = (8, 5, 3, 2)  # then 1 for every further correct card

Track = dict[int, tuple[str, ...]]  # space -> camels bottom to top


def overall_payout(correct_before: int) -> int:
    """What a correct overall card pays when ``correct_before`` correct cards were turned before it.

    Cards are turned in the order they were placed: the first correct card pays 8, then 5, 3, 2,
    and 1 for every further correct card.
    """
    if correct_before < len(WINNER_PAYOUTS):
        return WINNER_PAYOUTS[correct_before]
    return 1


def find_camel(track: Mapping[int, tuple[str, ...]], colour: str) -> tuple[int, int]:
    """(space, height) of a camel; height 0 is the bottom of its stack."""
    for space, stack in track.items():
        if colour in stack:
            return space, stack.index(colour)
    raise KeyError(colour)
