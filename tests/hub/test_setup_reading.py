"""Starting a game from what the camera saw: the setup roll's dice or the starting track.

The firmware's setup mode sends the five dice of the starting roll (``observe_die`` with
``"mode": "setup"``, ``index``/``of``) and then reads the track. The hub keeps the latest such
reading while no game runs (not logged), refuses it during a game (never a move), and
``start_game`` with ``"setup": "camera"`` starts from it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hub import simtable
from hub.session import TableSession
from tests.hub._hubkit import PIN, TABLE, Tables, open_tables, start

ROLL = [("white", 3), ("blue", 1), ("green", 2), ("yellow", 3), ("orange", 2)]
ROLL_TRACK = {"1": ["blue"], "2": ["green", "orange"], "3": ["white", "yellow"]}
# the same start as the players stacked it on the board (orange under green, this time)
BOARD = {"1": ["blue"], "2": ["orange", "green"], "3": ["white", "yellow"]}


@pytest.fixture
def tables(tmp_path: Path) -> Iterator[Tables]:
    yield from open_tables(tmp_path)


def setup_roll(
    s: TableSession, roll: list[tuple[Any, Any]] = ROLL, conf: float = 0.95, of: int | None = None
) -> dict[str, Any]:
    """Send a setup pass as the firmware does (one observe_die per die); the last answer."""
    answer: dict[str, Any] = {}
    for i, (colour, face) in enumerate(roll):
        answer = s.observe(
            "die",
            {
                "colour": colour,
                "face": face,
                "confidence": conf,
                "mode": "setup",
                "index": i,
                "of": len(roll) if of is None else of,
                "ts": 1.0,
            },
        )
        assert answer["ok"], answer
    return answer


def setup_track(
    s: TableSession, track: dict[str, list[str]] = BOARD, **extra: Any
) -> dict[str, Any]:
    answer = s.observe(
        "track",
        {
            "track": track,
            "uncertain": [],
            "desert": {},
            "confidence": 0.9,
            "reason": None,
            "note": "starting position",
            **extra,
        },
    )
    assert answer["ok"], answer
    return answer


def camera_start(s: TableSession, **extra: Any) -> dict[str, Any]:
    return s.request("start_game", {"players": ["Ann", "Bob"], "setup": "camera", **extra}, TABLE)


def test_the_setup_roll_read_by_the_camera_is_kept_not_logged(tables: Tables) -> None:
    s = tables.session()
    assert s.snapshot(derived=False)["setup_reading"] is None
    answer = setup_roll(s)
    reading = s.snapshot(derived=False)["setup_reading"]
    assert answer["setup"] is True and answer["setup_reading"] == reading
    assert reading["source"] == "dice" and reading["complete"] is True
    assert reading["problems"] == []
    # roll order is stacking order: the later die of a shared face goes on top
    assert reading["track"] == ROLL_TRACK
    assert reading["dice"] == [list(d) for d in ROLL]
    assert any("space 2" in n for n in reading["notes"])  # the read order is only a guess
    json.dumps(reading)  # JSON-ready: it goes into the MQTT state and the dashboard
    jsonschema = pytest.importorskip("jsonschema")
    from tests.hub._mqttkit import validator

    snap = s.snapshot(log=False)
    assert not list(validator("state").iter_errors(snap))
    snap["setup_reading"]["track"]["4"] = ["purple"]  # the schema's check could fail
    assert list(validator("state").iter_errors(snap))
    assert jsonschema is not None
    assert s.seq == 0 and s.events_since(0) == [] and s.store.games("t1") == []
    # a restart loses it (it is not in the log): the firmware reads it again on confirm
    assert tables.session().snapshot(derived=False)["setup_reading"] is None


def test_a_track_read_before_the_game_shows_the_stacks_the_players_built(tables: Tables) -> None:
    s = tables.session()
    setup_roll(s)
    setup_track(s)
    reading = s.setup_reading
    assert reading is not None
    assert reading["source"] == "track" and reading["complete"] is True
    assert reading["track"] == BOARD
    answer = camera_start(s)
    assert answer["ok"], answer
    assert {str(k): list(v) for k, v in s.game.state.track.items()} == BOARD
    assert s.record.params["setup_from"] == "camera:track"
    assert s.setup_reading is None  # used up: the next game needs a fresh reading
    assert camera_start(s, abandon=True)["reason"] == "no_setup_reading"


def test_an_incomplete_track_read_after_complete_dice_leaves_the_dice(tables: Tables) -> None:
    s = tables.session()
    setup_roll(s)
    setup_track(s, {"1": ["blue"], "2": ["green", "orange"]}, uncertain=["3"])
    reading = s.setup_reading
    assert reading["source"] == "dice" and reading["complete"]
    assert any(
        "track read after the dice could not be used" in n and "white" in n
        for n in reading["notes"]
    )
    answer = camera_start(s)
    assert answer["ok"], answer
    assert {str(k): list(v) for k, v in s.game.state.track.items()} == ROLL_TRACK
    assert s.record.params["setup"] == [list(d) for d in ROLL]
    assert s.record.params["setup_from"] == "camera:dice"


def test_a_new_setup_pass_replaces_the_older_track(tables: Tables) -> None:
    s = tables.session()
    setup_track(s)
    setup_roll(s, [("blue", 2), ("green", 2), ("orange", 1), ("yellow", 1), ("white", 3)])
    assert s.setup_reading["source"] == "dice"
    assert s.setup_reading["track"] == {
        "1": ["orange", "yellow"],
        "2": ["blue", "green"],
        "3": ["white"],
    }


@pytest.mark.parametrize(
    "roll, conf, of, problem",
    [
        (ROLL[:4], 0.95, None, "read 4 dice, not 5"),
        ([*ROLL[:4], ("blue", 2)], 0.95, None, "blue was read twice"),
        ([*ROLL[:4], ("orange", 4)], 0.95, None, "face 4 is not 1, 2 or 3"),
        ([*ROLL[:4], (None, None)], 0.95, None, "no camel colour was read"),
        (ROLL, 0.5, None, "confidence 0.50 is below 0.80"),
        (ROLL[:3], 0.95, 5, "die 4 was not received"),
    ],
)
def test_an_incomplete_setup_roll_says_why_and_cannot_start_a_game(
    tables: Tables, roll: list, conf: float, of: int | None, problem: str
) -> None:
    s = tables.session()
    setup_roll(s, roll, conf, of)
    reading = s.setup_reading
    assert reading["complete"] is False
    assert any(problem in p for p in reading["problems"]), reading["problems"]
    answer = camera_start(s)
    assert answer["ok"] is False and answer["reason"] == "setup_reading_incomplete"
    assert problem in answer["error"]
    assert s.game is None and s.seq == 0


@pytest.mark.parametrize(
    "track, uncertain, problem",
    [
        (
            {"1": ["blue"], "2": ["green", "orange"], "5": ["white", "yellow"]},
            [],
            "space 5: white under yellow",
        ),
        (
            {"1": ["blue"], "2": ["green", "orange"], "3": ["white"]},
            [],
            "not seen on the track: yellow",
        ),
        (BOARD, ["2"], "unsure of space 2"),
    ],
)
def test_an_incomplete_track_read_says_why(
    tables: Tables, track: dict, uncertain: list, problem: str
) -> None:
    s = tables.session()
    answer = setup_track(s, track, uncertain=uncertain)
    reading = answer["setup_reading"]
    assert reading["source"] == "track" and reading["complete"] is False
    assert any(problem in p for p in reading["problems"]), reading["problems"]
    assert camera_start(s)["reason"] == "setup_reading_incomplete"


def test_an_unsure_space_beyond_the_start_does_not_matter_when_all_five_are_seen(
    tables: Tables,
) -> None:
    s = tables.session()
    assert setup_track(s, uncertain=["9"])["setup_reading"]["complete"] is True


def test_start_from_the_camera_needs_a_reading(tables: Tables) -> None:
    s = tables.session()
    answer = camera_start(s)
    assert answer["ok"] is False and answer["reason"] == "no_setup_reading"
    assert "has not read a setup" in answer["error"]
    assert s.game is None and s.seq == 0


def test_start_refuses_a_reading_other_than_the_one_shown(tables: Tables) -> None:
    """The dialog sends the id of the reading it showed; a reading taken since is not used
    blindly."""
    s = tables.session()
    shown = setup_track(s)["setup_reading"]["id"]
    setup_roll(s)
    answer = camera_start(s, setup_id=shown)
    assert answer["ok"] is False and answer["reason"] == "setup_reading_changed"
    assert s.game is None
    answer = camera_start(s, setup_id=s.setup_reading["id"])
    assert answer["ok"], answer


def test_a_setup_die_during_a_game_is_refused_never_a_move(tables: Tables) -> None:
    s = tables.session()
    start(s)
    before, seq = s.full_state(), s.seq
    answer = s.observe(
        "die",
        {"colour": "blue", "face": 2, "confidence": 0.99, "mode": "setup", "index": 0, "of": 5},
    )
    assert answer["ok"] is False and answer["reason"] == "setup_in_game"
    assert "setup readings are taken before a game starts" in answer["error"]
    answer = s.observe("track", {"track": BOARD, "mode": "setup"})
    assert answer["reason"] == "setup_in_game"
    assert s.full_state() == before and s.seq == seq and s.pending == {}
    assert s.setup_reading is None
    # a play-mode die still plays, whatever the firmware calls its play mode
    answer = s.observe("die", {"colour": "blue", "face": 2, "confidence": 0.99, "mode": "play"})
    assert answer["ok"] and answer["events"], answer
    # and a track read during the game is still compared with the game, not kept as a setup
    answer = s.observe("track", {"track": BOARD})
    assert answer["ok"] and answer["match"] is False and "setup" not in answer
    assert s.setup_reading is None


def test_a_play_die_with_no_game_is_still_refused_and_not_a_setup(tables: Tables) -> None:
    s = tables.session()
    answer = s.observe("die", {"colour": "blue", "face": 2, "confidence": 0.99})
    assert answer["reason"] == "no_game" and s.setup_reading is None


def test_after_a_finished_race_a_start_like_track_is_a_setup(tables: Tables) -> None:
    s = tables.session()
    simtable.play(s, 3, pin=PIN)
    assert s.record.status == "finished"
    seq = s.seq
    answer = setup_track(s)
    assert answer["setup_reading"]["complete"] and s.seq == seq
    # the last move's read (camels past the start) is still checked against the race
    answer = s.observe("track", {"track": {"5": ["blue"]}, "uncertain": []})
    assert answer["ok"] and answer["match"] is False and s.seq == seq + 1
    assert camera_start(s)["ok"]


@pytest.mark.parametrize(
    "kind, payload, why",
    [
        (
            "die",
            {"colour": "blue", "face": 1, "confidence": 0.9, "mode": "setup", "index": 5, "of": 5},
            "'index'",
        ),
        (
            "die",
            {"colour": "blue", "face": 1, "confidence": 0.9, "mode": "setup", "index": "0"},
            "'index'",
        ),
        ("die", {"colour": "blue", "face": 1, "confidence": 0.9, "mode": 3}, "'mode'"),
        ("track", {"track": {"1": ["purple"]}}, "purple"),
        ("track", {"track": {"1": ["blue"]}, "note": 5}, "'note'"),
    ],
)
def test_malformed_setup_readings_change_nothing(
    tables: Tables, kind: str, payload: dict, why: str
) -> None:
    s = tables.session()
    setup_track(s)
    kept = s.setup_reading
    answer = s.observe(kind, payload)
    assert answer["ok"] is False and answer["reason"] == "bad_payload"
    assert why in answer["error"]
    assert s.setup_reading == kept


@pytest.mark.parametrize(
    "payload, why",
    [
        ({"setup": "camra"}, '"camera"'),
        ({"setup": "random", "setup_id": 1}, "'setup_id'"),
        ({"setup": "camera", "setup_id": "one"}, "'setup_id'"),
    ],
)
def test_start_game_setup_text_is_checked(tables: Tables, payload: dict, why: str) -> None:
    s = tables.session()
    setup_track(s)
    answer = s.request("start_game", {"players": ["Ann", "Bob"], **payload}, TABLE)
    assert answer["ok"] is False and answer["reason"] == "bad_payload" and why in answer["error"]
    assert s.game is None and s.setup_reading is not None


def test_setup_random_rolls_it(tables: Tables) -> None:
    s = tables.session()
    answer = s.request(
        "start_game", {"players": ["Ann", "Bob"], "setup": "random", "seed": 4}, TABLE
    )
    assert answer["ok"], answer
    assert sum(len(v) for v in s.game.state.track.values()) == 5


@pytest.mark.broker
def test_over_mqtt_the_firmware_setup_pass_starts_a_game(tables: Tables, broker: Any) -> None:
    """The firmware's own MQTT payloads (firmware.sinks) through a real mosquitto: the setup
    dice and the starting track are kept, then start_game with "setup": "camera" over MQTT."""
    sinks = pytest.importorskip("firmware.sinks", reason="the firmware package is not there")
    from hub.mqtt.bridge import MqttBridge
    from tests.hub._mqttkit import Collector, validator

    s = tables.session(table="setupcam")
    bridge = MqttBridge(s, broker.url).start()
    assert bridge.wait_connected(10)
    base = bridge.base
    sub = Collector(broker, [f"{base}/response/#"])
    try:
        for i, (colour, face) in enumerate(ROLL):
            reading = {
                "colour": colour,
                "face": face,
                "confidence": 0.95,
                "face_confidence": 0.96,
                "colour_confidence": 0.97,
                "box": [10 * i, 0, 20, 20],
                "reason": None,
                "mode": "setup",
                "index": i,
                "of": len(ROLL),
            }
            sub.publish(
                f"{base}/request/observe_die",
                {
                    "transaction": f"d{i}",
                    **sinks.payload("die", reading=reading, crop_jpeg=b"\xff\xd8jpg"),
                },
            )
        track = {
            "track": BOARD,
            "desert": {},
            "confidence": 0.9,
            "uncertain": [],
            "reason": None,
            "note": "starting position",
        }
        sub.publish(
            f"{base}/request/observe_track",
            {"transaction": "t", **sinks.payload("track", reading=track)},
        )
        assert sub.wait_for(lambda m: len(m) >= 6)
        sub.publish(
            f"{base}/request/start_game",
            {"transaction": "go", "pin": PIN, "players": ["Ann", "Bob"], "setup": "camera"},
        )
        assert sub.wait_for(lambda m: len(m) >= 7)
        answers = {a["transaction"]: a for a in (json.loads(p) for _, p, _ in sub.messages)}
        check = validator("response")
        for a in answers.values():
            assert not list(check.iter_errors(a)), a
        assert all(a["ok"] for a in answers.values()), answers
        assert answers["d4"]["setup_reading"]["track"] == ROLL_TRACK
        assert answers["t"]["setup_reading"]["source"] == "track"
        assert answers["go"]["game_id"] == "g1"
        assert {str(k): list(v) for k, v in s.game.state.track.items()} == BOARD
        # during the game the same setup die is refused, never a move
        sub.publish(
            f"{base}/request/observe_die",
            {
                "transaction": "late",
                **sinks.payload(
                    "die",
                    reading={
                        "colour": "blue",
                        "face": 1,
                        "confidence": 0.95,
                        "mode": "setup",
                        "index": 0,
                        "of": 5,
                    },
                ),
            },
        )
        assert sub.wait_for(lambda m: len(m) >= 8)
        late = json.loads(sub.messages[-1][1])
        assert late["transaction"] == "late" and late["reason"] == "setup_in_game"
        assert s.engine_log()[-1]["type"] == "game_started"
    finally:
        sub.close()
        bridge.stop()
