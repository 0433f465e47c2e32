"""Second-edition bots: one that follows the advisor (quick mode) and one that plays at random."""

from __future__ import annotations

import random
from collections.abc import Callable

from .actions import Action, parse_action
from .advisor import advise
from .rules import legal_actions
from .state import GameState

Bot = Callable[[GameState], Action]


def random_bot(seed: int | str | None = None) -> Bot:
    """Uniform over the legal actions (mostly spectator placements: there are many)."""
    rng = random.Random(f"random-bot-2/{seed}")

    def choose(state: GameState) -> Action:
        return rng.choice(legal_actions(state))

    return choose


def advisor_bot(seed: int | str | None = None) -> Bot:
    """Takes the action the advisor (quick mode) rates best."""

    def choose(state: GameState) -> Action:
        return parse_action(advise(state, limit=1, quick=True)[0]["action"])

    return choose


BOTS: dict[str, Callable[[int | str | None], Bot]] = {"advisor": advisor_bot, "random": random_bot}


def make_bot(kind: str, seed: int | str | None = None) -> Bot:
    if kind not in BOTS:
        raise ValueError(f"unknown bot {kind!r}; choose from {', '.join(BOTS)}")
    return BOTS[kind](seed)
