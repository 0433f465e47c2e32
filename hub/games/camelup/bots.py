"""Bot players: one that follows the advisor and one that picks any legal action at random.

The two kinds are the same for both editions; :func:`random_choice` and :func:`advice_taker`
build them from an edition's own ``legal_actions`` and advisor (the second edition's
:mod:`hub.games.camelup2.bots` does so with its own)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from .actions import Action, parse_action
from .advisor import advise
from .rules import legal_actions
from .state import GameState

Bot = Callable[[GameState], Action]


def random_choice(legal: Callable[[Any], list[Any]], seed_text: str) -> Callable[[Any], Any]:
    """A bot uniform over ``legal(state)``, its generator seeded by ``seed_text``."""
    rng = random.Random(seed_text)

    def choose(state: Any) -> Any:
        return rng.choice(legal(state))

    return choose


def advice_taker(best: Callable[[Any], str], parse: Callable[[str], Any]) -> Callable[[Any], Any]:
    """A bot that plays ``best(state)``, the advisor's top action in notation."""

    def choose(state: Any) -> Any:
        return parse(best(state))

    return choose


def make_from(
    bots: dict[str, Callable[[int | str | None], Any]], kind: str, seed: int | str | None
) -> Any:
    """``bots[kind](seed)``, or a ValueError naming the kinds there are."""
    if kind not in bots:
        raise ValueError(f"unknown bot {kind!r}; choose from {', '.join(bots)}")
    return bots[kind](seed)


def random_bot(seed: int | str | None = None) -> Bot:
    """Uniform over the legal actions (so mostly desert placements: there are many of them)."""
    return random_choice(legal_actions, f"random-bot/{seed}")


def advisor_bot(seed: int | str | None = None) -> Bot:
    """Takes the action the advisor rates best (ties broken by the advisor's stable order)."""
    return advice_taker(lambda s: advise(s, limit=1, words=False)[0]["action"], parse_action)


BOTS: dict[str, Callable[[int | str | None], Bot]] = {"advisor": advisor_bot, "random": random_bot}


def make_bot(kind: str, seed: int | str | None = None) -> Bot:
    return make_from(BOTS, kind, seed)  # type: ignore[no-any-return]
