"""The five actions of a second-edition turn as value types with a round-trip notation.

    leg:COLOUR                      take the top leg betting ticket of a racing colour
    spectator:SPACE:cheering|booing place or move the own spectator tile
    roll                            the engine releases a die (simulator)
    roll:COLOUR:FACE                a racing die observed, e.g. roll:red:2
    roll:grey:SHADE:FACE            the grey die: numeral colour and number, roll:grey:white:3
    bet:winner|loser:COLOUR         an overall bet with one of the own finish cards
    partner:NAME                    enter a betting partnership (6-8 players)

``str(parse_action(text)) == text`` for every well-formed text (after python-chess's UCI moves).
"""

from __future__ import annotations

from dataclasses import dataclass

from hub.games.camelup_common import bad_face, bad_notation, not_notation

from .errors import IllegalAction
from .model import CRAZY, FACES, GREY, PILES, RACING, SIDES


@dataclass(frozen=True)
class TakeLegTicket:
    colour: str

    def __str__(self) -> str:
        return f"leg:{self.colour}"


@dataclass(frozen=True)
class PlaceSpectator:
    space: int
    side: str

    def __str__(self) -> str:
        return f"spectator:{self.space}:{self.side}"


@dataclass(frozen=True)
class ReleaseDie:
    """Take a pyramid ticket and release a die.

    ``die`` is a racing colour or "grey"; for the grey die ``shade`` is the numeral's colour
    (black or white). Without a die the engine rolls one from its seeded generator.
    """

    die: str | None = None
    face: int | None = None
    shade: str | None = None

    def __str__(self) -> str:
        if self.die is None:
            return "roll"
        if self.die == GREY:
            return f"roll:{GREY}:{self.shade}:{self.face}"
        return f"roll:{self.die}:{self.face}"


@dataclass(frozen=True)
class BetOverall:
    pile: str
    colour: str

    def __str__(self) -> str:
        return f"bet:{self.pile}:{self.colour}"


@dataclass(frozen=True)
class EnterPartnership:
    partner: str

    def __str__(self) -> str:
        return f"partner:{self.partner}"


Action = TakeLegTicket | PlaceSpectator | ReleaseDie | BetOverall | EnterPartnership


def _racing(text: str, value: str) -> str:
    if value in CRAZY:
        raise IllegalAction(
            "not_racing_camel",
            f"{value} is a crazy camel: leg tickets, finish "
            "cards and dice name only the racing camels "
            f"({', '.join(RACING)}).",
        )
    if value not in RACING:
        raise bad_notation(text, f"{value!r} is not a racing camel ({', '.join(RACING)})")
    return value


def _face(text: str, value: str) -> int:
    try:
        face = int(value)
    except ValueError:
        raise bad_notation(text, f"face {value!r} is not a number") from None
    if face not in FACES:
        raise bad_face(face)
    return face


def parse_action(text: str) -> Action:
    """Read an action from its notation; raise IllegalAction naming the problem."""
    if not isinstance(text, str):
        raise not_notation(text)
    parts = text.strip().split(":")
    kind, args = parts[0].lower(), parts[1:]
    low = [a.lower() for a in args]
    if kind == "leg" and len(args) == 1:
        return TakeLegTicket(_racing(text, low[0]))
    if kind == "spectator" and len(args) == 2:
        if low[1] not in SIDES:
            raise bad_notation(text, f"the side must be cheering or booing, not {args[1]!r}")
        try:
            space = int(args[0])
        except ValueError:
            raise bad_notation(text, f"space {args[0]!r} is not a number") from None
        return PlaceSpectator(space, low[1])
    if kind == "roll" and not args:
        return ReleaseDie()
    if kind == "roll" and len(args) == 3 and low[0] == GREY:
        if low[1] not in CRAZY:
            raise bad_notation(text, f"the grey die's numeral is black or white, not {args[1]!r}")
        return ReleaseDie(GREY, _face(text, args[2]), low[1])
    if kind == "roll" and len(args) == 2:
        if low[0] == GREY:
            raise bad_notation(
                text, "the grey die needs its numeral's colour: roll:grey:black|white:FACE"
            )
        if low[0] in CRAZY:
            raise bad_notation(
                text,
                f"there is no {low[0]} die; the grey die moves the crazy camels "
                "(roll:grey:black|white:FACE)",
            )
        return ReleaseDie(_racing(text, low[0]), _face(text, args[1]))
    if kind == "bet" and len(args) == 2:
        if low[0] not in PILES:
            raise bad_notation(text, f"the pile must be winner or loser, not {args[0]!r}")
        return BetOverall(low[0], _racing(text, low[1]))
    if kind == "partner" and len(args) == 1 and args[0].strip():
        return EnterPartnership(args[0].strip())
    raise bad_notation(
        text,
        "expected leg:COLOUR, spectator:SPACE:cheering|booing, roll, "
        "roll:COLOUR:FACE, roll:grey:black|white:FACE, bet:winner|loser:COLOUR or "
        "partner:NAME",
    )
