"""The read side of a table: its public picture, a player's page, its log and its past games.

Why apart from :mod:`hub.session`: the session is the table's one writer (the log, the prompts,
undo); everything here only reads what it wrote, through the table's public API, and changes
nothing. ``TableSession`` inherits these methods, so callers keep asking the session.
"""

from __future__ import annotations

from typing import Any, Protocol

from hub import history, snapshot
from hub.bus import Envelope
from hub.snapshot import Shown
from hub.wire import LegTally

__all__ = ["Readable", "TableReads"]


class Readable(Shown, Protocol):
    """What the read side needs of a table (``hub.session.TableSession``) beyond a snapshot's."""

    def live_engine_seqs(self) -> set[int]: ...


class TableReads:
    """Read-only queries of a table (mixed into ``hub.session.TableSession``)."""

    def snapshot(self: Readable, *, log: bool = True, derived: bool = True) -> dict[str, Any]:
        """The public picture of the table (:func:`hub.snapshot.table_snapshot`)."""
        return snapshot.table_snapshot(self, log=log, derived=derived)

    def player_snapshot(self: Readable, token: str) -> dict[str, Any]:
        """A player's private page (:func:`hub.snapshot.player_snapshot`)."""
        return snapshot.player_snapshot(self, token)

    def events_since(self: Readable, seq: int = 0, limit: int | None = None) -> list[Envelope]:
        """Public envelopes of this table with seq > ``seq`` (all games), for catching up."""
        rows = self.store.events(self.table_id, since=int(seq), limit=limit)
        return history.envelopes(self.store, self.table_id, rows)

    def games(self: Readable) -> list[dict[str, Any]]:
        """The table's games, oldest first (:func:`hub.history.games`)."""
        return history.games(self.store, self.table_id)

    def past_game(self: Readable, game_id: str) -> dict[str, Any]:
        """A past (or the current) game's public snapshot, rebuilt from the log (named
        ``past_game``: ``session.game`` is the live engine game; :func:`hub.history.past_game`)."""
        return history.past_game(self.store, self.table_id, game_id)

    def tallies(self: Readable) -> list[LegTally]:
        """The stage-end tallies of the current game (legs of Camel Up), undone ones left out."""
        with self.lock:
            gid = self.game_id
            if gid is None:
                return []
            events = self.store.events(self.table_id, game_id=gid)
            return [
                LegTally.from_payload({"table": self.table_id, "game_id": gid, **t})
                for t in self.driver.tallies(events, self.live_engine_seqs())
            ]

    def crop(self: Readable, crop_id: str) -> bytes | None:
        """The JPEG crop of a die reading, or None."""
        return self.store.get_crop(self.table_id, str(crop_id))

    def full_state(self: Readable) -> dict[str, Any] | None:
        """Everything about the current game, secrets included (tests and the hub itself)."""
        with self.lock:
            return None if self.game is None else self.driver.full_view(self.game.state)

    def engine_log(self: Readable) -> list[dict[str, Any]]:
        """The current game's engine events (secrets included), as the engine holds them."""
        with self.lock:
            return [] if self.game is None else list(self.game.log)
