"""Switch debouncing of our own.

Why not gpiozero's ``bounce_time``: it depends on the pin backend (lgpio filters in the kernel,
mock pins do not bounce at all), so it can be neither relied on nor tested. Here the raw edges of
the pin go through :class:`DebounceFilter`, a pure state machine with an injected clock, and
:class:`Debouncer` adds the one timer it needs (to notice that a line has gone quiet).

Two modes (``[pins] debounce`` in the config):

``lockout`` (default)
    A change of level counts at its very first edge, provided the line had been quiet for
    ``hold_s`` before it; the bounces after it are ignored, and the level is re-read once the line
    has been quiet for ``hold_s``. No latency — what arcade controls do.
``hold``
    A level counts only once it has held for ``hold_s``. Slower by ``hold_s``, but a lone spike
    on a long wire never counts.

In both modes a bounce burst (edges closer together than ``hold_s``) yields exactly one change.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Change:
    """A debounced change of level: ``level`` True = active (pressed), ``t`` = its first edge."""

    level: bool
    t: float


class DebounceFilter:
    """Pure debouncing state machine: feed it raw edges, poll it for quiet lines."""

    def __init__(self, hold_s: float, initial: bool = False, mode: str = "lockout") -> None:
        if hold_s < 0:
            raise ValueError(f"hold_s must not be negative, got {hold_s}")
        if mode not in ("lockout", "hold"):
            raise ValueError(f"mode must be 'lockout' or 'hold', got {mode!r}")
        self.hold_s = hold_s
        self.mode = mode
        self.stable = initial
        self.raw = initial
        self.last_edge: float = float("-inf")
        self._run_start: float = float("-inf")  # first edge of the current burst

    def feed(self, level: bool, t: float) -> Change | None:
        """A raw edge (or a sample) at time ``t``; returns a change accepted at once, if any."""
        if level == self.raw:  # a repeated callback, not an edge
            return None
        quiet_before = t - self.last_edge >= self.hold_s
        if quiet_before:
            self._run_start = t
        self.raw = level
        self.last_edge = t
        if self.mode == "lockout" and quiet_before and level != self.stable:
            self.stable = level
            return Change(level, t)
        if self.hold_s == 0 and level != self.stable:
            self.stable = level
            return Change(level, t)
        return None

    def deadline(self) -> float | None:
        """When :meth:`poll` may next accept a change (None: nothing pending)."""
        if self.raw == self.stable:
            return None
        return self.last_edge + self.hold_s

    def poll(self, t: float) -> Change | None:
        """Accept the raw level if the line has been quiet for ``hold_s`` and it differs."""
        if self.raw != self.stable and t - self.last_edge >= self.hold_s:
            self.stable = self.raw
            # hold: the burst's first edge is when the physical event began; lockout: the change
            # accepted late is the end of a burst that started as the opposite change
            return Change(self.stable, self._run_start if self.mode == "hold" else self.last_edge)
        return None


class Debouncer:
    """A :class:`DebounceFilter` with a timer thread; calls ``on_change(Change)`` for each change.

    ``edge(level)`` is called from the GPIO callback thread. Callbacks run either in that thread
    (lockout's instant accept) or in the timer thread; they must be quick (queue the work).
    """

    def __init__(
        self,
        hold_s: float,
        on_change: Callable[[Change], None],
        *,
        initial: bool = False,
        mode: str = "lockout",
        clock: Callable[[], float] = time.monotonic,
        name: str = "debounce",
    ) -> None:
        self._filter = DebounceFilter(hold_s, initial, mode)
        self._on_change = on_change
        self._clock = clock
        self._cond = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    @property
    def level(self) -> bool:
        return self._filter.stable

    def edge(self, level: bool, t: float | None = None) -> None:
        with self._cond:
            change = self._filter.feed(level, self._clock() if t is None else t)
            self._cond.notify()
        if change is not None:
            self._on_change(change)

    def _run(self) -> None:
        while True:
            with self._cond:
                if self._closed:
                    return
                deadline = self._filter.deadline()
                now = self._clock()
                if deadline is None:
                    self._cond.wait()
                    continue
                if now < deadline:
                    self._cond.wait(deadline - now)
                    continue
                change = self._filter.poll(now)
            if change is not None:
                self._on_change(change)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()
        self._thread.join(timeout=1.0)
