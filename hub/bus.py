"""One in-process event bus per hub, on its own worker thread.

Why a bus: the MQTT bridge and the dashboard both want every event of the table in order, and
neither may slow the other down or the game itself. The session appends an event to the SQLite log
first (durable), then hands an :class:`Envelope` to :meth:`EventBus.publish`, which only enqueues
it. A single worker thread delivers envelopes to every subscriber in publish order, so all
listeners see the same order. Each call is wrapped: a listener that raises is logged and skipped,
and the bus carries on (the OctoPrint pattern).

Envelopes carry the *public* (redacted) event: secret overall-bet colours never reach a listener
before the game is over.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from hub.wire import EventMessage

log = logging.getLogger(__name__)

__all__ = ["Envelope", "EventBus", "Listener"]


@dataclass(frozen=True)
class Envelope:
    """One published event of a table.

    ``seq`` is the table's event-log sequence number (strictly increasing, never reused): a
    receiver drops an envelope whose seq it has already seen, so every delivery is safe twice.
    ``event`` is the public event dict with its ``"type"``; ``ts`` is the Unix time it was
    logged. ``batch_end`` is True on the last event caused by one command, a cheap hint for
    listeners that redraw or republish state once per command rather than once per event.
    """

    seq: int
    table: str
    game_id: str | None
    event: dict[str, Any]
    ts: float
    batch_end: bool = True

    @property
    def type(self) -> str:
        return str(self.event.get("type", ""))

    def message(self) -> EventMessage:
        """The typed wire message (hub.wire.EventMessage); ValueError on an unknown type."""
        return EventMessage.from_event(self.seq, self.table, self.game_id, self.event, self.ts)

    def to_dict(self) -> dict[str, Any]:
        """The envelope as a JSON-safe dict, as it goes on the wire (:meth:`message`): the
        event's fields plus event_type, seq, ts, table, game_id."""
        return self.message().to_payload()


Listener = Callable[[Envelope], object]


class _Stop(Enum):
    """The marker that stops the bus's worker (:meth:`EventBus.close`)."""

    STOP = "stop"


_STOP = _Stop.STOP


@dataclass
class _Subscriber:
    fn: Listener
    failures: int = 0
    name: str = field(default="")


class EventBus:
    """Publish envelopes to subscribers from one worker thread.

    >>> bus = EventBus()
    >>> got = []
    >>> unsubscribe = bus.subscribe(got.append)
    >>> bus.publish(Envelope(1, "t1", "g1", {"type": "undo"}, 0.0))
    >>> bus.flush()
    True
    >>> [e.seq for e in got]
    [1]
    >>> unsubscribe(); bus.close()
    """

    def __init__(self, name: str = "bus") -> None:
        self._subs: list[_Subscriber] = []
        self._lock = threading.Lock()
        # envelopes to deliver; an Event to set once those before it are (flush); the stop
        self._queue: queue.Queue[Envelope | threading.Event | _Stop] = queue.Queue()
        self._closed = False
        self.delivered = 0
        self.listener_errors = 0
        self._thread = threading.Thread(target=self._run, name=f"eventbus-{name}", daemon=True)
        self._thread.start()

    def subscribe(self, fn: Listener) -> Callable[[], None]:
        """Call ``fn(envelope)`` for every envelope published from now on.

        Returns a function that unsubscribes (safe to call twice).
        """
        sub = _Subscriber(fn, name=getattr(fn, "__qualname__", repr(fn)))
        with self._lock:
            self._subs = [*self._subs, sub]

        def unsubscribe() -> None:
            with self._lock:
                self._subs = [s for s in self._subs if s is not sub]

        return unsubscribe

    def publish(self, envelope: Envelope) -> None:
        """Queue an envelope for delivery; never blocks on listeners."""
        if self._closed:
            raise RuntimeError("the event bus is closed")
        self._queue.put(envelope)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until everything published so far was delivered. False on timeout.

        For tests and orderly shutdown; the game never waits for its listeners.
        """
        if threading.current_thread() is self._thread:
            return True
        done = threading.Event()
        self._queue.put(done)
        return done.wait(timeout)

    def close(self, timeout: float = 5.0) -> None:
        """Deliver what is queued, then stop the worker thread."""
        if self._closed:
            return
        self._closed = True
        self._queue.put(_STOP)
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    @property
    def pending(self) -> int:
        """Envelopes queued and not yet delivered (approximate)."""
        return self._queue.qsize()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            if isinstance(item, threading.Event):
                item.set()
                continue
            for sub in self._subs:  # a copy-on-write list: safe against (un)subscribe
                try:
                    sub.fn(item)
                except Exception:  # one bad listener must not kill the bus
                    sub.failures += 1
                    self.listener_errors += 1
                    log.exception("event bus listener %s failed on seq %s", sub.name, item.seq)
            self.delivered += 1


def now() -> float:
    """Wall-clock time for envelopes (one place to change if a monotonic clock is wanted)."""
    return time.time()
