"""The live side of the dashboard: what a page is sent, and the stream that sends it.

A page's stream, in order:

1. ``snapshot`` (id = seq): the current game's public log and its state; or, when the page comes
   back with ``Last-Event-ID`` (or ``?last=``), the events it missed as ``game`` messages, then
   ``state``. The subscription to the bus is opened *before* the log is read, so nothing that
   happens in between is lost; whatever arrives twice is dropped here by seq, and the page
   drops it again by seq (belt and braces: every delivery is safe twice).
2. ``game`` (id = seq) for every event, then one ``state`` when a command's events are all out.
3. ``odds`` (no id) when the odds and the advice of the new position are ready. They are worked
   out once per position on one worker thread and pushed to every page: a dozen phones polling
   for them would start a dozen computations of the same thing, each seconds of CPU on a Pi,
   and delay the next die read's update.
4. A comment every ``heartbeat_s`` seconds so phones and proxies keep the connection open.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from hub.bus import Envelope
from hub.dashboard.sse import Fanout, comment, format_sse

if TYPE_CHECKING:
    from hub.session import TableSession

log = logging.getLogger(__name__)

__all__ = ["Live", "page_event", "redact_advice", "redact_legal"]

#: More missed events than this and a fresh snapshot is cheaper than the replay.
MAX_REPLAY = 2000


def page_event(env: Any) -> dict[str, Any]:
    """An envelope (or its dict) as the page reads it: the event's fields, type, seq, ts."""
    d = env.to_dict() if hasattr(env, "to_dict") else dict(env)
    d["type"] = d.get("event_type") or d.get("type")
    return d


def redact_legal(actions: list[str]) -> list[str]:
    """Legal actions as the shared screen may see them.

    The colours a player may still bet on tell which colours they already bet on, so the public
    list carries only "bet:winner" / "bet:loser" (the hub then asks the player for the colour on
    their own phone).

    >>> redact_legal(["leg:blue", "bet:winner:blue", "bet:winner:green", "bet:loser:white"])
    ['leg:blue', 'bet:winner', 'bet:loser']
    """
    out: list[str] = []
    for a in actions:
        if a.startswith("bet:"):
            a = ":".join(a.split(":")[:2])
        if a not in out:
            out.append(a)
    return out


def redact_advice(advice: Any) -> Any:
    """The advisor's list as the shared screen may show it.

    The advisor ranks only legal actions, so its overall-bet colours tell which race cards the
    player still holds (and so what they bet before). The shared screen keeps the best bet of
    each pile without its colour; the player sees the colour on their own page.

    >>> redact_advice([{"action": "bet:winner:white", "expected": 2.0, "why": "P(white) .4"},
    ...                {"action": "leg:blue", "expected": 1.0, "why": "x"},
    ...                {"action": "bet:winner:blue", "expected": 0.5, "why": "y"}])[0]["action"]
    'bet:winner'
    """
    if not isinstance(advice, list):  # the horse race's advice: nothing secret in it
        return advice
    out: list[dict[str, Any]] = []
    piles: set[str] = set()
    for item in advice:
        action = str(item.get("action", ""))
        if action.startswith("bet:"):
            pile = action.split(":")[1] if ":" in action else ""
            if pile in piles:
                continue
            piles.add(pile)
            item = {
                **item,
                "action": f"bet:{pile}",
                "why": "the colour is shown on the player's own page",
            }
        out.append(item)
    return out


class OddsReady:
    """A fan-out item: the public odds and advice of position ``seq`` (not a bus envelope)."""

    def __init__(self, seq: int, payload: dict[str, Any]) -> None:
        self.seq = seq
        self.payload = payload


class Live:
    """Builds the page's messages from a TableSession and runs each page's stream."""

    def __init__(
        self, session: TableSession, *, heartbeat_s: float = 15.0, retry_ms: int = 2000
    ) -> None:
        self.session = session
        self.heartbeat_s = float(heartbeat_s)
        self.retry_ms = int(retry_ms)
        self.fanout: Fanout[Envelope | OddsReady] = Fanout(session.bus.subscribe)
        self._cache_lock = threading.Lock()
        self._public: tuple[int, str | None, dict[str, Any]] | None = None
        self.states_built = 0
        self.derived = session.with_odds or session.with_advice
        self.odds_computed = 0
        self._odds: OddsReady | None = None
        self._odds_wanted = threading.Event()
        self._closed = threading.Event()
        self._odds_thread: threading.Thread | None = None
        self._unsubscribe_odds: Callable[[], None] | None = None
        if self.derived:
            self._unsubscribe_odds = session.bus.subscribe(self._on_envelope)
            self._odds_thread = threading.Thread(
                target=self._odds_worker, daemon=True, name="dashboard-odds"
            )
            self._odds_thread.start()
            self._odds_wanted.set()

    # -- odds, once per position ----------------------------------------------------------------

    def _on_envelope(self, env: Envelope) -> None:
        if env.batch_end:
            self._odds_wanted.set()

    def odds(self) -> dict[str, Any]:
        """Odds and public advice of the current position (computed by the session, cached)."""
        snap = self.session.snapshot(log=False, derived=True)
        view = snap.get("game") or {}
        return {
            "seq": snap["seq"],
            "game_id": snap.get("game_id"),
            "odds": snap.get("odds"),
            "advice": {
                "player": view.get("current_player"),
                "actions": redact_advice(snap.get("advice") or []),
            },
        }

    #: Let a move's updates reach the pages before the odds take the CPU (and the GIL): they are
    #: worth a second's wait, the die read is not.
    SETTLE_S = 0.15

    def _odds_worker(self) -> None:
        while not self._closed.is_set():
            if not self._odds_wanted.wait(1.0):
                continue
            self._odds_wanted.clear()
            while self._odds_wanted.wait(self.SETTLE_S):  # more moves coming: wait for calm
                self._odds_wanted.clear()
                if self._closed.is_set():
                    return
            if self._closed.is_set():
                return
            try:
                if self._odds is not None and self._odds.seq == self.session.seq:
                    continue
                payload = self.odds()
            except Exception:  # odds are a comfort: never let them take the stream down
                log.exception("odds for the dashboard failed")
                continue
            self.odds_computed += 1
            ready = OddsReady(payload["seq"], payload)
            self._odds = ready
            self.fanout.publish(ready)

    def latest_odds(self) -> OddsReady | None:
        """The last odds pushed, if they are of the current position."""
        ready = self._odds
        return ready if ready is not None and ready.seq == self.session.seq else None

    # -- what a page is sent ------------------------------------------------------------------

    def state(self, player: str | None = None) -> dict[str, Any]:
        """The engine's picture now: view, legal actions of the player to move, open prompts.

        Built under the session's lock so view, seq and legal actions agree. The public one is
        built once per seq and shared by every page.
        """
        session = self.session
        if player is None:
            cached = self._public
            if cached is not None and cached[0] == session.seq and cached[1] == session.game_id:
                return cached[2]
        with session.lock:
            snap = session.snapshot(log=False, derived=False)
            game = session.game
            state = game.state if game is not None else None
            view = snap.get("game")
            legal: list[str] = []
            playing = snap.get("status") == "playing"
            if game is not None and state is not None and playing and not state.finished:
                legal = [str(a) for a in game.legal_actions()]
            current = view.get("current_player") if view else None
            pending = snap.get("pending", [])
            if player is not None and state is not None:
                try:
                    view = session.driver.player_view(state, player)
                except (KeyError, ValueError):
                    pass
                if player != current:
                    legal = []
            else:
                legal = redact_legal(legal)
        out = {
            "seq": snap["seq"],
            "game_id": snap.get("game_id"),
            "status": snap.get("status"),
            "view": view,
            "legal": legal,
            "pending": pending,
            "pin_required": snap.get("pin_required"),
            "derived": self.derived,
        }
        self.states_built += 1
        if player is None:
            with self._cache_lock:
                self._public = (out["seq"], out["game_id"], out)
        return out

    def snapshot(self, player: str | None = None) -> dict[str, Any]:
        """The whole current game for a page that has nothing: its public log and its state."""
        session = self.session
        with session.lock:
            snap = session.snapshot(log=True, derived=False)
            state = self.state(player)
        log = [page_event(e) for e in snap.get("log", [])]
        return {"game_id": snap.get("game_id"), "seq": snap["seq"], "log": log, "state": state}

    # -- the stream ---------------------------------------------------------------------------

    def stream(self, last_id: int | None, player: str | None = None) -> Iterator[str]:
        """The SSE text of one page's connection; ends when the page goes or on drop_all()."""
        info: dict[str, Any] = {
            "last_id": last_id,
            "player": player,
            "replayed": 0,
            "snapshot": False,
            "opened": time.time(),
        }
        sub = self.fanout.open(**info)
        try:
            sent = -1
            yield f"retry: {self.retry_ms}\n\n"
            replay = None
            if last_id is not None and last_id <= self.session.seq:
                replay = self.session.events_since(last_id, limit=MAX_REPLAY + 1)
                if len(replay) > MAX_REPLAY:
                    replay = None
            ready = self.latest_odds()
            if ready is not None:  # the page shows them at once; newer ones follow
                sub.queue.put_nowait(ready)
            if replay is None:
                snap = self.snapshot(player)
                sub.info["snapshot"] = True
                sent = snap["seq"]
                yield format_sse(snap, event="snapshot", id=sent)
            else:
                sent = last_id if last_id is not None else -1
                out: list[str] = []
                for env in replay:
                    if env.seq <= sent:
                        continue
                    sent = env.seq
                    out.append(format_sse(page_event(env), event="game", id=env.seq))
                sub.info["replayed"] = len(replay)
                out.append(format_sse(self.state(player), event="state"))
                yield "".join(out)
            while True:
                try:
                    item = sub.get(self.heartbeat_s)
                    if item is None:
                        yield comment("heartbeat")
                        continue
                    batch = [item, *sub.pending()]
                except StopIteration:
                    return
                if sub.stale:  # this page fell too far behind: start it afresh
                    sub.stale = False
                    snap = self.snapshot(player)
                    sent = snap["seq"]
                    yield format_sse(snap, event="snapshot", id=sent)
                    continue
                # one write per command: the events and the view after them leave together
                out = []
                odds: OddsReady | None = None
                for item in batch:
                    if isinstance(item, OddsReady):
                        odds = item
                        continue
                    if item.seq <= sent:
                        continue
                    sent = item.seq
                    out.append(format_sse(page_event(item), event="game", id=item.seq))
                if out:
                    out.append(format_sse(self.state(player), event="state"))
                if odds is not None:
                    out.append(format_sse(odds.payload, event="odds"))
                if out:
                    yield "".join(out)
        finally:
            self.fanout.close(sub)

    def close(self) -> None:
        self._closed.set()
        self._odds_wanted.set()
        if self._unsubscribe_odds is not None:
            self._unsubscribe_odds()
        self.fanout.shutdown()
