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
- Secrets: envelopes, snapshots and the log served to anyone carry the game's public events only.
- The game is chosen when a game starts (``"game"``, a :class:`~hub.games.kinds.GameKind`) and
  kept as the game record's ``kind``. Everything that differs between games is its driver's
  (:mod:`hub.games_glue`: judging a reading, the prompts, odds, tallies, views); the session is
  the same log, prompt and undo engine for every game and never asks which one it runs.
- The setup reading (what the camera saw of the starting roll or track while no game runs) is
  kept by :mod:`hub.setup_reading`, not logged.

Commands arrive through :mod:`hub.requests` (validation and authorisation, shared by MQTT and
HTTP); the methods here named ``cmd_*`` assume their arguments were checked there. Firmware on
the same Pi calls :meth:`TableSession.observe` directly; where a reading goes (the driver or
the setup being read) is :mod:`hub.observing`. The read-only queries (snapshots, the log since
a seq, tallies) are :mod:`hub.table_reads`, and starting a game is :mod:`hub.starting` (both
mixed in, through this class's public API).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from typing import Any, NoReturn

from hub import history, requests
from hub.auth import Access, Authority
from hub.bus import Envelope, EventBus
from hub.commit import Item, Part
from hub.derived import DerivedWorker
from hub.errors import RequestError
from hub.games.common import IllegalAction
from hub.games.kinds import DEFAULT_GAME
from hub.games_glue import driver
from hub.games_glue.base import AnyDriver, AnyGame
from hub.observations import DIE_CONFIDENCE_THRESHOLD, OBSERVATION_COMMANDS, crop_bytes
from hub.prompts import Prompt, track_prompt
from hub.setup_reading import SetupReadings
from hub.snapshot import DerivedCache
from hub.starting import TableStarting
from hub.store import Batch, GameRecord, RequestMark, Store
from hub.table_reads import TableReads
from hub.wire import Answer

log = logging.getLogger(__name__)

__all__ = ["TableSession", "RequestError", "DEFAULT_THRESHOLD"]

#: The die reader's calibrated acceptance threshold (see hub.observations).
DEFAULT_THRESHOLD = DIE_CONFIDENCE_THRESHOLD


class TableSession(TableReads, TableStarting):
    """One table: its current game, its past games, its pending prompts.

    Thread-safe: every command runs under one lock, and publishes on the bus under it, so the
    bus sees events in seq order. It is also the :class:`hub.games_glue.Table` a game's driver
    acts on (:meth:`play`, :meth:`log`, :meth:`refuse`).
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
        derived: DerivedWorker | None = None,
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
        self.derived = derived  # odds off the event path, in a worker process
        self.derived_cache = DerivedCache(derived, odds, advice)
        self.firmware: dict[str, Any] = {}
        self._lock = threading.RLock()
        self.record: GameRecord | None = None
        self.game: AnyGame | None = None  # the engine's Game of the current (or last) game
        self.pending: dict[str, Prompt] = {}
        self._engine_batches: list[list[int]] = []  # seqs of each live engine action, for undo
        # the request being applied (set by hub.requests under the lock): its id is logged in
        # the same transaction as its events, so it is applied once even across a crash
        self.request_mark: RequestMark | None = None
        # the camera reads the pyramid's game's start (see hub.setup_reading, hub.observing)
        self.setup_readings = SetupReadings(driver(DEFAULT_GAME))  # type: ignore[arg-type]
        self._seq = store.last_seq(table_id)
        self._recover()

    # -- public API --------------------------------------------------------------------------

    @property
    def lock(self) -> AbstractContextManager[bool]:
        """The table's lock: hold it to read several things of the table consistently."""
        return self._lock

    @property
    def game_id(self) -> str | None:
        return None if self.record is None else self.record.game_id

    @property
    def kind(self) -> str:
        """The game of the current (or last) game record (a GameKind value)."""
        return str(DEFAULT_GAME if self.record is None else (self.record.kind or DEFAULT_GAME))

    @property
    def driver(self) -> AnyDriver:
        return driver(self.kind)

    @property
    def params(self) -> Mapping[str, Any]:
        """The current game's stored ``params`` (players, seed, settings)."""
        return {} if self.record is None else self.record.params

    @property
    def active(self) -> bool:
        """A game is being played (started, not finished or abandoned)."""
        return self.record is not None and self.record.status == "playing" and self.game is not None

    @property
    def seq(self) -> int:
        """The table's last logged seq (kept in memory: this session is the table's one writer)."""
        return self._seq

    def players(self) -> list[str]:
        """The current game's players, in seating order ([] before the first game)."""
        return list(self.params.get("players", []))

    def request(
        self,
        cmd: str,
        payload: Any,
        auth: Any = None,
        *,
        channel: str = "local",
        request_id: str | None = None,
        asked: Any = None,
    ) -> dict[str, Any]:
        """Run one command (see :mod:`hub.requests`) and answer {"ok": ...}; a ``request_id``
        makes a changing command applied once (a repeat gets the first answer)."""
        return requests.dispatch(
            self, cmd, payload, auth, channel=channel, request_id=request_id, asked=asked
        )

    def player_token(self, name: str) -> str:
        """The private token of a player of the current game (for their QR-code link)."""
        if self.record is None or name not in self.record.params.get("players", []):
            raise RequestError(f"there is no player called {name!r} in this game", "unknown_player")
        return self.authority.token(self.record.game_id, name)

    def observe(self, kind: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        """An observation from the firmware on this Pi: "release", "die", "track", "dice" (every
        die of a frame, Marco Polo II) or "status"."""
        cmd = OBSERVATION_COMMANDS.get(kind)
        if cmd is None:
            return Answer.refusal(
                f"observe_{kind}"[:64],
                f"unknown observation kind {kind!r} (release, die, track, dice or status)",
                "bad_command",
            ).to_payload()
        return self.request(cmd, payload if payload is not None else {}, {"local": True})

    @property
    def setup_reading(self) -> dict[str, Any] | None:
        """The setup the camera saw last while no game ran (see :mod:`hub.setup_reading`)."""
        with self._lock:
            return self.setup_readings.reading()

    def live_engine_seqs(self) -> set[int]:
        """The seqs of the engine actions still in force (not undone), for tallies."""
        with self._lock:
            return {seq for batch in self._engine_batches for seq in batch}

    def begin(self, game_id: str, game: AnyGame) -> None:
        """Make a just logged game the current one (:mod:`hub.starting`), with no prompt open,
        nothing to undo, and the camera's setup reading used up."""
        self.record = self.store.game(self.table_id, game_id)
        self.game = game
        self.pending = {}
        self._engine_batches = []
        self.setup_readings.clear()

    def close(self) -> None:
        self.bus.flush()

    # -- commands (validated and authorised by hub.requests) ---------------------------------

    def cmd_action(self, player: str | None, action: str, access: Access) -> dict[str, Any]:
        with self._lock:
            game = self.need_game()
            return self.driver.action(self, game, player, action, access)

    def cmd_confirm(self, p: dict[str, Any], access: Access) -> dict[str, Any]:
        with self._lock:
            game = self.need_game()
            pid = p["prompt"]
            prompt = self.pending.get(pid)
            if prompt is None:
                raise RequestError(
                    f"there is no open prompt {pid!r} (already answered?)", "unknown_prompt"
                )
            if p.get("dismiss"):
                self._commit(
                    [("hub", {"type": "prompt_dismissed", "prompt": pid})],
                    {"cmd": "confirm", "resolves": [pid]},
                )
                return {"dismissed": pid}
            return self.driver.confirm(self, game, prompt, p, access)

    def cmd_undo(self, access: Access) -> dict[str, Any]:
        with self._lock:
            game = self.need_game(allow_finished=True)
            drv = self.driver
            drop = [k for k, v in self.pending.items() if drv.undo_dismisses(v)]
            if drop:  # e.g. a "bet:winner" tapped by mistake: drop its open colour prompt
                self._commit(
                    [("hub", {"type": "prompt_dismissed", "prompt": k}) for k in drop],
                    {"cmd": "undo", "resolves": drop},
                )
                return {"dismissed": drop}
            if not self._engine_batches:
                raise RequestError("there is nothing to undo", "nothing_to_undo")
            undone = self._engine_batches[-1]
            batch = self.store.events(self.table_id, since=undone[0] - 1, limit=1)
            action = (batch[0].cause or {}).get("action", "") if batch else ""
            was_finished = game.finished
            removed = game.undo()
            self._engine_batches.pop()
            ev = {
                "type": "undo",
                "undone": undone,
                "action": drv.public_action(action),
                "events": len(removed),
                "by": access.player or "table",
            }
            try:
                self._commit(
                    [("hub", ev)], {"cmd": "undo"}, game_status="playing" if was_finished else None
                )
            except BaseException:  # the log did not take the undo: memory follows the log
                if self.record is not None:
                    events = self.store.events(self.table_id, game_id=self.record.game_id)
                    self.game = history.rebuild(self.record, events)[0]
                raise
            if was_finished:
                self.record = self.store.game(self.table_id, self.game_id or "")
            return {"undone": undone, "action": drv.public_action(action)}

    # -- the Table a driver acts on (hub.games_glue.Table) -----------------------------------

    def play(
        self,
        action: Any,
        player: str | None,
        events: list[dict[str, Any]],
        cause: dict[str, Any],
        before: Iterable[Item] = (),
    ) -> dict[str, Any]:
        """Log a checked engine action's events (after ``before``, hub events), then play it."""
        game = self.game
        assert game is not None
        finished = any(e["type"] == "game_over" for e in events)
        items = [*before, *(("engine", e) for e in events)]
        seqs = self._commit(
            items,
            cause,
            game_status="finished" if finished else None,
            apply=lambda: game.play(action, player),
        )
        n_before = len(items) - len(events)
        self._engine_batches.append([s for s, _ in seqs[n_before:]])
        if finished:
            self.record = self.store.game(self.table_id, self.game_id or "")
        drv = self.driver
        return {"events": [drv.public_event(e) for e in events]}

    def refuse(self, player: str | None, action: str, exc: IllegalAction) -> NoReturn:
        """Log an authorised but illegal action (so the table sees why), change nothing else."""
        error = str(exc)
        public = self.driver.public_action(action)
        if public != str(action):  # a secret part: the sentence may name it
            error = "That overall bet is not possible: the race card is not in the player's hand."
        ev = {
            "type": "action_refused",
            "player": player,
            "action": public,
            "reason": exc.reason,
            "error": error,
        }
        seqs = self._commit([("hub", ev)], {"cmd": "action"})
        raise RequestError(str(exc), exc.reason, seq=seqs[-1][0])

    def log(self, events: list[dict[str, Any]], cause: dict[str, Any]) -> list[int]:
        """Log hub events (a prompt, a mismatch); the seqs they got."""
        return [seq for seq, _ in self._commit([("hub", e) for e in events], cause)]

    def keep_crop(self, p: Mapping[str, Any]) -> str | None:
        """Store a reading's crop; its id (None when the reading has none)."""
        crop = crop_bytes(p)
        if crop is None:
            return None
        crop_id = f"c{self.seq + 1}"
        self.store.put_crop(self.table_id, crop_id, self.game_id, crop)
        return crop_id

    def next_prompt(self) -> str:
        """The id the next logged prompt gets (named after its seq)."""
        return f"p{self.seq + 1}"

    def need_game(self, allow_finished: bool = False) -> AnyGame:
        """The game being played (``allow_finished``: or just over); RequestError if none."""
        if self.game is None or self.record is None or self.record.status == "abandoned":
            raise RequestError("no game is being played at this table: start one first", "no_game")
        if self.record.status != "playing" and not allow_finished:
            raise RequestError("the race is over: start another game", "game_over")
        return self.game

    # -- internals -----------------------------------------------------------------------------

    def _commit(
        self,
        items: list[Item],
        cause: dict[str, Any],
        *,
        game_id: str | None = None,
        new_game: dict[str, Any] | None = None,
        game_status: str | None = None,
        apply: Callable[[], object] | None = None,
    ) -> list[tuple[int, float]]:
        """Durably append, then change memory, then publish. The one way anything changes."""
        gid = game_id if game_id is not None else self.game_id
        part = Part(items, cause, gid, new_game, game_status, apply)
        return self.commit_parts([part])[0]

    def commit_parts(self, parts: list[Part]) -> list[list[tuple[int, float]]]:
        """The one write path (:meth:`_commit` for one batch): several batches of one command (a
        start that abandons the game being played) in one transaction, then each part's memory
        and bus in order, as if committed one after the other; each part's seqs and times."""
        all_seqs = self.store.append_batches(
            self.table_id,
            [Batch(p.game_id, p.items, p.cause, p.new_game, p.game_status) for p in parts],
            request=self.request_mark,
        )
        for part, seqs in zip(parts, all_seqs, strict=True):
            self._after_commit(part, seqs)
        return all_seqs

    def _after_commit(self, part: Part, seqs: list[tuple[int, float]]) -> None:
        """Memory, then the bus, for one logged part."""
        items, cause, gid = part.items, part.cause, part.game_id
        drv = driver(part.new_game["kind"]) if part.new_game is not None else self.driver
        if seqs:
            self._seq = seqs[-1][0]
        if part.apply is not None:
            part.apply()
        for pid in cause.get("resolves") or []:
            self.pending.pop(pid, None)
        for (_origin, ev), (seq, _ts) in zip(items, seqs, strict=True):
            track_prompt(self.pending, ev, seq, drv.prompt_of)
        if part.game_status is not None and self.record is not None:
            self.record = self.store.game(self.table_id, self.record.game_id)
        n = len(items)
        for i, ((_origin, ev), (seq, ts)) in enumerate(zip(items, seqs, strict=True)):
            public = drv.annotate(drv.public_event(ev), cause)
            self.bus.publish(Envelope(seq, self.table_id, gid, public, ts, batch_end=i == n - 1))

    def _recover(self) -> None:
        """Rebuild the table from the log (start-up, and after a crash or a power cut)."""
        records = self.store.games(self.table_id)
        if not records:
            return
        rec = records[-1]
        events = self.store.events(self.table_id, game_id=rec.game_id)
        game, pending, batches = history.rebuild(rec, events)
        self.record, self.game, self.pending, self._engine_batches = rec, game, pending, batches
        if game is not None and rec.status == "playing" and game.finished:
            log.warning("game %s ended in the log but was not marked finished", rec.game_id)
