"""Constants of the second edition (2018) and its pure movement and ranking rules.

What differs from the first edition lives here: seven camels (five racing, two crazy ones that
run backwards), a grey die whose colour names a crazy camel except in two cases, spectator tiles
whose effect follows the moving camel's own direction, and a finish line that can be crossed
backwards. What coincides is imported from :mod:`hub.games.camelup_common.model` (faces, spaces,
the overall-bet piles and payout schedule, ``find_camel``) rather than copied.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from hub.games.camelup_common.model import (
    FACES,
    PILES,
    SPACES,
    STARTING_MONEY,
    WINNER_PAYOUTS,
    Track,
    find_camel,
    overall_payout,
)

__all__ = [
    "CAMELS",
    "CRAZY",
    "DICE",
    "FACES",
    "GREY",
    "LEG_TICKET_VALUES",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "PARTNER_MIN_PLAYERS",
    "PILES",
    "RACING",
    "SIDES",
    "SPACES",
    "STARTING_MONEY",
    "WINNER_PAYOUTS",
    "Crossing",
    "CrazyChoice",
    "Move",
    "Track",
    "crazy_to_move",
    "crossing",
    "find_camel",
    "move_camel",
    "overall_payout",
    "ranking",
    "setup_space",
]

RACING: tuple[str, ...] = ("blue", "green", "yellow", "red", "purple")
CRAZY: tuple[str, ...] = ("black", "white")
CAMELS: tuple[str, ...] = RACING + CRAZY
GREY = "grey"
DICE: tuple[str, ...] = RACING + (GREY,)  # the six dice of the pyramid
LEG_TICKET_VALUES: tuple[int, ...] = (5, 3, 2, 2)  # top of each stack first
MIN_PLAYERS, MAX_PLAYERS = 3, 8
PARTNER_MIN_PLAYERS = 6
SIDES: tuple[str, ...] = ("cheering", "booing")
DICE_PER_LEG = 5  # one of the six dice stays in the pyramid


class CrazyChoice(StrEnum):
    """Why this crazy camel moved for a grey die (shown to the table: it may differ from the
    colour read)."""

    COLOUR = "colour"  # neither exception applied: the numeral's colour names it
    ONLY_CARRIER = "only_carrier"  # exception a: only it carries racing camels
    ON_TOP = "on_top"  # exception b: it sits directly on the other crazy camel


class Crossing(StrEnum):
    FORWARD = "forward"
    BACKWARD = "backward"


def setup_space(face: int) -> int:
    """Where the setup roll of the grey die puts a crazy camel: 1 -> 16, 2 -> 15, 3 -> 14."""
    return SPACES + 1 - face


def _carries_racing(track: Mapping[int, tuple[str, ...]], crazy: str) -> bool:
    space, height = find_camel(track, crazy)
    return any(c in RACING for c in track[space][height + 1 :])


def crazy_to_move(track: Mapping[int, tuple[str, ...]], shade: str) -> tuple[str, CrazyChoice]:
    """The crazy camel a grey die showing a ``shade`` numeral moves, and why.

    a. if exactly one crazy camel carries racing camels (anywhere above it), that one;
    b. else if one crazy camel sits directly on the other, the top one;
    c. else the one the numeral's colour names.
    """
    carriers = [c for c in CRAZY if _carries_racing(track, c)]
    if len(carriers) == 1:
        return carriers[0], CrazyChoice.ONLY_CARRIER
    (sb, hb), (sw, hw) = find_camel(track, "black"), find_camel(track, "white")
    if sb == sw and abs(hb - hw) == 1:
        return ("black" if hb > hw else "white"), CrazyChoice.ON_TOP
    return shade, CrazyChoice.COLOUR


def crossing(space: int) -> Crossing | None:
    """Whether a unit standing at ``space`` has left the track, and which way."""
    if space > SPACES:
        return Crossing.FORWARD
    if space < 1:
        return Crossing.BACKWARD
    return None


@dataclass(frozen=True)
class Move:
    """What one die did: the unit that moved and where it ended (the camel_moved event)."""

    camel: str
    unit: tuple[str, ...]
    start: int
    end: int
    spectator_space: int | None
    spectator_side: str | None
    under: bool
    crossed: Crossing | None


def move_camel(
    track: Mapping[int, tuple[str, ...]],
    spectators: Mapping[int, str],
    camel: str,
    face: int,
) -> tuple[Track, Move]:
    """Move ``camel`` and every camel above it ``face`` spaces in the camel's own direction.

    Racing camels run clockwise (up the space numbers), crazy camels counterclockwise, whoever
    rides on them. A tile on the end space acts relative to that direction: cheering one more
    space on and on top, booing one space back and *under* everything there (also the camels left
    behind on the unit's own starting space). A unit that passes space 16 or goes back past
    space 1 has crossed the line; it keeps its overshoot (17..19 or 0..-2) and no tile acts.
    """
    step = 1 if camel in RACING else -1
    start, height = find_camel(track, camel)
    stack = track[start]
    unit, remain = stack[height:], stack[:height]
    new: Track = dict(track)
    if remain:
        new[start] = remain
    else:
        del new[start]
    end = start + step * face
    side = None if crossing(end) else spectators.get(end)
    tile_space = end if side else None
    under = side == "booing"
    if side == "cheering":
        end += step
    elif side == "booing":
        end -= step
    below = new.get(end, ())
    new[end] = unit + below if under else below + unit
    return new, Move(camel, unit, start, end, tile_space, side, under, crossing(end))


def ranking(track: Mapping[int, tuple[str, ...]]) -> list[str]:
    """Racing camels from the leader to the last; crazy camels are skipped entirely.

    Farther along first, higher in a stack first. Camels carried backward over the line stand at
    spaces 0 and below, so they rank behind all others, the higher among them ahead.
    """
    order: list[str] = []
    for space in sorted(track, reverse=True):
        order.extend(c for c in reversed(track[space]) if c in RACING)
    return order


def race_over(track: Mapping[int, tuple[str, ...]]) -> bool:
    return any(crossing(space) is not None for space in track)
