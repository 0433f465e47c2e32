"""Server-Sent Events plumbing: message framing and a fan-out from the event bus to open pages.

Why a fan-out of bounded queues: the bus has one worker thread shared with the MQTT bridge, so a
listener must never block. Each open page gets its own queue; the bus listener only does
``put_nowait``. A page that falls more than ``maxsize`` envelopes behind (a phone whose Wi-Fi
stalled) is not allowed to grow memory: it is marked stale and its stream re-sends a snapshot,
which is always correct because the log is the truth.
"""

from __future__ import annotations

import json
import queue
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Generic, TypeVar

__all__ = ["format_sse", "comment", "Fanout", "Subscription", "parse_last_id"]


def format_sse(
    data: Any, *, event: str | None = None, id: int | None = None, retry_ms: int | None = None
) -> str:
    """One SSE message. ``data`` is JSON-encoded on a single line (JSON never needs a newline).

    >>> format_sse({"a": 1}, event="game", id=7)
    'id: 7\\nevent: game\\ndata: {"a":1}\\n\\n'
    """
    lines = []
    if retry_ms is not None:
        lines.append(f"retry: {int(retry_ms)}")
    if id is not None:
        lines.append(f"id: {int(id)}")
    if event is not None:
        if "\n" in event or "\r" in event:
            raise ValueError("an SSE event name cannot contain a newline")
        lines.append(f"event: {event}")
    lines.append("data: " + json.dumps(data, separators=(",", ":"), sort_keys=True))
    return "\n".join(lines) + "\n\n"


def comment(text: str = "heartbeat") -> str:
    """An SSE comment line: ignored by EventSource, but keeps proxies and phones from idling out."""
    return ": " + text.replace("\n", " ") + "\n\n"


def parse_last_id(*candidates: str | None) -> int | None:
    """The first candidate that is a non-negative integer (Last-Event-ID header, ``?last=``).

    Anything else (absent, garbage, negative) means "no position": the page gets a snapshot.

    >>> parse_last_id(None, "12")
    12
    >>> parse_last_id("abc", "-3") is None
    True
    """
    for value in candidates:
        if value is None:
            continue
        value = value.strip()
        if value.isdigit() and len(value) < 19:
            return int(value)
    return None


#: what a fan-out carries (the dashboard's: a bus envelope, or odds ready to show)
T = TypeVar("T")


class _Drop(Enum):
    """The marker that ends a stream (:meth:`Fanout.drop_all`)."""

    DROP = "drop"


_DROP = _Drop.DROP


@dataclass
class Subscription(Generic[T]):
    """One open page's queue of envelopes. ``stale`` is set when it overflowed."""

    queue: queue.Queue[T | _Drop]
    stale: bool = False
    info: dict[str, Any] = field(default_factory=dict)

    def get(self, timeout: float) -> T | None:
        """The next envelope, or None after ``timeout`` seconds; raises StopIteration on drop."""
        try:
            item = self.queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if item is _DROP:
            raise StopIteration
        return item

    def pending(self) -> list[T]:
        """Everything queued right now, without waiting (raises StopIteration on drop)."""
        out: list[T] = []
        while True:
            try:
                item = self.queue.get_nowait()
            except queue.Empty:
                return out
            if item is _DROP:
                raise StopIteration
            out.append(item)


class Fanout(Generic[T]):
    """Copies every envelope from the bus to every open page's queue, never blocking the bus."""

    def __init__(
        self, subscribe: Callable[[Callable[[T], None]], Callable[[], None]], maxsize: int = 2000
    ) -> None:
        self._subs: list[Subscription[T]] = []
        self._lock = threading.Lock()
        self._maxsize = maxsize
        self.opened = 0
        # how the latest connections started (Last-Event-ID, replayed, snapshot): for tests/ops
        self.history: deque[dict[str, Any]] = deque(maxlen=200)
        self._unsubscribe = subscribe(self._deliver)

    def _deliver(self, envelope: T) -> None:
        for sub in self._subs:  # copy-on-write list
            try:
                sub.queue.put_nowait(envelope)
            except queue.Full:
                sub.stale = True

    def publish(self, item: T) -> None:
        """Hand one item (not from the bus) to every open page, like an envelope."""
        self._deliver(item)

    def open(self, **info: Any) -> Subscription[T]:
        sub: Subscription[T] = Subscription(queue.Queue(self._maxsize), info=dict(info))
        with self._lock:
            self._subs = [*self._subs, sub]
            self.opened += 1
            self.history.append(sub.info)
        return sub

    def close(self, sub: Subscription[T]) -> None:
        with self._lock:
            self._subs = [s for s in self._subs if s is not sub]

    @property
    def open_count(self) -> int:
        return len(self._subs)

    def drop_all(self) -> int:
        """End every open stream (the pages reconnect with Last-Event-ID). Returns how many."""
        subs = self._subs
        for sub in subs:
            # the drop marker must get through even to a full queue
            while True:
                try:
                    sub.queue.put_nowait(_DROP)
                    break
                except queue.Full:
                    try:
                        sub.queue.get_nowait()
                    except queue.Empty:
                        pass
        return len(subs)

    def shutdown(self) -> None:
        self._unsubscribe()
        self.drop_all()
