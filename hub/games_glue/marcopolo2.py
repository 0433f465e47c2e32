"""The camera at Marco Polo II's round start: one frame's die readings become each player's dice.

Pure. ``actions_from_readings`` (the engine's glue) sorts the readings to players, using the
boards' regions (a table setting given at ``start_game``) for the black dice. A player read
completely gets a ``dice:<player>:...`` action; everything else (a die the camera could not read,
a black die on no board, a player with too few dice) goes to a person as one prompt, never into a
total: a wrong total would mean wrong compensation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hub.games.marcopolo2 import ReadDice, State, actions_from_readings

__all__ = ["judge_frame"]


def judge_frame(state: State, readings: Sequence[Mapping[str, Any]],
                boards: Mapping[str, Sequence[float]] | None, threshold: float,
                expected_dice: int | None = None) -> tuple[list[ReadDice], dict[str, Any] | None]:
    """(the actions to play, the prompt's content or None).

    A player whose dice the game already holds exactly as read gets no action (a second frame of
    the same dice changes nothing); one who has taken compensation keeps their dice, and a
    different reading of them goes to the person."""
    box_map = {p: tuple(float(v) for v in b) for p, b in (boards or {}).items()}
    actions, sorted_ = actions_from_readings(state, list(readings), box_map or None,
                                             min_confidence=threshold,
                                             expected_dice=expected_dice)
    out: list[ReadDice] = []
    notes: list[dict[str, Any]] = list(sorted_.needs_person)
    for act in actions:
        held = state.dice.get(act.player)
        if held is not None and sorted(held["faces"]) == list(act.faces) and \
                sorted(held["black"]) == list(act.black):
            continue
        if act.player in state.compensation:
            notes.append({"index": None, "box": None, "colour": state.colours[act.player],
                          "face": None, "confidence": None, "board": act.player,
                          "reason": f"{act.player} has taken compensation for other dice "
                                    f"({state.dice[act.player]['total']}); undo that first"})
            continue
        out.append(act)
    unread = [p for p, d in sorted_.players.items() if not d.complete and p not in state.dice]
    if not notes and not unread:
        return out, None
    return out, {"round": state.round, "players": unread, "needs_person": notes,
                 "neutral": sorted_.neutral,
                 "read": {p: d.to_json() for p, d in sorted_.players.items()}}
