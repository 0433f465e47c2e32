"""Bot players: one that follows the advisor and one that picks any legal action at random."""

from __future__ import annotations

import random
from collections.abc import Callable

from .actions import Action, parse_action
from .advisor import advise
from .rules import legal_actions
from .state import GameState

Bot = Callable[[GameState], Action]


def random_bot(seed: int | str | None = None) -> Bot:
    """Uniform over the legal actions (so mostly desert placements: there are many of them)."""
    rng = random.Random(f"random-bot/{seed}")

    def choose(state: GameState) -> Action:
        return rng.choice(legal_actions(state))

    return choose


def advisor_bot(seed: int | str | None = None) -> Bot:
    """Takes the action the advisor rates best (ties broken by the advisor's stable order)."""

    def choose(state: GameState) -> Action:
        return parse_action(advise(state, limit=1, words=False)[0]["action"])

    return choose


BOTS: dict[str, Callable[[int | str | None], Bot]] = {"advisor": advisor_bot, "random": random_bot}


def make_bot(kind: str, seed: int | str | None = None) -> Bot:
    if kind not in BOTS:
        raise ValueError(f"unknown bot {kind!r}; choose from {', '.join(BOTS)}")
    return BOTS[kind](seed)
