"""Bot-against-bot games for win rates: `pyramid simulate` and the advisor's benchmark."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .bots import make_bot
from .game import Game


@dataclass
class SimulationResult:
    bots: list[str]
    games: int = 0
    wins: list[float] = field(default_factory=list)  # shared victories count as a share
    firsts: list[int] = field(default_factory=list)  # games where the seat was among the winners
    money: list[int] = field(default_factory=list)  # summed final money

    def summary(self) -> dict:
        return {
            "games": self.games,
            "seats": [
                {"seat": i, "bot": b, "win_rate": self.wins[i] / max(1, self.games),
                 "first_place_rate": self.firsts[i] / max(1, self.games),
                 "average_money": self.money[i] / max(1, self.games)}
                for i, b in enumerate(self.bots)
            ],
        }


def play_one(bots: Sequence[str], seed: int) -> dict:
    """Play one seeded game between the given bots (seat order = list order); return game_over."""
    names = [f"{kind}-{i}" for i, kind in enumerate(bots)]
    game = Game.new(names, seed=seed, first_player=seed % len(names))
    players = [make_bot(kind, f"{seed}/{i}") for i, kind in enumerate(bots)]
    while not game.finished:
        game.play(players[game.state.current](game.state))  # type: ignore[index]
    return game.log[-1]


def simulate(bots: Sequence[str], games: int, seed: int = 0) -> SimulationResult:
    res = SimulationResult(list(bots), 0, [0.0] * len(bots), [0] * len(bots), [0] * len(bots))
    for g in range(games):
        over = play_one(bots, seed * 1_000_003 + g)
        names = list(over["money"])
        for i, name in enumerate(names):
            res.money[i] += over["money"][name]
            if name in over["winners"]:
                res.wins[i] += 1 / len(over["winners"])
                res.firsts[i] += 1
        res.games += 1
    return res
