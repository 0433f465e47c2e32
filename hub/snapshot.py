"""What a table shows: its public snapshot, a player's own, and the odds and advice beside them.

Why apart from :mod:`hub.session`: the session is the table's log, prompt and undo engine;
these only read it, under its lock, through its public attributes, and the game's driver says
what of the game anyone may see (``public_view``) and what one player may (``player_view``).
The retained MQTT ``state``, the dashboard's page and its event stream all start here.
"""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager
from typing import Any, Protocol

from hub import history
from hub.auth import Authority
from hub.derived import DerivedWorker
from hub.games_glue.base import AnyDriver, AnyGame
from hub.prompts import Prompt
from hub.store import GameRecord, Store

log = logging.getLogger(__name__)

__all__ = ["DerivedCache", "Shown", "table_snapshot", "player_snapshot"]


class DerivedCache:
    """Odds and advice of the current position, computed once per seq (they are slow-ish): in
    the ``worker`` process when there is one, else in this one. Odds are advice: a failure is
    logged and the snapshot goes out without them."""

    def __init__(self, worker: DerivedWorker | None, odds: bool, advice: bool) -> None:
        self.worker = worker
        self.odds = odds
        self.advice = advice
        self._cached: tuple[int, dict[str, Any]] | None = None

    def of(self, seq: int, game: AnyGame | None, kind: str) -> dict[str, Any]:
        """{"odds": ..., "advice": [...]} of ``game`` at ``seq`` (a game of ``kind``)."""
        cached = self._cached
        if cached is not None and cached[0] == seq:
            return cached[1]
        out: dict[str, Any] = {"odds": None, "advice": []}
        if game is not None and not game.finished and (self.odds or self.advice):
            from hub import derived

            try:
                args = (game.state, game.current_player, self.odds, self.advice, kind)
                out = (
                    self.worker.compute(*args)
                    if self.worker is not None
                    else derived.compute(*args)
                )
            except Exception:  # odds are advice: never let them break the snapshot
                log.exception("odds or advice failed at seq %s", seq)
        self._cached = (seq, out)
        return out


class Shown(Protocol):
    """What a snapshot reads of a table (``hub.session.TableSession``): its public API only."""

    table_id: str
    store: Store
    authority: Authority
    pending: dict[str, Prompt]
    firmware: dict[str, Any]
    threshold: float
    derived_cache: DerivedCache

    @property
    def lock(self) -> AbstractContextManager[bool]: ...
    @property
    def seq(self) -> int: ...
    @property
    def record(self) -> GameRecord | None: ...
    @property
    def game(self) -> AnyGame | None: ...
    @property
    def game_id(self) -> str | None: ...
    @property
    def kind(self) -> str: ...
    @property
    def driver(self) -> AnyDriver: ...
    @property
    def setup_reading(self) -> dict[str, Any] | None: ...
    def players(self) -> list[str]: ...


def table_snapshot(s: Shown, *, log: bool = True, derived: bool = True) -> dict[str, Any]:
    """The public picture of the table: game view, seq, prompts, odds, advice, log."""
    with s.lock:
        seq = s.seq
        game = s.game
        record = s.record
        snap: dict[str, Any] = {
            "table": s.table_id,
            "game_id": None if record is None else record.game_id,
            "status": "none" if record is None else record.status,
            "seq": seq,
            "game": None if game is None else s.driver.public_view(game.state),
            "pending": [dict(p) for p in s.pending.values()],
            "firmware": dict(s.firmware),
            "threshold": s.threshold,
            "pin_required": s.authority.pin is not None,
            "setup_reading": s.setup_reading,
        }
        if log:
            rows = [] if record is None else s.store.events(s.table_id, game_id=record.game_id)
            snap["log"] = [e.to_dict() for e in history.envelopes(s.store, s.table_id, rows)]
    if derived:
        snap.update(s.derived_cache.of(seq, game, s.kind))
    return snap


def player_snapshot(s: Shown, token: str) -> dict[str, Any]:
    """What a player's private page shows: the snapshot plus their cards and bet colours."""
    with s.lock:
        access = s.authority.check({"token": token}, s.game_id, s.players())
        snap = table_snapshot(s, log=False, derived=False)
        if s.game is not None and access.player is not None:
            snap["game"] = s.driver.player_view(s.game.state, access.player)
        snap["me"] = access.player
        return snap
