"""TableSession: one game at a time, the log as truth, observations, prompts, secrets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from hub import simtable
from hub.bus import Envelope, EventBus
from tests.hub._hubkit import TABLE, Tables, open_tables, start


@pytest.fixture
def tables(tmp_path: Path) -> Iterator[Tables]:
    yield from open_tables(tmp_path)


def act(s, player: str, action: str, auth=TABLE) -> dict:
    return s.request("action", {"player": player, "action": action}, auth)


def types(envs) -> list[str]:
    return [e.type for e in envs]


def test_start_play_finish_start_another_and_browse(tables: Tables) -> None:
    s = tables.session()
    first = start(s)
    assert first["game_id"] == "g1" and set(first["tokens"]) == {"Ann", "Bob", "Cy"}
    again = s.request("start_game", {"players": ["X", "Y"]}, TABLE)
    assert again["reason"] == "game_in_progress"
    simtable.play(s, "browse")
    assert s.game is not None and s.game.finished and s.record.status == "finished"
    second = start(s, ("Dee", "Eve"))
    assert second["game_id"] == "g2" and s.active
    games = s.games()
    assert [g["game_id"] for g in games] == ["g1", "g2"]
    assert games[0]["status"] == "finished" and games[0]["winners"]
    past = s.past_game("g1")
    assert past["game"]["finished"] and past["game"]["result"]["winners"] == games[0]["winners"]
    assert past["log"][-1]["event_type"] == "game_over"
    abandon = s.request("start_game", {"players": ["A", "B"], "abandon": True}, TABLE)
    assert abandon["ok"] and abandon["game_id"] == "g3"
    assert [g["status"] for g in s.games()] == ["finished", "abandoned", "playing"]


def test_restart_rebuilds_everything_from_the_log(tables: Tables) -> None:
    s = tables.session()
    start(s)
    assert act(s, "Ann", "leg:blue")["ok"]
    assert act(s, "Bob", "roll:green:2")["ok"]
    assert not act(s, "Ann", "leg:blue")["ok"]  # out of turn: logged as refused only
    assert s.observe("die", {"colour": "white", "face": 3, "confidence": 0.3})["uncertain"]
    assert act(s, "Cy", "bet:winner")["pending"]
    before = (s.full_state(), s.pending, s.seq, s.snapshot(derived=False))
    s2 = tables.session()
    assert (s2.full_state(), s2.pending, s2.seq, s2.snapshot(derived=False)) == before
    # and play goes on: the undo after the restart takes back the open bet prompt, then the roll
    assert s2.request("undo", {}, TABLE)["dismissed"]
    assert s2.request("undo", {}, TABLE)["ok"]  # the unsure reading was no action: undo the roll
    assert s2.full_state()["track"]["2"] == ["green", "orange"]
    assert s2.game.current_player == "Bob"


def test_undo_is_a_new_event(tables: Tables) -> None:
    s = tables.session()
    start(s)
    act(s, "Ann", "roll:blue:3")
    seq = s.seq
    answer = s.request("undo", {}, TABLE)
    assert answer["ok"] and answer["undone"] == [2, 3] and answer["action"] == "roll:blue:3"
    rows = s.store.events("t1")
    assert [r.type for r in rows] == ["game_started", "die_read", "camel_moved", "undo"]
    assert s.seq == seq + 1
    assert s.full_state()["track"]["1"] == ["blue"]
    assert s.request("undo", {}, TABLE)["reason"] == "nothing_to_undo"


def test_confident_die_becomes_the_move_with_its_crop(tables: Tables) -> None:
    s = tables.session()
    start(s)
    s.bus.flush()  # game_started delivered before we listen
    got: list[Envelope] = []
    s.bus.subscribe(got.append)
    answer = s.observe(
        "die", {"colour": "green", "face": 2, "confidence": 0.95, "crop_jpeg": b"\xff\xd8crop"}
    )
    assert answer["ok"], answer
    s.bus.flush()
    assert types(got) == ["die_read", "camel_moved"]
    die = got[0].event
    assert (die["player"], die["colour"], die["face"], die["source"]) == (
        "Ann",
        "green",
        2,
        "vision",
    )
    assert s.crop(die["crop"]) == b"\xff\xd8crop"
    assert s.full_state()["track"]["4"] == ["green", "orange"]


def test_a_preview_fallback_reading_asks_a_person_however_sure(tables: Tables) -> None:
    """Issue 14: a die read from the preview frame because the full-resolution cut showed none
    (``frame``: preview_fallback) is never played on its own; the same reading from the
    full-resolution cut, or from firmware that does not say (older), is; a frame the schema
    does not know is refused and changes nothing."""
    s = tables.session()
    start(s)
    sure = {"colour": "green", "face": 2, "confidence": 0.97}
    state = s.full_state()
    bad = s.observe("die", {**sure, "frame": "thumbnail"})
    assert not bad["ok"] and s.full_state() == state, bad
    answer = s.observe("die", {**sure, "frame": "preview_fallback"})
    assert answer["ok"] and answer["uncertain"], answer
    assert answer["problems"] == [
        "read from the preview frame (the full-resolution cut showed no die)"
    ]
    assert s.full_state() == state  # nothing moved
    (prompt,) = s.snapshot(derived=False)["pending"]
    assert prompt["kind"] == "die_reading" and prompt["problems"] == answer["problems"]
    s.request("confirm", {"prompt": prompt["id"], "dismiss": True}, TABLE)
    played = s.observe("die", {**sure, "frame": "full"})
    assert played["ok"] and not played.get("uncertain"), played
    older = s.observe("die", {"colour": "orange", "face": 1, "confidence": 0.97})
    assert older["ok"] and not older.get("uncertain"), older
    assert [r.type for r in s.store.events("t1")].count("die_read") == 2


@pytest.mark.parametrize(
    "reading, problem",
    [
        ({"colour": "green", "face": 2, "confidence": 0.4}, "confidence 0.40 is below 0.80"),
        ({"colour": "green", "face": 4, "confidence": 0.99}, "face 4 is not 1, 2 or 3"),
        ({"colour": "pink", "face": 1, "confidence": 0.99}, "'pink' is not a camel colour"),
        ({"colour": None, "face": 1, "confidence": 0.99}, "no colour was read"),
        ({"colour": "blue", "face": 1, "confidence": 0.99}, "blue was already rolled this leg"),
    ],
)
def test_unsure_or_impossible_reading_asks_a_person(tables: Tables, reading, problem) -> None:
    s = tables.session()
    start(s)
    act(s, "Ann", "roll:blue:1")
    state = s.full_state()
    answer = s.observe("die", reading)
    assert answer["ok"] and answer["uncertain"] and problem in answer["problems"]
    assert s.full_state() == state  # nothing moved
    (prompt,) = s.snapshot(derived=False)["pending"]
    assert prompt["kind"] == "die_reading" and problem in prompt["problems"]
    assert prompt["expected_colours"] == ["green", "orange", "yellow", "white"]
    # a person corrects it: a correction event, then the move
    fixed = s.request("confirm", {"prompt": prompt["id"], "colour": "white", "face": 1}, TABLE)
    assert fixed["ok"], fixed
    last = s.store.events("t1")[-3:]
    assert [r.type for r in last] == ["correction", "die_read", "camel_moved"]
    assert last[0].event["changed"] is True
    assert s.snapshot(derived=False)["pending"] == []
    assert (
        s.request("confirm", {"prompt": prompt["id"], "accept": True}, TABLE)["reason"]
        == "unknown_prompt"
    )


def test_the_last_die_of_a_leg_has_a_known_colour(tables: Tables) -> None:
    s = tables.session()
    start(s)
    for player, action in [
        ("Ann", "roll:blue:1"),
        ("Bob", "roll:green:1"),
        ("Cy", "roll:orange:1"),
        ("Ann", "roll:yellow:1"),
    ]:
        assert act(s, player, action)["ok"]
    answer = s.observe(
        "die", {"colour": "green", "face": 2, "confidence": 0.2, "face_confidence": 0.93}
    )
    assert answer["ok"] and "events" in answer, answer
    moved = [e for e in answer["events"] if e["type"] == "die_read"]
    assert moved == [{"type": "die_read", "player": "Bob", "colour": "white", "face": 2}]


def test_track_mismatch_names_what_differs(tables: Tables) -> None:
    s = tables.session()
    start(s)
    same = {"1": ["blue"], "2": ["green", "orange"], "3": ["yellow", "white"]}
    assert s.observe("track", {"track": same})["match"] is True
    seq = s.seq
    wrong = {"1": ["blue"], "2": ["orange", "green"], "4": ["yellow", "white"]}
    answer = s.observe("track", {"track": wrong, "uncertain": [4]})
    assert answer["ok"] and answer["match"] is False
    assert answer["differences"] == [
        "space 2: expected green under orange, saw orange under green",
        "space 3: expected yellow under white, saw nothing",
    ]
    (row,) = s.store.events("t1", since=seq)
    assert row.type == "track_mismatch" and row.event["spaces"] == [2, 3]
    bad = s.observe("track", {"track": {"1": ["blue", "blue"]}})
    assert not bad["ok"] and bad["reason"] == "bad_payload" and s.seq == seq + 1


def test_overall_bet_colours_stay_secret_until_game_over(tables: Tables) -> None:
    s = tables.session()
    start(s)
    s.bus.flush()  # game_started delivered before we listen
    got: list[Envelope] = []
    s.bus.subscribe(got.append)
    pending = act(s, "Ann", "bet:winner")
    assert pending["ok"] and pending["pending"]
    # the colour comes from Ann's own link (or the PIN); another player's link cannot
    bob = {"token": s.player_token("Bob")}
    assert (
        s.request("confirm", {"prompt": pending["prompt"], "colour": "white"}, bob)["reason"]
        == "forbidden"
    )
    ann = {"token": s.player_token("Ann")}
    answer = s.request("confirm", {"prompt": pending["prompt"], "colour": "white"}, ann)
    assert answer["ok"], answer
    s.bus.flush()
    snap = s.snapshot()
    bets = [e.to_dict() for e in got if e.type == "overall_bet_placed"]
    bets += [e for e in snap["log"] if e["event_type"] == "overall_bet_placed"]
    bets += [e.to_dict() for e in s.events_since(0) if e.type == "overall_bet_placed"]
    assert len(bets) == 3 and all("colour" not in b for b in bets)
    assert snap["game"]["overall"] == {"winner": [{"player": "Ann"}], "loser": []}
    assert '"colour": "white", "pile"' not in json.dumps(snap, sort_keys=True)
    assert s.full_state()["overall"]["winner"] == [{"player": "Ann", "colour": "white"}]
    private = s.player_snapshot(ann["token"])
    assert private["game"]["my_bets"] == [{"pile": "winner", "colour": "white"}]
    simtable.play(s, "secret")
    over = s.snapshot()["game"]["result"]
    assert {"pile": "winner", "player": "Ann", "colour": "white"}.items() <= over["overall"][
        0
    ].items()


def test_a_failing_listener_does_not_stop_the_bus() -> None:
    bus = EventBus()
    got: list[int] = []

    def bad(env: Envelope) -> None:
        raise RuntimeError("boom")

    bus.subscribe(bad)
    unsubscribe = bus.subscribe(lambda e: got.append(e.seq))
    for n in range(1, 4):
        bus.publish(Envelope(n, "t", "g", {"type": "x"}, 0.0))
    assert bus.flush()
    assert got == [1, 2, 3] and bus.listener_errors == 3
    unsubscribe()
    bus.publish(Envelope(4, "t", "g", {"type": "x"}, 0.0))
    bus.flush()
    assert got == [1, 2, 3]
    bus.close()


def test_events_since_catches_up_in_order(tables: Tables) -> None:
    s = tables.session()
    start(s)
    act(s, "Ann", "roll:green:1")
    act(s, "Bob", "leg:blue")
    envs = s.events_since(1)
    assert [e.seq for e in envs] == [2, 3, 4]
    assert [e.batch_end for e in envs] == [False, True, True]
    assert envs[0].to_dict()["event_type"] == "die_read"


def test_odds_from_the_worker_process_equal_the_inline_ones(tables: Tables) -> None:
    from hub import derived

    worker = derived.DerivedWorker().start()
    try:
        s = tables.session(odds=True, advice=True, derived=worker)
        start(s)
        act(s, "Ann", "roll:green:2")
        snap = s.snapshot(log=False)
        inline = derived.compute(s.game.state, s.game.current_player, True, True)
        assert snap["odds"] == inline["odds"] and snap["advice"] == inline["advice"]
        assert snap["odds"] is None or set(snap["odds"]["leg"]) == {
            "blue",
            "green",
            "orange",
            "yellow",
            "white",
        }
        assert not worker.failed
    finally:
        worker.close()


def test_a_closed_odds_worker_starts_no_new_process_and_still_answers() -> None:
    """A snapshot made while the hub stops (Ctrl-C mid-move) asks a closed worker: the odds
    come in-process. It started a new worker process instead, which failed with a traceback
    while the interpreter was exiting."""
    import multiprocessing

    from hub import derived
    from hub.games.camelup import Game

    game = Game.new(["Ann", "Bob"], seed=3)
    worker = derived.DerivedWorker().start()
    before = set(multiprocessing.active_children())
    worker.close()
    got = worker.compute(game.state, game.current_player, True, False)
    assert got == derived.compute(game.state, game.current_player, True, False)
    assert got["odds"] is not None
    started = set(multiprocessing.active_children()) - before
    assert not started, f"a closed worker started {started}"
    assert not worker.failed


def test_a_refused_bet_does_not_tell_the_table_which_card_was_played(tables: Tables) -> None:
    s = tables.session()
    start(s, players=("Ann", "Bob"))
    assert act(s, "Ann", "bet:winner:white")["ok"]
    assert act(s, "Bob", "leg:blue")["ok"]
    answer = act(s, "Ann", "bet:loser:white")  # white is already on the winner pile
    assert not answer["ok"] and answer["reason"] == "no_race_card"
    s.bus.flush()
    refused = [e.to_dict() for e in s.events_since(0) if e.type == "action_refused"]
    assert refused and refused[-1]["action"] == "bet:loser"
    assert "white" not in json.dumps(refused)  # the sentence names no card
    bets = [e.to_dict() for e in s.events_since(0) if e.type == "overall_bet_placed"]
    assert bets and all("colour" not in b for b in bets)
    assert "white" not in json.dumps(s.snapshot()["game"]["overall"])
