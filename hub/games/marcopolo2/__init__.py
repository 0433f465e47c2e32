"""Marco Polo II table assistant (rules: docs/rules/marco-polo-2.md): round-start dice read by
the camera with totals and compensation, the 2/3-player setup, and the final scoring calculator.

    >>> final_scoring({"Ann": {"coins": 23, "contracts": 3}, "Bob": {"coins": 9}})["winners"]
    ['Ann']
"""

from hub.games.common import IllegalAction
from hub.games.marcopolo2.dice import (
    PlayerDice,
    RoundReading,
    assign_readings,
    compensation,
    split_compensation,
)
from hub.games.marcopolo2.engine import (
    Action,
    Compensate,
    EnterSheet,
    Finish,
    Game,
    NextRound,
    ReadDice,
    State,
    apply,
    decide,
    initial,
    parse_action,
)
from hub.games.marcopolo2.glue import actions_from_readings
from hub.games.marcopolo2.scoring import (
    ScoreSheet,
    best_jade_split,
    contract_majority,
    final_scoring,
    trading_post_points,
)
from hub.games.marcopolo2.setup import PLAYER_COLOURS, ROUNDS, setup_for
from hub.games.marcopolo2.views import full_view, player_view, public_view

__all__ = [
    "PLAYER_COLOURS",
    "ROUNDS",
    "Action",
    "Compensate",
    "EnterSheet",
    "Finish",
    "Game",
    "IllegalAction",
    "NextRound",
    "PlayerDice",
    "ReadDice",
    "RoundReading",
    "ScoreSheet",
    "State",
    "actions_from_readings",
    "apply",
    "assign_readings",
    "best_jade_split",
    "compensation",
    "contract_majority",
    "decide",
    "final_scoring",
    "full_view",
    "initial",
    "parse_action",
    "player_view",
    "public_view",
    "setup_for",
    "split_compensation",
    "trading_post_points",
]
