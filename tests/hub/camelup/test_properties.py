"""Properties over random legal games (hypothesis drives the choice of every action)."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hub.games.camelup import COLOURS, Game, public_view
from hub.games.camelup.model import race_over


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), players=st.integers(2, 8), data=st.data())
def test_random_legal_games_keep_every_invariant(seed, players, data):
    g = Game.new([f"p{i}" for i in range(players)], seed=seed)
    for _ in range(400):
        if g.finished:
            break
        actions = g.legal_actions()
        assert actions, "a running game always has a legal action (a die is always left)"
        g.play(data.draw(st.sampled_from(actions)))
        s = g.state
        camels = [c for stack in s.track.values() for c in stack]
        assert sorted(camels) == sorted(COLOURS)  # five camels, each exactly once
        assert all(p.money >= 0 for p in s.players)
        assert len(s.dice_left) + len(s.rolled) == 5 or s.finished
        assert s.finished == race_over(s.track)
    replayed = Game.replay(g.log)
    assert replayed.state == g.state
    assert public_view(replayed.state) == public_view(g.state)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_games_rolled_by_the_engine_always_end(seed):
    g = Game.new(["a", "b", "c"], seed=seed)
    for _ in range(200):
        if g.finished:
            break
        g.play("roll")
    assert g.finished
    over = g.log[-1]
    assert over["type"] == "game_over"
    assert over["winners"] and set(over["winners"]) <= {"a", "b", "c"}
    assert max(over["money"].values()) == over["money"][over["winners"][0]]
