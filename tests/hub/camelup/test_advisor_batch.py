"""Batched desert evaluation: exactly the advice of one odds call per placement."""

from __future__ import annotations

import random

import pytest

from hub.games.camelup import Game
from hub.games.camelup.actions import PlaceDesert
from hub.games.camelup.advisor import (
    _rate,
    advise,
    held_overall_value,
    held_value,
    placed_bets,
    state_odds,
)
from hub.games.camelup.bots import random_bot
from hub.games.camelup.rules import legal_actions


def unbatched_advice(state) -> list[dict]:
    """advise() as it was: every desert placement rated by its own odds call (with race odds
    when the player has overall cards whose value the tile moves)."""
    me = state.current
    bets = placed_bets(state, me)
    base = state_odds(state, race=True, pairs=True)  # the joint behind the bets' words
    base_held = held_value(state.players[me].leg_tiles, base) + held_overall_value(bets, base)
    out = [
        _rate(a, state, me, base, base_held, None, bets, base.pairs) for a in legal_actions(state)
    ]
    out.sort(key=lambda a: -a["expected"])
    return out


def assert_same_advice(got: list[dict], want: list[dict]) -> None:
    """The batch sums the same exact figures in another order: equal to rounding (so a zero may
    print as -0.00, and exact ties may come out in either order)."""
    mine = {a["action"]: a for a in got}
    assert set(mine) == {a["action"] for a in want}
    for b in want:
        a = mine[b["action"]]
        assert a["expected"] == pytest.approx(b["expected"], abs=1e-12)
        assert a["why"].replace("-0.00", "+0.00") == b["why"].replace("-0.00", "+0.00")
    values = [a["expected"] for a in got]
    assert values == sorted(values, reverse=True)


def random_states(n: int, seed: int):
    """States along seeded games of random play: own tiles on the track, leg tiles held, legs
    at every number of dice left, near the end of the race."""
    rng = random.Random(seed)
    out = []
    for g in range(n):
        game = Game.new(["Ann", "Bob", "Cy"][: rng.choice([2, 3])], seed=f"{seed}/{g}")
        bot = random_bot(f"{seed}/{g}")
        for _ in range(rng.randint(0, 120)):
            if game.finished:
                break
            game.play(bot(game.state))
        if not game.finished:
            out.append(game.state)
    return out


@pytest.mark.parametrize("seed", range(3))
def test_batched_advice_equals_unbatched_advice(seed) -> None:
    states = random_states(8, seed)
    assert states
    with_own_tile = with_bets = 0
    for state in states:
        with_own_tile += state.players[state.current].desert is not None
        with_bets += bool(placed_bets(state, state.current))
        assert_same_advice(advise(state), unbatched_advice(state))
    # make sure the interesting cases (the own tile lifted off the board first, overall cards
    # held) came up
    if seed == 0:
        assert with_own_tile >= 1 and with_bets >= 1


def test_desert_values_move_with_the_own_leg_tiles() -> None:
    """A state where a placement changes the value of held leg tiles: still identical."""
    game = Game.new(["Ann", "Bob"], seed=11)
    for action in ("leg:blue", "leg:green", "desert:9:mirage", "roll", "leg:orange"):
        game.play(action)
    state = game.state
    advice = advise(state)
    assert_same_advice(advice, unbatched_advice(state))
    shifts = [a for a in advice if a["action"].startswith("desert:") and "leg tiles" in a["why"]]
    assert shifts and any(" +0.00" not in a["why"] for a in shifts)
    assert {a["action"] for a in advice} >= {
        str(a) for a in legal_actions(state) if isinstance(a, PlaceDesert)
    }
