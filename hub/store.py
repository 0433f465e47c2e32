"""The durable event log of the tables: SQLite in WAL mode with ``synchronous=FULL``.

Why these settings: the log is the truth of every game. ``synchronous=FULL`` makes SQLite fsync
the write-ahead log on every commit, so once :meth:`Store.append` returns, the events survive a
power cut; only then does the session tell anyone about them. WAL lets readers (the dashboard's
history pages) read while the game writes. All events of one command go in one transaction: after
a crash either all of them are there or none.

Rows are never updated or deleted: undo and corrections are new events. The only mutable rows are
a game's status (playing -> finished / abandoned) and the ``meta`` key-value pairs (the table's
token secret, the MQTT bridge's delivery mark).

Integrity: the file is its owner's only (0600: it holds the token secret, the PIN and every
secret bet). Each event carries a hash chained to the one before it in its table, and the head of
each table's chain (seq and hash) is kept in ``meta``; on open the database is checked (SQLite's
quick_check), each table's seqs must run 1, 2, 3 ... to the head, and every hash must match, or
the store refuses to open with :class:`StoreIntegrityError` naming the file, table, game and seq,
never a traceback. A database from before the hashes is migrated (its chain computed) on open.
Game numbers are never reused, even after a table's rows are deleted: the highest one given is
kept in ``meta``.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import threading
import time
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hub.games.kinds import DEFAULT_GAME

__all__ = [
    "Store",
    "StoredEvent",
    "GameRecord",
    "StoreError",
    "StoreIntegrityError",
    "RequestMark",
    "Batch",
    "AppliedRequest",
    "REQUEST_KEEP_S",
]

#: How long the ids of applied requests are kept (a resend comes within seconds or, from a
#: device that was offline, within the broker's session expiry of a day). Older ones are dropped
#: on open and every :data:`REQUEST_PRUNE_EVERY` requests kept.
REQUEST_KEEP_S = 2 * 24 * 3600
REQUEST_PRUNE_EVERY = 1000

#: Fault injection for the tests (see :meth:`Store.append_batches`); unset, nothing of it runs.
KILL_BETWEEN_BATCHES_ENV = "PYRAMID_TEST_KILL_BETWEEN_BATCHES"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    table_id TEXT NOT NULL,
    game_id  TEXT NOT NULL,
    number   INTEGER NOT NULL,
    kind     TEXT NOT NULL DEFAULT 'camelup',
    params   TEXT NOT NULL,          -- JSON: how Game.new was called (players, seed, setup, track)
    started  REAL NOT NULL,
    finished REAL,
    status   TEXT NOT NULL,          -- playing | finished | abandoned
    PRIMARY KEY (table_id, game_id)
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL,
    seq      INTEGER NOT NULL,       -- per table, strictly increasing, never reused
    game_id  TEXT,
    origin   TEXT NOT NULL,          -- engine | hub
    type     TEXT NOT NULL,
    data     TEXT NOT NULL,          -- the full event JSON (secrets included; redacted on output)
    ts       REAL NOT NULL,
    batch    INTEGER NOT NULL,       -- seq of the first event written by the same command
    cause    TEXT,                   -- JSON of the command that caused the batch
    hash     TEXT,                   -- sha256 chained to the previous event of the table
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS crops (
    table_id TEXT NOT NULL,
    crop_id  TEXT NOT NULL,
    game_id  TEXT,
    ts       REAL NOT NULL,
    jpeg     BLOB NOT NULL,
    PRIMARY KEY (table_id, crop_id)
);
CREATE TABLE IF NOT EXISTS requests (
    table_id    TEXT NOT NULL,
    request_id  TEXT NOT NULL,
    cmd         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,       -- sha256 of the command, its fields and who asked
    seq         INTEGER,             -- the last event the request wrote
    answer      TEXT,                -- JSON of the first answer (NULL: applied, answer not kept)
    ts          REAL NOT NULL,
    PRIMARY KEY (table_id, request_id)
) WITHOUT ROWID;
"""


class StoreError(RuntimeError):
    """The log cannot be opened or written (wrong file, disk full, ...)."""


class StoreIntegrityError(StoreError):
    """The log was damaged or edited: an event missing, altered, or unreadable (the message
    names the file, the table, the game and the seq)."""


def _event_hash(
    prev: str,
    table_id: str,
    seq: int,
    game_id: str | None,
    origin: str,
    type_: str,
    data: str,
    ts: float,
    batch: int,
    cause: str | None,
) -> str:
    """The chained hash of one event row (of its stored text, exactly as it is in the file)."""
    body = json.dumps(
        [prev, table_id, seq, game_id, origin, type_, data, repr(float(ts)), batch, cause],
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class StoredEvent:
    """One row of the log, the event with its full (unredacted) data."""

    table_id: str
    seq: int
    game_id: str | None
    origin: str
    event: dict[str, Any]
    ts: float
    batch: int
    cause: dict[str, Any] | None

    @property
    def type(self) -> str:
        return str(self.event.get("type", ""))


@dataclass(frozen=True)
class RequestMark:
    """The request being applied: its id is written with the events it causes, in their
    transaction, so a request is in the log exactly when its effects are (see
    :meth:`Store.append`)."""

    request_id: str
    cmd: str
    fingerprint: str


@dataclass(frozen=True)
class Batch:
    """The events one command writes to one game (see :meth:`Store.append`): ``new_game``
    ({"number", "kind", "params"}) creates the game row, ``game_status`` closes the game."""

    game_id: str | None
    events: Sequence[tuple[str, dict[str, Any]]]
    cause: dict[str, Any] | None = None
    new_game: dict[str, Any] | None = None
    game_status: str | None = None


@dataclass(frozen=True)
class AppliedRequest:
    """A request id found in the log: what it was and its first answer (None when the hub
    stopped between writing its events and keeping its answer)."""

    request_id: str
    cmd: str
    fingerprint: str
    seq: int | None
    answer: dict[str, Any] | None


@dataclass(frozen=True)
class GameRecord:
    table_id: str
    game_id: str
    number: int
    kind: str
    params: dict[str, Any]
    started: float
    finished: float | None
    status: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table_id,
            "game_id": self.game_id,
            "number": self.number,
            "kind": self.kind,
            "players": list(self.params.get("players", [])),
            "started": self.started,
            "finished": self.finished,
            "status": self.status,
        }


class Store:
    """The SQLite event log. Thread-safe: one connection behind a lock.

    ``Store(":memory:")`` works for quick tests, but is of course not durable.
    """

    def __init__(self, path: str | Path, *, synchronous: str = "FULL", verify: bool = True) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            _private_file(Path(self.path))
        try:
            self._db = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=30.0
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            if synchronous.upper() not in ("FULL", "NORMAL", "OFF", "EXTRA"):
                raise ValueError(f"synchronous is FULL, EXTRA, NORMAL or OFF, not {synchronous}")
            self._db.execute(f"PRAGMA synchronous={synchronous.upper()}")
            self._db.executescript(SCHEMA)
            self._lock = threading.RLock()
            self._kept = 0  # answers kept since open (old request ids are pruned now and then)
            if verify:
                self._check_file()
            self._migrate()
            if verify:
                self.verify()
            self.forget_requests()
        except StoreIntegrityError:
            self._db.close()
            raise
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open the event log {self.path}: {exc}") from exc

    # -- writing ---------------------------------------------------------------------------

    def append(
        self,
        table_id: str,
        game_id: str | None,
        events: Sequence[tuple[str, dict[str, Any]]],
        *,
        cause: dict[str, Any] | None = None,
        new_game: dict[str, Any] | None = None,
        game_status: str | None = None,
        request: RequestMark | None = None,
    ) -> list[tuple[int, float]]:
        """Append ``(origin, event)`` pairs in one durable transaction; return their (seq, ts).

        ``new_game`` ({"number", "kind", "params"}) creates the game row in the same
        transaction; ``game_status`` ("finished" / "abandoned") closes the game with it;
        ``request`` records the id of the request that caused the events in it too, so after
        a crash a request is either applied and recorded, or neither (applied once).
        """
        batch = Batch(game_id, events, cause, new_game, game_status)
        return self.append_batches(table_id, [batch], request=request)[0]

    def append_batches(
        self, table_id: str, batches: Sequence[Batch], *, request: RequestMark | None = None
    ) -> list[list[tuple[int, float]]]:
        """Append several batches (each as :meth:`append` writes one) in ONE durable transaction;
        the (seq, ts) of each batch's events.

        Why: one command may write to two games, as a start with ``abandon`` does (the old
        game's ``game_abandoned``, then the new game). Written in two transactions, a crash
        between them would leave the old game abandoned and no new one, and the request id
        (written with the last batch) unrecorded, so a resend would be judged again against
        a table in a state nobody asked for. Here it is all of it, or nothing.

        Fault injection (tests only): with ``PYRAMID_TEST_KILL_BETWEEN_BATCHES`` set, the
        process kills itself (SIGKILL) after writing the first of several batches and before
        the next (tests/security/test_start_abandon_once.py).
        """
        ts = time.time()
        kill_between = len(batches) > 1 and bool(os.environ.get(KILL_BETWEEN_BATCHES_ENV))
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    row = self._db.execute(
                        "SELECT seq, hash FROM events WHERE table_id = ? ORDER BY seq DESC LIMIT 1",
                        (table_id,),
                    ).fetchone()
                    seq = int(row[0]) if row else 0
                    prev = str(row[1] or "") if row else ""
                    outs: list[list[tuple[int, float]]] = []
                    for i, b in enumerate(batches):
                        if i and kill_between:
                            os.kill(os.getpid(), signal.SIGKILL)
                        seq, prev, out = self._write_batch_in_tx(table_id, b, seq, prev, ts)
                        outs.append(out)
                    if any(outs):
                        self._set_meta_in_tx(f"log_head/{table_id}", f"{seq}:{prev}")
                    if request is not None and any(outs):
                        self._db.execute(
                            "INSERT INTO requests(table_id, request_id, cmd, fingerprint, seq,"
                            " ts) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(table_id, request_id)"
                            " DO UPDATE SET seq = excluded.seq",
                            (
                                table_id,
                                request.request_id,
                                request.cmd,
                                request.fingerprint,
                                seq,
                                ts,
                            ),
                        )
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"cannot write to the event log {self.path}: {exc}") from exc
        return outs

    def _write_batch_in_tx(
        self, table_id: str, b: Batch, seq: int, prev: str, ts: float
    ) -> tuple[int, str, list[tuple[int, float]]]:
        """One batch's rows, inside the caller's transaction: (last seq, last hash, its seqs)."""
        game_id = b.game_id
        if b.new_game is not None:
            self._db.execute(
                "INSERT INTO games(table_id, game_id, number, kind, params, started,"
                " status) VALUES (?, ?, ?, ?, ?, ?, 'playing')",
                (
                    table_id,
                    game_id,
                    int(b.new_game["number"]),
                    str(b.new_game.get("kind", DEFAULT_GAME.value)),
                    json.dumps(b.new_game["params"], sort_keys=True),
                    ts,
                ),
            )
        batch = seq + 1
        cause_json = json.dumps(b.cause, sort_keys=True) if b.cause is not None else None
        out: list[tuple[int, float]] = []
        for origin, event in b.events:
            seq += 1
            data = json.dumps(event, sort_keys=True)
            type_ = str(event["type"])
            prev = _event_hash(
                prev, table_id, seq, game_id, origin, type_, data, ts, batch, cause_json
            )
            self._db.execute(
                "INSERT INTO events(table_id, seq, game_id, origin, type, data, ts,"
                " batch, cause, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (table_id, seq, game_id, origin, type_, data, ts, batch, cause_json, prev),
            )
            out.append((seq, ts))
        if b.new_game is not None:
            self._set_meta_in_tx(f"game_number/{table_id}", str(int(b.new_game["number"])))
        if b.game_status is not None:
            self._db.execute(
                "UPDATE games SET status = ?, finished = ? WHERE table_id = ? AND game_id = ?",
                (b.game_status, None if b.game_status == "playing" else ts, table_id, game_id),
            )
        return seq, prev, out

    def _set_meta_in_tx(self, key: str, value: str) -> None:
        self._db.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET"
            " value = excluded.value",
            (key, value),
        )

    def next_game_number(self, table_id: str) -> int:
        """The number of the table's next game: above every game it ever had, even one whose
        rows were deleted since (a game id, and the players' links made from it, never return).
        """
        with self._lock:
            row = self._db.execute(
                "SELECT MAX(number) FROM games WHERE table_id = ?", (table_id,)
            ).fetchone()
            kept = self._db.execute(
                "SELECT value FROM meta WHERE key = ?", (f"game_number/{table_id}",)
            ).fetchone()
        high = max(int(row[0] or 0), int(kept[0]) if kept else 0)
        return high + 1

    # -- integrity ---------------------------------------------------------------------------

    def _check_file(self) -> None:
        try:
            rows = self._db.execute("PRAGMA quick_check").fetchall()
        except sqlite3.DatabaseError as exc:
            raise StoreIntegrityError(f"the event log {self.path} is damaged: {exc}") from None
        problems = [str(r[0]) for r in rows if str(r[0]) != "ok"]
        if problems:
            raise StoreIntegrityError(
                f"the event log {self.path} is damaged: {'; '.join(problems[:3])}"
            )

    def _migrate(self) -> None:
        """A log from before the chained hashes: add the column and compute the chain."""
        with self._lock:
            cols = [r[1] for r in self._db.execute("PRAGMA table_info(events)").fetchall()]
            if "hash" not in cols:
                self._db.execute("ALTER TABLE events ADD COLUMN hash TEXT")
            todo = self._db.execute("SELECT COUNT(*) FROM events WHERE hash IS NULL").fetchone()
            if not todo[0]:
                return
            self._db.execute("BEGIN IMMEDIATE")
            try:
                prev: dict[str, str] = {}
                heads: dict[str, tuple[int, str]] = {}
                rows = self._db.execute(
                    "SELECT table_id, seq, game_id, origin, type, data, ts, batch, cause, hash"
                    " FROM events ORDER BY table_id, seq"
                ).fetchall()
                for t, seq, g, origin, type_, data, ts, batch, cause, h in rows:
                    if h is None:
                        h = _event_hash(
                            prev.get(t, ""),
                            t,
                            int(seq),
                            g,
                            origin,
                            type_,
                            data,
                            float(ts),
                            int(batch),
                            cause,
                        )
                        self._db.execute(
                            "UPDATE events SET hash = ? WHERE table_id = ? AND seq = ?", (h, t, seq)
                        )
                    prev[t] = h
                    heads[t] = (int(seq), h)
                for t, (seq, h) in heads.items():
                    self._set_meta_in_tx(f"log_head/{t}", f"{seq}:{h}")
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def verify(self) -> None:
        """Check every table's chain: seqs 1, 2, 3 ... up to the kept head, each hash matching
        and each event's JSON readable; raise :class:`StoreIntegrityError` at the first fault.

        The events and the heads are read in one read transaction, one snapshot of the file.
        Why: another process may be writing the log (the hub, while a tool or a restart check
        opens it). Read one after the other, a commit between the two reads showed a head one
        past the last event read, and a sound log was refused as cut short ("the log ends at
        seq 76 but seq 77 was written"; the kill -9 bench opens the log while the hub plays)."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                rows = self._db.execute(
                    "SELECT table_id, seq, game_id, origin, type, data, ts, batch, cause, hash"
                    " FROM events ORDER BY table_id, seq"
                ).fetchall()
                heads = dict(
                    self._db.execute(
                        "SELECT substr(key, 10), value FROM meta WHERE key LIKE 'log_head/%'"
                    ).fetchall()
                )
            finally:
                self._db.execute("COMMIT")
        where = f"the event log {self.path}"
        last: dict[str, tuple[int, str, str | None]] = {}
        for t, seq, g, origin, type_, data, ts, batch, cause, h in rows:
            seq = int(seq)
            before, prev, prev_game = last.get(t, (0, "", None))
            game = f"game {g}" if g else "between games"
            if seq != before + 1:
                raise StoreIntegrityError(
                    f"{where}: table {t}, {game}: event seq {before + 1} is missing (seq "
                    f"{before} is followed by {seq}): an event was deleted"
                )
            try:
                json.loads(data)
                if cause:
                    json.loads(cause)
            except ValueError:
                raise StoreIntegrityError(
                    f"{where}: table {t}, {game}: event seq {seq} is unreadable (altered)"
                ) from None
            want = _event_hash(prev, t, seq, g, origin, type_, data, float(ts), int(batch), cause)
            if h != want:
                raise StoreIntegrityError(
                    f"{where}: table {t}, {game}: event seq {seq} was "
                    "altered (its hash does not match the chain)"
                )
            last[t] = (seq, h, g)
        for t, head in heads.items():
            seq_text, _, h = str(head).partition(":")
            seq, got, g = last.get(t, (0, "", None))
            if int(seq_text or 0) != seq or (seq and h != got):
                raise StoreIntegrityError(
                    f"{where}: table {t}: the log ends at seq {seq} but seq {seq_text} was "
                    "written: events at its end were deleted or altered"
                )

    # -- requests applied once ---------------------------------------------------------------

    def applied_request(self, table_id: str, request_id: str) -> AppliedRequest | None:
        """The request with this id if the table applied it (its events are in the log)."""
        with self._lock:
            row = self._db.execute(
                "SELECT cmd, fingerprint, seq, answer FROM requests WHERE table_id = ? AND"
                " request_id = ?",
                (table_id, request_id),
            ).fetchone()
        if row is None:
            return None
        try:
            answer = json.loads(row[3]) if row[3] else None
        except ValueError:
            answer = None
        return AppliedRequest(
            request_id,
            str(row[0]),
            str(row[1]),
            None if row[2] is None else int(row[2]),
            answer if isinstance(answer, dict) else None,
        )

    def keep_answer(
        self, table_id: str, mark: RequestMark, answer: dict[str, Any], seq: int | None = None
    ) -> None:
        """Keep the first answer of an applied request (a repeat of its id gets it again).

        The request's row was written with its events; a request that wrote no event (refused
        before the rules, or a reading that changed nothing) gets its row here, so a repeat
        still gets the first answer."""
        text = json.dumps(answer, sort_keys=True, default=str)
        self._kept += 1
        if self._kept % REQUEST_PRUNE_EVERY == 0:
            self.forget_requests()
        with self._lock:
            self._db.execute(
                "INSERT INTO requests(table_id, request_id, cmd, fingerprint, seq, answer, ts)"
                " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(table_id, request_id) DO UPDATE SET"
                " answer = excluded.answer WHERE requests.answer IS NULL",
                (table_id, mark.request_id, mark.cmd, mark.fingerprint, seq, text, time.time()),
            )

    def forget_requests(self, older_than_s: float = REQUEST_KEEP_S) -> int:
        """Drop the ids of requests applied longer ago than ``older_than_s``; how many."""
        with self._lock:
            cur = self._db.execute(
                "DELETE FROM requests WHERE ts < ?", (time.time() - older_than_s,)
            )
        return int(cur.rowcount or 0)

    def put_crop(self, table_id: str, crop_id: str, game_id: str | None, jpeg: bytes) -> None:
        """Keep the crop image of a die reading (served to the dashboard beside the prompt)."""
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO crops(table_id, crop_id, game_id, ts, jpeg)"
                " VALUES (?, ?, ?, ?, ?)",
                (table_id, crop_id, game_id, time.time(), sqlite3.Binary(jpeg)),
            )

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET"
                " value = excluded.value",
                (key, value),
            )

    def claim_meta(self, key: str, value: str, free: Collection[str] = ("",)) -> tuple[str, bool]:
        """Set ``key`` to ``value`` only if it is unset or one of ``free``, atomically (one
        IMMEDIATE transaction: no other connection, thread or process writes between the read
        and the write); (the value it holds now, whether this call set it). The first of two
        racing claims wins, the second sees the winner's value (hub.dashboard.guard.LinkClaims).
        """
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    row = self._db.execute(
                        "SELECT value FROM meta WHERE key = ?", (key,)
                    ).fetchone()
                    held = None if row is None else str(row[0])
                    took = held is None or held in free
                    if took:
                        self._set_meta_in_tx(key, value)
                        held = value
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"cannot write to the event log {self.path}: {exc}") from exc
        assert held is not None
        return held, took

    # -- reading ---------------------------------------------------------------------------

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return default if row is None else str(row[0])

    def get_crop(self, table_id: str, crop_id: str) -> bytes | None:
        with self._lock:
            row = self._db.execute(
                "SELECT jpeg FROM crops WHERE table_id = ? AND crop_id = ?", (table_id, crop_id)
            ).fetchone()
        return None if row is None else bytes(row[0])

    def last_seq(self, table_id: str) -> int:
        with self._lock:
            row = self._db.execute(
                "SELECT MAX(seq) FROM events WHERE table_id = ?", (table_id,)
            ).fetchone()
        return int(row[0] or 0)

    def events(
        self, table_id: str, *, game_id: str | None = None, since: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events of a table with seq > since, in order; only one game's if game_id is given."""
        sql = "SELECT * FROM events WHERE table_id = ? AND seq > ?"
        args: list[Any] = [table_id, since]
        if game_id is not None:
            sql += " AND game_id = ?"
            args.append(game_id)
        sql += " ORDER BY seq"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(int(limit))
        with self._lock:
            rows = self._db.execute(sql, args).fetchall()
        return [_row_event(r) for r in rows]

    def games(self, table_id: str | None = None) -> list[GameRecord]:
        """Games of one table (or all tables), oldest first."""
        with self._lock:
            if table_id is None:
                rows = self._db.execute("SELECT * FROM games ORDER BY table_id, number").fetchall()
            else:
                rows = self._db.execute(
                    "SELECT * FROM games WHERE table_id = ? ORDER BY number", (table_id,)
                ).fetchall()
        return [_row_game(r) for r in rows]

    def game(self, table_id: str, game_id: str) -> GameRecord | None:
        with self._lock:
            row = self._db.execute(
                "SELECT * FROM games WHERE table_id = ? AND game_id = ?", (table_id, game_id)
            ).fetchone()
        return None if row is None else _row_game(row)

    def tables(self) -> list[str]:
        with self._lock:
            rows = self._db.execute("SELECT DISTINCT table_id FROM games ORDER BY 1").fetchall()
        return [str(r[0]) for r in rows]

    def iter_all(self) -> Iterator[StoredEvent]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM events ORDER BY table_id, seq").fetchall()
        for r in rows:
            yield _row_event(r)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _private_file(path: Path) -> None:
    """Make the log's file (and its WAL and shared-memory files) readable by its owner only: it
    holds the table's token secret and PIN and every secret bet. A new file is created 0600
    before SQLite opens it (SQLite gives the -wal and -shm files the database's permissions);
    an existing one that others may read is tightened."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    for p in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            if p.stat().st_mode & 0o077:
                os.chmod(p, 0o600)
        except OSError:
            pass


def _row_event(r: tuple[Any, ...]) -> StoredEvent:
    table_id, seq, game_id, origin, _type, data, ts, batch, cause = r[:9]
    return StoredEvent(
        table_id=table_id,
        seq=int(seq),
        game_id=game_id,
        origin=origin,
        event=json.loads(data),
        ts=float(ts),
        batch=int(batch),
        cause=json.loads(cause) if cause else None,
    )


def _row_game(r: tuple[Any, ...]) -> GameRecord:
    table_id, game_id, number, kind, params, started, finished, status = r
    return GameRecord(
        table_id=table_id,
        game_id=game_id,
        number=int(number),
        kind=kind,
        params=json.loads(params),
        started=float(started),
        finished=None if finished is None else float(finished),
        status=status,
    )
