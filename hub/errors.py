"""The hub's refusal of a command, shared by the session, the drivers and the dispatcher.

Why a module of its own: the dispatcher (:mod:`hub.requests`) answers it and the session and the
games' drivers raise it; with it here none of them imports another just for the type.
"""

from __future__ import annotations

__all__ = ["RequestError"]


class RequestError(ValueError):
    """A command that cannot be carried out; nothing changed. ``reason`` is a machine code."""

    def __init__(self, message: str, reason: str, seq: int | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.seq = seq  # the action_refused event logged for it, if any
