"""The log, undo, replay and the views (what each audience may see)."""

import json

import pytest

from hub.games.camelup import Game, IllegalAction, full_view, player_view, public_event, public_view

START = {1: ["blue"], 2: ["green", "orange"], 3: ["yellow", "white"]}


def test_play_returns_the_events_and_the_log_keeps_them():
    g = Game.new(["Ann", "Bob"], track=START)
    events = g.play("roll:green:2")
    assert [e["type"] for e in events] == ["die_read", "camel_moved"]
    assert g.log[-2:] == events and g.log[0]["type"] == "game_started"


def test_undo_restores_the_exact_previous_state_and_log():
    g = Game.new(["Ann", "Bob", "Cy"], seed=3)
    states, logs = [g.state], [g.log]
    for action in ["leg:blue", "desert:9:mirage", "roll", "bet:winner:green", "roll"]:
        g.play(action)
        states.append(g.state)
        logs.append(g.log)
    for i in range(5, 0, -1):
        removed = g.undo()
        assert removed and g.state == states[i - 1] and g.log == logs[i - 1]
    with pytest.raises(IllegalAction) as info:
        g.undo()
    assert info.value.reason == "nothing_to_undo"


def test_undo_across_a_leg_end_brings_the_leg_back():
    g = Game.new(["Ann", "Bob"], track=START)
    for r in ["blue:1", "green:1", "orange:1", "yellow:1"]:
        g.play(f"roll:{r}")
    before = g.state
    g.play("roll:white:2")
    assert g.state.leg == 2
    removed = g.undo()
    assert [e["type"] for e in removed] == ["die_read", "camel_moved", "leg_scored"]
    assert g.state == before


def test_replay_of_a_json_round_tripped_log_rebuilds_the_state():
    g = Game.new(["Ann", "Bob", "Cy"], seed=11)
    while not g.finished:
        g.play(g.legal_actions()[-1] if g.state.actions % 3 else "roll")
    stored = json.loads(json.dumps(g.log))
    again = Game.replay(stored)
    assert again.state == g.state and again.log == stored
    again.undo()  # the replayed game knows where its actions begin
    assert again.state.finished is False


def test_public_view_hides_overall_bet_colours_until_the_end():
    track = {15: ["white"], 1: ["blue"], 2: ["green"], 3: ["orange"], 4: ["yellow"]}
    g = Game.new(["Ann", "Bob"], track=track)
    events = g.play("bet:winner:white")
    pub = public_view(g.state)
    assert pub["overall"]["winner"] == [{"player": "Ann"}]
    assert "white" not in json.dumps(pub["overall"])
    assert "colour" not in public_event(events[0])
    assert public_event(events[0])["player"] == "Ann"
    assert full_view(g.state)["overall"]["winner"] == [{"player": "Ann", "colour": "white"}]
    mine = player_view(g.state, "Ann")
    assert mine["my_bets"] == [{"pile": "winner", "colour": "white"}]
    assert "white" not in mine["race_cards"]
    assert player_view(g.state, "Bob")["my_bets"] == []
    assert pub["holdings"]["Ann"]["race_cards_left"] == 4
    g.play("roll:white:3")
    over = public_view(g.state)["result"]
    assert over["overall"][0]["colour"] == "white" and over["overall"][0]["payout"] == 8


def test_views_are_json_safe():
    g = Game.new(["Ann", "Bob"], seed=5)
    g.play("desert:8:oasis")
    for view in (public_view(g.state), full_view(g.state), player_view(g.state, "Bob")):
        assert json.loads(json.dumps(view)) == view
    assert public_view(g.state)["desert"] == {"8": {"side": "oasis", "owner": "Ann"}}


def test_public_state_hides_played_race_cards_from_shared_advice():
    from hub.games.camelup.advisor import advise
    from hub.games.camelup.views import public_state

    a = Game.new(["Ann", "Bob"], seed=21)
    b = Game.new(["Ann", "Bob"], seed=21)
    a.play("bet:winner:blue")  # Ann's secret: blue
    b.play("bet:winner:white")  # or white
    for g in (a, b):
        g.play("leg:green")  # Bob; Ann to move again: what may the table see of her hand?
    assert public_view(a.state) == public_view(b.state)
    shared_a, shared_b = advise(public_state(a.state)), advise(public_state(b.state))
    assert shared_a == shared_b  # the shared screen cannot tell the two games apart
    private = {x["action"] for x in advise(a.state)}
    assert "bet:winner:blue" not in private and "bet:winner:white" in private
