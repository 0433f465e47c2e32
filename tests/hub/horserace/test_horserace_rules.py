"""Hand-worked horse-race cases: betting order and circles, the running phase, the podium,
scoring by the table, several races and the two house rules, refusals that change nothing."""

from __future__ import annotations

import pytest

from hub.games.horserace import (
    Assign,
    Bet,
    Game,
    IllegalAction,
    Pass,
    Roll,
    Settings,
    assignment_from_track,
    parse_action,
    public_view,
    roll_from_die,
)


def play(g: Game, *actions: str) -> list[dict]:
    events: list[dict] = []
    for a in actions:
        events += g.play(a)
    return events


def refused(g: Game, action: str, reason: str, player: str | None = None) -> None:
    before_state, before_log = g.state, g.log
    with pytest.raises(IllegalAction) as exc:
        g.play(action, player=player)
    assert exc.value.reason == reason, str(exc.value)
    assert str(exc.value)  # a sentence for the table
    assert g.state == before_state and g.log == before_log


def test_worked_race_scores_by_the_table() -> None:
    """Two players, track 6. Hand-worked: podium blue, white, green (white crosses in the same
    round as blue but after it); blue's column Ann (32) then Bob (22); green's top circle Bob
    (third place, 16); Ann's yellow token scores nothing."""
    g = Game.new(["Ann", "Bob"], first_player="Ann", track_length=6)
    play(g, "bet:blue", "bet:green")
    assert g.state.phase == "running" and g.current_player == "Ann"
    play(
        g,
        "roll:5",
        "assign:blue",
        "roll:2",
        "assign:green",
        "roll:1",
        "assign:orange",
        "roll:1",
        "assign:yellow",
    )
    ev = play(g, "roll:1", "assign:white")
    assert ev[-1] == {
        "type": "round_started",
        "race": 1,
        "round": 2,
        "active_player": "Bob",
        "betting": True,
    }
    assert g.current_player == "Bob"  # betting starts with the new active player
    play(g, "bet:blue", "bet:yellow")
    assert public_view(g.state)["columns"]["blue"] == ["Ann", "Bob"]
    ev = play(g, "roll:1", "assign:blue")
    assert ev[-1]["place"] == 1 and ev[-1]["to"] == 6  # reaching the finish space counts
    ev = play(g, "roll:6", "assign:white")
    assert ev[-1]["place"] == 2
    ev = play(g, "roll:4", "assign:green")  # the race ends mid-round
    types = [e["type"] for e in ev]
    assert types == ["die_rolled", "horse_moved", "race_scored", "game_over"]
    scored = ev[2]
    assert scored["podium"] == ["blue", "white", "green"]
    assert scored["changes"] == {"Ann": 32, "Bob": 22 + 16}
    assert sorted(
        (a["player"], a["horse"], a["place"], a["slot"], a["points"]) for a in scored["awards"]
    ) == [("Ann", "blue", 1, 0, 32), ("Bob", "blue", 1, 1, 22), ("Bob", "green", 3, 0, 16)]
    assert ev[3]["winners"] == ["Bob"] and ev[3]["points"] == {"Ann": 32, "Bob": 38}
    assert g.finished and g.current_player is None and g.legal_actions() == []
    refused(g, "pass", "game_over")


def test_second_place_row_uses_the_settled_values() -> None:
    """The seed is garbled at 12 and 9 of the second horse's column: the defaults fill them."""
    assert Settings().score_table[1] == (24, 17, 12, 9, 8)
    custom = Settings(score_table=((10, 5), (3, 1)), track_length=1)
    g = Game.new(["Ann", "Bob"], first_player=0, settings=custom)
    play(g, "bet:green", "bet:green", "roll:1", "assign:blue", "roll:1")
    ev = g.play("assign:green")
    assert ev[1]["changes"] == {"Ann": 3, "Bob": 1}  # green second: 3 then 1


def test_betting_order_one_bet_each_and_skipping_empty_hands() -> None:
    g = Game.new(
        ["Ann", "Bob", "Cy"], first_player="Bob", track_length=100, settings=None, tokens=1
    )
    assert g.current_player == "Bob"
    refused(g, "bet:blue", "not_your_turn", player="Ann")
    refused(g, "bet:blue", "unknown_player", player="Zed")
    refused(g, "roll:3", "wrong_phase")
    refused(g, "assign:blue", "wrong_phase")
    play(g, "bet:blue", "pass", "bet:blue")  # Bob, Cy, Ann
    assert g.state.phase == "running" and g.current_player == "Bob"
    for h in ("blue", "green", "orange", "yellow", "white"):
        play(g, "roll:2", f"assign:{h}")
    # round 2: Cy is active; Bob and Ann have no token, so only Cy is asked
    assert g.current_player == "Cy" and g.state.phase == "betting"
    play(g, "bet:white")
    assert g.state.phase == "running" and g.current_player == "Cy"
    for h in ("blue", "green", "orange", "yellow", "white"):
        play(g, "roll:2", f"assign:{h}")
    # round 3: nobody has a token: straight to running, Ann rolls
    assert g.state.phase == "running" and g.current_player == "Ann"
    refused(g, "pass", "wrong_phase")


def test_column_fills_from_the_top_and_refuses_when_full() -> None:
    g = Game.new(["Ann", "Bob", "Cy"], first_player=0, score_table=((5, 3), (2, 1)))
    ev = play(g, "bet:blue", "bet:blue")
    assert [e["slot"] for e in ev] == [0, 1]
    refused(g, "bet:blue", "column_full")
    refused(g, "bet:purple", "unknown_horse")
    assert Bet("blue") not in g.legal_actions() and Pass() in g.legal_actions()


def test_running_refusals() -> None:
    g = Game.new(["Ann", "Bob"], first_player=0)
    play(g, "pass", "pass")
    assert g.legal_actions() == [Roll()]
    refused(g, "assign:blue", "no_roll")
    refused(g, "roll:7", "bad_face")
    refused(g, "roll:0", "bad_face")
    play(g, "roll:3")
    refused(g, "roll:2", "roll_in_hand")
    refused(g, "bet:blue", "wrong_phase")
    play(g, "assign:blue", "roll:4")
    refused(g, "assign:blue", "horse_already_moved")
    assert Assign("blue") not in g.legal_actions() and len(g.legal_actions()) == 4


def test_betting_closes_once_the_first_horse_finishes() -> None:
    g = Game.new(["Ann", "Bob"], first_player=0, track_length=4)
    play(g, "pass", "pass", "roll:6", "assign:blue")
    assert g.state.podium == (0,) and not g.state.betting_open
    for h in ("green", "orange", "yellow"):
        play(g, "roll:1", f"assign:{h}")
    ev = play(g, "roll:1", "assign:white")
    assert ev[-1]["betting"] is False
    assert g.state.phase == "running" and g.current_player == "Bob"
    refused(g, "bet:green", "betting_closed")
    play(g, "roll:2")
    refused(g, "assign:blue", "horse_finished")


def test_horses_share_spaces_and_never_stack() -> None:
    g = Game.new(["Ann", "Bob"], first_player=0)
    play(g, "pass", "pass", "roll:3", "assign:blue", "roll:3", "assign:green")
    assert public_view(g.state)["track"]["3"] == ["blue", "green"]


def _short_race(g: Game, bettors: dict[str, str]) -> None:
    """Track 1: every assign finishes a horse; the first three horses moved place 1, 2, 3."""
    while g.state.phase == "betting":
        who = g.current_player
        g.play(f"bet:{bettors[who]}" if who in bettors else "pass")
    for h in ("blue", "green", "orange"):
        play(g, "roll:1", f"assign:{h}")


@pytest.mark.parametrize("rule,expected", [("leader", "Cy"), ("rotate", "Bob")])
def test_next_race_starter_house_rules(rule: str, expected: str) -> None:
    g = Game.new(
        ["Ann", "Bob", "Cy"], first_player="Ann", track_length=1, races=3, next_starter=rule
    )
    _short_race(g, {"Cy": "blue"})
    assert g.state.points == (0, 0, 32) and g.state.race == 2
    assert g.state.players[g.state.race_starter] == expected
    assert g.state.tokens == (3, 3, 3) and g.state.positions == (0,) * 5  # a fresh race


def test_leader_tie_goes_to_first_clockwise_after_previous_starter() -> None:
    g = Game.new(["Ann", "Bob", "Cy"], first_player="Ann", track_length=1, races=2)
    _short_race(g, {})
    assert g.state.players[g.state.race_starter] == "Bob"


def test_points_add_up_over_races() -> None:
    g = Game.new(["Ann", "Bob", "Cy"], first_player="Ann", track_length=1, races=2)
    _short_race(g, {"Ann": "green", "Bob": "orange"})  # Ann 24, Bob 16 -> Ann starts race 2
    assert g.current_player == "Ann"
    _short_race(g, {"Bob": "blue"})  # Bob +32
    assert g.finished
    result = g.state.result
    assert result["points"] == {"Ann": 24, "Bob": 48, "Cy": 0}
    assert result["winners"] == ["Bob"] and result["races"] == 2
    assert [r["race"] for r in g.state.results] == [1, 2]


def test_shared_victory() -> None:
    g = Game.new(["Ann", "Bob"], first_player="Ann", track_length=1)
    _short_race(g, {})
    assert g.state.result["winners"] == ["Ann", "Bob"]


def test_bad_setup_is_refused() -> None:
    for players in (["Ann"], ["A", "B", "C", "D", "E", "F"], ["Ann", "Ann"], ["A:b", "C"]):
        with pytest.raises(IllegalAction) as exc:
            Game.new(players)
        assert exc.value.reason == "bad_players"
    for kw in (
        {"track_length": 0},
        {"races": 0},
        {"next_starter": "youngest"},
        {"score_table": ((1, 2), (3,))},
        {"score_table": ((1,),) * 6},
        {"colour": "red"},
    ):
        with pytest.raises(IllegalAction) as exc:
            Game.new(["Ann", "Bob"], **kw)
        assert exc.value.reason == "bad_settings"
    with pytest.raises(IllegalAction) as exc:
        Game.new(["Ann", "Bob"], first_player="Zed")
    assert exc.value.reason == "unknown_player"


def test_first_player_is_drawn_from_the_seed() -> None:
    firsts = {Game.new(["A", "B", "C", "D"], seed=s).current_player for s in range(30)}
    assert len(firsts) > 1
    assert (
        Game.new(["A", "B", "C"], seed=5).current_player
        == Game.new(["A", "B", "C"], seed=5).current_player
    )


def test_engine_rolls_are_reproducible_from_the_log() -> None:
    g = Game.new(["Ann", "Bob"], seed=11, first_player=0)
    play(g, "pass", "pass")
    face = g.play("roll")[0]["face"]
    assert 1 <= face <= 6 and g.log[-1]["source"] == "engine"
    g.undo()
    assert g.play("roll")[0]["face"] == face  # same seed and position -> same roll
    h = Game.replay(g.log[:-1])
    assert h.play(Roll())[0]["face"] == face


def test_undo_and_replay() -> None:
    g = Game.new(["Ann", "Bob"], first_player=0, track_length=3)
    with pytest.raises(IllegalAction) as exc:
        g.undo()
    assert exc.value.reason == "nothing_to_undo"
    states = [g.state]
    for a in ("bet:blue", "pass", "roll:3", "assign:blue", "roll:2", "assign:green"):
        g.play(a)
        states.append(g.state)
    assert Game.replay(g.log).state == g.state
    removed = g.undo()
    assert [e["type"] for e in removed] == ["horse_moved"] and g.state == states[-2]
    while len(states) > 1:
        states.pop()
        assert g.state == states[-1]
        if len(states) > 1:
            g.undo()
    assert len(g.log) == 3  # game_started, race_started, round_started


def test_notation_round_trips() -> None:
    for text in ("bet:blue", "pass", "roll", "roll:4", "assign:white"):
        assert str(parse_action(text)) == text
    for bad in ("bet", "jump:3", "roll:x", "assign:", "bet:blue:2", ""):
        with pytest.raises(IllegalAction) as exc:
            parse_action(bad)
        assert exc.value.reason == "bad_action"


def test_public_view_is_json_safe_and_names_the_game() -> None:
    import json

    g = Game.new(["Ann", "Bob"], first_player=0)
    play(g, "bet:orange", "pass", "roll:2")
    view = json.loads(json.dumps(public_view(g.state)))
    assert view["game"] == "horserace" and view["roll"] == 2
    assert view["columns"]["orange"] == ["Ann"] and view["holdings"]["Ann"]["tokens"] == 2
    assert view["next_circle_points"]["orange"] == [22, 17, 11]


def test_camera_glue_turns_readings_into_actions() -> None:
    g = Game.new(["Ann", "Bob"], first_player=0, track_length=10)
    play(g, "pass", "pass")
    assert roll_from_die({"face": 4, "confidence": 0.9}) == Roll(4)
    with pytest.raises(IllegalAction) as exc:
        roll_from_die({"face": None, "confidence": 0.0})
    assert exc.value.reason == "uncertain"
    g.play(Roll(4))
    assert assignment_from_track(
        g.state, {"blue": 0, "green": 4, "orange": 0, "yellow": 0, "white": 0}
    ) == Assign("green")
    # a Camel Up style {space: [colours]} reading works too
    assert assignment_from_track(
        g.state, {0: ["blue", "orange", "yellow", "white"], 4: ["green"]}
    ) == Assign("green")
    for reading, fragment in [
        ({0: ["blue", "green", "orange", "yellow", "white"]}, "no horse"),
        ({0: ["blue", "orange", "yellow", "white"], 3: ["green"]}, "roll is 4"),
    ]:
        with pytest.raises(IllegalAction) as exc:
            assignment_from_track(g.state, reading)
        assert exc.value.reason == "track_mismatch" and fragment in str(exc.value)
    # a horse over the line may be absent from the reading (it is on the podium)
    g = Game.new(["Ann", "Bob"], first_player=0, track_length=5)
    play(g, "pass", "pass", "roll:6")
    assert assignment_from_track(g.state, {0: ["blue", "green", "yellow", "white"]}) == Assign(
        "orange"
    )
