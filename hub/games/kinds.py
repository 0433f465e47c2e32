"""The games the table serves, by name: one enum for the hub, the firmware and the dashboard.

Why an enum: the name travels (the start request's ``game``, the game record's ``kind``, the
public view's ``game``, the firmware's ``[table] game``), and a typo in one place used to be a
silent fallback. ``GameKind`` is a ``StrEnum``, so the wire format stays the plain name.
Adding a game: a member here and its driver (``hub.games_glue.<value>``); nothing else.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["GameKind", "DEFAULT_GAME"]


class GameKind(StrEnum):
    CAMELUP = "camelup"
    CAMELUP2 = "camelup2"
    HORSERACE = "horserace"
    MARCOPOLO2 = "marcopolo2"


#: the game of a record without a kind (logged before there was a choice), and the pyramid's
DEFAULT_GAME = GameKind.CAMELUP
