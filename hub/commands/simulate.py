"""`pyramid simulate`: bot games with win rates and average money.

    pyramid simulate --games 100 --players 4 --bots advisor,random,random,random --seed 1

``--bots`` lists one bot per seat, or fewer (the last is repeated). ``--game horserace`` hands
over to the horse-race simulator; ``--edition 2`` plays Camel Up's second edition (3-8 players).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from hub.games.kinds import GameKind


class ProgressBar:
    """A one-line bar on stderr (a terminal only: piped output stays clean)."""

    WIDTH = 30

    def __init__(self, total: int) -> None:
        import time

        self.total = max(1, total)
        self.start = time.monotonic()
        self._shown = -1

    def update(self, done: int, total: int) -> None:
        import time

        step = done * self.WIDTH // self.total
        if step == self._shown and done != total:
            return
        self._shown = step
        elapsed = time.monotonic() - self.start
        eta = elapsed / done * (total - done) if done else 0.0
        sys.stderr.write(
            f"\r[{'#' * step}{'.' * (self.WIDTH - step)}] {done}/{total} games"
            f"  {elapsed:4.0f} s, ~{eta:.0f} s left "
        )
        sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")
        sys.stderr.flush()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", default=GameKind.CAMELUP.value, choices=list(SIMULATORS))
    parser.add_argument(
        "--edition",
        type=int,
        default=1,
        choices=[1, 2],
        help="Camel Up edition: 1 (default) or 2 (2018, crazy camels)",
    )
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument(
        "--bots",
        default="advisor,random",
        help="comma-separated bots per seat (advisor, random); the last repeats",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument(
        "--processes", type=int, default=None, help="worker processes (default: one per core)"
    )
    from hub.commands import simulate_horserace  # its extra options (races, track length, ...)

    simulate_horserace.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    return SIMULATORS[args.game](args)


def _horserace(args: argparse.Namespace) -> int:
    from hub.commands import simulate_horserace

    return int(simulate_horserace.run(args) or 0)


def _camelup(args: argparse.Namespace) -> int:
    import importlib

    # the two editions' packages have the same names for these (bots, model, simulate)
    package = "hub.games.camelup2" if args.edition == 2 else "hub.games.camelup"
    BOTS = importlib.import_module(f"{package}.bots").BOTS
    model = importlib.import_module(f"{package}.model")
    MIN_PLAYERS, MAX_PLAYERS = model.MIN_PLAYERS, model.MAX_PLAYERS
    simulate = importlib.import_module(f"{package}.simulate").simulate

    kinds = [b.strip() for b in args.bots.split(",") if b.strip()]
    unknown = [k for k in kinds if k not in BOTS]
    if unknown or not kinds:
        print(
            f"pyramid simulate: unknown bot(s) {unknown or kinds}; choose from {', '.join(BOTS)}",
            file=sys.stderr,
        )
        return 2
    if not MIN_PLAYERS <= args.players <= MAX_PLAYERS or args.games < 1:
        print(
            f"pyramid simulate: --players must be {MIN_PLAYERS}..{MAX_PLAYERS} and --games "
            "at least 1",
            file=sys.stderr,
        )
        return 2
    seats = (kinds + [kinds[-1]] * args.players)[: args.players]
    import os

    bar = ProgressBar(args.games) if sys.stderr.isatty() else None
    summary = simulate(
        seats,
        args.games,
        args.seed,
        processes=args.processes or os.cpu_count() or 1,
        progress=bar.update if bar else None,
    ).summary()
    if bar is not None:
        bar.close()
    if args.json:
        print(json.dumps(summary))
        return 0
    edition = " (second edition)" if args.edition == 2 else ""
    print(f"{summary['games']} games{edition}, {args.players} players, seed {args.seed}")
    print(f"{'seat':>4}  {'bot':<8} {'wins':>7} {'avg money':>10}")
    for s in summary["seats"]:
        print(f"{s['seat']:>4}  {s['bot']:<8} {s['win_rate']:>7.1%} {s['average_money']:>10.2f}")
    return 0


#: the games with a bot simulator: --game's choices
SIMULATORS: dict[str, Callable[[argparse.Namespace], int]] = {
    GameKind.CAMELUP.value: _camelup,
    GameKind.HORSERACE.value: _horserace,
}
