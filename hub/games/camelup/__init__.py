"""Camel Up (first edition): pure rules, exact odds and an advisor.

>>> start = {1: ["blue"], 2: ["green", "orange"], 3: ["yellow", "white"]}
>>> g = Game.new(["Ann", "Bob"], track=start)
>>> [e["type"] for e in g.play("roll:green:2")]
['die_read', 'camel_moved']
>>> g.state.track[4]
('green', 'orange')
>>> g.current_player
'Bob'
"""

from .actions import Action, BetOverall, PlaceDesert, ReleaseDie, TakeLegTile, parse_action
from .errors import IllegalAction
from .game import Game, check_track, setup_track
from .model import COLOURS, FACES, SPACES, move_camel, ranking
from .rules import apply, legal_actions
from .state import GameState, PlayerState, fold
from .views import full_view, player_view, public_event, public_view

__all__ = [
    "COLOURS",
    "FACES",
    "SPACES",
    "Action",
    "BetOverall",
    "Game",
    "GameState",
    "IllegalAction",
    "PlaceDesert",
    "PlayerState",
    "ReleaseDie",
    "TakeLegTile",
    "apply",
    "check_track",
    "fold",
    "full_view",
    "legal_actions",
    "move_camel",
    "parse_action",
    "player_view",
    "public_event",
    "public_view",
    "ranking",
    "setup_track",
]
