"""Second-edition bot-against-bot games: `pyramid simulate --edition 2` and the benchmark."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hub.games.camelup.simulate import SimulationResult

from .bots import make_bot
from .game import Game


def play_one(bots: Sequence[str], seed: int) -> dict[str, Any]:
    """One seeded game between the given bots (seat order = list order); its game_over event."""
    names = [f"{kind}-{i}" for i, kind in enumerate(bots)]
    game = Game.new(names, seed=seed, first_player=seed % len(names))
    players = [make_bot(kind, f"{seed}/{i}") for i, kind in enumerate(bots)]
    while not game.finished:
        current = game.state.current
        assert current is not None
        game.play(players[current](game.state))
    return game.log[-1]


def simulate(bots: Sequence[str], games: int, seed: int = 0) -> SimulationResult:
    res = SimulationResult(list(bots), 0, [0.0] * len(bots), [0] * len(bots), [0] * len(bots))
    for g in range(games):
        over = play_one(bots, seed * 1_000_003 + g)
        for i, name in enumerate(over["money"]):
            res.money[i] += over["money"][name]
            if name in over["winners"]:
                res.wins[i] += 1 / len(over["winners"])
                res.firsts[i] += 1
        res.games += 1
    return res
