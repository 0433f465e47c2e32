"""Property tests over random horse races: scoring matches the table, the podium is distinct
horses, tokens are conserved, replay rebuilds the state and undo takes back exactly one action."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hub.games.horserace import Game, Roll, Settings

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve"]


@st.composite
def games(draw: st.DrawFn) -> tuple[Game, list]:
    players = draw(st.integers(2, 5))
    ruleset = Settings(
        track_length=draw(st.integers(1, 14)),
        races=draw(st.integers(1, 2)),
        next_starter=draw(st.sampled_from(["leader", "rotate"])),
    )
    g = Game.new(NAMES[:players], first_player=draw(st.integers(0, players - 1)), settings=ruleset)
    return g, []


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_random_races_keep_the_rules(data: st.DataObject) -> None:
    g, _ = data.draw(games())
    table = g.state.settings.score_table
    steps = 0
    while not g.finished:
        steps += 1
        assert steps < 2000
        before = g.state
        actions = g.legal_actions()
        assert actions, "a running game always has a legal action"
        action = data.draw(st.sampled_from(actions))
        if action == Roll():
            action = Roll(data.draw(st.integers(1, 6)))
        events = g.play(action)
        after = g.state
        # tokens are conserved: in hand + on the board == 3 per player, per race
        if after.race == before.race and not after.finished:
            on_board = [
                sum(col.count(p) for col in after.columns) for p in range(len(after.players))
            ]
            assert [t + b for t, b in zip(after.tokens, on_board, strict=True)] == [
                after.settings.tokens
            ] * len(after.players)
        for e in events:
            if e["type"] == "race_scored":
                podium = e["podium"]
                assert len(podium) == len(set(podium)) == len(table)
                # what the table says for the tokens of the podium horses, nothing else
                expected = sum(
                    table[place][slot]
                    for place, horse in enumerate(podium)
                    for slot in range(len(before.columns[before.horses.index(horse)]))
                )
                assert sum(e["changes"].values()) == expected
                assert e["points"] == {
                    n: before.points[i] + e["changes"][n] for i, n in enumerate(before.players)
                }
        if data.draw(st.integers(0, 9)) == 0:  # now and then: undo, check, redo
            removed = g.undo()
            assert removed == events and g.state == before
            assert g.play(action) == events and g.state == after
    result = g.state.result
    assert result is not None and result["points"] == {
        n: g.state.points[i] for i, n in enumerate(g.state.players)
    }
    best = max(result["points"].values())
    assert result["winners"] == [n for n, v in result["points"].items() if v == best]
    assert Game.replay(g.log).state == g.state
    assert Game.replay(g.log).log == g.log
