"""How the hub drives each game: one small driver per engine, chosen by the session's ``game``.

Why a driver and not ``if kind == ...`` in the session: the three engines share the contract
(``Game.new / play / check / undo / replay``, ``public_view``, refusals as ``IllegalAction``), but
differ at the edges: how a game is started from a request's settings, whose view a player sees,
what the camera's readings mean (``horserace``, ``marcopolo2`` modules here), and what advice is
worth computing. Each driver keeps those edges in one place; the session, the dispatcher, the
MQTT bridge and the dashboard ask ``driver(kind)`` and stay the same for every game.

The drivers are pure: no session, no store, no bus. They raise ``IllegalAction`` (of the engine,
all ``ValueError``) with a reason code; the session turns that into a refusal.
"""

from __future__ import annotations

from hub.games_glue.base import DEFAULT_GAME, GAMES, Driver, driver

__all__ = ["DEFAULT_GAME", "GAMES", "Driver", "driver"]
