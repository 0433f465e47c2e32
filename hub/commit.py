"""What one command writes to a table's log: its batches (:class:`Part`), each a list of events.

Why a module of its own: the session's one write path (``TableSession.commit_parts``) and the
commands that write more than one batch at once (a start that abandons the game being played,
:mod:`hub.starting`) share these shapes, and neither should import the other's internals.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Item", "Origin", "Part"]

#: who wrote an event: the engine (replayed through ``Game.replay``) or the hub (beside it)
Origin = Literal["engine", "hub"]

#: one event to log, with its origin
Item = tuple[Origin, dict[str, Any]]


@dataclass
class Part:
    """One batch of a commit: its events, its cause, its game, and what it changes in memory
    once logged (``apply``).

    ``new_game`` opens a game record (``number``, ``kind``, ``params``) in the same transaction;
    ``game_status`` changes the record's status (``finished``, ``abandoned``, ``playing``)."""

    items: list[Item]
    cause: dict[str, Any]
    game_id: str | None
    new_game: dict[str, Any] | None = None
    game_status: str | None = None
    apply: Callable[[], object] | None = None
