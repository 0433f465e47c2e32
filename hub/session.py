"""A table's session: one game at a time, kept in the durable event log.

Why the session is shaped this way:

- The log is the truth. Every command ends in :meth:`TableSession._commit`, which appends the
  events to SQLite (one transaction, fsync'd) *before* the in-memory game changes and before the
  bus tells anyone. After a crash, :meth:`TableSession.__init__` replays the log through the engine
  and the table is exactly as it was, pending prompts included.
- Undo and corrections are new events, never edits: an ``undo`` hub event pops the last engine
  action on replay; a ``correction`` event records what a person changed in a vision reading.
- The engine's own events are stored untouched (so replay is plain ``Game.replay``); what the hub
  knows beside them (the crop of a die read, its confidence) rides in the batch's ``cause``.
- Secrets: envelopes, snapshots and the log served to anyone carry ``public_event``s only.
- The setup reading (what the camera saw of the starting roll or the starting track while no game
  runs) is *not* logged: it changes no game, and the game it starts records its track in its own
  ``game_started`` event. A restart loses it; the firmware reads the setup again on its confirm
  button.

- The game is chosen when a game starts (``"game"``: camelup, horserace or marcopolo2) and kept
  as the game record's ``kind``; :mod:`hub.games_glue` has one driver per game, so replay, views,
  actions and the camera's readings follow the game without a branch per game here, except
  where the table's prompts differ (a Camel Up die, a horse-race roll, a Marco Polo frame).

Commands arrive through :mod:`hub.requests` (validation and authorisation, shared by MQTT and
HTTP); the methods here named ``cmd_*`` assume their arguments were checked there. Firmware on
the same Pi calls :meth:`TableSession.observe` directly.
"""

from __future__ import annotations

import base64
import binascii
import logging
import secrets
import threading
import time
from collections.abc import Iterable
from typing import Any

from hub import observations
from hub.auth import Access, Authority
from hub.bus import Envelope, EventBus
from hub.games.camelup import (
    COLOURS,
    BetOverall,
    Game,
    IllegalAction,
    ReleaseDie,
    parse_action,
    public_event,
    public_view,
)
from hub.games_glue import Driver, driver
from hub.store import GameRecord, Store, StoredEvent

log = logging.getLogger(__name__)

__all__ = ["TableSession", "RequestError", "HUB_EVENTS", "DEFAULT_THRESHOLD"]

#: The die reader's calibrated acceptance threshold (see hub.observations).
DEFAULT_THRESHOLD = observations.DIE_CONFIDENCE_THRESHOLD

#: Events the hub itself writes (the engine writes the others).
HUB_EVENTS = (
    "die_released",
    "vision_uncertain",
    "track_mismatch",
    "action_refused",
    "correction",
    "undo",
    "bet_pending",
    "prompt_dismissed",
    "game_abandoned",
    "roll_uncertain",
    "dice_uncertain",
)


class RequestError(ValueError):
    """A command that cannot be carried out; nothing changed. ``reason`` is a machine code."""

    def __init__(self, message: str, reason: str, seq: int | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.seq = seq  # the action_refused event logged for it, if any


def _bet_text(pile: str, colour: str | None = None) -> str:
    return f"bet:{pile}" if colour is None else f"bet:{pile}:{colour}"


def _redact_action(action: str) -> str:
    """An action as everyone may see it: a bet without its colour."""
    parts = str(action).split(":")
    return ":".join(parts[:2]) if parts and parts[0] == "bet" else str(action)


class TableSession:
    """One table: its current game, its past games, its pending prompts.

    Thread-safe: every command runs under one lock, and publishes on the bus under it, so the
    bus sees events in seq order.
    """

    def __init__(
        self,
        table_id: str,
        store: Store,
        bus: EventBus | None = None,
        pin: str | None = None,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        odds: bool = True,
        advice: bool = True,
        derived: Any = None,
    ) -> None:
        if not isinstance(table_id, str) or not table_id or any(c in table_id for c in "/+#"):
            raise ValueError(f"a table id is a non-empty name without / + #, not {table_id!r}")
        self.table_id = table_id
        self.store = store
        self.bus = bus if bus is not None else EventBus(table_id)
        self.authority = Authority(table_id, store, pin)
        self.threshold = float(threshold)
        self.with_odds = odds
        self.with_advice = advice
        self.derived = derived  # a hub.derived.DerivedWorker: odds off the event path
        self.firmware: dict[str, Any] = {}
        self._lock = threading.RLock()
        self._derived: tuple[int, dict[str, Any]] | None = None
        self.record: GameRecord | None = None
        self.game: Game | None = None
        self.pending: dict[str, dict[str, Any]] = {}
        self._engine_batches: list[list[int]] = []  # seqs of each live engine action, for undo
        # the latest setup readings while no game runs (not logged: see the module docstring)
        self._setup_pass: dict[str, Any] | None = None  # the dice of the setup pass being read
        self._setup_dice: dict[str, Any] | None = None
        self._setup_track: dict[str, Any] | None = None
        self._setup_ids = 0
        self._seq = store.last_seq(table_id)
        self._recover()

    # -- public API --------------------------------------------------------------------------

    @property
    def game_id(self) -> str | None:
        return None if self.record is None else self.record.game_id

    @property
    def kind(self) -> str:
        """The game of the current (or last) game record: camelup, horserace or marcopolo2."""
        return "camelup" if self.record is None else (self.record.kind or "camelup")

    @property
    def driver(self) -> Driver:
        return driver(self.kind)

    @property
    def active(self) -> bool:
        """A game is being played (started, not finished or abandoned)."""
        return self.record is not None and self.record.status == "playing" and self.game is not None

    @property
    def seq(self) -> int:
        """The table's last logged seq (kept in memory: this session is the table's one writer)."""
        return self._seq

    def request(self, cmd: str, payload: Any, auth: Any = None, *, channel: str = "local") -> dict:
        """Run one command (see :mod:`hub.requests`) and answer {"ok": ...}."""
        from hub.requests import dispatch

        return dispatch(self, cmd, payload, auth, channel=channel)

    def start_game(
        self,
        players: list[str],
        setup: list[Any] | dict[Any, Any] | str | None = None,
        seed: int | str | None = None,
        *,
        first_player: int | str = 0,
        abandon: bool = False,
        setup_id: int | None = None,
        game: str = "camelup",
        settings: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Start a game as the table (in-process callers); raises RequestError on bad input.

        ``setup`` is the observed setup roll ``[["blue", 2], ...]`` (stacked in roll order) or a
        track ``{space: [colours bottom->top]}``, ``"camera"`` (the latest complete
        :attr:`setup_reading`); None or ``"random"`` rolls it from ``seed``. ``game`` chooses the
        game; ``settings`` are that engine's (docs/games.md), Camel Up has none.
        """
        return self.cmd_start_game(
            {"players": players, "setup": setup, "seed": seed, "first_player": first_player,
             "abandon": abandon, "setup_id": setup_id, "game": game,
             "settings": settings or {}},
            Access("table"),
        )

    def player_token(self, name: str) -> str:
        """The private token of a player of the current game (for their QR-code link)."""
        if self.record is None or name not in self.record.params.get("players", []):
            raise RequestError(f"there is no player called {name!r} in this game", "unknown_player")
        return self.authority.token(self.record.game_id, name)

    def observe(self, kind: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        """An observation from the firmware on this Pi: "release", "die", "track", "dice" (every
        die of a frame, Marco Polo II) or "status"."""
        cmd = {"release": "observe_release", "die": "observe_die", "track": "observe_track",
               "dice": "observe_dice", "status": "observe_status"}.get(kind)
        if cmd is None:
            return {"ok": False, "error": f"unknown observation kind {kind!r} (release, die, "
                    "track, dice or status)", "reason": "bad_command"}
        return self.request(cmd, payload if payload is not None else {}, {"local": True})

    def snapshot(self, *, log: bool = True, derived: bool = True) -> dict[str, Any]:
        """The public picture of the table: game view, seq, prompts, odds, advice, log."""
        with self._lock:
            seq = self.seq
            game = self.game
            record = self.record
            snap: dict[str, Any] = {
                "table": self.table_id,
                "game_id": None if record is None else record.game_id,
                "status": "none" if record is None else record.status,
                "seq": seq,
                "game": None if game is None else self.driver.public_view(game.state),
                "pending": [dict(p) for p in self.pending.values()],
                "firmware": dict(self.firmware),
                "threshold": self.threshold,
                "pin_required": self.authority.pin is not None,
                "setup_reading": self.setup_reading,
            }
            if log:
                snap["log"] = (
                    [] if record is None
                    else [e.to_dict() for e in self._envelopes(
                        self.store.events(self.table_id, game_id=record.game_id))]
                )
        if derived:
            snap.update(self._odds_and_advice(seq, game))
        return snap

    def player_snapshot(self, token: str) -> dict[str, Any]:
        """What a player's private page shows: the snapshot plus their cards and bet colours."""
        with self._lock:
            access = self.authority.check({"token": token}, self.game_id, self._players())
            snap = self.snapshot(log=False, derived=False)
            if self.game is not None and access.player is not None:
                snap["game"] = self.driver.player_view(self.game.state, access.player)
            snap["me"] = access.player
            return snap

    def events_since(self, seq: int = 0, limit: int | None = None) -> list[Envelope]:
        """Public envelopes of this table with seq > ``seq`` (all games), for catching up."""
        return self._envelopes(self.store.events(self.table_id, since=int(seq), limit=limit))

    def games(self) -> list[dict[str, Any]]:
        """The table's games, oldest first, with the winner of finished ones."""
        out = []
        for rec in self.store.games(self.table_id):
            d = rec.to_dict()
            if rec.status == "finished":
                over = [e for e in self.store.events(self.table_id, game_id=rec.game_id)
                        if e.type == "game_over"]
                if over:
                    d["winners"] = over[-1].event.get("winners")
                    d["money"] = over[-1].event.get("money")
            out.append(d)
        return out

    def past_game(self, game_id: str) -> dict[str, Any]:
        """A past (or the current) game's public snapshot, rebuilt from the log.

        (Named ``past_game``, not ``game``: ``session.game`` is the live engine ``Game``.)
        """
        rec = self.store.game(self.table_id, str(game_id))
        if rec is None:
            raise RequestError(f"there is no game {game_id!r} at this table", "unknown_game")
        events = self.store.events(self.table_id, game_id=rec.game_id)
        game, pending, _ = self._rebuild(rec, events)
        return {
            "table": self.table_id,
            "game_id": rec.game_id,
            "status": rec.status,
            "seq": events[-1].seq if events else 0,
            "game": None if game is None else driver(rec.kind).public_view(game.state),
            "pending": list(pending.values()),
            "log": [e.to_dict() for e in self._envelopes(events)],
            "record": rec.to_dict(),
        }

    @property
    def setup_reading(self) -> dict[str, Any] | None:
        """The setup the camera saw last while no game ran (``start_game`` with setup "camera").

        The newest reading wins, with one exception: the firmware reads the five setup dice and
        then the track; when that track read is incomplete (a stack hidden, a camel unseen) and
        the dice were complete, the dice reading is offered, noting why the track was not.
        """
        with self._lock:
            dice, track = self._setup_dice, self._setup_track
            if dice is None or track is None:
                chosen = dice or track
                return None if chosen is None else _copy_reading(chosen)
            if track["id"] > dice["id"] and (track["complete"] or not dice["complete"]):
                return _copy_reading(track)
            if dice["id"] > track["id"]:
                return _copy_reading(dice)
            out = _copy_reading(dice)
            out["notes"].append("the track read after the dice could not be used: "
                                + "; ".join(track["problems"]))
            return out

    def crop(self, crop_id: str) -> bytes | None:
        """The JPEG crop of a die reading, or None."""
        return self.store.get_crop(self.table_id, str(crop_id))

    def full_state(self) -> dict[str, Any] | None:
        """Everything about the current game, secrets included (tests and the hub itself)."""
        with self._lock:
            return None if self.game is None else self.driver.full_view(self.game.state)

    def engine_log(self) -> list[dict[str, Any]]:
        """The current game's engine events (secrets included), as the engine holds them."""
        with self._lock:
            return [] if self.game is None else self.game.log

    def close(self) -> None:
        self.bus.flush()

    # -- commands (validated and authorised by hub.requests) ---------------------------------

    def cmd_start_game(self, p: dict[str, Any], access: Access) -> dict[str, Any]:
        with self._lock:
            if self.active and not p.get("abandon"):
                raise RequestError(
                    "a game is already being played at this table; finish it, or start with "
                    "\"abandon\": true", "game_in_progress")
            kind = p.get("game") or "camelup"
            drv = driver(kind)  # raises IllegalAction("unknown_game")
            if kind != "camelup":
                game, params = self._other_game(drv, p)
            else:
                game, params = self._camelup_game(p)
            if self.active and self.record is not None:
                self._commit([("hub", {"type": "game_abandoned", "game_id": self.record.game_id})],
                             {"cmd": "abandon"}, game_status="abandoned")
                self.record = None
            number = len(self.store.games(self.table_id)) + 1
            game_id = f"g{number}"
            self._commit(
                [("engine", e) for e in game.log],
                {"cmd": "start_game"},
                game_id=game_id,
                new_game={"number": number, "kind": kind, "params": params},
            )
            self.record = self.store.game(self.table_id, game_id)
            self.game = game
            self.pending = {}
            self._engine_batches = []
            self._setup_pass = self._setup_dice = self._setup_track = None  # used up
            names = drv.players(game)
            out: dict[str, Any] = {"game_id": game_id, "game": kind, "players": names}
            if access.is_table:
                out["tokens"] = {n: self.authority.token(game_id, n) for n in names}
            return out

    def _other_game(self, drv: Driver, p: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """A horse race or a Marco Polo II game from a start_game request (not yet logged)."""
        if p.get("setup") not in (None, "random") or p.get("setup_id") is not None:
            raise RequestError(f"'setup' is Camel Up's starting roll; {drv.title} has none",
                               "bad_payload")
        settings = drv.check_settings(p.get("settings") or {})
        seed = p.get("seed")
        if seed is None:  # the engine's own rolls must be the same when checked and played
            seed = secrets.randbelow(2**31)
        params: dict[str, Any] = {"players": list(p["players"]), "seed": seed,
                                  "first_player": p.get("first_player"), "settings": settings}
        return drv.new(params), params

    def _camelup_game(self, p: dict[str, Any]) -> tuple[Game, dict[str, Any]]:
        if p.get("settings"):
            raise RequestError("Camel Up takes no settings: "
                               f"{sorted(p['settings'])[0]!r} is not one", "bad_settings")
        players = p["players"]
        params: dict[str, Any] = {"players": list(players), "seed": p.get("seed"),
                                  "first_player": p.get("first_player") or 0}
        setup = p.get("setup")
        if setup == "camera":
            reading = self._camera_setup(p.get("setup_id"))
            params["setup_from"] = f"camera:{reading['source']}"
            setup = reading["dice"] if reading["source"] == "dice" else reading["track"]
        elif setup == "random":
            setup = None
        elif isinstance(setup, str):
            raise RequestError(f"unknown setup {setup!r}: \"camera\", \"random\", a roll "
                               "or a track", "bad_payload")
        if isinstance(setup, dict):
            params["track"] = {str(k): list(v) for k, v in setup.items()}
        elif setup is not None:
            params["setup"] = [[str(c), f] for c, f in setup]
        return self._new_game(params), params  # raises IllegalAction on a bad setup

    def cmd_action(self, player: str | None, action: str, access: Access) -> dict[str, Any]:
        with self._lock:
            game = self._need_game()
            if self.kind != "camelup":
                return self._other_action(game, player, action)
            assert player is not None
            parts = action.strip().lower().split(":")
            if parts[0] == "bet" and len(parts) == 2:
                return self._bet_pending(game, player, parts[1])
            try:
                act = parse_action(action)
                if isinstance(act, BetOverall) and not access.may_act_for(player):
                    raise RequestError("only the player may choose their bet's colour, from "
                                       "their own link", "forbidden")
                events = game.check(act, player)
            except IllegalAction as exc:
                return self._refuse(player, action, exc)
            resolves = [k for k, v in self.pending.items()
                        if v["kind"] == "bet_colour" and v["player"] == player]
            return self._play(act, player, events, {"cmd": "action", "action": str(act),
                                                    "player": player, "resolves": resolves})

    def _other_action(self, game: Any, player: str | None, action: str) -> dict[str, Any]:
        """An action of the horse race or Marco Polo II, in the engine's text notation.

        Open prompts the action answers are closed with it: a horse-race roll entered by hand
        answers the camera's unsure roll; Marco Polo dice entered for the players a frame could
        not read (or the next round) answer that frame's prompt."""
        drv = self.driver
        if player is None and drv.kind == "horserace":
            player = game.current_player
        try:
            act = drv.parse_action(action)
            events = drv.check(game, act, player)
        except IllegalAction as exc:
            return self._refuse(player, action, exc)
        return self._play(act, player, events, {"cmd": "action", "action": str(act),
                                                "player": player,
                                                "resolves": self._answered(events)})

    def _answered(self, events: list[dict[str, Any]]) -> list[str]:
        """The open prompts these engine events answer (see :meth:`_other_action`)."""
        types = {e.get("type") for e in events}
        state = self.game.state if self.game is not None else None
        read = set(getattr(state, "dice", {}) or {}) | {
            e.get("player") for e in events if e.get("type") == "dice_read"}
        out = []
        for pid, prompt in self.pending.items():
            if prompt["kind"] == "roll_reading" and "die_rolled" in types:
                out.append(pid)
            elif prompt["kind"] == "dice_check" and (
                    "round_started" in types or "game_over" in types
                    or ("dice_read" in types and set(prompt.get("players", [])) <= read)):
                out.append(pid)
        return out

    def cmd_confirm(self, p: dict[str, Any], access: Access) -> dict[str, Any]:
        with self._lock:
            game = self._need_game()
            pid = p["prompt"]
            prompt = self.pending.get(pid)
            if prompt is None:
                raise RequestError(f"there is no open prompt {pid!r} (already answered?)",
                                   "unknown_prompt")
            if p.get("dismiss"):
                self._commit([("hub", {"type": "prompt_dismissed", "prompt": pid})],
                             {"cmd": "confirm", "resolves": [pid]})
                return {"dismissed": pid}
            if prompt["kind"] == "bet_colour":
                colour = p.get("colour")
                if colour is None:
                    raise RequestError("choose the colour of the bet", "bad_payload")
                return self.cmd_action(prompt["player"], _bet_text(prompt["pile"], colour),
                                       access)
            if prompt["kind"] == "roll_reading":
                return self._confirm_roll(game, pid, prompt, p, access)
            if prompt["kind"] == "dice_check":
                raise RequestError("enter each unread player's dice (dice:<player>:<faces>), "
                                   "or dismiss the prompt", "bad_payload")
            reading = prompt.get("reading", {})
            colour = p.get("colour", reading.get("colour"))
            face = p.get("face", reading.get("face"))
            if not p.get("accept") and "colour" not in p and "face" not in p:
                raise RequestError("say accept, or give the colour and face seen", "bad_payload")
            if colour not in COLOURS or face not in (1, 2, 3):
                raise RequestError(
                    f"the reading cannot be accepted as it is ({colour} {face}): give the colour "
                    "and the face seen", "bad_face" if colour in COLOURS else "bad_colour")
            player = game.current_player
            act = ReleaseDie(colour, int(face))
            try:
                events = game.check(act, player)
            except IllegalAction as exc:
                raise RequestError(str(exc), exc.reason) from None
            correction = {"type": "correction", "prompt": pid, "colour": colour, "face": face,
                          "read": {"colour": reading.get("colour"), "face": reading.get("face")},
                          "changed": colour != reading.get("colour") or face != reading.get("face"),
                          "by": access.player or "table"}
            return self._play(act, player, events,
                              {"cmd": "confirm", "action": str(act), "player": player,
                               "resolves": [pid], "crop": prompt.get("crop"),
                               "confidence": reading.get("confidence")},
                              before=[("hub", correction)])

    def _confirm_roll(self, game: Any, pid: str, prompt: dict[str, Any], p: dict[str, Any],
                      access: Access) -> dict[str, Any]:
        """A person says what the horse-race die shows (or accepts the camera's reading)."""
        reading = prompt.get("reading", {})
        face = p.get("face", reading.get("face"))
        if not p.get("accept") and "face" not in p:
            raise RequestError("say accept, or give the face seen", "bad_payload")
        if not isinstance(face, int) or isinstance(face, bool) or not 1 <= face <= 6:
            raise RequestError(f"the reading cannot be accepted as it is (face {face}): give "
                               "the face seen, 1 to 6", "bad_face")
        act = self.driver.parse_action(f"roll:{face}")
        player = game.current_player
        try:
            events = self.driver.check(game, act, player)
        except IllegalAction as exc:
            raise RequestError(str(exc), exc.reason) from None
        correction = {"type": "correction", "prompt": pid, "face": face,
                      "read": {"face": reading.get("face")},
                      "changed": face != reading.get("face"), "by": access.player or "table"}
        return self._play(act, player, events,
                          {"cmd": "confirm", "action": str(act), "player": player,
                           "resolves": sorted({pid, *self._answered(events)}),
                           "crop": prompt.get("crop"), "confidence": reading.get("confidence")},
                          before=[("hub", correction)])

    def cmd_undo(self, access: Access) -> dict[str, Any]:
        with self._lock:
            game = self._need_game(allow_finished=True)
            bets = [k for k, v in self.pending.items() if v["kind"] == "bet_colour"]
            if bets:  # undoing a "bet:winner" tapped by mistake: drop the open colour prompt
                self._commit([("hub", {"type": "prompt_dismissed", "prompt": k}) for k in bets],
                             {"cmd": "undo", "resolves": bets})
                return {"dismissed": bets}
            if not self._engine_batches:
                raise RequestError("there is nothing to undo", "nothing_to_undo")
            undone = self._engine_batches[-1]
            batch = self.store.events(self.table_id, since=undone[0] - 1, limit=1)
            action = (batch[0].cause or {}).get("action", "") if batch else ""
            was_finished = game.finished
            removed = game.undo()
            self._engine_batches.pop()
            ev = {"type": "undo", "undone": undone, "action": _redact_action(action),
                  "events": len(removed), "by": access.player or "table"}
            try:
                self._commit([("hub", ev)], {"cmd": "undo"},
                             game_status="playing" if was_finished else None)
            except BaseException:  # the log did not take the undo: memory follows the log
                if self.record is not None:
                    self.game = self._rebuild(self.record, self.store.events(
                        self.table_id, game_id=self.record.game_id))[0]
                raise
            if was_finished:
                self.record = self.store.game(self.table_id, self.game_id or "")
            return {"undone": undone, "action": _redact_action(action)}

    def cmd_observe_release(self, p: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            game = self._need_game()
            ev = {"type": "die_released", "player": game.current_player,
                  "at": float(p.get("ts", time.time()))}
            self._commit([("hub", ev)], {"cmd": "observe_release"})
            return {}

    def cmd_observe_die(self, p: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            if p.get("mode") == "setup":
                return self._observe_setup_die(p)
            game = self._need_game()
            if self.kind == "marcopolo2":
                raise RequestError("Marco Polo II reads all the dice of a frame at once: send "
                                   "them with observe_dice", "wrong_game")
            crop_id = self._keep_crop(p)
            if self.kind == "horserace":
                return self._observe_roll(game, p, crop_id)
            state = game.state
            verdict = observations.judge_die(p, list(state.dice_left), self.threshold)
            player = game.current_player
            if verdict.ok:
                act = ReleaseDie(verdict.colour, verdict.face)
                try:
                    events = game.check(act, player)
                except IllegalAction as exc:  # judge_die let through what the rules refuse
                    verdict = verdict.refused(str(exc))
                else:
                    return self._play(act, player, events,
                                      {"cmd": "observe_die", "action": str(act), "player": player,
                                       "crop": crop_id, "confidence": verdict.confidence,
                                       "inferred": verdict.inferred})
            pid = f"p{self.seq + 1}"
            ev = {"type": "vision_uncertain", "prompt": pid, "player": player,
                  "reading": verdict.reading, "problems": verdict.problems,
                  "expected_colours": list(state.dice_left), "crop": crop_id}
            self._commit([("hub", ev)], {"cmd": "observe_die", "crop": crop_id})
            return {"uncertain": True, "prompt": pid, "problems": verdict.problems}

    def _keep_crop(self, p: dict[str, Any]) -> str | None:
        crop = _crop_bytes(p)
        if crop is None:
            return None
        crop_id = f"c{self.seq + 1}"
        self.store.put_crop(self.table_id, crop_id, self.game_id, crop)
        return crop_id

    def _observe_roll(self, game: Any, p: dict[str, Any], crop_id: str | None) -> dict[str, Any]:
        """A horse-race die read by the camera: the roll, or a person prompt (never a guess)."""
        # the other games' glue is imported where used: a Camel Up hub never loads their engines
        from hub.games_glue import horserace as horserace_glue

        player = game.current_player
        roll, problems = horserace_glue.judge_roll(p, self.threshold)
        if roll is not None:
            try:
                events = self.driver.check(game, roll, player)
            except IllegalAction as exc:  # a readable die the rules refuse (no roll due now)
                problems = [str(exc)]
            else:
                return self._play(roll, player, events,
                                  {"cmd": "observe_die", "action": str(roll), "player": player,
                                   "crop": crop_id, "confidence": p.get("confidence"),
                                   "resolves": self._answered(events)})
        pid = f"p{self.seq + 1}"
        ev = {"type": "roll_uncertain", "prompt": pid, "player": player,
              "reading": {"face": p.get("face"), "confidence": p.get("confidence")},
              "problems": problems, "crop": crop_id}
        self._commit([("hub", ev)], {"cmd": "observe_die", "crop": crop_id})
        return {"uncertain": True, "prompt": pid, "problems": problems}

    def _observe_horses(self, game: Any, p: dict[str, Any]) -> dict[str, Any]:
        """A still horse-race track: the horse the roll in hand went to, or what differs."""
        from hub.games_glue import horserace as horserace_glue

        try:
            decision = horserace_glue.judge_track(game.state, p["track"], p.get("uncertain"))
        except IllegalAction as exc:
            raise RequestError(str(exc), "bad_payload") from None
        if decision.kind in ("match", "waiting"):
            return {"match": True, **({"waiting": True} if decision.kind == "waiting" else {})}
        if decision.kind == "assign" and self.active:
            player = game.current_player
            try:
                events = self.driver.check(game, decision.action, player)
            except IllegalAction as exc:
                decision = horserace_glue.TrackDecision("mismatch", differences=[str(exc)])
            else:
                out = self._play(decision.action, player, events,
                                 {"cmd": "observe_track", "action": str(decision.action),
                                  "player": player})
                return {"match": True, "action": str(decision.action), **out}
        ev = {"type": "track_mismatch", "differences": list(decision.differences), "spaces": []}
        self._commit([("hub", ev)], {"cmd": "observe_track"})
        return {"match": False, "differences": ev["differences"]}

    def cmd_observe_dice(self, p: dict[str, Any]) -> dict[str, Any]:
        """All die readings of one frame (Marco Polo II's round start): each player read
        completely gets their dice; the rest is one prompt for a person."""
        from hub.games_glue import marcopolo2 as marcopolo2_glue

        with self._lock:
            game = self._need_game()
            if self.kind != "marcopolo2":
                raise RequestError("observe_dice is Marco Polo II's round-start frame; this "
                                   "game reads one die at a time (observe_die)", "wrong_game")
            settings = (self.record.params.get("settings") if self.record else None) or {}
            try:
                actions, doubt = marcopolo2_glue.judge_frame(
                    game.state, p["readings"], settings.get("boards"), self.threshold,
                    settings.get("expected_dice"))
            except IllegalAction as exc:
                raise RequestError(str(exc), exc.reason) from None
            played = []
            for act in actions:
                try:
                    events = self.driver.check(game, act, None)
                except IllegalAction as exc:  # pragma: no cover - judge_frame leaves these out
                    doubt = doubt or {"round": game.state.round, "players": [],
                                      "needs_person": [], "neutral": [], "read": {}}
                    doubt["needs_person"].append({"board": act.player, "reason": str(exc)})
                    continue
                self._play(act, None, events, {"cmd": "observe_dice", "action": str(act),
                                               "player": act.player,
                                               "resolves": self._answered(events)})
                played.append(str(act))
            out: dict[str, Any] = {"played": played}
            if doubt is not None:
                stale = [k for k, v in self.pending.items() if v["kind"] == "dice_check"]
                pid = f"p{self.seq + 1}"
                ev = {"type": "dice_uncertain", "prompt": pid, **doubt}
                self._commit([("hub", ev)], {"cmd": "observe_dice", "resolves": stale})
                out.update(uncertain=True, prompt=pid, players=doubt["players"],
                           problems=[d["reason"] for d in doubt["needs_person"]])
            return out

    def cmd_observe_track(self, p: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            if self._is_setup_track(p):
                return self._observe_setup_track(p)
            game = self._need_game(allow_finished=True)
            if self.kind == "horserace":
                return self._observe_horses(game, p)
            if self.kind == "marcopolo2":
                raise RequestError("Marco Polo II has no track for the camera to read",
                                   "wrong_game")
            view = public_view(game.state)
            diffs = observations.compare_track(view["track"], view["desert"], p)
            if not diffs:
                return {"match": True}
            ev = {"type": "track_mismatch", "differences": [d["text"] for d in diffs],
                  "spaces": sorted({d["space"] for d in diffs})}
            self._commit([("hub", ev)], {"cmd": "observe_track"})
            return {"match": False, "differences": ev["differences"]}

    def cmd_observe_status(self, p: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.firmware = {**p, "received": time.time()}
            return {}

    # -- the setup reading ---------------------------------------------------------------------

    def _refuse_setup_in_game(self, what: str) -> None:
        if self.active:
            raise RequestError(
                f"setup readings are taken before a game starts: this {what} was not played "
                f"(game {self.game_id} is being played)", "setup_in_game")

    def _next_setup_id(self) -> int:
        self._setup_ids += 1
        return self._setup_ids

    def _observe_setup_die(self, p: dict[str, Any]) -> dict[str, Any]:
        """One die of the setup roll (``index`` of ``of`` in the firmware's pass): gathered into
        the pass, whose dice make the setup reading. Never a move."""
        self._refuse_setup_in_game("setup die")
        index, of = p.get("index"), p.get("of")
        buf = self._setup_pass
        if (buf is None or index == 0 or (of is not None and buf["of"] != of)
                or (index is None and len(buf["dice"]) >= (buf["of"] or len(COLOURS)))
                or index in buf["dice"]):
            buf = self._setup_pass = {"of": of, "dice": {}}
        if index is None:
            index = max(buf["dice"], default=-1) + 1
        buf["dice"][index] = {k: p.get(k) for k in ("colour", "face", "confidence", "reason")}
        n = buf["of"] if buf["of"] is not None else max(len(COLOURS), max(buf["dice"]) + 1)
        reading = observations.setup_from_dice([buf["dice"].get(i) for i in range(n)],
                                               self.threshold)
        if self._setup_dice is not None and self._setup_dice.get("pass") is buf:
            reading["id"] = self._setup_dice["id"]  # the same pass: the same reading, grown
        else:
            reading["id"] = self._next_setup_id()
        reading.update(ts=time.time(), **{"pass": buf})
        self._setup_dice = reading
        self._make_newest(reading)
        return {"setup": True, "setup_reading": self.setup_reading}

    def _make_newest(self, reading: dict[str, Any]) -> None:
        """Give a reading that just grew an id above every other (newest wins)."""
        other = self._setup_track if reading is self._setup_dice else self._setup_dice
        if other is not None and other["id"] > reading["id"]:
            reading["id"] = self._next_setup_id()

    def _is_setup_track(self, p: dict[str, Any]) -> bool:
        """A track read is a setup reading when no game runs or the firmware says so; after a
        finished race only when it looks like a start (no camel beyond space 3), so the last
        move's read is still checked against the game."""
        if p.get("mode") == "setup":
            self._refuse_setup_in_game("track read")
            return True
        if self.active:
            return False
        if self.game is None or self.record is None or self.record.status != "finished":
            return True
        stacks, _, _ = observations.parse_track_reading(p)
        return bool(stacks) and all(s in observations.START_SPACES for s in stacks)

    def _observe_setup_track(self, p: dict[str, Any]) -> dict[str, Any]:
        reading = observations.setup_from_track(p)  # raises TrackError on a malformed reading
        reading.update(id=self._next_setup_id(), ts=time.time())
        self._setup_track = reading
        return {"setup": True, "setup_reading": self.setup_reading}

    def _camera_setup(self, setup_id: Any) -> dict[str, Any]:
        """The setup reading a game may start from; RequestError when there is none usable."""
        reading = self.setup_reading
        if reading is None:
            raise RequestError(
                "the camera has not read a setup yet: lay out the camels (or roll the five "
                "dice) with the pyramid in setup mode and press its confirm button, or enter "
                "the roll", "no_setup_reading")
        if not reading["complete"]:
            raise RequestError(
                "the camera's setup reading is incomplete (" + "; ".join(reading["problems"])
                + "): read it again, or enter the roll", "setup_reading_incomplete")
        if setup_id is not None and setup_id != reading["id"]:
            raise RequestError(
                f"the camera read the setup again since reading {setup_id} was shown (now "
                f"reading {reading['id']}): look at it and start again", "setup_reading_changed")
        return reading

    # -- internals -----------------------------------------------------------------------------

    def _players(self) -> list[str]:
        return [] if self.record is None else list(self.record.params.get("players", []))

    def _need_game(self, allow_finished: bool = False) -> Game:
        if self.game is None or self.record is None or self.record.status == "abandoned":
            raise RequestError("no game is being played at this table: start one first",
                               "no_game")
        if self.record.status != "playing" and not allow_finished:
            raise RequestError("the race is over: start another game", "game_over")
        return self.game

    @staticmethod
    def _new_game(params: dict[str, Any]) -> Game:
        return driver("camelup").new(params)  # type: ignore[no-any-return]

    def _bet_pending(self, game: Game, player: str, pile: str) -> dict[str, Any]:
        """"bet:winner" from the shared screen: check it could be legal, then ask the player
        for the colour on their own page (a ``bet_colour`` prompt)."""
        if game.current_player != player:
            try:  # the engine words the refusal (unknown player, not your turn, game over)
                game.check(BetOverall(pile, COLOURS[0]), player)
            except IllegalAction as exc:
                return self._refuse(player, _bet_text(pile), exc)
        if not any(isinstance(a, BetOverall) and a.pile == pile for a in game.legal_actions()):
            return self._refuse(player, _bet_text(pile), IllegalAction(
                "no_race_card", f"{player} has no race card left to bet with."))
        for k, v in self.pending.items():
            if v["kind"] == "bet_colour" and v["player"] == player:
                return {"prompt": k, "pending": True}
        pid = f"p{self.seq + 1}"
        self._commit([("hub", {"type": "bet_pending", "prompt": pid, "player": player,
                               "pile": pile})], {"cmd": "action", "action": _bet_text(pile)})
        return {"prompt": pid, "pending": True}

    def _refuse(self, player: str | None, action: str, exc: IllegalAction) -> dict[str, Any]:
        """Log an authorised but illegal action (so the table sees why), change nothing else."""
        error = str(exc)
        if _redact_action(action) != str(action):  # a bet: the sentence may name a played card
            error = "That overall bet is not possible: the race card is not in the player's hand."
        ev = {"type": "action_refused", "player": player, "action": _redact_action(action),
              "reason": exc.reason, "error": error}
        seqs = self._commit([("hub", ev)], {"cmd": "action"})
        raise RequestError(str(exc), exc.reason, seq=seqs[-1][0])

    def _play(
        self,
        act: Any,
        player: str | None,
        events: list[dict[str, Any]],
        cause: dict[str, Any],
        before: Iterable[tuple[str, dict[str, Any]]] = (),
    ) -> dict[str, Any]:
        assert self.game is not None
        finished = any(e["type"] == "game_over" for e in events)
        items = [*before, *(("engine", e) for e in events)]
        seqs = self._commit(items, cause, game_status="finished" if finished else None,
                            apply=lambda: self.game.play(act, player))  # type: ignore[union-attr]
        n_before = len(items) - len(events)
        self._engine_batches.append([s for s, _ in seqs[n_before:]])
        if finished:
            self.record = self.store.game(self.table_id, self.game_id or "")
        return {"events": [_redact(e) for e in events]}

    def _commit(
        self,
        items: list[tuple[str, dict[str, Any]]],
        cause: dict[str, Any],
        *,
        game_id: str | None = None,
        new_game: dict[str, Any] | None = None,
        game_status: str | None = None,
        apply: Any = None,
    ) -> list[tuple[int, float]]:
        """Durably append, then change memory, then publish. The one way anything changes."""
        gid = game_id if game_id is not None else self.game_id
        seqs = self.store.append(self.table_id, gid, items, cause=cause, new_game=new_game,
                                 game_status=game_status)
        if seqs:
            self._seq = seqs[-1][0]
        if apply is not None:
            apply()
        for pid in cause.get("resolves") or []:
            self.pending.pop(pid, None)
        for (_origin, ev), (seq, _ts) in zip(items, seqs, strict=True):
            _track_prompt(self.pending, ev, seq)
        if game_status is not None and self.record is not None:
            self.record = self.store.game(self.table_id, self.record.game_id)
        n = len(items)
        for i, ((_origin, ev), (seq, ts)) in enumerate(zip(items, seqs, strict=True)):
            self.bus.publish(Envelope(seq, self.table_id, gid, _annotate(_redact(ev), cause),
                                      ts, batch_end=i == n - 1))
        return seqs

    def _envelopes(self, rows: list[StoredEvent]) -> list[Envelope]:
        out = []
        for i, r in enumerate(rows):
            end = i == len(rows) - 1 or rows[i + 1].batch != r.batch
            out.append(Envelope(r.seq, r.table_id, r.game_id,
                                _annotate(_redact(r.event), r.cause or {}), r.ts, batch_end=end))
        return out

    def _recover(self) -> None:
        """Rebuild the table from the log (start-up, and after a crash or a power cut)."""
        records = self.store.games(self.table_id)
        if not records:
            return
        rec = records[-1]
        events = self.store.events(self.table_id, game_id=rec.game_id)
        game, pending, batches = self._rebuild(rec, events)
        self.record, self.game, self.pending, self._engine_batches = rec, game, pending, batches
        if game is not None and rec.status == "playing" and game.finished:
            log.warning("game %s ended in the log but was not marked finished", rec.game_id)

    def _rebuild(
        self, rec: GameRecord, events: list[StoredEvent]
    ) -> tuple[Game | None, dict[str, dict[str, Any]], list[list[int]]]:
        batches: list[list[StoredEvent]] = []  # engine batches still in force
        pending: dict[str, dict[str, Any]] = {}
        for e in events:
            if e.origin == "hub":
                if e.type == "undo" and len(batches) > 1:
                    batches.pop()
            elif batches and batches[-1][0].batch == e.batch:
                batches[-1].append(e)
            else:
                batches.append([e])
        for e in events:
            for pid in (e.cause or {}).get("resolves") or []:
                pending.pop(pid, None)
            _track_prompt(pending, e.event, e.seq)
        flat = [e.event for b in batches for e in b]
        if not flat:
            return None, pending, []
        game = driver(rec.kind).replay(flat)
        return game, pending, [[e.seq for e in b] for b in batches[1:]]

    def _odds_and_advice(self, seq: int, game: Game | None) -> dict[str, Any]:
        """Odds and advice of the current position, computed once per seq (they are slow-ish):
        in the ``derived`` worker process when the session has one, else here."""
        cached = self._derived
        if cached is not None and cached[0] == seq:
            return cached[1]
        out: dict[str, Any] = {"odds": None, "advice": []}
        if game is not None and not game.finished and (self.with_odds or self.with_advice):
            from hub import derived

            try:
                args = (game.state, game.current_player, self.with_odds, self.with_advice,
                        self.kind)
                out = (self.derived.compute(*args) if self.derived is not None
                       else derived.compute(*args))
            except Exception:  # odds are advice: never let them break the snapshot
                log.exception("odds or advice failed at seq %s", seq)
        self._derived = (seq, out)
        return out


def _redact(event: dict[str, Any]) -> dict[str, Any]:
    return public_event(event)


def _annotate(event: dict[str, Any], cause: dict[str, Any]) -> dict[str, Any]:
    """Add what the hub knows beside an engine event: the crop and confidence of a die read."""
    if event.get("type") == "die_rolled" and cause.get("cmd") in ("observe_die", "confirm"):
        return {**event, "crop": cause.get("crop"), "confidence": cause.get("confidence"),
                "read": "vision" if cause["cmd"] == "observe_die" else "confirmed"}
    if event.get("type") == "die_read" and cause.get("cmd") in ("observe_die", "confirm"):
        event = {**event, "crop": cause.get("crop"), "confidence": cause.get("confidence"),
                 "source": "vision" if cause["cmd"] == "observe_die" else "confirmed"}
    return event


def _track_prompt(pending: dict[str, dict[str, Any]], ev: dict[str, Any], seq: int) -> None:
    t = ev.get("type")
    if t == "vision_uncertain":
        pending[ev["prompt"]] = {"id": ev["prompt"], "kind": "die_reading", "seq": seq,
                                 "player": ev.get("player"), "reading": ev.get("reading", {}),
                                 "problems": ev.get("problems", []), "crop": ev.get("crop"),
                                 "expected_colours": ev.get("expected_colours", [])}
    elif t == "roll_uncertain":
        pending[ev["prompt"]] = {"id": ev["prompt"], "kind": "roll_reading", "seq": seq,
                                 "player": ev.get("player"), "reading": ev.get("reading", {}),
                                 "problems": ev.get("problems", []), "crop": ev.get("crop")}
    elif t == "dice_uncertain":
        pending[ev["prompt"]] = {"id": ev["prompt"], "kind": "dice_check", "seq": seq,
                                 "round": ev.get("round"), "players": ev.get("players", []),
                                 "needs_person": ev.get("needs_person", []),
                                 "read": ev.get("read", {})}
    elif t == "bet_pending":
        pending[ev["prompt"]] = {"id": ev["prompt"], "kind": "bet_colour", "seq": seq,
                                 "player": ev["player"], "pile": ev["pile"]}
    elif t == "prompt_dismissed":
        pending.pop(ev.get("prompt", ""), None)
    elif t in ("game_started", "game_abandoned"):
        pending.clear()


def _copy_reading(reading: dict[str, Any]) -> dict[str, Any]:
    """A setup reading as the snapshot shows it: JSON-ready, without the session's internals."""
    out = {k: v for k, v in reading.items() if k != "pass"}
    out["track"] = {k: list(v) for k, v in reading["track"].items()}
    out["problems"] = list(reading["problems"])
    out["notes"] = list(reading["notes"])
    if "dice" in reading:
        out["dice"] = [list(d) for d in reading["dice"]]
    return out


def _crop_bytes(p: dict[str, Any]) -> bytes | None:
    """The crop of a reading: raw bytes in-process, base64 text over MQTT/HTTP."""
    raw = p.get("crop_jpeg")
    if isinstance(raw, bytes | bytearray):
        return bytes(raw) or None
    text = raw if isinstance(raw, str) else p.get("crop_b64")
    if isinstance(text, str) and text:
        try:
            return base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            return None
    return None
