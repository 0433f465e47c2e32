"""How the hub drives each game: one driver per engine, the only seam between the hub and a game.

Why a driver and not ``if kind == ...`` in the hub: the engines share the contract
(``Game.new / play / check / undo / replay``, ``public_view``, refusals as ``IllegalAction``), but
differ at the edges: how a game is started, whose view a player sees, what the camera's readings
mean, which prompts a person answers, which odds and tallies are worth computing. Each driver
(:class:`Driver`, whose docstring is the contract) keeps those edges in one place; the session,
the dispatcher, the MQTT bridge, Home Assistant discovery, the odds worker and the dashboard ask
``driver(kind)`` and stay the same for every game.

A game's driver lives in ``hub.games_glue.<kind>`` as ``DRIVER`` and is imported on first use, so
a hub that never plays a game never loads its engine. Adding a game: write its driver module and
add its name to :class:`hub.games.kinds.GameKind`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from hub.games.common import IllegalAction
from hub.games.kinds import DEFAULT_GAME, GameKind
from hub.games_glue.base import AnyDriver, AnyGame, Driver, Sensor, Table

__all__ = [
    "DEFAULT_GAME",
    "GAMES",
    "AnyDriver",
    "AnyGame",
    "Driver",
    "GameKind",
    "Sensor",
    "Table",
    "driver",
]


class _Drivers(Mapping[str, AnyDriver]):
    """kind -> driver, each module imported the first time its driver is asked for."""

    def __init__(self) -> None:
        self._loaded: dict[str, AnyDriver] = {}

    def __getitem__(self, kind: str) -> AnyDriver:
        if kind not in self._loaded:
            if kind not in self:
                raise KeyError(kind)
            name = GameKind(kind).value
            module = importlib.import_module(f"hub.games_glue.{name}")
            self._loaded[name] = module.DRIVER
        return self._loaded[kind]

    def __contains__(self, kind: object) -> bool:
        return isinstance(kind, str) and kind in GameKind.__members__.values()

    def __iter__(self) -> Iterator[str]:
        return iter(k.value for k in GameKind)

    def __len__(self) -> int:
        return len(GameKind)


GAMES: Mapping[str, AnyDriver] = _Drivers()


def driver(kind: str | None) -> AnyDriver:
    """The driver of ``kind`` (None: Camel Up, the games logged before there was a choice)."""
    name = kind or DEFAULT_GAME
    if name not in GAMES:
        raise IllegalAction("unknown_game", f"unknown game {kind!r}: one of {', '.join(GAMES)}")
    return GAMES[name]
