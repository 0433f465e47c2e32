"""Fixtures of the dashboard tests: a real TableSession on a temporary SQLite log, and the
dashboard served by a real werkzeug server on 127.0.0.1 (a free port) in a thread."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hub.dashboard import create_app
from hub.dashboard.app import EXTENSION
from hub.dashboard.live import Live
from hub.dashboard.server import ServerThread
from hub.session import TableSession
from hub.store import Store

PIN = "2468"
PLAYERS = ["Ann", "Bob", "Cy"]


@dataclass
class Table:
    """A table under test: its session, its dashboard app, and (when served) its URL."""

    session: TableSession
    app: Any
    url: str = ""

    @property
    def live(self) -> Live:
        return self.app.extensions[EXTENSION]

    def play(self, action: str, player: str | None = None) -> dict[str, Any]:
        """Play as the table, in-process (what the firmware or another phone would do)."""
        who = player or self.session.game.current_player
        answer = self.session.request(
            "action", {"player": who, "action": action}, {"pin": PIN}, channel="http"
        )
        assert answer["ok"], answer
        self.session.bus.flush()
        return answer

    def engine_log(self) -> list[dict[str, Any]]:
        return self.session.engine_log()


def make_table(
    tmp_path: Path,
    *,
    seed: int | None = 7,
    heartbeat_s: float = 15.0,
    retry_ms: int = 2000,
    start: bool = True,
    odds: bool = False,
    pin: str | None = PIN,
) -> Table:
    store = Store(tmp_path / "events.sqlite")
    session = TableSession("t1", store, pin=pin, odds=odds, advice=odds)
    if start:
        session.start_game(list(PLAYERS), seed=seed)
    app = create_app(session, heartbeat_s=heartbeat_s, retry_ms=retry_ms)
    app.testing = True
    return Table(session, app)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    """A started, seeded game of three players behind the dashboard app (not served)."""
    t = make_table(tmp_path)
    yield t
    t.live.close()
    t.session.bus.close()
    t.session.store.close()


@contextmanager
def serve_table(tmp_path: Path, **options: Any) -> Iterator[Table]:
    """A table (see make_table) served on 127.0.0.1 on a free port, closed afterwards."""
    t = make_table(tmp_path, **options)
    try:
        with ServerThread(t.app) as srv:
            t.url = srv.url
            try:
                yield t
            finally:
                t.live.close()
    finally:
        t.session.bus.close()
        t.session.store.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Table]:
    """The same, served over a real socket; reconnecting pages retry after 1.5 s."""
    with serve_table(tmp_path, retry_ms=1500) as t:
        yield t
