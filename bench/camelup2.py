"""Benchmark of Camel Up's second edition (`make bench` -> bench/results.json, suite camelup2).

Figures: a fresh leg (six dice, five out) with exact leg odds over varied positions, the same
with the simulated race odds, a mid-leg position (three dice left), the advisor's ranking of a
mid-leg position (exact mode: one kernel run per spectator placement), the advisor bot against
three random bots over seeded 4-player games (BENCH_ADVISOR2_GAMES, default 1,000; one worker per
core), and the peak memory of a fresh process holding both editions (the first edition's race
table loaded, a game of each played a few turns with odds).
"""

from __future__ import annotations

import os
import random
import time

from bench.camelup_advisor import mid_leg_states, peak_rss_mb
from bench.camelup_odds import _summary, _times
from hub.games.camelup2 import Game
from hub.games.camelup2 import advisor as advisor2
from hub.games.camelup2.advisor import advise
from hub.games.camelup2.model import CAMELS, DICE, RACING
from hub.games.camelup2.odds import leg_odds_of, position_odds, validate_position
from hub.games.camelup2.simulate import simulate

GAMES = int(os.environ.get("BENCH_ADVISOR2_GAMES", "1000"))


def positions(n: int, dice: int, seed: int = 7) -> list[dict]:
    """Varied positions: racing camels spread over a window, crazy camels ahead, some tiles."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        track: dict[int, list[str]] = {}
        lo, hi = [(1, 3), (2, 9), (5, 13), (8, 14)][i % 4]
        for c in rng.sample(list(RACING), 5):
            track.setdefault(rng.randint(lo, hi), []).append(c)
        for c in ("black", "white"):
            track.setdefault(rng.randint(max(lo, 4), 16), []).append(c)
        tiles: dict[int, str] = {}
        for _ in range(i % 3):
            s = rng.randint(2, 16)
            if s not in track and not {s - 1, s, s + 1} & set(tiles):
                tiles[s] = rng.choice(["cheering", "booing"])
        left = list(DICE) if dice == 6 else rng.sample(list(DICE), dice)
        out.append({"track": track, "dice_left": left, "spectators": tiles})
    assert all(sorted(c for st in p["track"].values() for c in st) == sorted(CAMELS) for p in out)
    return out


def _leg_only(p: dict) -> None:
    leg_odds_of(validate_position(p["track"], p["dice_left"], p["spectators"]))


def _with_race(p: dict) -> None:
    position_odds(p["track"], p["dice_left"], p["spectators"])


def _mid_leg_states(n: int = 30) -> list:
    return mid_leg_states(
        Game.new,
        lambda seed: ["roll", "leg:blue", f"spectator:{8 + seed % 6}:booing", "roll", "roll"],
        n,
    )


def _rss_child() -> float:
    """Peak RSS (MB) of a fresh process holding both editions, their odds and a game of each."""
    return peak_rss_mb(
        "from hub.games.camelup import Game as G1\n"
        "from hub.games.camelup.advisor import advise as a1\n"
        "from hub.games.camelup2 import Game as G2\n"
        "from hub.games.camelup2.advisor import advise as a2\n"
        "g1 = G1.new(['A','B','C','D'], seed=1)\n"
        "g2 = G2.new(['A','B','C','D'], seed=1)\n"
        "for _ in range(12):\n"
        "    g1.play(a1(g1.state, limit=1)[0]['action'])\n"
        "    g2.play(a2(g2.state, limit=1)[0]['action'])\n"
    )


def run() -> dict:
    fresh = positions(24, 6)
    mid = positions(24, 4, seed=11)
    _leg_only(fresh[0])
    _with_race(fresh[0])
    result: dict = {
        "fresh_leg_6_dice_leg_odds": {
            **_summary(_times(_leg_only, fresh, 5)),
            "target_median_ms": "<= 5",
        },
        "fresh_leg_6_dice_with_simulated_race": _summary(_times(_with_race, fresh, 2)),
        "mid_leg_4_dice_left_leg_odds": {
            **_summary(_times(_leg_only, mid, 5)),
            "target_median_ms": "<= 1",
        },
    }
    states = _mid_leg_states()
    advise(states[0])
    wall = []
    cpu = []
    for s in states:
        advisor2._leg.cache_clear()
        advisor2._race.cache_clear()
        t0, c0 = time.perf_counter(), time.process_time()
        advise(s)
        wall.append((time.perf_counter() - t0) * 1e3)
        cpu.append((time.process_time() - c0) * 1e3)
    wall.sort()
    cpu.sort()
    result["advisor_ranking_mid_leg_ms"] = {
        "median": round(wall[len(wall) // 2], 2),
        "p95": round(wall[int(0.95 * len(wall)) - 1], 2),
        "cpu_median": round(cpu[len(cpu) // 2], 2),
        "cpu_p95": round(cpu[int(0.95 * len(cpu)) - 1], 2),
        "load_average": round(os.getloadavg()[0], 1),
        "positions": len(wall),
        "target": "<= 100",
        "note": "exact mode, odds cache cleared per run; on a shared machine the wall time is "
        "mostly waiting for a core, the CPU time is the advisor's own",
    }
    t0 = time.perf_counter()
    cores = os.cpu_count() or 1
    res = simulate(["advisor", "random", "random", "random"], GAMES, 0, processes=cores)
    firsts, wins = res.firsts[0], res.wins[0]
    result["advisor_vs_3_random"] = {
        "games": GAMES,
        "first_place_rate": firsts / max(1, GAMES),
        "win_share": round(wins / max(1, GAMES), 4),
        "target": ">= 0.95",
        "seconds": round(time.perf_counter() - t0, 1),
        "processes": cores,
    }
    result["both_editions_process_peak_rss_mb"] = {"value": _rss_child(), "target": "<= 150"}
    return result
