"""Horse-race actions and their text notation.

``str(action)`` is the notation and ``parse_action`` reads it back, so logs, tests, MQTT requests
and the camera glue all speak the same words:

- ``bet:<horse>``   place a token in the highest free circle of that horse's column
- ``pass``          place no token this betting phase
- ``roll``          the engine rolls the die from its seeded generator (simulations, no camera)
- ``roll:<face>``   the die was rolled at the table and read (camera or a person): face 1..6
- ``assign:<horse>`` give the roll in hand to that horse, which moves forward by it
"""

from __future__ import annotations

from dataclasses import dataclass

from hub.games.common import IllegalAction


@dataclass(frozen=True)
class Bet:
    horse: str

    def __str__(self) -> str:
        return f"bet:{self.horse}"


@dataclass(frozen=True)
class Pass:
    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True)
class Roll:
    """A roll of the die. ``face`` None: the engine rolls; otherwise the observed face."""

    face: int | None = None

    def __str__(self) -> str:
        return "roll" if self.face is None else f"roll:{self.face}"


@dataclass(frozen=True)
class Assign:
    horse: str

    def __str__(self) -> str:
        return f"assign:{self.horse}"


Action = Bet | Pass | Roll | Assign


def parse_action(text: str) -> Action:
    """Read the notation back into an action; a clear IllegalAction("bad_action") otherwise.

    Only the shape is checked here (e.g. that a face is a number); whether the horse exists or the
    face is 1..6 is the engine's call, so its refusal can name the game's horses."""
    if not isinstance(text, str):
        raise IllegalAction("bad_action", f"An action is text like 'bet:blue', not {text!r}.")
    parts = text.strip().split(":")
    head = parts[0].lower()
    if head == "pass" and len(parts) == 1:
        return Pass()
    if head == "roll" and len(parts) == 1:
        return Roll()
    if head == "roll" and len(parts) == 2:
        try:
            return Roll(int(parts[1]))
        except ValueError:
            raise IllegalAction(
                "bad_action", f"'{text}': a roll's face is a number 1 to 6."
            ) from None
    if head in ("bet", "assign") and len(parts) == 2 and parts[1]:
        return (Bet if head == "bet" else Assign)(parts[1].lower())
    raise IllegalAction(
        "bad_action",
        f"'{text}' is not a horse-race action; use bet:<horse>, pass, roll, roll:<face> "
        "or assign:<horse>.",
    )
