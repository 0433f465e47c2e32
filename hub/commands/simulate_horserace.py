"""`pyramid simulate --game horserace`: play bot games of the horse race and print the results.

The lead's `pyramid simulate` dispatches ``--game horserace`` here. ``add_arguments`` adds this
game's extra options, skipping any option the shared parser already defines (``--games``,
``--players``, ``--seed`` ...), so the same function also builds a complete parser on its own:
``python -m hub.commands.simulate_horserace --games 20 --players 3 --seed 1``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

from hub.games.common import IllegalAction
from hub.games.horserace import Game, make_bot
from hub.games.horserace.settings import MAX_PLAYERS, MIN_PLAYERS

PLAYER_NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve")


def _add(parser: argparse.ArgumentParser, *flags: str, **kw: Any) -> None:
    try:
        parser.add_argument(*flags, **kw)
    except argparse.ArgumentError:
        pass  # the shared `pyramid simulate` parser already has it


def add_arguments(parser: argparse.ArgumentParser) -> None:
    _add(parser, "--games", type=int, default=20, help="number of games to play")
    _add(parser, "--players", type=int, default=3, help="players per game (2 to 5)")
    _add(parser, "--seed", type=int, default=0, help="seed of the dice and the bots")
    _add(
        parser,
        "--bots",
        default=None,
        help="comma-separated bot kinds per seat, advisor or random; the last repeats "
        "(default: advisor in seat 1, random elsewhere)",
    )
    _add(parser, "--races", type=int, default=1, help="races per game (horse race)")
    _add(parser, "--track-length", type=int, default=30, help="spaces to the finish")
    _add(
        parser,
        "--next-starter",
        choices=("leader", "rotate"),
        default="leader",
        help="house rule for who starts the next race",
    )
    _add(
        parser,
        "--samples",
        type=int,
        default=1000,
        help="Monte Carlo samples per advisor decision (horse race)",
    )
    _add(parser, "--json", action="store_true", help="print the summary as JSON")


def simulate(
    games: int,
    players: int,
    seed: int,
    bots: list[str],
    races: int = 1,
    track_length: int = 30,
    next_starter: str = "leader",
    samples: int = 1000,
) -> dict[str, Any]:
    """Play ``games`` games; seats rotate the first player by the seeded draw. Returns per-seat
    wins (shared wins count as a fraction), mean points, and race statistics."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise IllegalAction(
            "bad_players", f"The horse race is for {MIN_PLAYERS} to {MAX_PLAYERS} players."
        )
    if len(bots) != players:
        raise IllegalAction(
            "bad_bots", f"{players} players need {players} bot kinds, got {len(bots)}."
        )
    names = list(PLAYER_NAMES[:players])
    wins = dict.fromkeys(names, 0.0)
    points: dict[str, list[int]] = {n: [] for n in names}
    rounds: list[int] = []
    actions = 0
    t0 = time.perf_counter()
    for gi in range(games):
        agents = {
            n: make_bot(kind, seed=seed * 1000 + gi * 10 + i, samples=samples)
            for i, (n, kind) in enumerate(zip(names, bots, strict=True))
        }
        game = Game.new(
            names,
            seed=f"{seed}/{gi}",
            races=races,
            track_length=track_length,
            next_starter=next_starter,
        )
        while not game.finished:
            player = game.current_player
            assert player is not None
            game.play(agents[player](game.state, player), player=player)
            actions += 1
        rounds += _rounds_per_race(game.log)
        result = game.state.result or {}
        for n in result["winners"]:
            wins[n] += 1 / len(result["winners"])
        for n in names:
            points[n].append(result["points"][n])
    seconds = time.perf_counter() - t0
    return {
        "game": "horserace",
        "games": games,
        "players": players,
        "seed": seed,
        "races_per_game": races,
        "track_length": track_length,
        "seats": [
            {
                "player": n,
                "bot": b,
                "wins": round(wins[n], 2),
                "win_rate": round(wins[n] / games, 3),
                "mean_points": round(statistics.fmean(points[n]), 2),
            }
            for n, b in zip(names, bots, strict=True)
        ],
        "mean_rounds_per_race": round(statistics.fmean(rounds), 2) if rounds else None,
        "actions": actions,
        "seconds": round(seconds, 2),
    }


def _rounds_per_race(log: list[dict[str, Any]]) -> list[int]:
    """How many rounds each race of a finished game lasted (its last round_started)."""
    last: dict[int, int] = {}
    for e in log:
        if e["type"] == "round_started":
            last[e["race"]] = e["round"]
    return list(last.values())


def run(args: argparse.Namespace) -> int:
    players = getattr(args, "players", 3)
    bots_arg = getattr(args, "bots", None)
    # the shared `pyramid simulate` convention: one bot per seat, or fewer and the last repeats
    kinds = [b.strip() for b in (bots_arg or "advisor,random").split(",") if b.strip()]
    bots = (kinds + [kinds[-1]] * players)[: max(players, len(kinds))] if kinds else []
    try:
        for b in bots:
            if b not in ("advisor", "random"):
                raise IllegalAction("bad_bots", f"Unknown bot {b!r}: use advisor or random.")
        summary = simulate(
            getattr(args, "games", 20),
            players,
            getattr(args, "seed", 0),
            bots,
            races=getattr(args, "races", 1),
            track_length=getattr(args, "track_length", 30),
            next_starter=getattr(args, "next_starter", "leader"),
            samples=getattr(args, "samples", 1000),
        )
    except IllegalAction as exc:
        print(f"pyramid simulate: {exc}", file=sys.stderr)
        return 2
    if getattr(args, "json", False):
        print(json.dumps(summary, indent=2))
        return 0
    print(
        f"horse race: {summary['games']} games, {summary['players']} players, "
        f"{summary['races_per_game']} race(s) each, track {summary['track_length']}, "
        f"seed {summary['seed']}"
    )
    for seat in summary["seats"]:
        print(
            f"  {seat['player']:<4} {seat['bot']:<8} win rate {seat['win_rate']:.3f}  "
            f"mean points {seat['mean_points']:.1f}"
        )
    print(
        f"  mean rounds per race {summary['mean_rounds_per_race']}, "
        f"{summary['actions']} actions in {summary['seconds']} s"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="simulate_horserace", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
