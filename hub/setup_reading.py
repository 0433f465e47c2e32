"""The setup the camera reads while no game runs: the starting roll's dice, or the starting track.

Why it is not logged: it changes no game, and the game it starts records its track in its own
``game_started`` event. A restart loses it; the firmware reads the setup again on its confirm
button. The rules of what a setup is (which dice, which spaces) are the pyramid's game's: this
module keeps the readings and their order, the game's driver (``rules``) judges them.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Protocol

from hub.errors import RequestError

__all__ = ["SetupReadings", "SetupRules", "refuse_in_game"]


class SetupRules(Protocol):
    """What the setup reading needs of the game whose start the camera reads."""

    setup_dice: int

    def setup_from_dice(
        self, dice: list[Mapping[str, Any] | None], threshold: float
    ) -> dict[str, Any]: ...

    def setup_from_track(self, p: Mapping[str, Any]) -> dict[str, Any]: ...

    def looks_like_start(self, p: Mapping[str, Any]) -> bool: ...


def copy_reading(reading: Mapping[str, Any]) -> dict[str, Any]:
    """A setup reading as the snapshot shows it: JSON-ready, without the session's internals."""
    out = {k: v for k, v in reading.items() if k != "pass"}
    out["track"] = {k: list(v) for k, v in reading["track"].items()}
    out["problems"] = list(reading["problems"])
    out["notes"] = list(reading["notes"])
    if "dice" in reading:
        out["dice"] = [list(d) for d in reading["dice"]]
    return out


def refuse_in_game(what: str, playing: str | None) -> None:
    """Setup readings are taken before a game starts: RequestError ("setup_in_game") while the
    game ``playing`` is played (None: no game is)."""
    if playing is not None:
        raise RequestError(
            f"setup readings are taken before a game starts: this {what} was not played "
            f"(game {playing} is being played)",
            "setup_in_game",
        )


class SetupReadings:
    """The latest setup readings (dice and track); the newest wins (see :meth:`reading`).

    Not thread-safe by itself: the session calls it under its lock."""

    def __init__(self, rules: SetupRules) -> None:
        self.rules = rules
        self._pass: dict[str, Any] | None = None  # the dice of the setup pass being read
        self._dice: dict[str, Any] | None = None
        self._track: dict[str, Any] | None = None
        self._ids = 0

    def clear(self) -> None:
        """A game started from them: they are used up."""
        self._pass = self._dice = self._track = None

    def reading(self) -> dict[str, Any] | None:
        """The setup the camera saw last while no game ran (``start_game`` with setup "camera").

        The newest reading wins, with one exception: the firmware reads the five setup dice and
        then the track; when that track read is incomplete (a stack hidden, a camel unseen) and
        the dice were complete, the dice reading is offered, noting why the track was not.
        """
        dice, track = self._dice, self._track
        if dice is None or track is None:
            chosen = dice or track
            return None if chosen is None else copy_reading(chosen)
        if track["id"] > dice["id"] and (track["complete"] or not dice["complete"]):
            return copy_reading(track)
        if dice["id"] > track["id"]:
            return copy_reading(dice)
        out = copy_reading(dice)
        out["notes"].append(
            "the track read after the dice could not be used: " + "; ".join(track["problems"])
        )
        return out

    def _next_id(self) -> int:
        self._ids += 1
        return self._ids

    def add_die(self, p: Mapping[str, Any], threshold: float) -> None:
        """One die of the setup roll (``index`` of ``of`` in the firmware's pass): gathered into
        the pass, whose dice make the setup reading. Never a move."""
        index, of = p.get("index"), p.get("of")
        n_dice = self.rules.setup_dice
        buf = self._pass
        if (
            buf is None
            or index == 0
            or (of is not None and buf["of"] != of)
            or (index is None and len(buf["dice"]) >= (buf["of"] or n_dice))
            or index in buf["dice"]
        ):
            buf = self._pass = {"of": of, "dice": {}}
        if index is None:
            index = max(buf["dice"], default=-1) + 1
        buf["dice"][index] = {k: p.get(k) for k in ("colour", "face", "confidence", "reason")}
        n = buf["of"] if buf["of"] is not None else max(n_dice, max(buf["dice"]) + 1)
        reading = self.rules.setup_from_dice([buf["dice"].get(i) for i in range(n)], threshold)
        if self._dice is not None and self._dice.get("pass") is buf:
            reading["id"] = self._dice["id"]  # the same pass: the same reading, grown
        else:
            reading["id"] = self._next_id()
        reading.update(ts=time.time(), **{"pass": buf})
        self._dice = reading
        if self._track is not None and self._track["id"] > reading["id"]:
            reading["id"] = self._next_id()  # it just grew: newest wins

    def add_track(self, p: Mapping[str, Any]) -> None:
        reading = self.rules.setup_from_track(p)  # raises TrackError on a malformed reading
        reading.update(id=self._next_id(), ts=time.time())
        self._track = reading

    def is_setup_track(
        self, p: Mapping[str, Any], playing: str | None, after_finished: bool
    ) -> bool:
        """A track read is a setup reading when no game runs or the firmware says so; after a
        finished game only when it looks like a start, so the last move's read is still checked
        against the game. ``playing``: the game being played (None: none); ``after_finished``:
        the table's last game ended (not abandoned, not never started)."""
        if p.get("mode") == "setup":
            refuse_in_game("track read", playing)
            return True
        if playing is not None:
            return False
        return not after_finished or self.rules.looks_like_start(p)

    def for_start(self, setup_id: int | None) -> dict[str, Any]:
        """The setup reading a game may start from; RequestError when there is none usable."""
        reading = self.reading()
        if reading is None:
            raise RequestError(
                "the camera has not read a setup yet: lay out the camels (or roll the five "
                "dice) with the pyramid in setup mode and press its confirm button, or enter "
                "the roll",
                "no_setup_reading",
            )
        if not reading["complete"]:
            raise RequestError(
                "the camera's setup reading is incomplete ("
                + "; ".join(reading["problems"])
                + "): read it again, or enter the roll",
                "setup_reading_incomplete",
            )
        if setup_id is not None and setup_id != reading["id"]:
            raise RequestError(
                f"the camera read the setup again since reading {setup_id} was shown (now "
                f"reading {reading['id']}): look at it and start again",
                "setup_reading_changed",
            )
        return reading
