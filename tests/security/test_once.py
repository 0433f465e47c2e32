"""Nothing applied twice: a request id is logged with the request's events, a repeat gets the
first answer and changes nothing, a stale tap (``expected_seq``) is refused with a sentence."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hub._hubkit import TABLE, Tables, open_tables, start

pytestmark = [pytest.mark.security]


@pytest.fixture
def tables(tmp_path: Path) -> Iterator[Tables]:
    yield from open_tables(tmp_path)


def _log(session) -> list[tuple[int, str]]:
    return [(e.seq, e.type) for e in session.store.events(session.table_id)]


def test_an_action_sent_twice_with_its_id_is_applied_once(tables: Tables) -> None:
    s = tables.session()
    start(s)
    first = s.request("action", {"player": "Ann", "action": "leg:blue", "request_id": "a-1"}, TABLE)
    assert first["ok"] and first["request_id"] == "a-1"
    log = _log(s)
    again = s.request("action", {"player": "Ann", "action": "leg:blue", "request_id": "a-1"}, TABLE)
    assert again["ok"] and again["replayed"] is True
    assert again["seq"] == first["seq"] and again["events"] == first["events"]
    assert _log(s) == log, "the repeat wrote to the log"
    assert s.game.current_player == "Bob"  # Ann's turn was played once


def test_the_id_survives_a_restart_of_the_hub(tables: Tables) -> None:
    s = tables.session()
    start(s)
    first = s.request("action", {"player": "Ann", "action": "leg:blue"}, TABLE, request_id="r-7")
    assert first["ok"]
    reopened = tables.session()  # the hub restarted on the same log
    log = _log(reopened)
    again = reopened.request(
        "action", {"player": "Ann", "action": "leg:blue"}, TABLE, request_id="r-7"
    )
    assert again["replayed"] and again["seq"] == first["seq"]
    assert _log(reopened) == log


def test_the_id_is_in_the_events_transaction(tables: Tables) -> None:
    """The request's row is written by the same append as its events: a log holding the events
    holds the id, even when the answer was never kept (the hub died in between)."""
    s = tables.session()
    start(s)
    s.store.keep_answer = lambda *a, **k: None  # the hub dies before keeping the answer
    first = s.request("action", {"player": "Ann", "action": "leg:blue"}, TABLE, request_id="k-1")
    assert first["ok"]
    row = tables.session().store.applied_request(s.table_id, "k-1")
    assert row is not None and row.seq == first["seq"] and row.answer is None
    again = tables.session().request(
        "action", {"player": "Ann", "action": "leg:blue"}, TABLE, request_id="k-1"
    )
    assert again["ok"] and again["replayed"] and "already applied" in again["message"]


def test_a_replayed_undo_takes_back_one_action(tables: Tables) -> None:
    s = tables.session()
    start(s)
    for player, action in (("Ann", "leg:blue"), ("Bob", "leg:green")):
        assert s.request("action", {"player": player, "action": action}, TABLE)["ok"]
    assert s.request("undo", {}, TABLE, request_id="u-1")["ok"]
    assert s.request("undo", {}, TABLE, request_id="u-1")["replayed"]
    undos = [t for _, t in _log(s) if t == "undo"]
    assert len(undos) == 1 and s.game.current_player == "Bob"


def test_a_refusal_that_was_logged_is_answered_again_not_logged_again(tables: Tables) -> None:
    s = tables.session()
    start(s)
    bad = s.request("action", {"player": "Ann", "action": "leg:blue", "request_id": "x"}, TABLE)
    assert bad["ok"]
    refused = s.request(
        "action", {"player": "Bob", "action": "leg:purple", "request_id": "y"}, TABLE
    )
    n = len(_log(s))
    again = s.request("action", {"player": "Bob", "action": "leg:purple", "request_id": "y"}, TABLE)
    assert again["ok"] is refused["ok"] and again.get("replayed")
    assert len(_log(s)) == n


def test_an_id_reused_for_another_request_is_refused(tables: Tables) -> None:
    s = tables.session()
    start(s)
    assert s.request("action", {"player": "Ann", "action": "leg:blue"}, TABLE, request_id="same")[
        "ok"
    ]
    n = len(_log(s))
    other = s.request("action", {"player": "Bob", "action": "leg:green"}, TABLE, request_id="same")
    assert not other["ok"] and other["reason"] == "request_id_reused"
    assert len(_log(s)) == n and s.game.current_player == "Bob"


@pytest.mark.parametrize("rid", ["", "a" * 65, "a/b", "é", 7, None])
def test_a_bad_request_id_is_refused(tables: Tables, rid: object) -> None:
    s = tables.session()
    start(s)
    n = len(_log(s))
    answer = s.request("action", {"player": "Ann", "action": "leg:blue", "request_id": rid}, TABLE)
    if rid is None:  # no id at all: an ordinary request
        assert answer["ok"]
        return
    assert not answer["ok"] and answer["reason"] == "bad_request_id"
    assert len(_log(s)) == n


def test_a_stale_double_tap_is_refused_with_who_moved(tables: Tables) -> None:
    s = tables.session()
    start(s)
    drawn = s.seq
    tap = {"player": "Ann", "action": "leg:blue", "expected_seq": drawn}
    assert s.request("action", tap, TABLE)["ok"]
    n = len(_log(s))
    again = s.request(
        "action", {"player": "Bob", "action": "leg:blue", "expected_seq": drawn}, TABLE
    )
    assert not again["ok"] and again["reason"] == "stale"
    assert again["error"].startswith("Ann has already moved")
    assert len(_log(s)) == n and s.game.current_player == "Bob"
    fresh = s.request(
        "action", {"player": "Bob", "action": "leg:blue", "expected_seq": s.seq}, TABLE
    )
    assert fresh["ok"]


def test_a_double_tapped_undo_takes_back_one_action(tables: Tables) -> None:
    s = tables.session()
    start(s)
    for player, action in (("Ann", "leg:blue"), ("Bob", "leg:green")):
        assert s.request("action", {"player": player, "action": action}, TABLE)["ok"]
    drawn = s.seq
    assert s.request("undo", {"expected_seq": drawn}, TABLE)["ok"]
    second = s.request("undo", {"expected_seq": drawn}, TABLE)
    assert not second["ok"] and second["reason"] == "stale"
    assert "taken back" in second["error"]
    assert s.game.current_player == "Bob"


def test_a_reading_between_drawing_and_tapping_is_not_stale(tables: Tables) -> None:
    s = tables.session()
    start(s)
    drawn = s.seq
    assert s.request("observe_release", {"ts": 1.0})["ok"]  # the slider, not a move
    assert s.seq > drawn
    assert s.request(
        "action", {"player": "Ann", "action": "leg:blue", "expected_seq": drawn}, TABLE
    )["ok"]


def test_old_request_ids_are_forgotten(tables: Tables) -> None:
    s = tables.session()
    start(s)
    assert s.request("action", {"player": "Ann", "action": "leg:blue"}, TABLE, request_id="old")[
        "ok"
    ]
    assert s.store.forget_requests(older_than_s=-1) == 1
    assert s.store.applied_request(s.table_id, "old") is None


def test_in_a_game_where_all_act_at_once_only_ones_own_move_makes_a_tap_stale(
    tables: Tables,
) -> None:
    s = tables.session()
    assert s.request("start_game", {"game": "marcopolo2", "players": ["Ann", "Bob"]}, TABLE)["ok"]
    drawn = s.seq  # both phones drawn now
    assert s.request(
        "action", {"player": "Ann", "action": "dice:Ann:1,2,3,2,1", "expected_seq": drawn}, TABLE
    )["ok"]
    bob = s.request(
        "action", {"player": "Bob", "action": "dice:Bob:6,6,5,4,3", "expected_seq": drawn}, TABLE
    )
    assert bob["ok"], bob  # Ann's dice meanwhile do not make Bob's tap stale
    n = len(_log(s))
    again = s.request(
        "action", {"player": "Ann", "action": "dice:Ann:1,2,3,2,1", "expected_seq": drawn}, TABLE
    )
    assert not again["ok"] and again["reason"] == "stale"
    assert again["error"].startswith("Ann has already moved") and len(_log(s)) == n


def test_a_refused_request_keeps_its_refusal_and_is_never_applied_later(tables: Tables) -> None:
    """An undo refused with "nothing to undo", sent again with its id after a move was played,
    gets the same refusal: it does not take that move back."""
    s = tables.session()
    start(s)
    first = s.request("undo", {"request_id": "undo-1"}, TABLE)
    assert not first["ok"] and first["reason"] == "nothing_to_undo"
    assert s.request("action", {"player": "Ann", "action": "leg:blue"}, TABLE)["ok"]
    n = len(_log(s))
    again = s.request("undo", {"request_id": "undo-1"}, TABLE)
    assert not again["ok"] and again["reason"] == "nothing_to_undo"
    assert again["replayed"] is True and again["error"] == first["error"]
    assert len(_log(s)) == n and s.game.current_player == "Bob", "the old undo was applied"
    for restarted in (tables.session(),):  # the refusal is in the log's file: kept on restart
        later = restarted.request("undo", {"request_id": "undo-1"}, TABLE)
        assert not later["ok"] and later["replayed"] is True
        assert restarted.game.current_player == "Bob"
    fresh = s.request("undo", {"request_id": "undo-2"}, TABLE)  # trying again is a new request
    assert fresh["ok"]


def test_a_refused_stale_tap_keeps_its_refusal(tables: Tables) -> None:
    s = tables.session()
    start(s)
    drawn = s.seq
    assert s.request("action", {"player": "Ann", "action": "leg:blue"}, TABLE)["ok"]
    tap = {"player": "Bob", "action": "leg:green", "expected_seq": drawn, "request_id": "tap-9"}
    first = s.request("action", dict(tap), TABLE)
    assert not first["ok"] and first["reason"] == "stale"
    again = s.request("action", dict(tap), TABLE)
    assert not again["ok"] and again["reason"] == "stale" and again["replayed"] is True


def test_an_unauthenticated_or_malformed_request_keeps_no_id(tables: Tables) -> None:
    """The table never judged these: a guest writes nothing to its database, and the id stays
    free for the real request (another fingerprint: who asked is part of it)."""
    s = tables.session()
    start(s)
    body = {"player": "Ann", "action": "leg:blue", "request_id": "a-7"}
    wrong = s.request("action", dict(body), {"pin": "0000"})
    assert not wrong["ok"] and "replayed" not in wrong
    bad = s.request("action", {**body, "extra": 1}, TABLE)
    assert not bad["ok"] and bad["reason"] == "bad_payload" and "replayed" not in bad
    assert s.store.applied_request(s.table_id, "a-7") is None
    right = s.request("action", dict(body), TABLE)
    assert right["ok"] and "replayed" not in right and s.game.current_player == "Bob"
