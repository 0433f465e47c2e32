"""Shared helpers for the hub-core tests: a temporary store and sessions on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from hub.bus import EventBus
from hub.session import TableSession
from hub.store import Store

PIN = "4321"
TABLE = {"pin": PIN}
# A hand-set start: blue on 1, green under orange on 2, yellow under white on 3.
TRACK = {1: ["blue"], 2: ["green", "orange"], 3: ["yellow", "white"]}


class Tables:
    """Opens sessions on one SQLite file, as a hub process (re)starting would."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._open: list[tuple[Store, TableSession]] = []

    def session(self, table: str = "t1", pin: str | None = PIN, **kw: object) -> TableSession:
        store = Store(self.path)
        kw.setdefault("odds", False)
        kw.setdefault("advice", False)
        s = TableSession(table, store, EventBus(table), pin=pin, **kw)  # type: ignore[arg-type]
        self._open.append((store, s))
        return s

    def close(self) -> None:
        for store, s in self._open:
            s.bus.close()
            store.close()


def open_tables(tmp_path: Path) -> Iterator[Tables]:
    """The body of each test module's ``tables`` fixture."""
    t = Tables(tmp_path / "hub.db")
    yield t
    t.close()


def start(s: TableSession, players: tuple[str, ...] = ("Ann", "Bob", "Cy"), **kw: object) -> dict:
    payload = {"players": list(players), **kw}
    if "setup" not in kw and "seed" not in kw:
        payload["setup"] = {str(k): v for k, v in TRACK.items()}
    answer = s.request("start_game", payload, TABLE)
    assert answer["ok"], answer
    return answer
