"""The four actions of a turn as small value types with a text notation that round-trips.

``parse_action("desert:7:mirage")`` gives ``PlaceDesert(7, "mirage")`` and ``str()`` gives the
text back, so logs, tests and MQTT payloads read the same way (after python-chess's UCI moves).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import IllegalAction
from .model import COLOURS, FACES, PILES, SIDES


@dataclass(frozen=True)
class TakeLegTile:
    """Take the top leg betting tile of one colour."""

    colour: str

    def __str__(self) -> str:
        return f"leg:{self.colour}"


@dataclass(frozen=True)
class PlaceDesert:
    """Place (or move) the player's own desert tile on a space, oasis or mirage side up."""

    space: int
    side: str

    def __str__(self) -> str:
        return f"desert:{self.space}:{self.side}"


@dataclass(frozen=True)
class ReleaseDie:
    """Take a pyramid tile and release a die.

    With ``colour`` and ``face`` the die was observed (the camera's case); without them the engine
    rolls one from its seeded generator (the simulator's case).
    """

    colour: str | None = None
    face: int | None = None

    def __str__(self) -> str:
        if self.colour is None and self.face is None:
            return "roll"
        return f"roll:{self.colour}:{self.face}"


@dataclass(frozen=True)
class BetOverall:
    """Put a race card face down on the overall winner or loser pile."""

    pile: str
    colour: str

    def __str__(self) -> str:
        return f"bet:{self.pile}:{self.colour}"


Action = TakeLegTile | PlaceDesert | ReleaseDie | BetOverall


def _bad(text: str, why: str) -> IllegalAction:
    return IllegalAction("bad_action", f"Cannot read the action {text!r}: {why}.")


def _colour(text: str, value: str) -> str:
    if value not in COLOURS:
        raise _bad(text, f"{value!r} is not a camel colour ({', '.join(COLOURS)})")
    return value


def _int(text: str, value: str, what: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise _bad(text, f"{what} {value!r} is not a number") from None


def parse_action(text: str) -> Action:
    """Read an action from its notation; raise IllegalAction("bad_action") naming the problem."""
    if not isinstance(text, str):
        raise IllegalAction("bad_action", f"An action is text like 'leg:blue', not {text!r}.")
    parts = text.strip().lower().split(":")
    kind, args = parts[0], parts[1:]
    if kind == "leg" and len(args) == 1:
        return TakeLegTile(_colour(text, args[0]))
    if kind == "desert" and len(args) == 2:
        if args[1] not in SIDES:
            raise _bad(text, f"the side must be oasis or mirage, not {args[1]!r}")
        return PlaceDesert(_int(text, args[0], "space"), args[1])
    if kind == "roll" and not args:
        return ReleaseDie()
    if kind == "roll" and len(args) == 2:
        face = _int(text, args[1], "face")
        if face not in FACES:
            raise IllegalAction("bad_face", f"A Camel Up die shows 1, 2 or 3, not {face}.")
        return ReleaseDie(_colour(text, args[0]), face)
    if kind == "bet" and len(args) == 2:
        if args[0] not in PILES:
            raise _bad(text, f"the pile must be winner or loser, not {args[0]!r}")
        return BetOverall(args[0], _colour(text, args[1]))
    raise _bad(
        text,
        "expected leg:COLOUR, desert:SPACE:oasis|mirage, roll, roll:COLOUR:FACE "
        "or bet:winner|loser:COLOUR",
    )
