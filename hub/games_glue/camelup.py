"""Camel Up's driver: the pyramid's dice, the track, overall bets chosen in secret, leg tallies.

What only Camel Up has at the table: a die the camera reads becomes ``roll:<colour>:<face>``
when it is confident and fits the game (``hub.games.camelup.camera.judge_die``), else a person
is asked (``vision_uncertain``); a still track is compared space by space (``track_mismatch``);
an overall bet tapped on the shared screen (``bet:winner``) asks the player for the colour on
their own page (``bet_pending``), because the colour is secret until the race ends; the setup
roll is read by the camera before a game exists (``hub.setup_reading``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from hub.auth import Access
from hub.errors import RequestError
from hub.games.camelup import COLOURS, Action, BetOverall, GameState, IllegalAction, ReleaseDie
from hub.games.camelup import camera as observations
from hub.games.kinds import GameKind
from hub.games_glue.base import (
    TO_MOVE,
    Driver,
    EngineGame,
    Payload,
    Sensor,
    StoredEventLike,
    Table,
    play_confirmed_die,
)
from hub.observations import frame_doubt
from hub.prompts import Prompt

__all__ = ["CamelUp", "DRIVER"]


def _bet_text(pile: str, colour: str | None = None) -> str:
    return f"bet:{pile}" if colour is None else f"bet:{pile}:{colour}"


#: a game of Camel Up (the first edition), as its driver sees it
ThisGame = EngineGame[GameState, Action]


class CamelUp(Driver[GameState, Action]):
    kind = GameKind.CAMELUP
    package = "hub.games.camelup"
    title = "Camel Up"
    has_secrets = True
    default_first_player = 0
    #: the setup roll: one die of each colour
    setup_dice = len(COLOURS)

    # -- starting ---------------------------------------------------------------------------
    def validate_setup(self, setup: Any) -> None:
        if setup is None:
            return
        if isinstance(setup, str):
            if setup not in ("camera", "random"):
                raise ValueError(
                    "'setup' as text is \"camera\" (the camera's setup reading) or "
                    '"random" (the hub rolls it)'
                )
        elif isinstance(setup, list):
            for item in setup:
                if (
                    not isinstance(item, list | tuple)
                    or len(item) != 2
                    or item[0] not in COLOURS
                    or isinstance(item[1], bool)
                    or not isinstance(item[1], int)
                ):
                    raise ValueError(
                        "'setup' is the setup roll: [[colour, face], ...] for the five dice"
                    )
        elif isinstance(setup, dict):
            for space, stack in setup.items():
                if not isinstance(stack, list) or not all(isinstance(c, str) for c in stack):
                    raise ValueError(f"'setup' as a track: space {space!r} needs a list of colours")
        else:
            raise ValueError(
                "'setup' is a setup roll [[colour, face], ...], a track "
                '{space: [...]}, "camera" or "random"'
            )

    def start(
        self, p: Payload, camera_setup: Callable[[int | None], dict[str, Any]]
    ) -> tuple[ThisGame, dict[str, Any]]:
        if p.get("settings"):
            raise RequestError(
                f"Camel Up takes no settings: {sorted(p['settings'])[0]!r} is not one",
                "bad_settings",
            )
        params: dict[str, Any] = {
            "players": list(p["players"]),
            "seed": p.get("seed"),
            "first_player": p.get("first_player") or 0,
        }
        setup = p.get("setup")
        if setup == "camera":
            reading = camera_setup(p.get("setup_id"))
            params["setup_from"] = f"camera:{reading['source']}"
            setup = reading["dice"] if reading["source"] == "dice" else reading["track"]
        elif setup == "random":
            setup = None
        elif isinstance(setup, str):
            raise RequestError(
                f'unknown setup {setup!r}: "camera", "random", a roll or a track', "bad_payload"
            )
        if isinstance(setup, dict):
            params["track"] = {str(k): list(v) for k, v in setup.items()}
        elif setup is not None:
            params["setup"] = [[str(c), f] for c, f in setup]
        return self.new(params), params  # raises IllegalAction on a bad setup

    def new(self, params: Mapping[str, Any]) -> ThisGame:
        from hub.games.camelup import Game

        kwargs: dict[str, Any] = {
            "seed": params.get("seed"),
            "first_player": params.get("first_player", 0),
        }
        if params.get("track") is not None:
            kwargs["track"] = params["track"]
        elif params.get("setup") is not None:
            kwargs["setup"] = [(c, f) for c, f in params["setup"]]
        return Game.new(params["players"], **kwargs)

    # -- the setup reading (read by the camera before a game starts) --------------------------
    def setup_from_dice(
        self, dice: list[Mapping[str, Any] | None], threshold: float
    ) -> dict[str, Any]:
        return observations.setup_from_dice(dice, threshold)

    def setup_from_track(self, p: Payload) -> dict[str, Any]:
        return observations.setup_from_track(p)

    def looks_like_start(self, p: Payload) -> bool:
        """A track read that could be a game's start: every camel on space 1, 2 or 3."""
        stacks, _, _ = observations.parse_track_reading(p)
        return bool(stacks) and all(s in observations.START_SPACES for s in stacks)

    # -- views ------------------------------------------------------------------------------
    def public_view(self, state: GameState) -> dict[str, Any]:
        view = super().public_view(state)
        view.setdefault("game", GameKind.CAMELUP.value)
        return view

    def player_view(self, state: GameState, name: str) -> dict[str, Any]:
        view = super().player_view(state, name)
        view.setdefault("game", GameKind.CAMELUP.value)
        return view

    def full_view(self, state: GameState) -> dict[str, Any]:
        from hub.games.camelup import full_view

        return full_view(state)

    def public_event(self, event: dict[str, Any]) -> dict[str, Any]:
        from hub.games.camelup import public_event

        return public_event(event)

    def annotate(self, event: dict[str, Any], cause: Mapping[str, Any]) -> dict[str, Any]:
        """A die read: its crop and confidence, and whether the camera or a person read it."""
        if event.get("type") == "die_read" and cause.get("cmd") in ("observe_die", "confirm"):
            event = {
                **event,
                "crop": cause.get("crop"),
                "confidence": cause.get("confidence"),
                "source": "vision" if cause["cmd"] == "observe_die" else "confirmed",
            }
        return event

    # -- actions ----------------------------------------------------------------------------
    def players(self, game: ThisGame) -> list[str]:
        return list(game.state.names)

    def public_action(self, action: str) -> str:
        """A bet without its colour."""
        parts = str(action).split(":")
        return ":".join(parts[:2]) if parts and parts[0] == "bet" else str(action)

    def action(
        self, table: Table, game: ThisGame, player: str | None, text: str, access: Access
    ) -> dict[str, Any]:
        assert player is not None
        parts = text.strip().lower().split(":")
        if parts[0] == "bet" and len(parts) == 2:
            return self._bet_pending(table, game, player, parts[1])
        try:
            act = self.parse_action(text)
            if isinstance(act, BetOverall) and not access.may_act_for(player):
                raise RequestError(
                    "only the player may choose their bet's colour, from their own link",
                    "forbidden",
                )
            events = game.check(act, player)
        except IllegalAction as exc:
            table.refuse(player, text, exc)
        resolves = [
            k
            for k, v in table.pending.items()
            if v["kind"] == "bet_colour" and v["player"] == player
        ]
        return table.play(
            act,
            player,
            events,
            {"cmd": "action", "action": str(act), "player": player, "resolves": resolves},
        )

    def _bet_pending(self, table: Table, game: ThisGame, player: str, pile: str) -> dict[str, Any]:
        """ "bet:winner" from the shared screen: check it could be legal, then ask the player
        for the colour on their own page (a ``bet_colour`` prompt)."""
        if game.current_player != player:
            try:  # the engine words the refusal (unknown player, not your turn, game over)
                game.check(BetOverall(pile, COLOURS[0]), player)
            except IllegalAction as exc:
                table.refuse(player, _bet_text(pile), exc)
        if not any(isinstance(a, BetOverall) and a.pile == pile for a in game.legal_actions()):
            table.refuse(
                player,
                _bet_text(pile),
                IllegalAction("no_race_card", f"{player} has no race card left to bet with."),
            )
        for k, v in table.pending.items():
            if v["kind"] == "bet_colour" and v["player"] == player:
                return {"prompt": k, "pending": True}
        pid = table.next_prompt()
        table.log(
            [{"type": "bet_pending", "prompt": pid, "player": player, "pile": pile}],
            {"cmd": "action", "action": _bet_text(pile)},
        )
        return {"prompt": pid, "pending": True}

    def confirm(
        self, table: Table, game: ThisGame, prompt: Prompt, p: Payload, access: Access
    ) -> dict[str, Any]:
        if "colour" in p and p["colour"] not in COLOURS:
            raise RequestError(f"'colour' must be one of {', '.join(COLOURS)}", "bad_colour")
        if prompt["kind"] == "bet_colour":
            colour = p.get("colour")
            if colour is None:
                raise RequestError("choose the colour of the bet", "bad_payload")
            return self.action(
                table, game, prompt["player"], _bet_text(prompt["pile"], colour), access
            )
        if prompt["kind"] != "die_reading":
            return super().confirm(table, game, prompt, p, access)
        reading = prompt.get("reading", {})
        colour = p.get("colour", reading.get("colour"))
        face = p.get("face", reading.get("face"))
        if not p.get("accept") and "colour" not in p and "face" not in p:
            raise RequestError("say accept, or give the colour and face seen", "bad_payload")
        if colour not in COLOURS or face not in (1, 2, 3):
            raise RequestError(
                f"the reading cannot be accepted as it is ({colour} {face}): give the colour "
                "and the face seen",
                "bad_face" if colour in COLOURS else "bad_colour",
            )
        act = ReleaseDie(colour, int(face))
        return play_confirmed_die(table, game, prompt, act, colour, int(face), access)

    def undo_dismisses(self, prompt: Prompt) -> bool:
        """Undoing a "bet:winner" tapped by mistake drops the open colour prompt."""
        return bool(prompt["kind"] == "bet_colour")

    # -- the camera -------------------------------------------------------------------------
    def observe_die(self, table: Table, game: ThisGame, p: Payload) -> dict[str, Any]:
        crop_id = table.keep_crop(p)
        state = game.state
        verdict = observations.judge_die(p, list(state.dice_left), table.threshold)
        doubt = frame_doubt(p)  # a preview fallback: never played on its own (issue 14)
        if doubt is not None:
            verdict = verdict.refused(doubt)
        player = game.current_player
        if verdict.ok:
            assert verdict.colour is not None and verdict.face is not None
            act = ReleaseDie(verdict.colour, verdict.face)
            try:
                events = game.check(act, player)
            except IllegalAction as exc:  # judge_die let through what the rules refuse
                verdict = verdict.refused(str(exc))
            else:
                return table.play(
                    act,
                    player,
                    events,
                    {
                        "cmd": "observe_die",
                        "action": str(act),
                        "player": player,
                        "crop": crop_id,
                        "confidence": verdict.confidence,
                        "inferred": verdict.inferred,
                    },
                )
        pid = table.next_prompt()
        ev = {
            "type": "vision_uncertain",
            "prompt": pid,
            "player": player,
            "reading": verdict.reading,
            "problems": verdict.problems,
            "expected_colours": list(state.dice_left),
            "crop": crop_id,
        }
        table.log([ev], {"cmd": "observe_die", "crop": crop_id})
        return {"uncertain": True, "prompt": pid, "problems": verdict.problems}

    def observe_track(self, table: Table, game: ThisGame, p: Payload) -> dict[str, Any]:
        view = self.public_view(game.state)
        diffs = observations.compare_track(view["track"], view["desert"], p)
        if not diffs:
            return {"match": True}
        ev = {
            "type": "track_mismatch",
            "differences": [d["text"] for d in diffs],
            "spaces": sorted({d["space"] for d in diffs}),
        }
        table.log([ev], {"cmd": "observe_track"})
        return {"match": False, "differences": ev["differences"]}

    # -- derived and published --------------------------------------------------------------
    def derived(
        self, state: GameState, player: str | None, odds: bool, advice: bool
    ) -> dict[str, Any]:
        """Exact leg and race odds, and the advisor's ranked list."""
        from hub.games.camelup.advisor import advise, odds_for_state
        from hub.games.camelup.views import public_state

        out: dict[str, Any] = {"odds": None, "advice": []}
        if odds:
            out["odds"] = odds_for_state(state)
        if advice and player is not None:
            # the shared screen knows only what the table knows: rating bets from the full state
            # would show which race cards the player to move has already played
            out["advice"] = advise(public_state(state), player, limit=5)
        return out

    def own_advice(self, state: GameState, player: str) -> list[dict[str, Any]] | None:
        """The advisor from ``player``'s own knowledge: their race cards and the colours of
        their own overall bets (which desert tiles and the "both right" words count), the
        other players' bets colourless."""
        from hub.games.camelup.advisor import advise
        from hub.games.camelup.views import own_state

        if state.current is None or state.players[state.current].name != player:
            return None
        return advise(own_state(state, player), player, limit=5)

    def tallies(self, events: Iterable[StoredEventLike], live: set[int]) -> list[dict[str, Any]]:
        """The stage-end tally of every leg scored (undone legs left out)."""
        out = []
        for e in events:
            if e.type != "leg_scored" or e.seq not in live:
                continue
            ev = e.event
            money = ev.get("money", {})
            changes = ev.get("changes", {})
            tiles = ev.get("tiles", {})
            pyramid = ev.get("pyramid_tiles", {})
            out.append(
                {
                    "seq": e.seq,
                    "leg": ev.get("leg"),
                    "winner": ev.get("first"),
                    "runner_up": ev.get("second"),
                    "players": {
                        name: {
                            "tiles": tiles.get(name, []),
                            "pyramid_tiles": pyramid.get(name, 0),
                            "change": changes.get(name, 0),
                            "money": money.get(name),
                        }
                        for name in money
                    },
                }
            )
        return out

    def sensors(self) -> list[Sensor]:
        return [
            Sensor(
                "leg",
                "Leg",
                "{{ value_json.game.leg if value_json.game else 0 }}",
                {"icon": "mdi:flag-checkered"},
            ),
            TO_MOVE,
            Sensor(
                "dice_left",
                "Dice in the pyramid",
                "{{ value_json.game.dice_left | length if value_json.game else 0 }}",
                {"icon": "mdi:dice-multiple"},
            ),
        ]


DRIVER = CamelUp()
