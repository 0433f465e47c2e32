"""Starting a game at a table: the request's fields to a new engine game, logged as one batch.

Why apart from :mod:`hub.session`: the session is the game-agnostic log, prompt and undo engine;
what a start means (which game, its players and setup, the camera's reading of the starting
position, abandoning the game being played) is the game's driver's and this module's. A start
that abandons the game being played writes both batches in one transaction through the session's
one write path (:meth:`~hub.session.TableSession.commit_parts`), then makes the new game current
(:meth:`~hub.session.TableSession.begin`). ``TableSession`` inherits these methods (as it does
:class:`hub.table_reads.TableReads`), so callers keep asking the session.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol, TypedDict, Unpack

from hub.auth import Access, Authority
from hub.commit import Part
from hub.errors import RequestError
from hub.games.kinds import DEFAULT_GAME
from hub.games_glue import driver
from hub.games_glue.base import AnyGame
from hub.setup_reading import SetupReadings
from hub.store import GameRecord, Store

__all__ = ["Startable", "StartOptions", "TableStarting"]

#: a start request's ``setup``: a rolled ``[["blue", 2], ...]``, a track ``{space: [colours]}``,
#: ``"camera"`` or ``"random"`` (None: random)
Setup = list[Any] | dict[Any, Any] | str | None


class StartOptions(TypedDict, total=False):
    """The optional fields of an in-process start (:meth:`TableStarting.start_game`)."""

    first_player: int | str
    abandon: bool
    setup_id: int | None
    game: str
    settings: dict[str, Any]


class Startable(Protocol):
    """What starting needs of a table (``hub.session.TableSession``): its public API."""

    table_id: str
    store: Store
    authority: Authority
    setup_readings: SetupReadings

    @property
    def lock(self) -> AbstractContextManager[bool]: ...
    @property
    def active(self) -> bool: ...
    @property
    def record(self) -> GameRecord | None: ...
    def commit_parts(self, parts: list[Part]) -> list[list[tuple[int, float]]]: ...
    def begin(self, game_id: str, game: AnyGame) -> None: ...
    def cmd_start_game(self, p: dict[str, Any], access: Access) -> dict[str, Any]: ...


class TableStarting:
    """Starting a game (mixed into ``hub.session.TableSession``)."""

    def start_game(
        self: Startable,
        players: list[str],
        setup: Setup = None,
        seed: int | str | None = None,
        **options: Unpack[StartOptions],
    ) -> dict[str, Any]:
        """Start a game as the table (in-process callers); raises RequestError on bad input.

        ``setup`` is the observed setup roll ``[["blue", 2], ...]`` (stacked in roll order) or a
        track ``{space: [colours bottom->top]}``, ``"camera"`` (the latest complete
        :attr:`setup_reading`); None or ``"random"`` rolls it from ``seed``. ``game`` chooses the
        game; ``settings`` are that engine's (docs/games.md), Camel Up has none.
        """
        return self.cmd_start_game(
            {
                "players": players,
                "setup": setup,
                "seed": seed,
                "first_player": options.get("first_player", 0),
                "abandon": options.get("abandon", False),
                "setup_id": options.get("setup_id"),
                "game": options.get("game", DEFAULT_GAME),
                "settings": options.get("settings") or {},
            },
            Access("table"),
        )

    def cmd_start_game(self: Startable, p: dict[str, Any], access: Access) -> dict[str, Any]:
        """Start the game a checked request asks for (validated and authorised by
        :mod:`hub.requests`): log it, abandoning the game being played if asked to."""
        with self.lock:
            if self.active and not p.get("abandon"):
                raise RequestError(
                    "a game is already being played at this table; finish it, or start with "
                    '"abandon": true',
                    "game_in_progress",
                )
            kind = p.get("game") or DEFAULT_GAME
            drv = driver(kind)  # raises IllegalAction("unknown_game")
            game, params = drv.start(p, self.setup_readings.for_start)
            number = self.store.next_game_number(self.table_id)
            game_id = f"g{number}"
            parts = []
            if self.active and self.record is not None:  # in the same transaction as the start
                old = self.record.game_id
                parts.append(
                    Part(
                        [("hub", {"type": "game_abandoned", "game_id": old})],
                        {"cmd": "abandon"},
                        old,
                        game_status="abandoned",
                    )
                )
            start = Part(
                [("engine", e) for e in game.log],
                {"cmd": "start_game"},
                game_id,
                new_game={"number": number, "kind": str(kind), "params": params},
            )
            self.commit_parts([*parts, start])
            self.begin(game_id, game)
            names = drv.players(game)
            out: dict[str, Any] = {"game_id": game_id, "game": str(kind), "players": names}
            if access.is_table:
                out["tokens"] = {n: self.authority.token(game_id, n) for n in names}
            return out
