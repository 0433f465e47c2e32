"""Keeps a camera running whatever it does: a capture thread, the newest frame, and reopening.

Why a capture thread with a one-frame slot: the watch loop must never fall behind the camera. The
thread reads as fast as the camera gives frames and keeps only the newest; a frame the loop had
no time for is overwritten and counted as dropped (bounded work per frame, as in Frigate).

Why a supervisor: cameras fail in three ways on a Pi — ``read`` raises (cable, driver), ``read``
blocks forever or returns nothing (a frozen sensor), or frames come back black (sensor or ribbon
fault, lights off). Each is reported through ``on_error`` and the camera is closed and reopened
with exponential backoff; the first good frame after that is reported through ``on_recover``.
Black frames are never handed to the loop (they would read as "nothing there").
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from firmware.frames import FrameSource

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Frame:
    image: np.ndarray
    seq: int  # 1, 2, 3... over the supervisor's life, across reopens
    t: float  # time.monotonic() when the camera returned it


def mean_brightness(image: np.ndarray) -> float:
    """Mean level of a sparse grid of pixels: enough to tell black from a scene, and cheap."""
    return float(image[::8, ::8].mean())


class CameraSupervisor:
    def __init__(
        self,
        open_source: Callable[[], FrameSource],
        *,
        black_level: float = 8.0,
        black_frames: int = 30,
        freeze_timeout_s: float = 2.0,
        backoff_s: tuple[float, float] = (0.2, 10.0),
        on_error: Callable[[str], None] | None = None,
        on_recover: Callable[[], None] | None = None,
    ) -> None:
        self._open = open_source
        self.black_level = black_level
        self.black_frames = black_frames
        self.freeze_timeout_s = freeze_timeout_s
        self.backoff_s = backoff_s
        self.on_error = on_error
        self.on_recover = on_recover
        self._cond = threading.Condition()
        self._latest: Frame | None = None
        self._consumed_seq = 0
        self._peeked_seq = 0  # the newest frame peek() handed out: never recycled
        self._paused = 0  # paused() blocks under way: no frame decoded (unless peek() waits)
        self._peek_waiting = 0
        self._seq = 0
        self._generation = 0
        self._running = False
        self._failing = False
        self._last_activity = time.monotonic()
        self._reading_since: float | None = None
        self._threads: list[threading.Thread] = []
        self._watchdog: threading.Thread | None = None
        self._stop_event = threading.Event()
        self._source: FrameSource | None = None  # the open source, for capture_zone
        # figures for health
        self.captured = 0
        self.dropped = 0
        self.reopens = 0
        self.errors = 0
        self.last_error: str | None = None
        self.last_fault: str | None = None  # firmware.camera_fault value of the last failure
        self.source_name: str | None = None
        self.fps_captured = 0.0
        self._fps_window: list[float] = []

    # --- life -------------------------------------------------------------------------------
    def start(self) -> CameraSupervisor:
        self._running = True
        self._stop_event.clear()
        self._spawn()
        self._watchdog = threading.Thread(target=self._watch, name="camera-watchdog", daemon=True)
        self._watchdog.start()
        return self

    def stop(self) -> None:
        self._running = False
        self._stop_event.set()
        with self._cond:
            self._generation += 1
            self._cond.notify_all()
        if self._threads:  # the current capture thread; any left behind frozen are daemons
            self._threads[-1].join(timeout=2.0)
        if self._watchdog is not None:
            self._watchdog.join(timeout=2.0)

    def __enter__(self) -> CameraSupervisor:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _spawn(self) -> None:
        with self._cond:
            self._generation += 1
            gen = self._generation
            self._last_activity = time.monotonic()
        t = threading.Thread(target=self._capture, args=(gen,), name=f"camera-{gen}", daemon=True)
        self._threads = [x for x in self._threads if x.is_alive()] + [t]
        t.start()

    # --- the consumer's side ----------------------------------------------------------------
    def next_frame(self, timeout: float = 1.0) -> Frame | None:
        """The newest frame not yet handed out, waiting up to ``timeout`` for one."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._latest is None or self._latest.seq <= self._consumed_seq:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not self._running:
                    return None
                self._cond.wait(remaining)
            self._consumed_seq = self._latest.seq
            return self._latest

    def peek(self, after: float, timeout: float = 5.0) -> Frame | None:
        """The newest frame the camera returned after ``after`` (``time.monotonic()``), waiting
        up to ``timeout`` for one; None if none came. Unlike :meth:`next_frame` it takes nothing
        from the loop (the set-up link shows frames the loop also watches)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            self._peek_waiting += 1  # a paused camera decodes for it
            self._cond.notify_all()
            try:
                while self._latest is None or self._latest.t <= after:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0 or not self._running:
                        return None
                    self._cond.wait(remaining)
            finally:
                self._peek_waiting -= 1
            self._peeked_seq = self._latest.seq
            return self._latest

    @contextmanager
    def paused(self) -> Iterator[None]:
        """No frame is decoded in this block (unless :meth:`peek` waits for one), and the
        newest frame nobody took is let go; frames come again after it (the first within a
        frame's time).

        Why: the loop reads a whole frame (the starting roll, a Marco Polo II frame) for one
        to several seconds, the process's memory peak (issue 14), while the capture thread
        decoded frame after frame into the slot that nobody would look at: a 1280x720 frame
        (2.7 MB) more at the peak, and a core's worth of decoding on a Pi. The frame that is
        read is the loop's own; what the camera shows meanwhile is not wanted. Not for the
        reveal zone's reads: the die watcher wants the next frame at once after them. The
        camera itself is not asked for frames meanwhile (libcamera drops what nobody asks
        for), and a pause is not a frozen camera (no error, no reopen)."""
        with self._cond:
            self._paused += 1
            self._drop_unseen()
        try:
            yield
        finally:
            with self._cond:
                self._paused -= 1
                self._cond.notify_all()

    def _drop_unseen(self) -> None:
        """Let the slot's frame go if nobody took it nor was shown it (under ``_cond``)."""
        latest = self._latest
        if latest is not None and latest.seq > self._consumed_seq:
            if latest.seq != self._peeked_seq:
                self._latest = None
                self.dropped += 1

    def _hold(self, gen: int) -> bool:
        """Wait a moment while :meth:`paused` (and nobody peeks); whether it waited."""
        with self._cond:
            if not self._paused or self._peek_waiting or gen != self._generation:
                return False
            self._drop_unseen()
            self._cond.wait(0.05)
        self._last_activity = time.monotonic()  # paused, not frozen
        return True

    def capture_zone(self, box: tuple[int, int, int, int]) -> tuple[np.ndarray, float] | None:
        """The open source's full-resolution cut of ``box`` (FrameSource.capture_zone), or None:
        no source open, no such stream, or it failed (then the preview frame is read: a die
        read must never wait on a camera reopen)."""
        source = self._source
        fn = getattr(source, "capture_zone", None)
        if fn is None:
            return None
        try:
            cut: tuple[np.ndarray, float] | None = fn(box)
            return cut
        except Exception as exc:
            log.warning("full-resolution zone capture failed: %s: %s", type(exc).__name__, exc)
            return None

    # --- the capture thread -----------------------------------------------------------------
    def _report(self, message: str, fault: str = "failed") -> None:
        self.last_fault = fault
        self.errors += 1
        self.last_error = message
        self._failing = True
        log.warning("camera: %s", message)
        if self.on_error is not None:
            try:
                self.on_error(message)
            except Exception:
                log.exception("camera on_error callback failed")

    def _current(self, gen: int) -> bool:
        return self._running and gen == self._generation

    def _capture(self, gen: int) -> None:
        source: FrameSource | None = None
        backoff = self.backoff_s[0]
        black = 0
        none_since: float | None = None
        try:
            while self._current(gen):
                if source is None:
                    try:
                        source = self._open()
                        self._source = source
                        self.source_name = source.name
                        black, none_since = 0, None
                    except Exception as exc:
                        fault = getattr(exc, "fault", None)
                        self._report(
                            f"cannot open the camera: {exc}",
                            str(getattr(fault, "value", None) or "failed"),
                        )
                        self._stop_event.wait(backoff)
                        backoff = min(backoff * 2, self.backoff_s[1])
                        continue
                if self._hold(gen):
                    continue
                try:
                    self._reading_since = time.monotonic()
                    image = source.read_into(lambda: self._spare(gen))
                except Exception as exc:
                    image = None
                    self._report(f"camera read failed: {type(exc).__name__}: {exc}", "failed")
                    self._reopen(source)
                    source = None
                    self._stop_event.wait(backoff)
                    backoff = min(backoff * 2, self.backoff_s[1])
                    continue
                finally:
                    if gen == self._generation:  # a thread left behind must not clear it
                        self._reading_since = None
                now = time.monotonic()
                if not self._current(gen):
                    break
                self._last_activity = now
                if image is None:
                    none_since = none_since or now
                    if now - none_since > self.freeze_timeout_s:
                        self._report(f"camera gave no frame for {self.freeze_timeout_s:g} s")
                        self._reopen(source)
                        source = None
                        self._stop_event.wait(backoff)
                        backoff = min(backoff * 2, self.backoff_s[1])
                    else:
                        time.sleep(0.005)
                    continue
                none_since = None
                if mean_brightness(image) < self.black_level:
                    black += 1
                    if black >= self.black_frames:
                        self._report(f"camera gives black frames ({black} in a row)")
                        self._reopen(source)
                        source = None
                        self._stop_event.wait(backoff)
                        backoff = min(backoff * 2, self.backoff_s[1])
                    continue
                black = 0
                backoff = self.backoff_s[0]
                self._deliver(image, now)
        finally:
            if source is not None:
                self._close_quietly(source)

    def _reopen(self, source: FrameSource) -> None:
        """Close a failed camera; the capture loop opens a new one (after its backoff)."""
        self.reopens += 1
        if self._source is source:
            self._source = None
        self._close_quietly(source)
        return None

    @staticmethod
    def _close_quietly(source: FrameSource) -> None:
        try:
            source.close()
        except Exception:
            log.exception("closing the camera failed")

    def _spare(self, gen: int) -> np.ndarray | None:
        """The newest frame's buffer, for the next frame to be decoded into, when nobody has it
        or ever will: not taken by the loop, not shown by peek(). It leaves the slot now (a
        dropped frame: the loop had no time for it), so the loop, if it comes for a frame
        meanwhile, waits the few milliseconds of the decode for a newer one. Without this the
        slot's frame and the one being decoded lived side by side whenever the loop was busy:
        a frame more at the process's peak (FrameSource.read_into)."""
        with self._cond:
            latest = self._latest
            if gen != self._generation:  # a thread left behind (frozen read) takes nothing
                return None
            if latest is None or latest.seq <= self._consumed_seq:
                return None
            if latest.seq == self._peeked_seq:
                return None
            self._latest = None
            self.dropped += 1
            return latest.image

    def _deliver(self, image: np.ndarray, now: float) -> None:
        if self._failing:
            self._failing = False
            self.last_fault = None
            log.info("camera: frames are back")
            if self.on_recover is not None:
                try:
                    self.on_recover()
                except Exception:
                    log.exception("camera on_recover callback failed")
        with self._cond:
            if self._latest is not None and self._latest.seq > self._consumed_seq:
                self.dropped += 1  # the loop had no time for it
            self._seq += 1
            self._latest = Frame(image, self._seq, now)
            self.captured += 1
            self._fps_window.append(now)
            while self._fps_window and now - self._fps_window[0] > 2.0:
                self._fps_window.pop(0)
            if len(self._fps_window) > 1:
                span = self._fps_window[-1] - self._fps_window[0]
                self.fps_captured = (len(self._fps_window) - 1) / span if span > 0 else 0.0
            self._cond.notify_all()

    # --- the watchdog: a read that never returns --------------------------------------------
    def _watch(self) -> None:
        while not self._stop_event.wait(min(0.1, self.freeze_timeout_s / 4)):
            started = self._reading_since
            if started is not None and time.monotonic() - started > self.freeze_timeout_s:
                self._report(f"camera froze: a read blocked for over {self.freeze_timeout_s:g} s")
                self.reopens += 1
                # leave the stuck thread behind (it exits when its read returns, seeing it is
                # stale) and start a fresh one; the camera is reopened by the new thread
                self._reading_since = None
                self._spawn()
