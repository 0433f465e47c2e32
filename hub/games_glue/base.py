"""The three drivers: Camel Up, the horse race and the Marco Polo II assistant.

A driver turns what the hub stores (the game's ``params``: players, seed, first player and the
engine's settings, as ``start_game`` gave them) into an engine ``Game``, and answers the few
questions where the engines differ. Settings are checked here, before anything is logged, so a
bad one is refused with the engine's own sentence and nothing changes.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Mapping, Sequence
from typing import Any

from hub.games.common import IllegalAction

__all__ = ["DEFAULT_GAME", "GAMES", "Driver", "driver"]

DEFAULT_GAME = "camelup"


def _bad(message: str) -> IllegalAction:
    return IllegalAction("bad_settings", message)


class Driver:
    """What the hub needs of one game. Subclasses fill in the engine's names."""

    kind: str = ""
    title: str = ""
    #: the engine's package, e.g. "hub.games.horserace"
    package: str = ""
    #: start_game fields beyond players / seed / first_player / abandon that this game takes
    settings: frozenset[str] = frozenset()
    #: whether a player's own link sees more than the shared screen
    has_secrets: bool = False

    # -- starting and rebuilding ------------------------------------------------------------
    def check_settings(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The settings as they will be stored (JSON-safe), or IllegalAction("bad_settings")."""
        unknown = sorted(set(given) - self.settings)
        if unknown:
            known = ", ".join(sorted(self.settings)) or "none"
            raise _bad(f"{unknown[0]!r} is not a setting of {self.title} (its settings: {known})")
        return dict(given)

    def new(self, params: Mapping[str, Any]) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def engine(self) -> Any:
        """The game's package (imported on first use: a hub that never plays it never loads it).

        Every engine package exports ``Game``, ``public_view``, ``player_view`` and
        ``parse_action`` (the shared contract of docs/games.md)."""
        return importlib.import_module(self.package)

    def replay(self, events: Sequence[dict[str, Any]]) -> Any:
        return self.engine().Game.replay(list(events))

    # -- views ------------------------------------------------------------------------------
    def public_view(self, state: Any) -> dict[str, Any]:
        return self.engine().public_view(state)  # type: ignore[no-any-return]

    def player_view(self, state: Any, name: str) -> dict[str, Any]:
        return self.engine().player_view(state, name)  # type: ignore[no-any-return]

    def full_view(self, state: Any) -> dict[str, Any]:
        return self.public_view(state)

    def public_event(self, event: dict[str, Any]) -> dict[str, Any]:
        """An event as everyone may see it (only Camel Up has secrets in its events)."""
        return dict(event)

    # -- actions ----------------------------------------------------------------------------
    def parse_action(self, text: str) -> Any:
        return self.engine().parse_action(text)

    def check(self, game: Any, action: Any, player: str | None) -> list[dict[str, Any]]:
        return list(game.check(action, player))

    def players(self, game: Any) -> list[str]:
        return list(game.state.players)

    def acting_player(self, action_text: str) -> str | None:
        """The player an action names (Marco Polo's ``dice:Ann:...``); None when it names none."""
        return None


class CamelUp(Driver):
    kind = "camelup"
    package = "hub.games.camelup"
    title = "Camel Up"
    has_secrets = True

    def new(self, params: Mapping[str, Any]) -> Any:
        from hub.games.camelup import Game

        kwargs: dict[str, Any] = {"seed": params.get("seed"),
                                  "first_player": params.get("first_player", 0)}
        if params.get("track") is not None:
            kwargs["track"] = params["track"]
        elif params.get("setup") is not None:
            kwargs["setup"] = [(c, f) for c, f in params["setup"]]
        return Game.new(params["players"], **kwargs)

    def public_view(self, state: Any) -> dict[str, Any]:
        view = super().public_view(state)
        view.setdefault("game", "camelup")
        return view

    def player_view(self, state: Any, name: str) -> dict[str, Any]:
        view = super().player_view(state, name)
        view.setdefault("game", "camelup")
        return view

    def full_view(self, state: Any) -> dict[str, Any]:
        from hub.games.camelup import full_view

        return full_view(state)  # type: ignore[no-any-return]

    def public_event(self, event: dict[str, Any]) -> dict[str, Any]:
        from hub.games.camelup import public_event

        return public_event(event)  # type: ignore[no-any-return]

    def players(self, game: Any) -> list[str]:
        return list(game.state.names)


class HorseRace(Driver):
    kind = "horserace"
    package = "hub.games.horserace"
    title = "the horse race"
    settings = frozenset({"races", "track_length", "next_starter", "score_table", "horses",
                          "tokens"})

    def check_settings(self, given: Mapping[str, Any]) -> dict[str, Any]:
        from hub.games.horserace import Settings

        data = super().check_settings(given)
        for key in ("races", "track_length", "tokens"):
            v = data.get(key)
            if key in data and (isinstance(v, bool) or not isinstance(v, int)):
                raise _bad(f"{key!r} must be a whole number, not {v!r}")
        if "score_table" in data:
            rows = data["score_table"]
            if (not isinstance(rows, list) or not all(isinstance(r, list) for r in rows)
                    or any(isinstance(v, bool) for r in rows for v in r)):
                raise _bad("'score_table' is a list of rows of whole numbers, one row per "
                           "podium place")
        if "horses" in data and (not isinstance(data["horses"], list)
                                 or not all(isinstance(h, str) for h in data["horses"])):
            raise _bad("'horses' is a list of horse names")
        if "next_starter" in data and not isinstance(data["next_starter"], str):
            raise _bad("'next_starter' is \"leader\" or \"rotate\"")
        if data.get("track_length", 30) > 200 or data.get("races", 1) > 20:
            raise _bad("the track is at most 200 spaces and a game at most 20 races")
        try:
            settings = Settings.from_json(data)
        except (TypeError, ValueError) as exc:
            if isinstance(exc, IllegalAction):
                raise
            raise _bad(f"the horse race's settings are not right: {exc}") from None
        full = settings.to_json()
        return {k: full[k] for k in data}  # only what was given: defaults stay the engine's

    def new(self, params: Mapping[str, Any]) -> Any:
        from hub.games.horserace import Game

        first = params.get("first_player")
        return Game.new(params["players"], seed=params.get("seed"), first_player=first,
                        **dict(params.get("settings") or {}))


class MarcoPolo2(Driver):
    kind = "marcopolo2"
    package = "hub.games.marcopolo2"
    title = "Marco Polo II"
    #: ``boards`` and ``expected_dice`` are the table's (how the camera's frame is read), the
    #: others the engine's
    settings = frozenset({"colours", "banner_table", "boards", "expected_dice"})
    ENGINE_SETTINGS = ("colours", "banner_table")

    def check_settings(self, given: Mapping[str, Any]) -> dict[str, Any]:
        data = super().check_settings(given)
        colours = data.get("colours")
        if colours is not None and not (
                (isinstance(colours, list) and all(isinstance(c, str) for c in colours))
                or (isinstance(colours, dict)
                    and all(isinstance(c, str) for c in colours.values()))):
            raise _bad("'colours' is a list of colours in seat order or {player: colour}")
        table = data.get("banner_table")
        if table is not None and (not isinstance(table, list) or len(table) > 32 or any(
                isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in table)):
            raise _bad("'banner_table' is a list of whole numbers >= 0: the points for 0, 1, "
                       "2, ... banners")
        boards = data.get("boards")
        if boards is not None:
            if not isinstance(boards, dict):
                raise _bad("'boards' maps each player to their board's region [x, y, w, h] in "
                           "the camera's frame")
            for name, box in boards.items():
                if (not isinstance(box, list) or len(box) != 4 or any(
                        isinstance(v, bool) or not isinstance(v, int | float)
                        or not math.isfinite(v) for v in box) or box[2] <= 0 or box[3] <= 0):
                    raise _bad(f"the board of {name!r} must be [x, y, w, h] with w, h > 0")
        expected = data.get("expected_dice")
        if expected is not None and (isinstance(expected, bool) or not isinstance(expected, int)
                                     or not 1 <= expected <= 12):
            raise _bad("'expected_dice' is each player's own dice count, 1 to 12 (or null)")
        return data

    def new(self, params: Mapping[str, Any]) -> Any:
        from hub.games.marcopolo2 import Game

        settings = dict(params.get("settings") or {})
        players = list(params["players"])
        boards = settings.get("boards")
        if boards is not None and sorted(boards) != sorted(players):
            raise _bad("'boards' needs one region for each player: "
                       + ", ".join(players))
        return Game.new(players, **{k: settings[k] for k in self.ENGINE_SETTINGS
                                    if settings.get(k) is not None})

    def check(self, game: Any, action: Any, player: str | None) -> list[dict[str, Any]]:
        return list(game.check(action))  # everyone acts at once: no player to move

    def acting_player(self, action_text: str) -> str | None:
        parts = str(action_text).strip().split(":")
        if parts[0].lower() in ("dice", "comp", "score") and len(parts) >= 2:
            return parts[1]
        return None


GAMES: dict[str, Driver] = {d.kind: d for d in (CamelUp(), HorseRace(), MarcoPolo2())}


def driver(kind: str | None) -> Driver:
    """The driver of ``kind`` (None: Camel Up, the games logged before there was a choice)."""
    try:
        return GAMES[kind or DEFAULT_GAME]
    except KeyError:
        raise IllegalAction("unknown_game", f"unknown game {kind!r}: one of "
                            f"{', '.join(GAMES)}") from None
