"""The horse race and Marco Polo II at the table: chosen at start_game, kept in the log, rebuilt
after a restart, driven by the same requests and observations as Camel Up."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hub.session import TableSession
from tests.hub._hubkit import TABLE, Tables, open_tables

HORSES = ("blue", "green", "orange", "yellow", "white")


@pytest.fixture
def tables(tmp_path: Path) -> Iterator[Tables]:
    yield from open_tables(tmp_path)


def ask(s: TableSession, cmd: str, payload: dict[str, Any], auth: Any = TABLE) -> dict[str, Any]:
    answer = s.request(cmd, payload, auth)
    assert answer["ok"], answer
    return answer


def start_race(s: TableSession, **settings: Any) -> dict[str, Any]:
    return ask(
        s,
        "start_game",
        {
            "game": "horserace",
            "players": ["Ann", "Bob", "Cy"],
            "seed": 5,
            "first_player": "Ann",
            "track_length": 12,
            **settings,
        },
    )


def full_track(s: TableSession, **moved: int) -> dict[str, list[str]]:
    """The track as the camera would read it: every horse still racing, ``moved`` ones moved."""
    state = s.game.state
    out: dict[str, list[str]] = {}
    for h, horse in enumerate(state.horses):
        if h in state.podium:
            continue
        out.setdefault(str(moved.get(horse, state.positions[h])), []).append(horse)
    return out


# -- starting ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "payload, reason, words",
    [
        ({"game": "chess"}, "unknown_game", "one of camelup, camelup2, horserace, marcopolo2"),
        ({"game": "horserace", "track_length": 0}, "bad_settings", "track length"),
        ({"game": "horserace", "races": "two"}, "bad_settings", "'races' must be a whole number"),
        ({"game": "horserace", "next_starter": "youngest"}, "bad_settings", "next race"),
        ({"game": "horserace", "colours": ["red"]}, "bad_payload", "unknown field 'colours'"),
        ({"game": "horserace", "setup": [["blue", 1]]}, "bad_payload", "Camel Up's starting roll"),
        (
            {"game": "horserace", "players": ["A", "B", "C", "D", "E", "F"]},
            "bad_players",
            "2 to 5 players",
        ),
        ({"game": "marcopolo2", "players": list("ABCDE")}, "bad_players", "2 to 4 players"),
        ({"game": "marcopolo2", "colours": ["blue", "blue", "red"]}, "bad_colours", "different"),
        (
            {"game": "marcopolo2", "boards": {"Ann": [0, 0, 10, 10]}},
            "bad_settings",
            "one region for each player",
        ),
        ({"game": "marcopolo2", "expected_dice": 0}, "bad_settings", "expected_dice"),
        ({"track_length": 20}, "bad_payload", "unknown field 'track_length'"),
    ],
)
def test_a_bad_start_says_why_and_changes_nothing(
    tables: Tables, payload: dict, reason: str, words: str
) -> None:
    s = tables.session()
    answer = s.request("start_game", {"players": ["Ann", "Bob", "Cy"], **payload}, TABLE)
    assert not answer["ok"] and answer["reason"] == reason, answer
    assert words.lower() in answer["error"].lower()
    assert s.seq == 0 and s.store.games("t1") == [] and s.game is None


def test_a_horse_race_is_kept_as_its_kind_and_rebuilt_after_a_restart(tables: Tables) -> None:
    s = tables.session()
    answer = start_race(s, races=2, next_starter="rotate")
    assert answer["game"] == "horserace" and set(answer["tokens"]) == {"Ann", "Bob", "Cy"}
    rec = s.store.games("t1")[0]
    assert rec.kind == "horserace" and rec.params["settings"] == {
        "races": 2,
        "track_length": 12,
        "next_starter": "rotate",
    }
    for who, action in [("Ann", "bet:blue"), ("Bob", "bet:blue"), ("Cy", "pass")]:
        ask(s, "action", {"player": who, "action": action})
    ask(s, "action", {"player": "Ann", "action": "roll:4"})
    ask(s, "action", {"player": "Ann", "action": "assign:green"})
    refused = s.request("action", {"player": "Bob", "action": "roll:2"}, TABLE)
    assert refused["reason"] == "not_your_turn" and "Ann's turn" in refused["error"]
    s.request("observe_die", {"face": 2, "confidence": 0.4}, TABLE)  # an open prompt, too
    snap = s.snapshot(log=True, derived=False)
    view = snap["game"]
    assert view["game"] == "horserace" and view["positions"]["green"] == 4
    assert view["columns"]["blue"] == ["Ann", "Bob"] and view["roll"] is None
    again = tables.session()  # the hub restarted (or was killed): the log is all there is
    assert again.kind == "horserace"
    assert again.snapshot(log=True, derived=False) == snap
    assert again.engine_log() == s.engine_log()
    # and it plays on from there: the camera's unsure die is still waiting for a person
    (prompt,) = again.pending.values()
    assert prompt["kind"] == "roll_reading" and prompt["reading"]["face"] == 2
    ask(again, "confirm", {"prompt": prompt["id"], "face": 3})
    assert again.game.state.roll == 3 and again.pending == {}


def test_camera_readings_drive_a_horse_race_to_its_podium(tables: Tables) -> None:
    s = tables.session()
    start_race(s)
    # an unsure die is a prompt, never a roll; a sure one is the roll
    for who in ("Ann", "Bob", "Cy"):
        ask(s, "action", {"player": who, "action": "pass"})
    unsure = ask(s, "observe_die", {"face": None, "confidence": 0.0, "reason": "no pips"})
    assert unsure["uncertain"] and "no face" in unsure["problems"][0]
    assert s.game.state.roll is None
    ask(s, "confirm", {"prompt": unsure["prompt"], "dismiss": True})
    seven = ask(s, "observe_die", {"face": 7, "confidence": 0.99})
    assert seven["uncertain"] and "1 to 6" in seven["problems"][0]
    ask(s, "confirm", {"prompt": seven["prompt"], "dismiss": True})
    sure = ask(s, "observe_die", {"face": 5, "confidence": 0.97})
    assert [e["type"] for e in sure["events"]] == ["die_rolled"]
    # the track before the move matches (waiting); a wrong horse distance is a mismatch
    assert ask(s, "observe_track", {"track": full_track(s)}) == {
        "ok": True,
        "cmd": "observe_track",
        "seq": s.seq,
        "match": True,
        "waiting": True,
    }
    wrong = ask(s, "observe_track", {"track": full_track(s, white=3)})
    assert not wrong["match"] and "the roll is 5" in wrong["differences"][0]
    assert s.game.state.roll == 5
    moved = ask(s, "observe_track", {"track": full_track(s, white=5)})
    assert moved["action"] == "assign:white" and s.game.state.positions[4] == 5
    # the rest of the race from the camera alone: each roll to the first horse not yet moved
    guard = 0
    while not s.game.finished:
        guard += 1
        assert guard < 200
        state = s.game.state
        if state.phase == "betting":
            ask(s, "action", {"player": s.game.current_player, "action": "pass"})
            continue
        ask(s, "observe_die", {"face": 6, "confidence": 0.95})
        horse = state.horses[s.game.state.unmoved()[0]]
        pos = s.game.state.positions[state.horses.index(horse)] + 6
        ask(s, "observe_track", {"track": full_track(s, **{horse: pos})})
    view = s.snapshot(log=False, derived=False)["game"]
    assert s.record.status == "finished" and len(view["podium"]) == 3
    over = [e for e in s.engine_log() if e["type"] == "game_over"][0]
    assert set(over["money"]) == {"Ann", "Bob", "Cy"} and over["winners"]
    assert s.games()[0]["winners"] == over["winners"]
    die_reads = [e.event for e in s.events_since(0) if e.event["type"] == "die_rolled"]
    assert all(e.get("read") == "vision" and e["confidence"] >= 0.8 for e in die_reads)


def test_horse_race_advice_is_the_rolls_choices_with_their_errors(tables: Tables) -> None:
    s = tables.session(odds=True, advice=True)
    start_race(s)
    betting = s.snapshot(log=False)
    assert betting["advice"]["bets"]["bets"]["blue"]["stderr"] > 0
    assert betting["advice"]["roll"] is None
    assert set(betting["odds"]["podium"]) == set(HORSES)
    for who in ("Ann", "Bob", "Cy"):
        ask(s, "action", {"player": who, "action": "bet:orange" if who == "Ann" else "pass"})
    ask(s, "action", {"player": "Ann", "action": "roll:6"})
    advice = s.snapshot(log=False)["advice"]
    roll = advice["roll"]
    assert roll["roll"] == 6 and len(roll["choices"]) == 5
    best = roll["choices"][0]
    assert best["horse"] == "orange"  # Ann's token is on orange: moving it helps her most
    assert best["expected"]["Ann"] > roll["choices"][-1]["expected"]["Ann"]
    assert 0 < best["stderr"]["Ann"] < 1
    assert s.request("snapshot", {}, None)["snapshot"]["advice"] == advice


def test_marco_polo_round_from_the_camera_then_a_person_then_scoring(tables: Tables) -> None:
    s = tables.session()
    boards = {"Ann": [0, 0, 100, 100], "Bob": [100, 0, 100, 100]}
    ask(
        s,
        "start_game",
        {"game": "marcopolo2", "players": ["Ann", "Bob"], "boards": boards, "expected_dice": 3},
    )
    view = s.snapshot(log=False, derived=False)["game"]
    assert view["game"] == "marcopolo2" and view["round"] == 1
    assert view["setup"]["black_dice"] == 4 and len(view["setup"]["neutral_dice"]) == 6
    frame = [
        {"colour": "blue", "face": f, "confidence": 0.95, "box": [10 + 10 * i, 10, 8, 8]}
        for i, f in enumerate((1, 2, 3))
    ]
    frame += [
        {"colour": "black", "face": 2, "confidence": 0.9, "box": [50, 50, 8, 8]},
        {"colour": "yellow", "face": 6, "confidence": 0.9, "box": [110, 10, 8, 8]},
        {"colour": "yellow", "face": 5, "confidence": 0.9, "box": [120, 10, 8, 8]},
        {"colour": "yellow", "face": 4, "confidence": 0.3, "box": [130, 10, 8, 8]},
        {"colour": "green", "face": 1, "confidence": 0.9, "box": [300, 300, 8, 8]},
    ]
    read = ask(s, "observe_dice", {"readings": frame})
    assert read["played"] == ["dice:Ann:1,2,3+2"] and read["players"] == ["Bob"]
    assert "below" in read["problems"][0]
    (prompt,) = s.pending.values()
    assert prompt["kind"] == "dice_check" and prompt["players"] == ["Bob"]
    dice = s.snapshot(log=False, derived=False)["game"]["dice"]
    assert dice["Ann"]["total"] == 8 and dice["Ann"]["owed"] == 7 and "Bob" not in dice
    # the same frame again changes nothing for Ann; Bob's dice come from a person
    assert ask(s, "observe_dice", {"readings": frame})["played"] == []
    bob = {"token": s.player_token("Bob")}
    assert s.request("action", {"action": "dice:Ann:6,6,6"}, bob)["reason"] == "forbidden"
    ask(s, "action", {"action": "dice:Bob:6,5,4"}, bob)
    assert s.pending == {}
    assert s.request("action", {"action": "round"}, TABLE)["reason"] == "compensation_pending"
    ask(s, "action", {"action": "comp:Ann:3"}, {"token": s.player_token("Ann")})
    for _ in range(4):
        ask(s, "action", {"action": "round"})
    sheets = {
        "Ann": "coins=23,contracts=3,pepper=2,camels=1",
        "Bob": "coins=9,contracts=2,seal_points=11,camels=4",
    }
    for name, sheet in sheets.items():
        ask(s, "action", {"action": f"score:{name}:{sheet}"})
    over = ask(s, "action", {"action": "finish"})["events"][0]
    # Ann: majority 8 + coins 2 + goods 1; Bob: seals 11. Tied: the most camels wins.
    assert over["money"] == {"Ann": 11, "Bob": 11}
    assert over["winners"] == ["Bob"] and over["tie_break"] == "camels"
    assert s.record.status == "finished" and s.games()[0]["money"] == over["money"]
    again = tables.session()
    assert again.snapshot(derived=False) == s.snapshot(derived=False)


def test_observations_of_the_wrong_game_are_refused(tables: Tables) -> None:
    s = tables.session()
    ask(s, "start_game", {"game": "marcopolo2", "players": ["Ann", "Bob"]})
    seq = s.seq
    for cmd, payload in [
        ("observe_die", {"colour": "blue", "face": 2, "confidence": 0.9}),
        ("observe_track", {"track": {"1": ["blue"]}}),
    ]:
        assert s.request(cmd, payload, TABLE)["reason"] == "wrong_game"
    ask(s, "start_game", {"game": "horserace", "players": ["Ann", "Bob"], "abandon": True})
    answer = s.request("observe_dice", {"readings": []}, TABLE)
    assert answer["reason"] == "wrong_game"
    assert (
        s.request("observe_dice", {"readings": [{"colour": "blue", "pips": 2}]}, TABLE)["reason"]
        == "bad_payload"
    )
    assert s.seq == seq + 4  # the abandon and the horse race's three start events, nothing else


def test_a_preview_fallback_die_is_never_sure_in_the_other_games() -> None:
    """Issue 14: the horse race's roll and the second edition's die read from the preview frame
    after the full-resolution cut showed none carry the same problem as Camel Up's, so each
    game's usual prompt asks a person; from the full-resolution cut they are played."""
    from hub.games_glue.camelup2 import judge_die
    from hub.games_glue.horserace import judge_roll

    why = "read from the preview frame (the full-resolution cut showed no die)"
    roll = {"face": 5, "confidence": 0.97}
    assert judge_roll({**roll, "frame": "preview_fallback"}, 0.8) == (None, [why])
    assert judge_roll({**roll, "frame": "full"}, 0.8)[1] == []
    die = {"colour": "blue", "face": 2, "confidence": 0.97}
    assert judge_die({**die, "frame": "preview_fallback"}, ["blue"], 0.8)[1] == [why]
    assert judge_die({**die, "frame": "full"}, ["blue"], 0.8)[1] == []
