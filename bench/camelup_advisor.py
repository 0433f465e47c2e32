"""The advisor's figures: ranking time for mid-leg positions, advisor vs three random bots over
1,000 seeded 4-player games, and the memory of a process holding the engine, the race table and a
game."""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time

from hub.games.camelup import Game
from hub.games.camelup.advisor import advise
from hub.games.camelup.simulate import play_one

GAMES = int(os.environ.get("BENCH_ADVISOR_GAMES", "1000"))


def _mid_leg_states(n: int = 40):
    out = []
    for seed in range(n):
        g = Game.new(["A", "B", "C", "D"], seed=seed)
        for action in ("roll", "leg:blue", f"desert:{8 + seed % 6}:oasis", "roll"):
            try:
                g.play(action)
            except ValueError:
                g.play("roll")
        out.append(g.state)
    return out


def _rss_child() -> float:
    """Peak RSS (MB) of a fresh process that loads the engine, the race table and plays a game."""
    code = (
        "import resource\n"
        "from hub.games.camelup import Game\n"
        "from hub.games.camelup.advisor import advise\n"
        "g = Game.new(['A','B','C','D'], seed=1)\n"
        "while not g.finished:\n"
        "    g.play(advise(g.state, limit=1)[0]['action'])\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return round(float(out.stdout.strip()), 1)


def run() -> dict:
    states = _mid_leg_states()
    advise(states[0])  # load the race table once
    times = []
    for s in states:
        t0 = time.perf_counter()
        advise(s)
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    t0 = time.perf_counter()
    wins = 0.0
    firsts = 0
    for seed in range(GAMES):
        over = play_one(["advisor", "random", "random", "random"], seed)
        if "advisor-0" in over["winners"]:
            firsts += 1
            wins += 1 / len(over["winners"])
    return {
        "advisor_ranking_mid_leg_ms": {"median": round(statistics.median(times), 2),
                                       "p95": round(times[int(0.95 * len(times)) - 1], 2),
                                       "positions": len(times), "target": "< 100"},
        "advisor_vs_3_random": {"games": GAMES, "first_place_rate": firsts / GAMES,
                                "win_share": round(wins / GAMES, 4), "target": ">= 0.90",
                                "seconds": round(time.perf_counter() - t0, 1)},
        "process_peak_rss_mb": {"engine_table_game": _rss_child(), "target": "< 150",
                                "this_process": round(resource.getrusage(
                                    resource.RUSAGE_SELF).ru_maxrss / 1024, 1)},
    }
