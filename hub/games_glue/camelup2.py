"""Camel Up second edition's driver: seven camels, the grey die, spectator tiles, partnerships.

What differs at the table from the first edition: a grey die whose reading (numeral colour and
number) may move the *other* crazy camel (the engine's ``die_read`` event says which and why,
and the dashboard shows it); overall bets with finish cards, secret until the end (a bet with
its colour only from the player's own link); partnerships public. The camera's reading of the
grey die and of the seven camels waits for the table set-up to teach their colours, so dice and
stacks are entered as actions (``roll:grey:white:2``, ``roll:red:3``) until then.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hub.auth import Access
from hub.errors import RequestError
from hub.games.common import IllegalAction
from hub.games.kinds import GameKind
from hub.games_glue.base import TO_MOVE, Driver, Payload, Sensor, StoredEventLike, Table

__all__ = ["CamelUp2", "DRIVER"]

CAMERA_LATER = (
    "the camera does not read the second edition's grey die and seven camels yet (the table "
    "set-up must first learn their colours): enter the die as an action, e.g. "
    "roll:grey:white:2 or roll:red:3"
)


class CamelUp2(Driver):
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
            raise ValueError("'setup' of the second edition is a track {space: [camels bottom "
                             "to top], ...} holding all seven camels, or \"random\"")
        for space, stack in setup.items():
            if not isinstance(stack, list) or not all(isinstance(c, str) for c in stack):
                raise ValueError(f"'setup' as a track: space {space!r} needs a list of camels")

    def start(self, p: Payload, camera_setup: Any) -> tuple[Any, dict[str, Any]]:
        if p.get("settings"):
            raise RequestError("Camel Up takes no settings: "
                               f"{sorted(p['settings'])[0]!r} is not one", "bad_settings")
        if p.get("setup") == "camera" or p.get("setup_id") is not None:
            raise RequestError(CAMERA_LATER, "bad_payload")
        params: dict[str, Any] = {"players": list(p["players"]), "seed": p.get("seed"),
                                  "first_player": p.get("first_player") or 0}
        setup = p.get("setup")
        if isinstance(setup, dict):
            params["track"] = {str(k): list(v) for k, v in setup.items()}
        return self.new(params), params

    def new(self, params: Mapping[str, Any]) -> Any:
        from hub.games.camelup2 import Game

        return Game.new(params["players"], seed=params.get("seed"),
                        first_player=params.get("first_player", 0), track=params.get("track"))

    # -- views ------------------------------------------------------------------------------
    def full_view(self, state: Any) -> dict[str, Any]:
        from hub.games.camelup2 import full_view

        return full_view(state)

    def public_event(self, event: dict[str, Any]) -> dict[str, Any]:
        from hub.games.camelup2 import public_event

        return public_event(event)

    # -- actions ----------------------------------------------------------------------------
    def players(self, game: Any) -> list[str]:
        return list(game.state.names)

    def public_action(self, action: str) -> str:
        """A bet without its colour."""
        parts = str(action).split(":")
        return ":".join(parts[:2]) if parts and parts[0] == "bet" else str(action)

    def action(self, table: Table, game: Any, player: str | None, text: str,
               access: Access) -> dict[str, Any]:
        from hub.games.camelup2 import BetOverall

        try:
            act = self.parse_action(text)
            if isinstance(act, BetOverall) and (player is None
                                                or not access.may_act_for(player)):
                raise RequestError("only the player may choose their bet's colour, from "
                                   "their own link", "forbidden")
            events = game.check(act, player)
        except IllegalAction as exc:
            table.refuse(player, text, exc)
        return table.play(act, player, events, {"cmd": "action", "action": str(act),
                                                "player": player, "resolves": []})

    def observe_die(self, table: Table, game: Any, p: Payload) -> dict[str, Any]:
        raise RequestError(CAMERA_LATER, "wrong_game")

    # -- derived and published --------------------------------------------------------------
    def derived(self, state: Any, player: str | None, odds: bool,
                advice: bool) -> dict[str, Any]:
        """Exact leg odds, simulated race odds (with their standard error), the advice."""
        from dataclasses import replace

        from hub.games.camelup2.advisor import advise, odds_for_state
        from hub.games.camelup2.model import PILES, RACING

        out: dict[str, Any] = {"odds": None, "advice": []}
        if odds:
            out["odds"] = odds_for_state(state)
        if advice and player is not None:
            # the shared screen knows only what the table knows: every hand full, piles colourless
            public = replace(state, players=tuple(replace(p, finish_cards=frozenset(RACING))
                                                  for p in state.players),
                             overall={pile: tuple((i, "?") for i, _ in state.overall[pile])
                                      for pile in PILES})
            out["advice"] = advise(public, player, limit=5)
        return out

    def tallies(self, events: Iterable[StoredEventLike],
                live: set[int]) -> list[dict[str, Any]]:
        out = []
        for e in events:
            if e.type != "leg_scored" or e.seq not in live:
                continue
            ev = e.event
            money = ev.get("money", {})
            out.append({
                "seq": e.seq, "leg": ev.get("leg"),
                "winner": ev.get("first"), "runner_up": ev.get("second"),
                "players": {name: {"tiles": ev.get("tickets", {}).get(name, []),
                                   "pyramid_tiles": ev.get("pyramid_tickets", {}).get(name, 0),
                                   "partner_gain": ev.get("partner_gain", {}).get(name, 0),
                                   "change": ev.get("changes", {}).get(name, 0),
                                   "money": money.get(name)}
                            for name in money},
            })
        return out

    def sensors(self) -> list[Sensor]:
        return [
            Sensor("leg", "Leg", "{{ value_json.game.leg if value_json.game else 0 }}",
                   {"icon": "mdi:flag-checkered"}),
            TO_MOVE,
            Sensor("dice_left", "Dice in the pyramid",
                   "{{ value_json.game.dice_left | length if value_json.game else 0 }}",
                   {"icon": "mdi:dice-multiple"}),
        ]


DRIVER = CamelUp2()
