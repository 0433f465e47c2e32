"""The Monte Carlo advice checked against exact enumeration on a tiny race, its stated errors,
the bots and the simulate command."""

from __future__ import annotations

import argparse
import json
from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from hub.games.horserace import Game, IllegalAction, advise, advise_roll, bet_values, make_bot
from hub.games.horserace.montecarlo import sample_places
from hub.games.horserace.state import State

TINY = {"horses": ("a", "b", "c"), "score_table": ((5, 3), (2, 1)), "track_length": 4}


def exact_place_odds(
    state: State, forced: tuple[int, int] | None
) -> dict[tuple[int, int], Fraction]:
    """P(horse h takes place p) under the random running policy, by full enumeration."""
    length, k = state.settings.track_length, state.settings.podium_size

    @cache
    def dist(
        pos: tuple[int, ...], unmoved: frozenset[int], podium: tuple[int, ...]
    ) -> dict[tuple[int, ...], Fraction]:
        if len(podium) >= k:
            return {podium: Fraction(1)}
        racing = [h for h in range(len(pos)) if h not in podium]
        if not unmoved:
            unmoved = frozenset(racing)
        out: dict[tuple[int, ...], Fraction] = {}
        w = Fraction(1, 6 * len(unmoved))
        for h in unmoved:
            for face in range(1, 7):
                for pod, pr in move(pos, unmoved, podium, h, face).items():
                    out[pod] = out.get(pod, 0) + w * pr
        return out

    def move(pos, unmoved, podium, h, face):
        new = list(pos)
        new[h] += face
        pod = podium + ((h,) if new[h] >= length else ())
        return dist(tuple(new), unmoved - {h}, pod)

    unmoved = frozenset(state.unmoved())
    if forced:
        d = move(state.positions, unmoved, state.podium, *forced)
    else:
        d = dist(state.positions, unmoved, state.podium)
    odds: dict[tuple[int, int], Fraction] = {}
    for pod, pr in d.items():
        for place, h in enumerate(pod, start=1):
            odds[(h, place)] = odds.get((h, place), 0) + pr
    return odds


@pytest.mark.parametrize("forced", [None, (1, 3), (2, 6)])
def test_playouts_match_exact_enumeration(forced: tuple[int, int] | None) -> None:
    g = Game.new(["Ann", "Bob"], first_player=0, **TINY)
    for a in ("bet:a", "bet:b", "roll:2", "assign:a"):
        g.play(a)
    if forced is None:
        g.play("roll:1")
    state = g.state
    n = 60_000
    places = sample_places(state, n, seed=4, forced=forced)
    exact = exact_place_odds(state, forced)
    for h in range(3):
        for p in (1, 2):
            truth = float(exact.get((h, p), 0))
            est = float((places[:, h] == p).mean())
            se = max(np.sqrt(truth * (1 - truth) / n), 1e-9)
            assert abs(est - truth) < 4.5 * se + 1e-12, (h, p, est, truth)


def test_the_roll_in_hand_decides_a_one_space_race() -> None:
    """Track 1: the horse given the roll finishes first for certain."""
    g = Game.new(["Ann", "Bob"], first_player=0, track_length=1)
    for a in ("bet:green", "bet:blue", "roll:1"):
        g.play(a)
    advice = advise_roll(g.state, samples=2000)
    assert [c["horse"] for c in advice["choices"]][0] == "green"  # Ann's horse
    by_horse = {c["horse"]: c for c in advice["choices"]}
    assert by_horse["green"]["expected"]["Ann"] == 32 and by_horse["green"]["stderr"]["Ann"] == 0
    assert by_horse["green"]["podium_odds"]["green"] == [1.0, 0.0, 0.0]
    # Bob's blue is then 2nd or 3rd with equal chance (17.5 +- error) or unplaced
    blue = by_horse["green"]["expected"]["Bob"]
    se = by_horse["green"]["stderr"]["Bob"]
    assert abs(blue - (0.25 * 24 + 0.25 * 16)) < 4.5 * se + 1e-9


def test_advice_shape_errors_and_bet_values() -> None:
    g = Game.new(["Ann", "Bob", "Cy"], first_player=0)
    for a in ("bet:blue", "bet:blue", "bet:white", "roll:5"):
        g.play(a)
    advice = advise_roll(g.state, samples=3000)
    assert advice["player"] == "Ann" and advice["roll"] == 5 and advice["samples"] == 3000
    assert len(advice["choices"]) == 5
    own = [c["expected"]["Ann"] for c in advice["choices"]]
    assert own == sorted(own, reverse=True)
    assert advice["choices"][0]["horse"] == "blue"  # Ann's only token is on blue
    for c in advice["choices"]:
        for name in ("Ann", "Bob", "Cy"):
            lo, hi = c["ci95"][name]
            assert lo <= c["expected"][name] <= hi and c["stderr"][name] < 1.0
    json.dumps(advice)
    values = bet_values(g.state, samples=3000)["bets"]
    assert values["blue"]["slot"] == 2 and values["green"]["slot"] == 0
    # a fresh column's top circle is worth 0.2*(32+24+16) = 14.4 for a symmetric horse
    assert abs(values["green"]["expected"] - 14.4) < 1.5
    ranked = advise(g.state)
    assert ranked[0]["action"] == "assign:blue" and "expected" in ranked[0]["why"]
    with pytest.raises(IllegalAction):
        advise(g.state, player="Bob")


def test_advice_needs_a_roll_in_hand() -> None:
    g = Game.new(["Ann", "Bob"], first_player=0)
    with pytest.raises(IllegalAction) as exc:
        advise_roll(g.state)
    assert exc.value.reason == "no_roll"
    rows = advise(g.state, samples=500)
    assert rows[-1]["action"] == "pass" or rows[0]["expected"] >= rows[-1]["expected"]
    assert {r["action"] for r in rows} >= {"bet:blue", "pass"}


@pytest.mark.parametrize("kind", ["advisor", "random"])
def test_bots_play_legal_games_to_the_end(kind: str) -> None:
    g = Game.new(["Ann", "Bob", "Cy"], seed=2, track_length=12)
    bot = make_bot(kind, seed=3, samples=200)
    while not g.finished:
        g.play(bot(g.state, g.current_player), player=g.current_player)
    assert g.state.result["winners"]


def test_simulate_command(capsys: pytest.CaptureFixture[str]) -> None:
    from hub.commands import simulate_horserace as sim

    parser = argparse.ArgumentParser()
    sim.add_arguments(parser)
    sim.add_arguments(parser)  # idempotent next to the shared parser's own options
    args = parser.parse_args(
        [
            "--games",
            "3",
            "--players",
            "3",
            "--seed",
            "1",
            "--json",
            "--track-length",
            "12",
            "--samples",
            "200",
        ]
    )
    assert sim.run(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 3 and len(out["seats"]) == 3
    assert abs(sum(s["wins"] for s in out["seats"]) - 3) < 1e-6
    bad = parser.parse_args(["--players", "6"])
    assert sim.run(bad) == 2 and "2 to 5" in capsys.readouterr().err


def test_pyramid_simulate_dispatches_horserace(capsys: pytest.CaptureFixture[str]) -> None:
    from hub.cli import main

    assert (
        main(
            [
                "simulate",
                "--game",
                "horserace",
                "--games",
                "2",
                "--players",
                "2",
                "--seed",
                "1",
                "--bots",
                "random",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "horserace" and [s["bot"] for s in out["seats"]] == ["random"] * 2
