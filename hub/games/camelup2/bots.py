"""Second-edition bots: one that follows the advisor (quick mode) and one that plays at random,
built as the first edition's are (:mod:`hub.games.camelup.bots`)."""

from __future__ import annotations

from collections.abc import Callable

from hub.games.camelup.bots import advice_taker, make_from, random_choice

from .actions import Action, parse_action
from .advisor import advise
from .rules import legal_actions
from .state import GameState

Bot = Callable[[GameState], Action]


def random_bot(seed: int | str | None = None) -> Bot:
    """Uniform over the legal actions (mostly spectator placements: there are many)."""
    return random_choice(legal_actions, f"random-bot-2/{seed}")


def advisor_bot(seed: int | str | None = None) -> Bot:
    """Takes the action the advisor (quick mode) rates best."""
    return advice_taker(lambda s: advise(s, limit=1, quick=True)[0]["action"], parse_action)


BOTS: dict[str, Callable[[int | str | None], Bot]] = {"advisor": advisor_bot, "random": random_bot}


def make_bot(kind: str, seed: int | str | None = None) -> Bot:
    return make_from(BOTS, kind, seed)  # type: ignore[no-any-return]
