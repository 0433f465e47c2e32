"""Camel Up second edition's driver: seven camels, the grey die, spectator tiles, partnerships.

What differs at the table from the first edition: a grey die whose reading (numeral colour and
number) may move the *other* crazy camel (the engine's ``die_read`` event says which and why,
and the dashboard shows it); overall bets with finish cards, secret until the end (a bet with
its colour only from the player's own link); partnerships public. The camera reads the die in
the reveal zone among the six dice (``observe_die``): a confident die is released as read,
the grey die with the shade of its numeral (black or white) that the camera read
(vision.dice.greydie); when the reader abstains or doubts, a person is asked; the starting
position and the seven camels' stacks are entered until the table set-up teaches their colours.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from hub.auth import Access
from hub.errors import RequestError
from hub.games.common import IllegalAction
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
from hub.wire import NUMERAL_SHADES

if TYPE_CHECKING:  # the engine is imported on first use (a hub may never play it)
    from hub.games.camelup2 import Action, GameState  # noqa: F401 (Action: quoted below)

__all__ = ["CamelUp2", "DRIVER"]

CAMERA_LATER = (
    "the camera does not read the second edition's starting position yet (the table set-up "
    'must first learn the seven camels\' colours): give the track, or "random"'
)

#: the grey die's numerals' inks (the camera reads which; a person says it when it cannot)
CRAZY_SHADES = NUMERAL_SHADES


def grey_shade_doubt(reading: Mapping[str, Any], threshold: float) -> str | None:
    """Why the grey die's numeral shade cannot be played as read (None: it can): the reader
    (vision.dice.greydie) names it black or white with a calibrated ``shade_confidence``; an
    abstention or a doubt is asked of a person."""
    shade, conf = reading.get("shade"), reading.get("shade_confidence")
    if shade not in CRAZY_SHADES:
        said = reading.get("reason")
        return "the grey die: is its numeral black or white?" + (f" ({said})" if said else "")
    if not isinstance(conf, int | float) or isinstance(conf, bool) or conf < threshold:
        return f"the grey die's numeral looks {shade}, but not surely: is it black or white?"
    return None


def judge_die(
    reading: Mapping[str, Any], dice_left: list[str], threshold: float
) -> tuple[dict[str, Any], list[str]]:
    """(what was read, why it cannot be played as it is: [] when it can), for the second
    edition's six dice. With one die left in the pyramid its colour is known."""
    from hub.games.camelup2.model import DICE, FACES

    colour, face, conf = reading.get("colour"), reading.get("face"), reading.get("confidence")
    if len(dice_left) == 1 and colour != dice_left[0]:
        colour, conf = dice_left[0], reading.get("face_confidence", conf)
    value: float | None = (
        float(conf) if isinstance(conf, int | float) and not isinstance(conf, bool) else None
    )
    ok_conf = value is not None and 0 <= value <= 1
    shown: dict[str, Any] = {
        "colour": colour if isinstance(colour, str) else None,
        "face": face if isinstance(face, int) and not isinstance(face, bool) else None,
        "confidence": value if ok_conf else None,
    }
    shade = reading.get("shade")
    if shade in CRAZY_SHADES:  # the grey die's numeral, as the reader saw it
        shown["shade"] = shade
    problems = []
    if not ok_conf:
        problems.append("no confidence between 0 and 1 was given")
    if shown["colour"] is None:
        problems.append("no colour was read")
    elif colour not in DICE:
        problems.append(f"{colour!r} is not one of the second edition's dice")
    elif colour not in dice_left:
        problems.append(f"{colour} was already rolled this leg")
    if shown["face"] is None or face not in FACES:
        problems.append(
            f"face {face!r} is not 1, 2 or 3" if face is not None else "no face was read"
        )
    if value is not None and ok_conf and value < threshold:
        problems.append(f"confidence {value:.2f} is below {threshold:.2f}")
    doubt = frame_doubt(reading)  # a preview fallback: never played on its own (issue 14)
    if doubt is not None:
        problems.append(doubt)
    return shown, problems


#: a game of the second edition, as its driver sees it
ThisGame = EngineGame["GameState", "Action"]


class CamelUp2(Driver["GameState", "Action"]):
    kind = GameKind.CAMELUP2
    package = "hub.games.camelup2"
    title = "Camel Up (second edition)"
    script = "camelup2.js"
    has_secrets = True
    default_first_player = 0

    # -- starting ---------------------------------------------------------------------------
    def validate_setup(self, setup: Any) -> None:
        if setup is None or setup == "random":
            return
        if setup == "camera":
            raise ValueError(CAMERA_LATER)
        if not isinstance(setup, dict):
            raise ValueError(
                "'setup' of the second edition is a track {space: [camels bottom "
                'to top], ...} holding all seven camels, or "random"'
            )
        for space, stack in setup.items():
            if not isinstance(stack, list) or not all(isinstance(c, str) for c in stack):
                raise ValueError(f"'setup' as a track: space {space!r} needs a list of camels")

    def start(
        self, p: Payload, camera_setup: Callable[[int | None], dict[str, Any]]
    ) -> tuple[ThisGame, dict[str, Any]]:
        if p.get("settings"):
            raise RequestError(
                f"Camel Up takes no settings: {sorted(p['settings'])[0]!r} is not one",
                "bad_settings",
            )
        if p.get("setup") == "camera" or p.get("setup_id") is not None:
            raise RequestError(CAMERA_LATER, "bad_payload")
        params: dict[str, Any] = {
            "players": list(p["players"]),
            "seed": p.get("seed"),
            "first_player": p.get("first_player") or 0,
        }
        setup = p.get("setup")
        if isinstance(setup, dict):
            params["track"] = {str(k): list(v) for k, v in setup.items()}
        return self.new(params), params

    def new(self, params: Mapping[str, Any]) -> ThisGame:
        from hub.games.camelup2 import Game

        return Game.new(
            params["players"],
            seed=params.get("seed"),
            first_player=params.get("first_player", 0),
            track=params.get("track"),
        )

    # -- views ------------------------------------------------------------------------------
    def full_view(self, state: GameState) -> dict[str, Any]:
        from hub.games.camelup2 import full_view

        return full_view(state)

    def public_event(self, event: dict[str, Any]) -> dict[str, Any]:
        from hub.games.camelup2 import public_event

        return public_event(event)

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
        from hub.games.camelup2 import BetOverall

        try:
            act = self.parse_action(text)
            if isinstance(act, BetOverall) and (player is None or not access.may_act_for(player)):
                raise RequestError(
                    "only the player may choose their bet's colour, from their own link",
                    "forbidden",
                )
            events = game.check(act, player)
        except IllegalAction as exc:
            table.refuse(player, text, exc)
        return table.play(
            act,
            player,
            events,
            {
                "cmd": "action",
                "action": str(act),
                "player": player,
                "resolves": self.answered(game, table.pending, events),
            },
        )

    def observe_die(self, table: Table, game: ThisGame, p: Payload) -> dict[str, Any]:
        """A die the camera read in the reveal zone (firmware.games: among the six dice). A die
        read confidently and still in the pyramid is released as read, the grey die with its
        numeral's ``shade`` (black or white: which crazy camel moves) when the reader is sure
        of it too; any doubtful reading opens a ``die_reading`` prompt a person answers with
        ``confirm`` (colour, face and, for grey, ``shade``)."""
        from hub.games.camelup2 import ReleaseDie
        from hub.games.camelup2.model import GREY

        crop_id = table.keep_crop(p)
        left = list(game.state.dice_left)
        shown, problems = judge_die(p, left, table.threshold)
        player = game.current_player
        grey = shown["colour"] == GREY
        if grey and not problems:  # the numeral's shade decides which crazy camel moves
            why = grey_shade_doubt(p, table.threshold)
            if why is not None:
                problems.append(why)
        if not problems:
            act = ReleaseDie(shown["colour"], shown["face"], p["shade"] if grey else None)
            try:
                events = game.check(act, player)
            except IllegalAction as exc:  # the judge let through what the rules refuse
                problems.append(str(exc))
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
                        "confidence": shown["confidence"],
                    },
                )
        pid = table.next_prompt()
        ev = {
            "type": "vision_uncertain",
            "prompt": pid,
            "player": player,
            "reading": shown,
            "problems": problems,
            "expected_colours": left,
            "crop": crop_id,
        }
        table.log([ev], {"cmd": "observe_die", "crop": crop_id})
        return {"uncertain": True, "prompt": pid, "problems": problems}

    def confirm(
        self, table: Table, game: ThisGame, prompt: Prompt, p: Payload, access: Access
    ) -> dict[str, Any]:
        """A person answers a die reading: ``accept`` it, or give ``colour`` and ``face``;
        the grey die also needs ``shade`` (the numeral's colour, black or white)."""
        from hub.games.camelup2 import ReleaseDie
        from hub.games.camelup2.model import DICE, FACES, GREY

        if prompt["kind"] != "die_reading":
            return super().confirm(table, game, prompt, p, access)
        reading = prompt.get("reading", {})
        if not p.get("accept") and "colour" not in p and "face" not in p:
            raise RequestError("say accept, or give the colour and face seen", "bad_payload")
        colour = p.get("colour", reading.get("colour"))
        face = p.get("face", reading.get("face"))
        shade = p.get("shade")
        if colour not in DICE:
            raise RequestError(f"'colour' must be one of {', '.join(DICE)}", "bad_colour")
        if face not in FACES:
            raise RequestError("'face' must be 1, 2 or 3", "bad_face")
        if colour == GREY and shade not in CRAZY_SHADES:
            raise RequestError(
                "the grey die's numeral: give 'shade', black or white", "bad_payload"
            )
        act = ReleaseDie(colour, int(face), shade if colour == GREY else None)
        return play_confirmed_die(table, game, prompt, act, colour, int(face), access)

    def answered(
        self, game: ThisGame, pending: Mapping[str, Prompt], events: list[dict[str, Any]]
    ) -> list[str]:
        """A die released by hand (an action) answers the open die readings too."""
        out = super().answered(game, pending, events)
        if any(e.get("type") == "die_read" for e in events):
            out += [
                pid for pid, pr in pending.items() if pr["kind"] == "die_reading" and pid not in out
            ]
        return out

    # -- derived and published --------------------------------------------------------------
    def derived(
        self, state: GameState, player: str | None, odds: bool, advice: bool
    ) -> dict[str, Any]:
        """Exact leg odds, simulated race odds (with their standard error), the advice."""
        from dataclasses import replace

        from hub.games.camelup2.advisor import advise, odds_for_state
        from hub.games.camelup2.model import PILES, RACING

        out: dict[str, Any] = {"odds": None, "advice": []}
        if odds:
            out["odds"] = odds_for_state(state)
        if advice and player is not None:
            # the shared screen knows only what the table knows: every hand full, piles colourless
            public = replace(
                state,
                players=tuple(replace(p, finish_cards=frozenset(RACING)) for p in state.players),
                overall={pile: tuple((i, "?") for i, _ in state.overall[pile]) for pile in PILES},
            )
            out["advice"] = advise(public, player, limit=5)
        return out

    def own_advice(self, state: GameState, player: str) -> list[dict[str, Any]] | None:
        """The advisor from ``player``'s own knowledge: their finish cards and the colours of
        their own bets (which spectator tiles and the "both right" words count), the other
        players' cards colourless."""
        from dataclasses import replace

        from hub.games.camelup2.advisor import advise
        from hub.games.camelup2.model import PILES, RACING

        if state.current is None or state.players[state.current].name != player:
            return None
        me = state.current
        own = replace(
            state,
            players=tuple(
                p if i == me else replace(p, finish_cards=frozenset(RACING))
                for i, p in enumerate(state.players)
            ),
            overall={
                pile: tuple((i, c if i == me else "?") for i, c in state.overall[pile])
                for pile in PILES
            },
        )
        return advise(own, player, limit=5)

    def tallies(self, events: Iterable[StoredEventLike], live: set[int]) -> list[dict[str, Any]]:
        out = []
        for e in events:
            if e.type != "leg_scored" or e.seq not in live:
                continue
            ev = e.event
            money = ev.get("money", {})
            out.append(
                {
                    "seq": e.seq,
                    "leg": ev.get("leg"),
                    "winner": ev.get("first"),
                    "runner_up": ev.get("second"),
                    "players": {
                        name: {
                            "tiles": ev.get("tickets", {}).get(name, []),
                            "pyramid_tiles": ev.get("pyramid_tickets", {}).get(name, 0),
                            "partner_gain": ev.get("partner_gain", {}).get(name, 0),
                            "change": ev.get("changes", {}).get(name, 0),
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


DRIVER = CamelUp2()
