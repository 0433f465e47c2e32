"""Red team, the event log and the ids: Home Assistant ids unique per player, game ids never
reused, a deleted or altered event detected at open with the file, game and seq named."""

from __future__ import annotations

import pytest

from hub.mqtt.discovery import discovery_payload, player_key

pytestmark = pytest.mark.security


def test_home_assistant_ids_are_unique_per_player() -> None:
    players = ["李", "王", "Ann", "ann", "a n", "a_n"]
    keys = {player_key(p) for p in players}
    assert len(keys) == len(players)
    comps = discovery_payload("t1", players, "camelup/t1")["components"]
    money = [c for c in comps.values() if c.get("name", "").endswith(" money")]
    assert len({c["unique_id"] for c in money}) == len(players)
    assert player_key("bob") == "bob"  # a name that is its own slug stays readable


# -- the event log --------------------------------------------------------------------------------

import json  # noqa: E402
import os  # noqa: E402
import sqlite3  # noqa: E402
import stat  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from hub import simtable  # noqa: E402
from hub.session import TableSession  # noqa: E402
from hub.store import Store, StoreError, StoreIntegrityError  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def _played(tmp_path: Path) -> Path:
    db = tmp_path / "hub.db"
    store = Store(db)
    session = TableSession("t1", store, pin="1234", odds=False, advice=False)
    simtable.play(session, "integrity", pin="1234", max_steps=40)
    session.bus.close()
    store.close()
    return db


def _edit(db: Path, sql: str, *args: object) -> None:
    con = sqlite3.connect(db)
    con.execute(sql, args)
    con.commit()
    con.close()


def test_the_log_file_is_owner_only(tmp_path: Path) -> None:
    db = _played(tmp_path)
    assert stat.S_IMODE(os.stat(db).st_mode) == 0o600
    os.chmod(db, 0o644)
    Store(db).close()
    assert stat.S_IMODE(os.stat(db).st_mode) == 0o600


@pytest.mark.parametrize("attack", ["delete_middle", "delete_last", "alter_data", "alter_type"])
def test_a_deleted_or_altered_event_is_named_at_open(tmp_path: Path, attack: str) -> None:
    db = _played(tmp_path)
    if attack == "delete_middle":
        _edit(db, "DELETE FROM events WHERE seq = 5")
        want = "event seq 5 is missing"
    elif attack == "delete_last":
        _edit(db, "DELETE FROM events WHERE seq = (SELECT MAX(seq) FROM events)")
        want = "events at its end were deleted"
    elif attack == "alter_data":
        con = sqlite3.connect(db)
        data = json.loads(con.execute("SELECT data FROM events WHERE seq = 7").fetchone()[0])
        con.close()
        data["x"] = 1
        _edit(db, "UPDATE events SET data = ? WHERE seq = 7", json.dumps(data, sort_keys=True))
        want = "event seq 7 was altered"
    else:
        _edit(db, "UPDATE events SET type = 'undo' WHERE seq = 3")
        want = "event seq 3 was altered"
    with pytest.raises(StoreIntegrityError, match=want) as info:
        Store(db)
    assert str(db) in str(info.value) and "table t1" in str(info.value)
    # the hub says so in one sentence and exits 2, no traceback
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "hub.cli",
            "hub",
            "--db",
            str(db),
            "--no-mqtt",
            "--http-port",
            "0",
            "--no-odds",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and want in out.stderr and "Traceback" not in out.stderr


def test_random_bit_flips_give_a_sentence_not_a_traceback(tmp_path: Path) -> None:
    import random

    db = _played(tmp_path)
    raw = bytearray(db.read_bytes())
    rng = random.Random(12)
    refused = 0
    for trial in range(12):
        damaged = bytearray(raw)
        for _ in range(8):
            i = rng.randrange(100, len(damaged))
            damaged[i] ^= 1 << rng.randrange(8)
        path = tmp_path / f"flip{trial}.db"
        path.write_bytes(bytes(damaged))
        try:
            Store(path).close()
        except StoreError as exc:  # the damaged file named in one sentence
            assert str(path) in str(exc)
            refused += 1
        except Exception as exc:  # anything else is a crash the hub would show as a traceback
            pytest.fail(f"a damaged log raised {type(exc).__name__}: {exc}")
    assert refused >= 1


def test_an_old_log_without_hashes_is_migrated(tmp_path: Path) -> None:
    db = _played(tmp_path)
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT table_id, seq, game_id, origin, type, data, ts, batch, cause FROM events"
    ).fetchall()
    con.execute("DROP TABLE events")
    con.execute(
        "CREATE TABLE events (table_id TEXT NOT NULL, seq INTEGER NOT NULL, game_id TEXT,"
        " origin TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, ts REAL NOT NULL,"
        " batch INTEGER NOT NULL, cause TEXT, PRIMARY KEY (table_id, seq)) WITHOUT ROWID"
    )
    con.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    con.execute("DELETE FROM meta WHERE key LIKE 'log_head/%'")
    con.commit()
    con.close()
    store = Store(db)  # migrates
    session = TableSession("t1", store, pin="1234", odds=False, advice=False)
    assert session.seq == len(rows)
    session.bus.close()
    store.close()
    Store(db).close()  # and the migrated chain verifies
    _edit(db, "DELETE FROM events WHERE seq = 2")
    with pytest.raises(StoreIntegrityError):
        Store(db)


def test_game_ids_are_never_reused_even_after_a_table_is_dropped(tmp_path: Path) -> None:
    db = tmp_path / "hub.db"
    store = Store(db)
    s = TableSession("t1", store, pin="1234", odds=False, advice=False)
    first = s.start_game(["Ann", "Bob"], seed=1)
    token = s.player_token("Ann")
    s.bus.close()
    # someone drops the table's rows (and its chain's head with them)
    for sql in (
        "DELETE FROM events WHERE table_id = 't1'",
        "DELETE FROM games",
        "DELETE FROM meta WHERE key = 'log_head/t1'",
    ):
        store._db.execute(sql)
    s = TableSession("t1", store, pin="1234", odds=False, advice=False)
    second = s.start_game(["Ann", "Bob"], seed=2)
    assert first["game_id"] == "g1" and second["game_id"] == "g2"
    assert s.player_token("Ann") != token  # last game's link does not open this one
    s.bus.close()
    store.close()
