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


class _WriteAfterEventsRead:
    """A connection that lets another process's commit land just after the events are read:
    the moment when a check reading the events and the heads apart saw them disagree."""

    def __init__(self, db: sqlite3.Connection, write: object) -> None:
        self._db, self._write = db, write

    def execute(self, sql: str, *args: object) -> object:
        cur = self._db.execute(sql, *args)
        if "FROM events ORDER BY" in sql:
            rows = cur.fetchall()
            self._write()  # type: ignore[operator]
            return _Rows(rows)
        return cur


class _Rows:
    def __init__(self, rows: list[tuple[object, ...]]) -> None:
        self._rows = rows

    def fetchall(self) -> list[tuple[object, ...]]:
        return self._rows


def test_a_log_being_written_by_another_process_passes_its_check(tmp_path: Path) -> None:
    # the hub writes while another opener (a tool, the kill -9 bench) checks the log
    writer = Store(tmp_path / "a.db")
    writer.append("sim", "g1", [("hub", {"type": "x"})])
    reader = Store(tmp_path / "a.db")
    real = reader._db
    reader._db = _WriteAfterEventsRead(  # type: ignore[assignment]
        real, lambda: writer.append("sim", "g1", [("hub", {"type": "y"})])
    )
    reader.verify()  # one snapshot: the events and the head it read agree
    reader._db = real
    reader.verify()  # and a later check sees both events
    assert reader.last_seq("sim") == 2
