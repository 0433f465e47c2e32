"""Marco Polo II facts the companion shows: colours, rounds, and the 2- and 3-player setup.

From docs/rules/marco-polo-2.md (source: the Portuguese BGA rules summary, seed 003). The setup
is data, not prose, so the dashboard can draw it and a test can check it.
"""

from __future__ import annotations

from typing import Any

PLAYER_COLOURS: tuple[str, ...] = ("blue", "yellow", "green", "red")
NEUTRAL_COLOUR = "black"
ROUNDS = 5
COMPENSATION_TARGET = 15
MIN_PLAYERS, MAX_PLAYERS = 2, 4
# The four player-colour sets and eight black dice are the box contents the seed implies
# (four colours; 5 or 4 black dice "used" with 3 or 2 players, "the rest" returned to the box).
BLACK_DICE = {2: 4, 3: 5}

_SETUP: dict[int, dict[str, Any]] = {
    2: {
        "black_dice": 4,
        "neutral_dice": [
            {"face": 1, "where": "Khan's favour", "space": 1},
            {"face": 1, "where": "Khan's favour", "space": 2},
            {"face": 1, "where": "Baghdad", "space": "one action space"},
            {"face": 1, "where": "Balkh", "space": "one action space"},
            {"face": 1, "where": "Hormuz", "space": "one action space"},
            {"face": 5, "where": "Books", "space": "lower blue space of the third book"},
        ],
        "notes": [
            "Neutral dice are of colours no player chose and stay all game.",
            "Final scoring: no points for the second-most contracts.",
        ],
    },
    3: {
        "black_dice": 5,
        "neutral_dice": [{"face": 1, "where": "Khan's favour", "space": 1}],
        "notes": ["The neutral die is of a colour no player chose and stays all game."],
    },
    4: {"black_dice": None, "neutral_dice": [], "notes": ["Standard setup: no neutral dice."]},
}


def setup_for(players: int) -> dict[str, Any]:
    """The player-count setup for the dashboard: black dice in play (None: the standard count,
    which the seed does not state) and the neutral dice to place, with their faces."""
    if players not in _SETUP:
        raise ValueError(
            f"Marco Polo II is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}"
        )
    data = _SETUP[players]
    return {
        "players": players,
        "black_dice": data["black_dice"],
        "neutral_dice": [dict(d) for d in data["neutral_dice"]],
        "notes": list(data["notes"]),
    }
