"""The public views of each game in the retained ``state`` (``state.game``): JSON Schema as data.

Why data here and not a dataclass per view: a view is each game's driver's ``public_view`` (a
plain JSON object the dashboards and Home Assistant read), and what the schema checks of it is
the contract that matters on a topic anyone may read: who plays, where the pieces are, and that
no overall bet's colour is there before the game ends (``overall`` items hold a player only).
The colours come from the engines, so a schema cannot name a camel the game does not have.
``docs/schemas/state.json`` is generated from :func:`hub.wire.state_schema`, which uses these.
"""

from __future__ import annotations

from typing import Any

from hub.games.camelup.model import COLOURS as CAMEL_UP
from hub.games.camelup2.model import CAMELS as CAMEL_UP2
from hub.games.camelup2.model import DICE as CAMEL_UP2_DICE

__all__ = ["GAME_VIEWS", "SETUP_READING"]

_NAME: dict[str, Any] = {"type": "string", "minLength": 1}
_NAMES: dict[str, Any] = {"type": "array", "items": _NAME}


def _track(colours: tuple[str, ...]) -> dict[str, Any]:
    """{space: [camels bottom to top]}: the spaces as text, the camels of one game."""
    return {
        "type": "object",
        "patternProperties": {"^[0-9]+$": {"type": "array", "items": {"enum": list(colours)}}},
        "additionalProperties": False,
    }


_MONEY: dict[str, Any] = {
    "type": "object",
    "additionalProperties": {
        "type": "object",
        "required": ["money"],
        "properties": {"money": {"type": "integer"}},
    },
}
#: the overall bets' piles, public: who bet, in order, never the colour before game_over
_OVERALL: dict[str, Any] = {
    "type": "object",
    "additionalProperties": {
        "type": "array",
        "items": {
            "type": "object",
            "required": ["player"],
            "properties": {"player": _NAME},
            "additionalProperties": False,
        },
    },
}

#: one schema per game's public view, in the order ``state.json`` lists them
GAME_VIEWS: list[dict[str, Any]] = [
    {
        "type": "object",
        "required": [
            "players",
            "current_player",
            "leg",
            "track",
            "desert",
            "dice_left",
            "dice_rolled",
            "leg_tiles",
            "holdings",
            "overall",
            "finished",
            "result",
        ],
        "properties": {
            "players": _NAMES,
            "leg": {"type": "integer"},
            "track": _track(CAMEL_UP),
            "dice_left": {"type": "array", "items": {"enum": list(CAMEL_UP)}},
            "holdings": _MONEY,
            "overall": _OVERALL,
            "game": {"const": "camelup"},
        },
        "title": "Camel Up",
    },
    {
        "title": "horse race",
        "type": "object",
        "required": [
            "game",
            "players",
            "current_player",
            "race",
            "races",
            "round",
            "phase",
            "roll",
            "track_length",
            "positions",
            "podium",
            "columns",
            "holdings",
            "finished",
            "result",
        ],
        "properties": {
            "game": {"const": "horserace"},
            "players": _NAMES,
            "phase": {"enum": ["betting", "running", "over"]},
            "roll": {"type": ["integer", "null"], "minimum": 1, "maximum": 6},
            "positions": {"type": "object", "additionalProperties": {"type": "integer"}},
            "podium": _NAMES,
            "columns": {"type": "object", "additionalProperties": _NAMES},
            "holdings": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "required": ["money", "points", "tokens"],
                },
            },
        },
    },
    {
        "title": "Marco Polo II",
        "type": "object",
        "required": [
            "game",
            "players",
            "colours",
            "round",
            "rounds",
            "dice",
            "pending_compensation",
            "setup",
            "sheets",
            "finished",
            "result",
        ],
        "properties": {
            "game": {"const": "marcopolo2"},
            "players": _NAMES,
            "round": {"type": "integer", "minimum": 1, "maximum": 5},
            "dice": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "required": ["faces", "black", "total", "owed", "compensation"],
                },
            },
            "pending_compensation": _NAMES,
            "setup": {
                "type": "object",
                "required": ["players", "black_dice", "neutral_dice", "notes"],
            },
        },
    },
    {
        "title": "Camel Up second edition",
        "type": "object",
        "required": [
            "game",
            "edition",
            "players",
            "current_player",
            "leg",
            "track",
            "spectators",
            "dice_left",
            "holdings",
            "overall",
            "finished",
            "result",
        ],
        "properties": {
            "game": {"const": "camelup2"},
            "edition": {"const": 2},
            "players": {**_NAMES, "minItems": 3},
            "leg": {"type": "integer"},
            "track": _track(CAMEL_UP2),
            "dice_left": {"type": "array", "items": {"enum": list(CAMEL_UP2_DICE)}},
            "spectators": {"type": "object"},
            "holdings": _MONEY,
            "overall": _OVERALL,
        },
    },
]

#: the camera's setup reading while no game is played (Camel Up's starting roll or track)
SETUP_READING: dict[str, Any] = {
    "type": "object",
    "required": ["id", "source", "track", "complete", "problems"],
    "properties": {
        "id": {"type": "integer", "minimum": 1},
        "source": {"enum": ["dice", "track"]},
        "track": _track(CAMEL_UP),
        "complete": {"type": "boolean"},
        "problems": {"type": "array", "items": {"type": "string"}},
        "notes": {"type": "array", "items": {"type": "string"}},
        "dice": {
            "type": "array",
            "items": {
                "type": "array",
                "prefixItems": [{"enum": list(CAMEL_UP)}, {"enum": [1, 2, 3]}],
                "minItems": 2,
                "maxItems": 2,
            },
        },
        "ts": {"type": "number"},
    },
}
