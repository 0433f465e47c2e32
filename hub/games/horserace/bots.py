"""Horse-race bots for the simulator and the demo table: ``make_bot(kind, seed)``.

- "random": a uniformly random legal action (bets and passes alike), observed rolls from its rng.
- "advisor": bets on the horse whose next circle is worth most if that is at least
  ``BET_THRESHOLD`` points (the value of a top circle when all five horses are alike is 14.4, and
  circles only get worse as columns fill, so waiting rarely pays unless no horse is worth it);
  gives each roll to the horse that maximises its expected points minus the best rival's
  (a lead over others wins games, not points alone).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from hub.games.horserace.actions import Action, Assign, Bet, Pass, Roll
from hub.games.horserace.advisor import advise_roll, bet_values
from hub.games.horserace.engine import legal_actions
from hub.games.horserace.state import State

Bot = Callable[[State, str], Action]
BET_THRESHOLD = 8.0
BOT_SAMPLES = 1000


def _random_bot(seed: int) -> Bot:
    rng = random.Random(seed)

    def act(state: State, player: str) -> Action:
        actions = legal_actions(state)
        if actions == [Roll()]:
            return Roll(rng.randint(1, 6))
        return rng.choice(actions)

    return act


def _advisor_bot(seed: int, samples: int = BOT_SAMPLES) -> Bot:
    rng = random.Random(seed)

    def act(state: State, player: str) -> Action:
        if state.phase == "betting":
            bets = bet_values(state, samples, seed=rng.randrange(1 << 30))["bets"]
            options = [(v["expected"], h) for h, v in bets.items() if v is not None]
            if options:
                value, horse = max(options)
                if value >= BET_THRESHOLD:
                    return Bet(horse)
            return Pass()
        if state.roll is None:
            return Roll(rng.randint(1, 6))
        unmoved = state.unmoved()
        if len(unmoved) == 1:
            return Assign(state.horses[unmoved[0]])
        advice = advise_roll(state, samples, seed=rng.randrange(1 << 30))
        me = player

        def edge(choice: dict[str, Any]) -> float:
            rivals = [v for n, v in choice["expected"].items() if n != me]
            return float(choice["expected"][me] - max(rivals))

        return Assign(max(advice["choices"], key=edge)["horse"])

    return act


def make_bot(kind: str, seed: int = 0, samples: int = BOT_SAMPLES) -> Bot:
    """A bot: callable(state, player) -> Action for the player to move."""
    if kind == "random":
        return _random_bot(seed)
    if kind == "advisor":
        return _advisor_bot(seed, samples)
    raise ValueError(f"unknown horse-race bot {kind!r}; use 'advisor' or 'random'")
