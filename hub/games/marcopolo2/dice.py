"""Round start in Marco Polo II: the dice the camera read, sorted to players, totals and the
compensation owed.

The die reader gives a list of readings {"box": (x, y, w, h), "face": 1..6 | None,
"colour": str | None, "confidence": 0..1}. A die of a player colour belongs to that colour's
player. A black (neutral) die belongs to whoever's board it lies on, which colour alone cannot
tell: pass ``boards`` (player -> (x, y, w, h) region in the image) to place them, otherwise they
are reported for a person. Readings without a colour or face, or below ``min_confidence``, are
abstentions: reported as needing a person, never guessed.

Settled here: a player's round total counts every die on their board at round start, black dice
included ("the sum of all of a player's dice"). Dice of colours nobody plays are the 2- and
3-player neutral dice on the main board: reported as ``neutral``, not a problem.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hub.games.common import IllegalAction
from hub.games.marcopolo2.setup import COMPENSATION_TARGET, NEUTRAL_COLOUR, PLAYER_COLOURS

Box = tuple[float, float, float, float]


def compensation(total: int) -> int:
    """What a player whose dice total ``total`` is owed: 15 - total when below 15, else 0,
    taken as any mix of coins and camels."""
    return max(0, COMPENSATION_TARGET - int(total))


def split_compensation(owed: int, coins: int) -> dict[str, int]:
    """The player's choice: ``coins`` coins and the rest camels."""
    if not isinstance(coins, int) or not 0 <= coins <= owed:
        raise IllegalAction(
            "bad_compensation",
            f"Compensation of {owed} is taken as 0 to "
            f"{owed} coins with camels for the rest, not {coins!r} coins.",
        )
    return {"coins": coins, "camels": owed - coins}


@dataclass
class PlayerDice:
    player: str
    colour: str
    faces: list[int] = field(default_factory=list)  # own-colour dice
    black: list[int] = field(default_factory=list)  # black dice on this player's board
    complete: bool = True  # no doubtful reading on this board and the expected dice count

    @property
    def total(self) -> int:
        return sum(self.faces) + sum(self.black)

    @property
    def owed(self) -> int:
        return compensation(self.total)

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "colour": self.colour,
            "faces": sorted(self.faces),
            "black": sorted(self.black),
            "total": self.total,
            "owed": self.owed,
            "complete": self.complete,
        }


@dataclass
class RoundReading:
    players: dict[str, PlayerDice]
    needs_person: list[dict[str, Any]]  # readings a person must confirm, with a reason
    neutral: list[dict[str, Any]]  # dice of colours nobody plays (setup dice)

    def to_json(self) -> dict[str, Any]:
        return {
            "players": {n: d.to_json() for n, d in self.players.items()},
            "needs_person": self.needs_person,
            "neutral": self.neutral,
        }


def _inside(box: Sequence[float], region: Sequence[float]) -> bool:
    x, y, w, h = box
    cx, cy = x + w / 2, y + h / 2
    rx, ry, rw, rh = region
    return rx <= cx < rx + rw and ry <= cy < ry + rh


def _get(reading: Any, key: str) -> Any:
    return reading.get(key) if isinstance(reading, Mapping) else getattr(reading, key, None)


def assign_readings(
    readings: Sequence[Any],
    colours: Mapping[str, str],
    boards: Mapping[str, Box] | None = None,
    min_confidence: float = 0.5,
    expected_dice: int | None = None,
) -> RoundReading:
    """Sort die readings to players. ``colours`` maps each player to their colour. Readings may be
    dicts or objects with the same attributes (the die reader's dataclass).

    A player's dice are ``complete`` unless a doubtful reading lies on their board (when
    ``boards`` is given), or, with ``expected_dice`` (the rule page does not state how many dice a
    player has, so it is a setting), their own-colour count differs from it. Only complete
    readings should become a total without a person looking."""
    by_colour = {c: p for p, c in colours.items()}
    bad = sorted(set(by_colour) - set(PLAYER_COLOURS))
    if bad or len(by_colour) != len(colours):
        raise IllegalAction(
            "bad_colours", f"Player colours must be distinct, from {', '.join(PLAYER_COLOURS)}."
        )
    out = RoundReading({p: PlayerDice(p, c) for p, c in colours.items()}, [], [])
    for i, r in enumerate(readings):
        colour, face = _get(r, "colour"), _get(r, "face")
        conf = _get(r, "confidence")
        box = _get(r, "box")
        item = {
            "index": i,
            "box": list(box) if box is not None else None,
            "colour": colour,
            "face": face,
            "confidence": conf,
        }
        if colour is None or face is None:
            out.needs_person.append({**item, "reason": "the camera could not read this die"})
            continue
        if conf is not None and conf < min_confidence:
            out.needs_person.append(
                {**item, "reason": f"confidence {conf:.2f} is below {min_confidence:.2f}"}
            )
            continue
        if not isinstance(face, int) or not 1 <= face <= 6:
            out.needs_person.append({**item, "reason": f"face {face!r} is not 1 to 6"})
            continue
        if colour in by_colour:
            out.players[by_colour[colour]].faces.append(face)
        elif colour == NEUTRAL_COLOUR:
            owners = [p for p, region in (boards or {}).items() if box and _inside(box, region)]
            if len(owners) == 1:
                out.players[owners[0]].black.append(face)
            else:
                why = (
                    "black die: on no player's board"
                    if boards
                    else "black die: which player's board is it on?"
                )
                out.needs_person.append({**item, "reason": why})
        elif colour in PLAYER_COLOURS:
            out.neutral.append(item)
        else:
            out.needs_person.append(
                {**item, "reason": f"{colour!r} is not a Marco Polo II die colour"}
            )
    for doubt in out.needs_person:
        box = doubt.get("box")
        owners = [p for p, region in (boards or {}).items() if box and _inside(box, region)]
        doubt["board"] = owners[0] if len(owners) == 1 else None
        for p in owners:
            out.players[p].complete = False
        if boards is None:  # no boards: any doubt may belong to anyone
            for d in out.players.values():
                d.complete = False
    if expected_dice is not None:
        for p, d in out.players.items():
            if len(d.faces) != expected_dice:
                d.complete = False
                out.needs_person.append(
                    {
                        "index": None,
                        "box": None,
                        "colour": d.colour,
                        "face": None,
                        "confidence": None,
                        "board": p,
                        "reason": f"expected {expected_dice} {d.colour} dice, read {len(d.faces)}",
                    }
                )
    return out
