"""Bot-against-bot games for win rates: `pyramid simulate` and the advisors' benchmarks.

Both editions play here: an :class:`Edition` names the game class and the bot factory, the rest
(seeding, worker processes, folding the results in game order) is the same for both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .bots import make_bot
from .game import Game


class _Game(Protocol):
    """What a simulated game needs of an edition's ``Game``."""

    @property
    def finished(self) -> bool: ...

    @property
    def state(self) -> Any: ...

    @property
    def log(self) -> list[dict[str, Any]]: ...

    def play(self, action: Any) -> Any: ...


@dataclass(frozen=True)
class Edition:
    """An edition's game and bots. Module-level classes and functions: it pickles by reference,
    so it travels to spawned worker processes."""

    new_game: Callable[..., _Game]  # Game.new(names, seed=..., first_player=...)
    make_bot: Callable[[str, str], Callable[[Any], Any]]  # make_bot(kind, seed) -> bot


FIRST = Edition(Game.new, make_bot)


@dataclass
class SimulationResult:
    bots: list[str]
    games: int = 0
    wins: list[float] = field(default_factory=list)  # shared victories count as a share
    firsts: list[int] = field(default_factory=list)  # games where the seat was among the winners
    money: list[int] = field(default_factory=list)  # summed final money

    def summary(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "seats": [
                {
                    "seat": i,
                    "bot": b,
                    "win_rate": self.wins[i] / max(1, self.games),
                    "first_place_rate": self.firsts[i] / max(1, self.games),
                    "average_money": self.money[i] / max(1, self.games),
                }
                for i, b in enumerate(self.bots)
            ],
        }


def play_one(bots: Sequence[str], seed: int, edition: Edition = FIRST) -> dict[str, Any]:
    """Play one seeded game between the given bots (seat order = list order); return game_over."""
    names = [f"{kind}-{i}" for i, kind in enumerate(bots)]
    game = edition.new_game(names, seed=seed, first_player=seed % len(names))
    players = [edition.make_bot(kind, f"{seed}/{i}") for i, kind in enumerate(bots)]
    while not game.finished:
        current = game.state.current
        assert current is not None
        game.play(players[current](game.state))
    return game.log[-1]


def _play_seeded(job: tuple[tuple[str, ...], int, Edition]) -> dict[str, Any]:
    bots, seed, edition = job
    return play_one(bots, seed, edition)


def simulate(
    bots: Sequence[str],
    games: int,
    seed: int = 0,
    *,
    processes: int = 1,
    progress: Callable[[int, int], None] | None = None,
    edition: Edition = FIRST,
) -> SimulationResult:
    """``games`` seeded games; ``processes`` > 1 plays them in that many worker processes (the
    games are independent; the results are folded in game order, so the summary is the same
    whatever the number of processes). ``progress(done, games)`` is called as games end."""
    res = SimulationResult(list(bots), 0, [0.0] * len(bots), [0] * len(bots), [0] * len(bots))
    jobs = [(tuple(bots), seed * 1_000_003 + g, edition) for g in range(games)]
    if processes > 1 and games > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(processes) as pool:
            # small chunks (a game is ~0.1 s): the last chunks do not leave a core idle
            chunk = max(1, min(4, games // (processes * 8)))
            results: Iterable[dict[str, Any]] = pool.imap(_play_seeded, jobs, chunksize=chunk)
            _fold(res, results, games, progress)
    else:
        _fold(res, map(_play_seeded, jobs), games, progress)
    return res


def _fold(
    res: SimulationResult,
    results: Iterable[dict[str, Any]],
    games: int,
    progress: Callable[[int, int], None] | None,
) -> None:
    for over in results:
        names = list(over["money"])
        for i, name in enumerate(names):
            res.money[i] += over["money"][name]
            if name in over["winners"]:
                res.wins[i] += 1 / len(over["winners"])
                res.firsts[i] += 1
        res.games += 1
        if progress is not None:
            progress(res.games, games)
