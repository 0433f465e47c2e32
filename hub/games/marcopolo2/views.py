"""JSON-safe views of the Marco Polo II assistant for the dashboard and MQTT.

Shaped like the other games' public views where the ideas match ("game", "players",
"current_player", "finished", "result" with "winners" and "money"), plus what this game shows:
the round, each player's dice, total and compensation, the player-count setup and the sheets.
"""

from __future__ import annotations

from typing import Any

from hub.games.marcopolo2.engine import State
from hub.games.marcopolo2.setup import ROUNDS, setup_for


def public_view(state: State) -> dict[str, Any]:
    return {
        "game": "marcopolo2",
        "players": list(state.players),
        "colours": dict(state.colours),
        "current_player": None,
        "round": state.round,
        "rounds": ROUNDS,
        "dice": {
            p: {**d, "compensation": state.compensation.get(p)} for p, d in state.dice.items()
        },
        "waiting_for_dice": [p for p in state.players if p not in state.dice],
        "pending_compensation": state.pending_compensation(),
        "history": [dict(h) for h in state.history],
        "setup": setup_for(len(state.players)),
        "sheets": {p: dict(s) for p, s in state.sheets.items()},
        "finished": state.finished,
        "result": dict(state.result) if state.result else None,
    }


full_view = public_view


def player_view(state: State, name: str) -> dict[str, Any]:
    if name not in state.players:
        raise ValueError(f"{name!r} is not playing")
    return {**public_view(state), "you": name}
