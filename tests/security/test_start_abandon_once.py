"""A start with ``abandon`` is one command and one transaction: killed half-way, nothing is done.

The hub process is SIGKILLed after the old game's ``game_abandoned`` was written and before the
new game was (the fault-injection point of :meth:`hub.store.Store.append_batches`, active only
with PYRAMID_TEST_KILL_BETWEEN_BATCHES set). On restart the old game is still being played, no
new game exists, the request id is unknown; the resent request then abandons and starts, once.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hub.store import KILL_BETWEEN_BATCHES_ENV
from tests.hub._hubkit import TABLE, Tables, open_tables, start

pytestmark = [pytest.mark.security]

REPO = Path(__file__).resolve().parents[2]

#: a hub process: its first game, then (with the kill armed) a second started over it
SCRIPT = """
import json, os, sys
from tests.hub._hubkit import TABLE, Tables, start
tables = Tables(__import__("pathlib").Path(sys.argv[1]))
s = tables.session()
start(s)
assert s.request("action", {"player": "Ann", "action": "leg:blue"}, TABLE)["ok"]
os.environ[sys.argv[2]] = "1"
answer = s.request(
    "start_game",
    {"players": ["Dee", "Eve"], "seed": 5, "abandon": True, "request_id": "new-game-1"},
    TABLE,
)
print(json.dumps(answer))
"""

NEW_GAME = {"players": ["Dee", "Eve"], "seed": 5, "abandon": True, "request_id": "new-game-1"}


def test_a_start_killed_after_the_abandon_leaves_the_old_game_whole(tmp_path: Path) -> None:
    db = tmp_path / "hub.db"
    env = {k: v for k, v in os.environ.items() if k != KILL_BETWEEN_BATCHES_ENV}
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(db), KILL_BETWEEN_BATCHES_ENV],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == -signal.SIGKILL, (proc.returncode, proc.stdout, proc.stderr[-2000:])

    for tables in open_tables(tmp_path):
        s = tables.session()
        types = [e.type for e in s.store.events(s.table_id)]
        assert "game_abandoned" not in types, "the abandon was written without the new game"
        assert [g.game_id for g in s.store.games(s.table_id)] == ["g1"]
        assert s.active and s.game_id == "g1" and s.game.current_player == "Bob"
        assert s.store.applied_request(s.table_id, "new-game-1") is None
        seq = s.seq

        answer = s.request("start_game", dict(NEW_GAME), TABLE)  # the resend
        assert answer["ok"] and answer["game_id"] == "g2", answer
        again = s.request("start_game", dict(NEW_GAME), TABLE)
        assert again["ok"] and again["replayed"] is True and again["game_id"] == "g2"
        games = {g.game_id: g.status for g in s.store.games(s.table_id)}
        assert games == {"g1": "abandoned", "g2": "playing"}
        events = s.store.events(s.table_id, since=seq)
        assert [e.type for e in events].count("game_abandoned") == 1
        assert [e.seq for e in events] == list(range(seq + 1, seq + 1 + len(events)))
        # both batches are whole and in order: the abandon (g1), then the new game's events
        assert events[0].type == "game_abandoned" and events[0].game_id == "g1"
        assert {e.game_id for e in events[1:]} == {"g2"}
        assert events[1].batch == events[1].seq != events[0].batch


@pytest.fixture
def tables(tmp_path: Path) -> Iterator[Tables]:
    yield from open_tables(tmp_path)


def test_a_start_over_a_game_publishes_the_abandon_then_the_new_game(tables: Tables) -> None:
    s = tables.session()
    start(s)
    # (60 s: a bound for a loaded machine; flush returns as soon as the bus is drained)
    assert s.bus.flush(60)  # the first game's events delivered before we listen
    seen: list[tuple[int, str | None, str, bool]] = []
    s.bus.subscribe(lambda env: seen.append((env.seq, env.game_id, env.type, env.batch_end)))
    before = s.seq
    answer = s.request("start_game", dict(NEW_GAME), TABLE)
    assert answer["ok"] and answer["game_id"] == "g2"
    assert s.bus.flush(60)
    assert seen[0] == (before + 1, "g1", "game_abandoned", True)
    assert all(g == "g2" for _, g, _, _ in seen[1:]) and seen[-1][3] is True
    assert [q for q, _, _, _ in seen] == list(range(before + 1, s.seq + 1))
    assert s.snapshot(log=False, derived=False)["game_id"] == "g2"
