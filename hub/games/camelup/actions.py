"""The four actions of a turn as small value types with a text notation that round-trips.

``parse_action("desert:7:mirage")`` gives ``PlaceDesert(7, "mirage")`` and ``str()`` gives the
text back, so logs, tests and MQTT payloads read the same way (after python-chess's UCI moves).
"""

from __future__ import annotations

from dataclasses import dataclass

from hub.games.camelup_common import bad_face, bad_notation, not_notation

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


def _colour(text: str, value: str) -> str:
    if value not in COLOURS:
        raise bad_notation(text, f"{value!r} is not a camel colour ({', '.join(COLOURS)})")
    return value


def _int(text: str, value: str, what: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise bad_notation(text, f"{what} {value!r} is not a number") from None


def parse_action(text: str) -> Action:
    """Read an action from its notation; raise IllegalAction("bad_action") naming the problem."""
    if not isinstance(text, str):
        raise not_notation(text)
    parts = text.strip().lower().split(":")
    kind, args = parts[0], parts[1:]
    if kind == "leg" and len(args) == 1:
        return TakeLegTile(_colour(text, args[0]))
    if kind == "desert" and len(args) == 2:
        if args[1] not in SIDES:
            raise bad_notation(text, f"the side must be oasis or mirage, not {args[1]!r}")
        return PlaceDesert(_int(text, args[0], "space"), args[1])
    if kind == "roll" and not args:
        return ReleaseDie()
    if kind == "roll" and len(args) == 2:
        face = _int(text, args[1], "face")
        if face not in FACES:
            raise bad_face(face)
        return ReleaseDie(_colour(text, args[0]), face)
    if kind == "bet" and len(args) == 2:
        if args[0] not in PILES:
            raise bad_notation(text, f"the pile must be winner or loser, not {args[0]!r}")
        return BetOverall(args[0], _colour(text, args[1]))
    raise bad_notation(
        text,
        "expected leg:COLOUR, desert:SPACE:oasis|mirage, roll, roll:COLOUR:FACE "
        "or bet:winner|loser:COLOUR",
    )
