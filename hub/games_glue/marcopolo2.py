"""Marco Polo II's driver, and the camera at its round start: one frame's die readings become
each player's dice.

Pure. ``actions_from_readings`` (the engine's glue) sorts the readings to players, using the
boards' regions (a table setting given at ``start_game``) for the black dice. A player read
completely gets a ``dice:<player>:...`` action; everything else (a die the camera could not read,
a black die on no board, a player with too few dice) goes to a person as one prompt, never into a
total: a wrong total would mean wrong compensation.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from hub.auth import Access
from hub.errors import RequestError
from hub.games.common import IllegalAction
from hub.games.kinds import GameKind
from hub.games.marcopolo2 import Action, ReadDice, State, actions_from_readings
from hub.games_glue.base import Driver, EngineGame, Payload, Table, bad_settings
from hub.prompts import Prompt

__all__ = ["DRIVER", "MarcoPolo2", "judge_frame"]


def judge_frame(
    state: State,
    readings: Sequence[Mapping[str, Any]],
    boards: Mapping[str, Sequence[float]] | None,
    threshold: float,
    expected_dice: int | None = None,
) -> tuple[list[ReadDice], dict[str, Any] | None]:
    """(the actions to play, the prompt's content or None).

    A player whose dice the game already holds exactly as read gets no action (a second frame of
    the same dice changes nothing); one who has taken compensation keeps their dice, and a
    different reading of them goes to the person."""
    box_map: dict[str, tuple[float, float, float, float]] = {
        p: (float(b[0]), float(b[1]), float(b[2]), float(b[3])) for p, b in (boards or {}).items()
    }
    actions, sorted_ = actions_from_readings(
        state,
        list(readings),
        box_map or None,
        min_confidence=threshold,
        expected_dice=expected_dice,
    )
    out: list[ReadDice] = []
    notes: list[dict[str, Any]] = list(sorted_.needs_person)
    for act in actions:
        held = state.dice.get(act.player)
        if (
            held is not None
            and sorted(held["faces"]) == list(act.faces)
            and sorted(held["black"]) == list(act.black)
        ):
            continue
        if act.player in state.compensation:
            notes.append(
                {
                    "index": None,
                    "box": None,
                    "colour": state.colours[act.player],
                    "face": None,
                    "confidence": None,
                    "board": act.player,
                    "reason": f"{act.player} has taken compensation for other dice "
                    f"({state.dice[act.player]['total']}); undo that first",
                }
            )
            continue
        out.append(act)
    unread = [p for p, d in sorted_.players.items() if not d.complete and p not in state.dice]
    if not notes and not unread:
        return out, None
    return out, {
        "round": state.round,
        "players": unread,
        "needs_person": notes,
        "neutral": sorted_.neutral,
        "read": {p: d.to_json() for p, d in sorted_.players.items()},
    }


#: a game of Marco Polo II, as its driver sees it
ThisGame = EngineGame[State, Action]


class MarcoPolo2(Driver[State, Action]):
    kind = GameKind.MARCOPOLO2
    package = "hub.games.marcopolo2"
    title = "Marco Polo II"
    script = "marcopolo2.js"
    #: ``boards`` and ``expected_dice`` are the table's (how the camera's frame is read), the
    #: others the engine's
    settings = frozenset({"colours", "banner_table", "boards", "expected_dice"})
    ENGINE_SETTINGS = ("colours", "banner_table")
    everyone_acts = True

    def check_settings(self, given: Mapping[str, Any]) -> dict[str, Any]:
        data = super().check_settings(given)
        colours = data.get("colours")
        if colours is not None and not (
            (isinstance(colours, list) and all(isinstance(c, str) for c in colours))
            or (isinstance(colours, dict) and all(isinstance(c, str) for c in colours.values()))
        ):
            raise bad_settings("'colours' is a list of colours in seat order or {player: colour}")
        table = data.get("banner_table")
        if table is not None and (
            not isinstance(table, list)
            or len(table) > 32
            or any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in table)
        ):
            raise bad_settings(
                "'banner_table' is a list of whole numbers >= 0: the points for "
                "0, 1, 2, ... banners"
            )
        boards = data.get("boards")
        if boards is not None:
            if not isinstance(boards, dict):
                raise bad_settings(
                    "'boards' maps each player to their board's region "
                    "[x, y, w, h] in the camera's frame"
                )
            for name, box in boards.items():
                if (
                    not isinstance(box, list)
                    or len(box) != 4
                    or any(
                        isinstance(v, bool)
                        or not isinstance(v, int | float)
                        or not math.isfinite(v)
                        for v in box
                    )
                    or box[2] <= 0
                    or box[3] <= 0
                ):
                    raise bad_settings(f"the board of {name!r} must be [x, y, w, h] with w, h > 0")
        expected = data.get("expected_dice")
        if expected is not None and (
            isinstance(expected, bool) or not isinstance(expected, int) or not 1 <= expected <= 12
        ):
            raise bad_settings("'expected_dice' is each player's own dice count, 1 to 12 (or null)")
        return data

    def new(self, params: Mapping[str, Any]) -> ThisGame:
        from hub.games.marcopolo2 import Game

        settings = dict(params.get("settings") or {})
        players = list(params["players"])
        boards = settings.get("boards")
        if boards is not None and sorted(boards) != sorted(players):
            raise bad_settings("'boards' needs one region for each player: " + ", ".join(players))
        return Game.new(
            players, **{k: settings[k] for k in self.ENGINE_SETTINGS if settings.get(k) is not None}
        )

    def check(self, game: ThisGame, action: Action, player: str | None) -> list[dict[str, Any]]:
        return list(game.check(action))  # everyone acts at once: no player to move

    def players(self, game: ThisGame) -> list[str]:
        return list(game.state.players)

    def acting_player(self, action_text: str) -> str | None:
        parts = str(action_text).strip().split(":")
        if parts[0].lower() in ("dice", "comp", "score") and len(parts) >= 2:
            return parts[1]
        return None

    def confirm(
        self, table: Table, game: ThisGame, prompt: Prompt, p: Payload, access: Access
    ) -> dict[str, Any]:
        if prompt["kind"] == "dice_check":
            raise RequestError(
                "enter each unread player's dice (dice:<player>:<faces>), or dismiss the prompt",
                "bad_payload",
            )
        return super().confirm(table, game, prompt, p, access)

    def observe_die(self, table: Table, game: ThisGame, p: Payload) -> dict[str, Any]:
        raise RequestError(
            "Marco Polo II reads all the dice of a frame at once: send them with observe_dice",
            "wrong_game",
        )

    def observe_dice(self, table: Table, game: ThisGame, p: Payload) -> dict[str, Any]:
        """All die readings of one frame: each player read completely gets their dice; the
        rest is one prompt for a person."""
        settings = table.params.get("settings") or {}
        try:
            actions, doubt = judge_frame(
                game.state,
                p["readings"],
                settings.get("boards"),
                table.threshold,
                settings.get("expected_dice"),
            )
        except IllegalAction as exc:
            raise RequestError(str(exc), exc.reason) from None
        played = []
        for act in actions:
            try:
                events = self.check(game, act, None)
            except IllegalAction as exc:  # pragma: no cover - judge_frame leaves these out
                doubt = doubt or {
                    "round": game.state.round,
                    "players": [],
                    "needs_person": [],
                    "neutral": [],
                    "read": {},
                }
                doubt["needs_person"].append({"board": act.player, "reason": str(exc)})
                continue
            table.play(
                act,
                None,
                events,
                {
                    "cmd": "observe_dice",
                    "action": str(act),
                    "player": act.player,
                    "resolves": self.answered(game, table.pending, events),
                },
            )
            played.append(str(act))
        out: dict[str, Any] = {"played": played}
        if doubt is not None:
            stale = [k for k, v in table.pending.items() if v["kind"] == "dice_check"]
            pid = table.next_prompt()
            ev = {"type": "dice_uncertain", "prompt": pid, **doubt}
            table.log([ev], {"cmd": "observe_dice", "resolves": stale})
            out.update(
                uncertain=True,
                prompt=pid,
                players=doubt["players"],
                problems=[d["reason"] for d in doubt["needs_person"]],
            )
        return out


DRIVER = MarcoPolo2()
