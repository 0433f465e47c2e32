"""Where a reading of the firmware goes: to the game's driver, or to the setup being read.

Why apart from :mod:`hub.session`: the session is the game-agnostic log, prompt and undo engine;
deciding what a camera reading is *for* is not that. While a game runs, a die, a frame's dice or
a track reading is its driver's (``Driver.observe_die``, ``observe_dice``, ``observe_track``);
while none does, a reading marked ``mode: "setup"`` (or a track that looks like a start) is
the next game's starting position, kept by :mod:`hub.setup_reading` and not logged. A release
of the slider is logged as ``die_released``; the firmware's status is kept for the snapshot.

Commands arrive through :mod:`hub.requests` (validated and authorised there); each function here
runs under the table's lock and changes the table only through its public write path
(``Table.log`` and the driver's ``Table.play``).
"""

from __future__ import annotations

import time
from contextlib import AbstractContextManager
from typing import Any, Protocol

from hub.games_glue.base import AnyDriver, AnyGame, Table
from hub.setup_reading import SetupReadings, refuse_in_game
from hub.store import GameRecord

__all__ = ["ObservedTable", "release", "die", "dice", "track", "status"]


class ObservedTable(Table, Protocol):
    """What the observations need of a table (``hub.session.TableSession``): its public API."""

    firmware: dict[str, Any]
    setup_readings: SetupReadings

    @property
    def lock(self) -> AbstractContextManager[bool]: ...
    @property
    def record(self) -> GameRecord | None: ...
    @property
    def game(self) -> AnyGame | None: ...
    @property
    def game_id(self) -> str | None: ...
    @property
    def driver(self) -> AnyDriver: ...
    @property
    def setup_reading(self) -> dict[str, Any] | None: ...
    def need_game(self, allow_finished: bool = False) -> AnyGame: ...


def release(table: ObservedTable, p: dict[str, Any]) -> dict[str, Any]:
    """The pyramid's slider: the current player's die is on its way (``die_released``)."""
    with table.lock:
        game = table.need_game()
        ev = {
            "type": "die_released",
            "player": game.current_player,
            "at": float(p.get("ts", time.time())),
        }
        table.log([ev], {"cmd": "observe_release"})
        return {}


def die(table: ObservedTable, p: dict[str, Any]) -> dict[str, Any]:
    """One die read by the camera: a die of the starting roll (``mode: "setup"``, refused while
    a game is played) or the game's, judged by its driver."""
    with table.lock:
        if p.get("mode") == "setup":
            refuse_in_game("setup die", table.game_id if table.active else None)
            table.setup_readings.add_die(p, table.threshold)
            return {"setup": True, "setup_reading": table.setup_reading}
        game = table.need_game()
        return table.driver.observe_die(table, game, p)


def dice(table: ObservedTable, p: dict[str, Any]) -> dict[str, Any]:
    """All die readings of one frame (Marco Polo II's round start): the driver's."""
    with table.lock:
        game = table.need_game()
        return table.driver.observe_dice(table, game, p)


def track(table: ObservedTable, p: dict[str, Any]) -> dict[str, Any]:
    """The camels on the track: the next game's start (while none is played, or the last one
    is over and this looks like a start), else the driver compares it with the game's."""
    with table.lock:
        rec = table.record
        over = table.game is not None and rec is not None and rec.status == "finished"
        if table.setup_readings.is_setup_track(p, table.game_id if table.active else None, over):
            table.setup_readings.add_track(p)
            return {"setup": True, "setup_reading": table.setup_reading}
        game = table.need_game(allow_finished=True)
        return table.driver.observe_track(table, game, p)


def status(table: ObservedTable, p: dict[str, Any]) -> dict[str, Any]:
    """The firmware's state (camera, loop, game), kept for the snapshot with when it came."""
    with table.lock:
        table.firmware = {**p, "received": time.time()}
        return {}
