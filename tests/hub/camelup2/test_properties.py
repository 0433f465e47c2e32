"""Properties over random legal second-edition games (hypothesis picks every action)."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hub.games.camelup2
from hub.games.camelup2 import CAMELS, Game, IllegalAction, ReleaseDie, parse_action, public_view
from hub.games.camelup2.model import race_over
from hub.games.camelup2.odds import position_odds


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), players=st.integers(3, 8), data=st.data())
def test_random_legal_games_keep_every_invariant(seed, players, data):
    g = Game.new([f"p{i}" for i in range(players)], seed=seed)
    for _ in range(300):
        if g.finished:
            break
        actions = g.legal_actions()
        assert actions
        g.play(data.draw(st.sampled_from(actions)))
        s = g.state
        camels = [c for stack in s.track.values() for c in stack]
        assert sorted(camels) == sorted(CAMELS)  # seven camels, each exactly once
        assert all(p.money >= 0 for p in s.players)
        assert s.finished == race_over(s.track)
        assert s.finished or len(s.dice_left) + len(s.rolled) == 6
        assert s.finished or 2 <= len(s.dice_left) <= 6
        partners = {i: p.partner for i, p in enumerate(s.players) if p.partner is not None}
        assert all(partners[j] == i for i, j in partners.items())  # partnerships are mutual
    replayed = Game.replay(g.log)
    assert replayed.state == g.state
    assert public_view(replayed.state) == public_view(g.state)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), rolls=st.integers(0, 30))
def test_odds_of_positions_met_in_play_sum_to_one(seed, rolls):
    g = Game.new(["a", "b", "c"], seed=seed)
    for _ in range(rolls):
        if g.finished:
            break
        g.play("roll")
    s = g.state
    if s.finished:
        return
    out = position_odds(s.track, s.dice_left, s.spectator_sides(), race=False)
    assert sum(v["first"] for v in out["leg"].values()) == pytest.approx(1.0)
    assert sum(v["second"] for v in out["leg"].values()) == pytest.approx(1.0)
    for place in range(5):
        assert sum(v[place] for v in out["leg_order"].values()) == pytest.approx(1.0)
    assert 0.0 <= out["game_ends_this_leg"] <= 1.0 + 1e-12


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_games_rolled_by_the_engine_always_end(seed):
    g = Game.new(["a", "b", "c"], seed=seed)
    for _ in range(300):
        if g.finished:
            break
        g.play("roll")
    assert g.finished
    over = g.log[-1]
    assert over["type"] == "game_over" and over["winner"] != over["loser"]


def test_package_docstring_examples_run():
    result = doctest.testmod(hub.games.camelup2, raise_on_error=False)
    assert result.attempted >= 3 and result.failed == 0


# Every input the rules page names as refusable, and then some: camels of the wrong kind or
# edition, spaces off the track, wrong sides, faces and shades, unknown players.
_COLOURS = ["blue", "green", "yellow", "red", "purple", "black", "white", "orange", "grey"]


def _notation(names: list[str]) -> st.SearchStrategy[str]:
    colour = st.sampled_from(_COLOURS)
    space = st.integers(-1, 18).map(str) | st.sampled_from(["x", ""])
    side = st.sampled_from(["cheering", "booing", "oasis"])
    face = st.integers(0, 4).map(str)
    shade = st.sampled_from(["black", "white", "red"])
    pile = st.sampled_from(["winner", "loser", "middle"])
    who = st.sampled_from([*names, "zed", ""])
    return st.one_of(
        st.builds(lambda c: f"leg:{c}", colour),
        st.builds(lambda s, d: f"spectator:{s}:{d}", space, side),
        st.just("roll"),
        st.builds(lambda c, f: f"roll:{c}:{f}", colour, face),
        st.builds(lambda s, f: f"roll:grey:{s}:{f}", shade, face),
        st.builds(lambda p, c: f"bet:{p}:{c}", pile, colour),
        st.builds(lambda n: f"partner:{n}", who),
        st.text(max_size=8),
    )


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), players=st.integers(3, 8), data=st.data())
def test_a_refusal_names_its_reason_changes_nothing_and_agrees_with_the_legal_actions(
    seed, players, data
):
    """Any text, by the player to move, another player or a stranger: either it is one of the
    legal actions and is played, or it is refused with a reason and a sentence and the log and
    state are exactly as before (the rules page: "the state does not change")."""
    names = [f"p{i}" for i in range(players)]
    g = Game.new(names, seed=seed)
    refusals = 0
    for _ in range(60):
        if g.finished:
            break
        text = data.draw(_notation(names))
        player = data.draw(st.sampled_from([None, *names, "zed"]))
        legal = {str(a) for a in g.legal_actions()}
        before_log, before_state = list(g.log), g.state
        mover = g.current_player
        try:
            g.play(text, player)
        except IllegalAction as exc:
            refusals += 1
            assert exc.reason and str(exc), text
            assert g.log == before_log and g.state == before_state, text
            # an action refused to the player to move is not among the legal actions
            if player in (None, mover):
                assert text.strip() not in legal, (text, exc.reason)
            g.play(data.draw(st.sampled_from(sorted(legal))))
        else:
            assert player in (None, mover), (text, player)
            action = parse_action(text)
            observed = isinstance(action, ReleaseDie) and action.die is not None
            assert observed or str(action) in legal, text
    assert refusals or g.finished
