"""The one dispatcher: clear refusals, nothing changed by bad input, fuzzed with hypothesis."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hub.requests import COMMANDS
from hub.session import TableSession
from tests.hub._hubkit import PIN, TABLE, Tables, open_tables, start


@pytest.fixture
def tables(tmp_path: Path) -> Iterator[Tables]:
    yield from open_tables(tmp_path)


def fingerprint(s: TableSession) -> tuple:
    """Everything a request could change: the game, the prompts, the log."""
    return (
        json.dumps(s.full_state(), sort_keys=True),
        json.dumps(s.pending, sort_keys=True),
        s.seq,
        s.game_id,
        len(s.store.games("t1")),
    )


@pytest.mark.parametrize(
    "cmd, payload, auth, reason, words",
    [
        ("dance", {}, TABLE, "bad_command", "unknown command"),
        ("action", ["leg:blue"], TABLE, "bad_payload", "JSON object"),
        ("action", {"player": "Ann"}, TABLE, "bad_payload", "missing field 'action'"),
        (
            "action",
            {"player": "Ann", "action": "leg:blue", "x": 1},
            TABLE,
            "bad_payload",
            "unknown field 'x'",
        ),
        ("action", {"player": "Zed", "action": "leg:blue"}, TABLE, "unknown_player", "Zed"),
        (
            "action",
            {"player": "Ann", "action": "leg:blue"},
            {"pin": "0000"},
            "wrong_pin",
            "wrong PIN",
        ),
        ("action", {"player": "Ann", "action": "leg:blue"}, None, "pin_required", "PIN"),
        (
            "action",
            {"player": "Ann", "action": "leg:blue"},
            {"token": "forged"},
            "bad_token",
            "not valid",
        ),
        ("action", {"player": "Ann", "action": 7}, TABLE, "bad_payload", "'action' must be"),
        ("undo", {}, None, "pin_required", "PIN"),
        ("start_game", {"players": ["Solo"]}, TABLE, "bad_payload", "2 to 8 names"),
        ("start_game", {"players": ["A/B", "C"]}, TABLE, "bad_payload", "may not contain"),
        ("confirm", {"prompt": "p99", "accept": True}, TABLE, "unknown_prompt", "no open prompt"),
        ("confirm", {"prompt": "p99", "face": 9}, TABLE, "bad_payload", "'face' must be"),
        ("observe_die", {"colour": "blue", "face": "two"}, TABLE, "bad_payload", "'face' must be"),
        ("observe_track", {"track": "blue on 3"}, TABLE, "bad_payload", "track"),
        (
            "observe_die",
            {"colour": "blue", "face": 1, "confidence": 0.9},
            {"local": True, "via": "http"},
            "bad_auth",
            "local",
        ),
    ],
)
def test_bad_requests_name_the_problem_and_change_nothing(
    tables: Tables, cmd, payload, auth, reason, words
) -> None:
    s = tables.session()
    start(s)
    before = fingerprint(s)
    answer = s.request(cmd, payload, auth, channel="http")
    assert answer["ok"] is False and answer["reason"] == reason, answer
    assert words in answer["error"]
    assert fingerprint(s) == before


def test_players_act_for_themselves_only(tables: Tables) -> None:
    s = tables.session()
    start(s)
    bob = {"token": s.player_token("Bob")}
    answer = s.request("action", {"player": "Ann", "action": "leg:blue"}, bob, channel="http")
    assert answer["reason"] == "forbidden" and "Ann" in answer["error"]
    ann = {"token": s.player_token("Ann")}
    assert s.request("action", {"player": "Ann", "action": "leg:blue"}, ann, channel="http")["ok"]
    assert s.request("undo", {}, ann, channel="http")["reason"] == "forbidden"


def test_out_of_turn_is_refused_logged_and_changes_no_game(tables: Tables) -> None:
    s = tables.session()
    start(s)
    state = s.full_state()
    answer = s.request("action", {"player": "Bob", "action": "leg:blue"}, TABLE, channel="http")
    assert answer == {
        "ok": False,
        "cmd": "action",
        "error": "It is Ann's turn, not Bob's.",
        "reason": "not_your_turn",
        "seq": 2,
    }
    assert s.full_state() == state
    assert s.store.events("t1")[-1].type == "action_refused"


def test_guests_see_but_do_not_change(tables: Tables) -> None:
    s = tables.session()
    start(s)
    snap = s.request("snapshot", {}, None, channel="http")
    assert snap["ok"] and snap["snapshot"]["game"]["players"] == ["Ann", "Bob", "Cy"]
    assert s.request("games", {}, None, channel="http")["games"][0]["game_id"] == "g1"
    assert s.request("tokens", {}, None, channel="http")["reason"] == "pin_required"


def test_firmware_over_mqtt_needs_no_pin_but_http_does(tables: Tables) -> None:
    s = tables.session()
    start(s)
    reading = {"colour": "green", "face": 1, "confidence": 0.99}
    assert s.request("observe_die", reading, None, channel="http")["reason"] == "pin_required"
    assert s.request("observe_die", reading, None, channel="mqtt")["ok"]
    assert s.request("undo", {}, None, channel="mqtt")["reason"] == "pin_required"


# -- fuzzing ------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-10, 20)
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | st.sampled_from(
        ["blue", "white", "Ann", "Bob", "p1", "leg:blue", "roll", "bet:winner", "roll:green:2"]
    ),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)
field_names = st.sampled_from(
    [
        "player",
        "action",
        "prompt",
        "accept",
        "colour",
        "face",
        "dismiss",
        "players",
        "setup",
        "seed",
        "track",
        "uncertain",
        "confidence",
        "crop_b64",
        "abandon",
        "log",
        "game_id",
        "ts",
    ]
)
payloads = st.one_of(json_values, st.dictionaries(field_names, json_values, max_size=5))
auths = st.one_of(
    st.none(),
    st.just({"pin": "0000"}),
    st.just({"token": "nope"}),
    st.dictionaries(st.sampled_from(["pin", "token", "local"]), json_values, max_size=2),
    json_values,
)
commands = st.one_of(st.sampled_from(sorted(COMMANDS)), st.text(max_size=10), json_values)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(cmd=commands, payload=payloads, auth=auths)
def test_fuzz_without_authority_nothing_changes(tables: Tables, cmd, payload, auth) -> None:
    """Anything a guest or a wrong PIN sends is answered, and changes nothing at all."""
    s = _fuzz_session(tables)
    before = fingerprint(s)
    answer = s.request(cmd, payload, auth, channel="http")
    assert isinstance(answer, dict) and isinstance(answer["ok"], bool)
    json.dumps(answer)
    if not answer["ok"]:
        assert answer["error"] and answer["reason"] and answer["reason"] != "internal", answer
    if cmd not in ("snapshot", "games"):
        # no valid PIN or token can be generated by the strategies above
        assert not answer["ok"], (cmd, payload, auth, answer)
    assert fingerprint(s) == before


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    cmd=st.sampled_from(
        ["action", "confirm", "undo", "observe_die", "observe_track", "observe_release", "snapshot"]
    ),
    payload=payloads,
)
def test_fuzz_with_the_pin_refusals_change_no_game(tables: Tables, cmd, payload) -> None:
    """With the PIN: a refused request leaves the game and the prompts as they were."""
    s = _fuzz_session(tables)
    before = fingerprint(s)
    answer = s.request(cmd, payload, {"pin": PIN}, channel="http")
    json.dumps(answer)
    if not answer["ok"]:
        assert answer["reason"] != "internal", answer
        after = fingerprint(s)
        assert after[:2] == before[:2] and after[3:] == before[3:]
        logged = s.seq - before[2]
        assert logged == (1 if "seq" in answer else 0)  # at most the action_refused event
        if logged:
            assert s.store.events("t1")[-1].type == "action_refused"


_FUZZ: dict[Path, TableSession] = {}


def _fuzz_session(tables: Tables) -> TableSession:
    """One session per test function (hypothesis reuses the fixture), restored to its start."""
    s = _FUZZ.get(tables.path)
    if s is None:
        s = tables.session()
        start(s)
        _FUZZ.clear()
        _FUZZ[tables.path] = s
    elif s.seq != 1 or s.pending:
        # a previous example changed the game legitimately: start again from a fresh table
        s = tables.session(table=f"t{len(s.store.tables()) + 1}")
        start(s)
        _FUZZ[tables.path] = s
    return s
