"""The SQLite event log: durable settings, atomic batches, per-table seqs, never edited."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hub.store import Store, StoreError


def test_wal_and_full_sync(tmp_path: Path) -> None:
    store = Store(tmp_path / "a.db")
    mode = store._db.execute("PRAGMA journal_mode").fetchone()[0]
    sync = store._db.execute("PRAGMA synchronous").fetchone()[0]
    assert mode == "wal"
    assert sync == 2  # FULL: the WAL is fsync'd at every commit


def test_append_gives_consecutive_seqs_per_table(tmp_path: Path) -> None:
    store = Store(tmp_path / "a.db")
    a = store.append("t1", "g1", [("hub", {"type": "x", "n": 1}), ("hub", {"type": "y"})])
    b = store.append("t2", "g1", [("hub", {"type": "x"})])
    c = store.append("t1", "g1", [("engine", {"type": "z"})], cause={"cmd": "action"})
    assert [s for s, _ in a] == [1, 2]
    assert [s for s, _ in b] == [1]
    assert [s for s, _ in c] == [3]
    rows = store.events("t1")
    assert [(r.seq, r.type, r.batch) for r in rows] == [(1, "x", 1), (2, "y", 1), (3, "z", 3)]
    assert rows[2].cause == {"cmd": "action"}
    assert [r.seq for r in store.events("t1", since=2)] == [3]


def test_a_failing_batch_leaves_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path / "a.db")
    store.append("t1", "g1", [("hub", {"type": "x"})])
    with pytest.raises(TypeError):  # the second event cannot be encoded as JSON
        store.append("t1", "g1", [("hub", {"type": "ok"}), ("hub", {"type": "bad", "v": object()})])
    assert [r.type for r in store.events("t1")] == ["x"]
    assert store.last_seq("t1") == 1


def test_survives_reopen_and_games_rows(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    store = Store(path)
    store.append(
        "t1",
        "g1",
        [("engine", {"type": "game_started", "players": ["A", "B"]})],
        new_game={"number": 1, "params": {"players": ["A", "B"], "seed": 3}},
    )
    store.append("t1", "g1", [("engine", {"type": "game_over"})], game_status="finished")
    store.put_crop("t1", "c2", "g1", b"\xff\xd8jpeg")
    store.set_meta("k", "v")
    store.close()
    again = Store(path)
    (game,) = again.games("t1")
    assert game.status == "finished" and game.finished is not None
    assert game.params == {"players": ["A", "B"], "seed": 3}
    assert again.get_crop("t1", "c2") == b"\xff\xd8jpeg"
    assert again.get_meta("k") == "v" and again.get_meta("nope", "d") == "d"
    assert [r.type for r in again.events("t1", game_id="g1")] == ["game_started", "game_over"]


def test_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="cannot open the event log"):
        Store(bad)


def test_rows_are_never_updated(tmp_path: Path) -> None:
    """Only INSERTs touch the events table (undo and corrections are new events)."""
    store = Store(tmp_path / "a.db")
    statements: list[str] = []
    store._db.set_trace_callback(statements.append)
    store.append("t1", "g1", [("hub", {"type": "x"})], game_status="finished")
    touching = [s for s in statements if "events" in s and not s.lstrip().startswith("SELECT")]
    assert touching and all(s.lstrip().startswith("INSERT") for s in touching)
    assert isinstance(store._db, sqlite3.Connection)
