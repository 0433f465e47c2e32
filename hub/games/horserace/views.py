"""JSON-safe views of a horse-race state for the dashboard and MQTT.

Nothing in this game is secret (tokens are placed face up), so the public view is the full view.
The shape mirrors Camel Up's public view where the concepts match ("players", "current_player",
"starting_player", "track", "holdings" with "money", "finished", "result") so the hub's generic
parts (score topics, the player list) need no per-game branch.
"""

from __future__ import annotations

from typing import Any

from hub.games.horserace.state import State


def public_view(state: State) -> dict[str, Any]:
    s = state.settings
    track: dict[str, list[str]] = {}
    for h, pos in enumerate(state.positions):
        if h not in state.podium:
            track.setdefault(str(pos), []).append(state.horses[h])
    next_slot = {}
    for h, horse in enumerate(state.horses):
        slot = len(state.columns[h]) if state.columns else 0
        next_slot[horse] = [row[slot] for row in s.score_table] if slot < s.column_size else None
    return {
        "game": "horserace",
        "players": list(state.players),
        "current_player": state.current_player(),
        "starting_player": state.players[state.race_starter],
        "active_player": state.players[state.active],
        "race": state.race,
        "races": s.races,
        "round": state.round,
        "phase": state.phase,
        "betting_open": state.betting_open and not state.finished,
        "roll": state.roll,
        "track_length": s.track_length,
        "positions": {state.horses[h]: p for h, p in enumerate(state.positions)},
        "track": dict(sorted(track.items(), key=lambda kv: int(kv[0]))),
        "moved": [state.horses[h] for h in sorted(state.moved)],
        "podium": [state.horses[h] for h in state.podium],
        "columns": {
            state.horses[h]: [state.players[p] for p in col] for h, col in enumerate(state.columns)
        },
        "next_circle_points": next_slot,  # per horse: points by place for the next token
        "score_table": [list(r) for r in s.score_table],
        "holdings": {
            name: {
                "money": state.points[i],
                "points": state.points[i],
                "tokens": state.tokens[i] if state.tokens else 0,
            }
            for i, name in enumerate(state.players)
        },
        "races_scored": [dict(r) for r in state.results],
        "finished": state.finished,
        "result": dict(state.result) if state.result else None,
    }


full_view = public_view


def player_view(state: State, name: str) -> dict[str, Any]:
    """Everything is public in this game; the player's view adds only who they are."""
    state.player_index(name)
    return {**public_view(state), "you": name}
