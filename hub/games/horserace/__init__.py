"""The horse-race betting game (Walter Müller; rules in docs/rules/horse-race.md): pure rules,
Monte Carlo advice and bots, in the same shape as the Camel Up engine.

    >>> g = Game.new(["Ann", "Bob"], first_player="Ann", track_length=12)
    >>> [e["type"] for e in g.play("bet:blue")], g.current_player
    (['bet_placed'], 'Bob')
    >>> _ = g.play("pass"); _ = g.play("roll:5"); [e["to"] for e in g.play("assign:blue")]
    [5]
"""

from hub.games.common import IllegalAction
from hub.games.horserace.actions import Action, Assign, Bet, Pass, Roll, parse_action
from hub.games.horserace.advisor import advise, advise_roll, bet_values
from hub.games.horserace.bots import make_bot
from hub.games.horserace.camera import assignment_from_track, roll_from_die
from hub.games.horserace.engine import Game, decide, legal_actions, race_awards
from hub.games.horserace.settings import DEFAULT_HORSES, DEFAULT_SCORE_TABLE, Settings
from hub.games.horserace.state import State, apply, initial
from hub.games.horserace.views import full_view, player_view, public_view

HORSES = DEFAULT_HORSES

__all__ = [
    "DEFAULT_HORSES",
    "DEFAULT_SCORE_TABLE",
    "HORSES",
    "Action",
    "Assign",
    "Bet",
    "Game",
    "IllegalAction",
    "Pass",
    "Roll",
    "Settings",
    "State",
    "advise",
    "advise_roll",
    "apply",
    "assignment_from_track",
    "bet_values",
    "decide",
    "full_view",
    "initial",
    "legal_actions",
    "make_bot",
    "parse_action",
    "player_view",
    "public_view",
    "race_awards",
    "roll_from_die",
]
