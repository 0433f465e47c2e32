"""Second-edition bot-against-bot games: `pyramid simulate --edition 2` and the benchmark.

The machinery (seeds, worker processes, results in game order) is the first edition's
:mod:`hub.games.camelup.simulate`; this module names the second edition's game and bots.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hub.games.camelup import simulate as shared
from hub.games.camelup.simulate import SimulationResult

from .bots import make_bot
from .game import Game

SECOND = shared.Edition(Game.new, make_bot)


def play_one(bots: Sequence[str], seed: int) -> dict[str, Any]:
    """One seeded game between the given bots (seat order = list order); its game_over event."""
    return shared.play_one(bots, seed, SECOND)


def simulate(
    bots: Sequence[str],
    games: int,
    seed: int = 0,
    *,
    processes: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> SimulationResult:
    """``games`` seeded games of the second edition, as :func:`shared.simulate` plays them."""
    return shared.simulate(
        bots, games, seed, processes=processes, progress=progress, edition=SECOND
    )


__all__ = ["SECOND", "SimulationResult", "play_one", "simulate"]
