"""Advice for the horse race: which horse to give the roll in hand, and what a bet is worth now.

Every figure is a Monte Carlo estimate (see ``montecarlo``) reported with its standard error and a
95 % confidence interval (mean +- 1.96 standard errors), because a screen showing "31.4" when the
truth could be 30 would mislead. ``DEFAULT_SAMPLES`` is chosen so one roll's advice (all choices
plus the bet values) takes well under 200 ms on the target machine; bench/othergames.py measures
the time and the resulting errors.

What "expected final points" means here: each player's points after this race, i.e. the points
of races already scored plus the expected points of the tokens already on the board. Tokens still
in hand are not guessed at (their worth depends on choices not yet made: the bet values show what
placing one now is worth). Later races do not depend on this roll's choice and are left out.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hub.games.common import IllegalAction
from hub.games.horserace.montecarlo import mean_and_error, sample_places, token_points
from hub.games.horserace.state import State

DEFAULT_SAMPLES = 6000
Z95 = 1.96
POLICY = "rest of the race: each remaining roll given to a random not-yet-moved horse"


def _ci(mean: float, se: float) -> list[float]:
    return [round(mean - Z95 * se, 3), round(mean + Z95 * se, 3)]


def _podium_odds(state: State, places: np.ndarray) -> dict[str, list[float]]:
    k = state.settings.podium_size
    return {
        horse: [round(float((places[:, h] == p).mean()), 4) for p in range(1, k + 1)]
        for h, horse in enumerate(state.horses)
    }


def advise_roll(state: State, samples: int = DEFAULT_SAMPLES, seed: int = 0) -> dict[str, Any]:
    """For the roll in hand: every player's expected points after this race for each horse the
    roll could be given to, with standard errors, best first for the roller.

    The same random draws are used for every choice (common random numbers), so the ranking
    between choices is steadier than the per-choice errors suggest; ``diff_stderr`` gives the
    standard error of each choice's difference from the best one, for the roller."""
    if state.finished or state.phase != "running" or state.roll is None:
        raise IllegalAction(
            "no_roll", "Advice on a roll needs a roll in hand in the running phase."
        )
    if samples < 2:
        raise IllegalAction("bad_samples", "At least 2 samples are needed to state an error.")
    roller = state.active
    base = np.asarray(state.points, dtype=float)
    per_choice = []
    for h in state.unmoved():
        places = sample_places(state, samples, seed, forced=(h, state.roll))
        pts = token_points(state, places) + base
        per_choice.append((h, places, pts))
    choices = []
    for h, places, pts in per_choice:
        mean, se = mean_and_error(pts)
        choices.append(
            {
                "action": f"assign:{state.horses[h]}",
                "horse": state.horses[h],
                "expected": {n: round(float(mean[i]), 3) for i, n in enumerate(state.players)},
                "stderr": {n: round(float(se[i]), 3) for i, n in enumerate(state.players)},
                "ci95": {n: _ci(float(mean[i]), float(se[i])) for i, n in enumerate(state.players)},
                "podium_odds": _podium_odds(state, places),
                "_own": pts[:, roller],
            }
        )
    choices.sort(key=lambda c: -c["expected"][state.players[roller]])
    best = choices[0]["_own"]
    for c in choices:
        d = c.pop("_own") - best
        c["diff_stderr"] = round(float(d.std(ddof=1) / math.sqrt(samples)), 3)
    return {
        "player": state.players[roller],
        "roll": state.roll,
        "samples": samples,
        "policy": POLICY,
        "choices": choices,
        "max_stderr": max(max(c["stderr"].values()) for c in choices),
    }


def bet_values(state: State, samples: int = DEFAULT_SAMPLES, seed: int = 1) -> dict[str, Any]:
    """The expected points of a token placed now on each horse (in its next free circle), with
    standard errors; None for a full column. A roll in hand, if any, goes to a random horse."""
    if state.finished:
        raise IllegalAction("game_over", "The game is over.")
    places = sample_places(state, samples, seed)
    table = np.zeros((state.settings.podium_size + 1, state.settings.column_size))
    table[1:] = np.asarray(state.settings.score_table)
    out: dict[str, Any] = {}
    for h, horse in enumerate(state.horses):
        slot = len(state.columns[h])
        if slot >= state.settings.column_size or h in state.podium:
            out[horse] = None
            continue
        value = table[places[:, h], slot]
        mean = float(value.mean())
        se = float(value.std(ddof=1) / math.sqrt(samples))
        out[horse] = {
            "slot": slot,
            "expected": round(mean, 3),
            "stderr": round(se, 3),
            "ci95": _ci(mean, se),
        }
    return {
        "samples": samples,
        "policy": POLICY,
        "betting_open": state.betting_open,
        "bets": out,
        "podium_odds": _podium_odds(state, places),
    }


def advise(
    state: State, player: str | None = None, samples: int = DEFAULT_SAMPLES
) -> list[dict[str, Any]]:
    """Every legal action of the player to move, ranked best first, in the Camel Up advisor's
    shape: {"action", "expected", "stderr", "why"}. In the betting phase "expected" is what the
    token adds (pass adds 0 now); with a roll in hand it is the roller's expected points after
    the race."""
    current = state.current_player()
    if current is None:
        return []
    if player is not None and player != current:
        raise IllegalAction("not_your_turn", f"It is {current}'s turn, not {player}'s.")
    if state.phase == "betting":
        values = bet_values(state, samples)
        rows = [
            {
                "action": f"bet:{h}",
                "expected": v["expected"],
                "stderr": v["stderr"],
                "why": f"a token in circle {v['slot'] + 1} of the {h} column is worth "
                f"{v['expected']:.1f} +- {Z95 * v['stderr']:.1f} points",
            }
            for h, v in values["bets"].items()
            if v is not None
        ]
        rows.append(
            {
                "action": "pass",
                "expected": 0.0,
                "stderr": 0.0,
                "why": "keep the token for a later bet, with more known but a lower circle",
            }
        )
        return sorted(rows, key=lambda r: -r["expected"])
    if state.roll is None:
        return [
            {
                "action": "roll",
                "expected": 0.0,
                "stderr": 0.0,
                "why": "roll the die, then choose the horse",
            }
        ]
    advice = advise_roll(state, samples)
    return [
        {
            "action": c["action"],
            "expected": c["expected"][current],
            "stderr": c["stderr"][current],
            "why": f"gives the {state.roll} to {c['horse']}: you end the race with "
            f"{c['expected'][current]:.1f} +- {Z95 * c['stderr'][current]:.1f} expected",
        }
        for c in advice["choices"]
    ]
