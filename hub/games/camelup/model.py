"""Constants of the first edition and the pure movement rule shared by the engine and the tests.

What both editions' boards share (faces, spaces, piles, the payout schedule, ``find_camel``) is
:mod:`hub.games.camelup_common.model`'s, re-exported here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hub.games.camelup_common.model import FACES as FACES
from hub.games.camelup_common.model import PILES as PILES
from hub.games.camelup_common.model import SPACES as SPACES
from hub.games.camelup_common.model import STARTING_MONEY as STARTING_MONEY
from hub.games.camelup_common.model import WINNER_PAYOUTS as WINNER_PAYOUTS
from hub.games.camelup_common.model import Track as Track
from hub.games.camelup_common.model import find_camel as find_camel
from hub.games.camelup_common.model import overall_payout as overall_payout

COLOURS: tuple[str, ...] = ("blue", "green", "orange", "yellow", "white")
FINISH = SPACES + 1  # the first "space" past the line; reaching it ends the race
LEG_TILE_VALUES: tuple[int, ...] = (5, 3, 2)  # top of each pile first
MIN_PLAYERS, MAX_PLAYERS = 2, 8
SIDES: tuple[str, ...] = ("oasis", "mirage")


def ranking(track: Mapping[int, tuple[str, ...]]) -> list[str]:
    """Colours from the leader to the last camel: further ahead first, higher in a stack first."""
    order: list[str] = []
    for space in sorted(track, reverse=True):
        order.extend(reversed(track[space]))
    return order


@dataclass(frozen=True)
class Move:
    """What one die did: the unit that moved and where it ended (the camel_moved event)."""

    colour: str
    unit: tuple[str, ...]
    start: int
    end: int
    desert_space: int | None
    desert_side: str | None
    under: bool


def move_camel(
    track: Mapping[int, tuple[str, ...]],
    desert: Mapping[int, str],
    colour: str,
    face: int,
) -> tuple[Track, Move]:
    """Move ``colour`` (and every camel on top of it) ``face`` spaces; return the new track.

    A unit landing on an oasis goes one more space forward and on top; on a mirage one space back
    and *under* whatever stands there — which may be the camels it has just left, since a mirage
    can sit right in front of the unit. A tile acts once per landing; tiles never chain because
    no two tiles are adjacent and no camel ever stands on a tile.
    """
    start, height = find_camel(track, colour)
    stack = track[start]
    unit, remain = stack[height:], stack[:height]
    new: Track = dict(track)
    if remain:
        new[start] = remain
    else:
        del new[start]
    end = start + face
    side = desert.get(end)
    desert_space = end if side else None
    under = False
    if side == "oasis":
        end += 1
    elif side == "mirage":
        end -= 1
        under = True
    below = new.get(end, ())
    new[end] = unit + below if under else below + unit
    return new, Move(colour, unit, start, end, desert_space, side, under)


def race_over(track: Mapping[int, tuple[str, ...]]) -> bool:
    """True once a unit has crossed the finish line (stands at 17 or beyond)."""
    return any(space >= FINISH for space in track)
