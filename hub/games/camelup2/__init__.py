"""Camel Up, second edition (2018): pure rules, exact leg odds, race odds and an advisor.

A game of its own beside :mod:`hub.games.camelup`; it imports the first edition's pure pieces
where the rules coincide (payout schedule, the event-sourced shell, the refusal type).

    >>> g = Game.new(["Ann", "Bob", "Cy"], track={1: ["red", "blue"], 2: ["green"],
    ...     3: ["yellow", "purple"], 14: ["white"], 16: ["black"]})
    >>> [e["camel"] for e in g.play("roll:grey:white:2")][:1]
    ['white']
    >>> g.state.track[12]
    ('white',)
"""

from .actions import (
    Action,
    BetOverall,
    EnterPartnership,
    PlaceSpectator,
    ReleaseDie,
    TakeLegTicket,
    parse_action,
)
from .errors import IllegalAction
from .game import Game, check_track, setup_track
from .model import CAMELS, CRAZY, DICE, RACING, SPACES, crazy_to_move, move_camel, ranking
from .rules import apply, legal_actions
from .state import GameState, PlayerState, fold
from .views import full_view, player_view, public_event, public_view

__all__ = [
    "CAMELS",
    "CRAZY",
    "DICE",
    "RACING",
    "SPACES",
    "Action",
    "BetOverall",
    "EnterPartnership",
    "Game",
    "GameState",
    "IllegalAction",
    "PlaceSpectator",
    "PlayerState",
    "ReleaseDie",
    "TakeLegTicket",
    "apply",
    "check_track",
    "crazy_to_move",
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
