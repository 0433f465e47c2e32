"""What both editions' rules do alike: whose turn it is, an action handed to its edition's
handler, the simulator's roll, the refusals worded the same way, an overall bet, and the
game-over reveal of the overall piles.

Each edition's ``rules`` passes its own handlers, camels and cards as values; nothing here asks
which edition it is.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hub.games.common import IllegalAction

from .model import PILES, overall_payout

Event = dict[str, Any]
Handler = Callable[[Any, str, Any], list[Event]]

__all__ = [
    "Event",
    "Hand",
    "Handler",
    "bad_face",
    "bad_notation",
    "decide",
    "game_over",
    "not_notation",
    "overall_bet",
    "player_to_move",
    "roll_rng",
]


# -- the refusals both editions word alike ------------------------------------------------------
def bad_notation(text: str, why: str) -> IllegalAction:
    """An action's text that cannot be read, and why (reason ``bad_action``)."""
    return IllegalAction("bad_action", f"Cannot read the action {text!r}: {why}.")


def not_notation(text: object) -> IllegalAction:
    """An action given as something other than text."""
    return IllegalAction("bad_action", f"An action is text like 'leg:blue', not {text!r}.")


def bad_face(face: object, die: str = "A Camel Up die") -> IllegalAction:
    """A die face other than 1, 2 or 3 (reason ``bad_face``); ``die`` names the die."""
    return IllegalAction("bad_face", f"{die} shows 1, 2 or 3, not {face!r}.")


# -- whose turn, and what an action does ------------------------------------------------------
def player_to_move(state: Any, player: str | None) -> str:
    """The name of the player to move, checked against ``player`` (who says they act, if
    given); IllegalAction once the race is over or out of turn."""
    if state.finished or state.current is None:
        raise IllegalAction("game_over", "The race is over: no more actions this game.")
    mover: str = state.players[state.current].name
    if player is not None and player != mover:
        if player not in state.names:
            raise IllegalAction("unknown_player", f"There is no player called {player!r} here.")
        raise IllegalAction("not_your_turn", f"It is {mover}'s turn, not {player}'s.")
    return mover


def decide(
    handlers: Mapping[type, Handler], state: Any, action: Any, player: str | None
) -> list[Event]:
    """The events ``action`` causes for the player to move, from the handler of its type
    (``handler(state, mover, action)``); IllegalAction if it is out of turn or not an action
    of this edition."""
    mover = player_to_move(state, player)
    handler = handlers.get(type(action))
    if handler is None:
        raise IllegalAction("bad_action", f"{action!r} is not a Camel Up action.")
    return handler(state, mover, action)


def roll_rng(game: str, state: Any) -> random.Random:
    """The simulator's generator for the next roll, seeded by the game's name, its seed and the
    action count.

    Deriving it from (seed, actions so far) instead of keeping one generator running makes a game
    replayed from its log after a crash roll exactly what the uninterrupted game would have.
    """
    return random.Random(f"{game}/{state.seed}/{state.actions}")


# -- the overall bets -------------------------------------------------------------------------
@dataclass(frozen=True)
class Hand:
    """An edition's overall-bet cards in a player's hand: their key in the views (race_cards,
    finish_cards), the camels they name in order, where a player state keeps them, and the
    refusal when the card named was already played."""

    key: str
    camels: tuple[str, ...]
    of: Callable[[Any], frozenset[str]]
    card: str  # the card's name in a sentence: "race card", "finish card"
    played: str  # the refusal's reason code when that card is no longer in the hand


def overall_bet(
    state: Any,
    mover: str,
    pile: object,
    colour: object,
    hand: Hand,
    check_camel: Callable[[object], str],
) -> list[Event]:
    """The overall_bet_placed event of ``mover`` putting the ``colour`` card on ``pile``;
    IllegalAction if the pile is not one, ``check_camel`` refuses the colour (the edition's
    words for a camel it does not have) or the card was already played, in that order."""
    if pile not in PILES:
        raise IllegalAction("bad_action", f"The piles are winner and loser, not {pile!r}.")
    colour = check_camel(colour)
    if colour not in hand.of(state.players[state.index(mover)]):
        raise IllegalAction(hand.played, f"{mover} has already played the {colour} {hand.card}.")
    return [{"type": "overall_bet_placed", "player": mover, "pile": pile, "colour": colour}]


# -- the end of the race ----------------------------------------------------------------------
def game_over(state: Any, order: list[str], money: dict[str, int]) -> Event:
    """The game_over event from the race's final ranking ``order`` (racing camels, winner
    first): the winner pile then the loser pile, card by card in the order placed; a correct
    card pays by how many correct ones came before it, a wrong one costs 1 (never below 0).
    ``state`` needs ``overall``, ``players`` and ``names``."""
    result = {"winner": order[0], "loser": order[-1]}
    money = dict(money)
    revealed = []
    for pile in PILES:
        correct = 0
        for i, colour in state.overall[pile]:
            name = state.players[i].name
            if colour == result[pile]:
                payout = overall_payout(correct)
                correct += 1
            else:
                payout = -min(1, money[name])
            money[name] += payout
            revealed.append(
                {
                    "pile": pile,
                    "player": name,
                    "colour": colour,
                    "correct": colour == result[pile],
                    "payout": payout,
                }
            )
    best = max(money.values())
    return {
        "type": "game_over",
        "winner": order[0],
        "loser": order[-1],
        "ranking": order,
        "overall": revealed,
        "money": money,
        "winners": [n for n in state.names if money[n] == best],
    }
