"""The advisor's figures: ranking time for mid-leg positions, advisor vs three random bots over
1,000 seeded 4-player games (played as `pyramid simulate --games 1000 --players 4 --bots
advisor,random` plays them: one worker process per core; wall and CPU time both reported, because
the machine is shared), and the memory of a process holding the engine, the race table and a
game."""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from hub.games.camelup import Game
from hub.games.camelup.advisor import advise
from hub.games.camelup.simulate import simulate

GAMES = int(os.environ.get("BENCH_ADVISOR_GAMES", "1000"))


def mid_leg_states(
    new_game: Callable[..., Any], actions: Callable[[int], list[str]], n: int
) -> list:
    """States of n seeded 4-player games after a few actions (``actions(seed)``; an action the
    position refuses is replaced by a roll): both editions' advisor benchmarks rank these."""
    out = []
    for seed in range(n):
        g = new_game(["A", "B", "C", "D"], seed=seed)
        for action in actions(seed):
            try:
                g.play(action)
            except ValueError:
                g.play("roll")
        out.append(g.state)
    return out


def _mid_leg_states(n: int = 40):
    return mid_leg_states(
        Game.new, lambda seed: ["roll", "leg:blue", f"desert:{8 + seed % 6}:oasis", "roll"], n
    )


def peak_rss_mb(code: str) -> float:
    """Peak RSS (MB) of a fresh interpreter running ``code`` (which prints nothing else)."""
    code += "import resource\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return round(float(out.stdout.strip()), 1)


def _rss_child() -> float:
    """Peak RSS (MB) of a fresh process that loads the engine, the race table and plays a game."""
    return peak_rss_mb(
        "from hub.games.camelup import Game\n"
        "from hub.games.camelup.advisor import advise\n"
        "g = Game.new(['A','B','C','D'], seed=1)\n"
        "while not g.finished:\n"
        "    g.play(advise(g.state, limit=1)[0]['action'])\n"
    )


def run() -> dict:
    states = _mid_leg_states()
    advise(states[0])  # load the race table once
    times = []
    cpu = []
    for s in states:
        t0, c0 = time.perf_counter(), time.process_time()
        advise(s)
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    times.sort()
    cores = os.cpu_count() or 1
    t0 = time.perf_counter()
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = simulate(["advisor", "random", "random", "random"], GAMES, 0, processes=cores)
    wall = time.perf_counter() - t0
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    sim_cpu = (c1.ru_utime + c1.ru_stime) - (c0.ru_utime + c0.ru_stime)
    firsts, wins = res.firsts[0], res.wins[0]
    load = os.getloadavg()[0]
    return {
        "advisor_ranking_mid_leg_ms": {
            "median": round(statistics.median(times), 2),
            "p95": round(times[int(0.95 * len(times)) - 1], 2),
            "cpu_median": round(statistics.median(cpu), 2),
            "positions": len(times),
            "target": "< 100",
        },
        "advisor_vs_3_random": {
            "games": GAMES,
            "first_place_rate": firsts / GAMES,
            "win_share": round(wins / GAMES, 4),
            "target": ">= 0.90",
            "seconds": round(wall, 1),
        },
        "simulate_games": {
            "wall_s": round(wall, 1),
            "cpu_s_workers": round(sim_cpu, 1),
            "cpu_ms_per_game": round(sim_cpu * 1000 / GAMES, 1),
            "processes": cores,
            "load_average_after": round(load, 1),
            "target_wall_s": "<= 60 (issue 13)",
            "games": GAMES,
        },
        "process_peak_rss_mb": {
            "engine_table_game": _rss_child(),
            "target": "< 150",
            "this_process": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        },
    }
