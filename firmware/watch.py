"""The watch loop: slider -> light -> die settles -> read -> hub -> track settles -> read -> hub.

One thread owns the loop; everything else talks to it through a queue (GPIO edges) or flags
(camera failures), so sinks are only ever called from the loop's thread. Each pass handles the
queued events and then at most one frame — the newest the camera supervisor has; older ones are
dropped and counted — so the work per frame is bounded and the loop never falls behind.

States (``health.state``)::

    ready --slider--> reading_die --settled: read, send--> reading_track --settled--> ready
                          | no settle within die_timeout_s: a failed reading is sent (the hub
                          |   asks a person), LED "attention", a different chirp
    setup --confirm or slider--> (whole frame settles) read every die, then the track --> ready

The loop never dies of a camera or a reader: both are caught, reported in the status and on the
LED, and the loop goes on (the camera supervisor reopens the camera with backoff).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Any

import numpy as np

from firmware.camera import CameraSupervisor, Frame
from firmware.config import WatchConfig
from firmware.devices import Devices, LedState
from firmware.health import Health
from firmware.readers import Box, Readers, crop, encode_jpeg, failed_die
from firmware.sinks import ObservationSink

log = logging.getLogger(__name__)

READY, READING_DIE, READING_TRACK, SETUP = "ready", "reading_die", "reading_track", "setup"
ZONE_REFRESH_S = 10.0  # how often the reveal zone is looked for again while idle


class WatchLoop:
    def __init__(
        self,
        camera: CameraSupervisor,
        sink: ObservationSink,
        *,
        devices: Devices | None = None,
        config: WatchConfig | None = None,
        health: Health | None = None,
        readers: Readers | None = None,
        reveal_zone: Box | None = None,
        setup: bool = False,
        table: str = "table-1",
    ) -> None:
        self.camera = camera
        self.sink = sink
        self.devices = devices
        self.cfg = config or WatchConfig()
        self.health = health or Health(table)
        self.readers = readers or Readers()
        self.fixed_zone = reveal_zone
        self.zone: Box | None = reveal_zone
        self._zone_checked = -1e9
        self.events: queue.Queue[tuple[str, float, float]] = queue.Queue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._camera_problem: str | None = None
        self._camera_recovered = False
        self._last_status = -1e9
        self._status_dirty = True
        self._prev_frame: Frame | None = None
        self._settler: Any = None
        self._phase_start = 0.0
        self._attention = False
        self.state = SETUP if setup else READY
        self.health.mode = "setup" if setup else "play"
        self.health.state = self.state
        camera.on_error = self._camera_error
        camera.on_recover = self._camera_back
        if devices is not None:
            devices.slider.when_pressed = self.slider_pressed
            devices.confirm.when_pressed = self.confirm_pressed

    # --- inputs (any thread) -----------------------------------------------------------------
    def slider_pressed(self, t_mono: float | None = None) -> None:
        """The pyramid released a die (the slider's debounced press)."""
        t = time.monotonic() if t_mono is None else t_mono
        self.events.put(("release", t, time.time() - (time.monotonic() - t)))

    def confirm_pressed(self, t_mono: float | None = None) -> None:
        t = time.monotonic() if t_mono is None else t_mono
        self.events.put(("confirm", t, time.time() - (time.monotonic() - t)))

    def _camera_error(self, message: str) -> None:
        self._camera_problem = message

    def _camera_back(self) -> None:
        self._camera_recovered = True

    # --- life --------------------------------------------------------------------------------
    def start(self) -> WatchLoop:
        self._thread = threading.Thread(target=self.run, name="watch-loop", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def run(self, duration: float | None = None) -> None:
        """Loop until :meth:`stop` (or ``duration`` seconds). Never raises out of a pass."""
        end = None if duration is None else time.monotonic() + duration
        try:
            self.readers.warm_up()
        except Exception:
            log.exception("warming up the readers failed")
        self._show()
        while not self._stop.is_set() and (end is None or time.monotonic() < end):
            try:
                self._pass()
            except Exception as exc:  # a bug in a pass must not stop the table
                log.exception("watch loop pass failed")
                self.health.error(f"watch loop: {type(exc).__name__}: {exc}")
                self._status_dirty = True
                time.sleep(0.05)
        self.health.state = "stopped"
        self._publish_status(force=True)
        if self.devices is not None:
            self.devices.light.off()
            self.devices.status.show(LedState.OFF)

    # --- one pass ----------------------------------------------------------------------------
    def _pass(self) -> None:
        frame = self.camera.next_frame(timeout=0.05)
        self._handle_camera_flags()
        # events after the wait and before the frame: a frame taken after an edge then counts
        # for that edge, and is not lost to the state before it
        while True:
            try:
                kind, t_mono, t_wall = self.events.get_nowait()
            except queue.Empty:
                break
            self._event(kind, t_mono, t_wall)
        if frame is not None:
            t0 = time.perf_counter()
            self._frame(frame)
            self.health.frame(time.monotonic(), (time.perf_counter() - t0) * 1000)
        self._timeouts()
        self._publish_status()

    def _handle_camera_flags(self) -> None:
        problem, self._camera_problem = self._camera_problem, None
        if problem is not None:
            self.health.error(problem)
            self.health.state = "camera_error"
            self._status_dirty = True
            self._show(LedState.ERROR)
            if self.devices is not None:
                self.devices.buzzer.chirp_error()
        if self._camera_recovered:
            self._camera_recovered = False
            self.health.state = self.state
            self._status_dirty = True
            self._show()

    def _event(self, kind: str, t_mono: float, t_wall: float) -> None:
        if kind == "release":
            self.health.releases += 1
            if self.state == SETUP:
                self._begin(SETUP, t_mono, frames=self.cfg.still_frames)
                return
            if self.state == READING_TRACK:
                self.health.error("track not read: the next die was released first")
            self.sink.pyramid_released(t_wall)
            self._begin(READING_DIE, t_mono, frames=self.cfg.still_frames)
        elif kind == "confirm":
            self._attention = False
            if self.state == READING_TRACK and self._prev_frame is not None:
                self._read_track(self._prev_frame, note="read on the confirm button")
            elif self.state == SETUP:
                self._begin(SETUP, t_mono, frames=self.cfg.still_frames)
            self._show()

    def _begin(self, state: str, t_mono: float, *, frames: int) -> None:
        self.state = state
        self.health.state = state
        self._phase_start = t_mono
        # the die's zone needs no motion first (the die may land between two frames); the
        # track does (the camel must be moved after the die is read)
        kind = {READING_DIE: "die", READING_TRACK: "track"}.get(state, "setup")
        self._settler = self.readers.settler(kind, frames)
        seed = getattr(self._settler, "seed", None)
        if seed is not None and self._prev_frame is not None:
            # the last frame before the edge: the first frame after it can already be compared
            seed(self._region(self._prev_frame.image))
        if self.devices is not None:
            self.devices.light.on()
        self._status_dirty = True
        self._show()

    def _region(self, image: np.ndarray) -> np.ndarray:
        if self.state == READING_DIE and self.zone is not None:
            return crop(image, self.zone)
        return image[::4, ::4]  # the track or the whole table: a quarter size is plenty

    def _frame(self, frame: Frame) -> None:
        image = frame.image
        if self.state == READY and self.fixed_zone is None:
            self._refresh_zone(image, frame.t)
        if self.state in (READING_DIE, READING_TRACK, SETUP) and self._settler is not None:
            if frame.t > self._phase_start:  # only frames taken after the event count
                if self._settler.update(self._region(image)):
                    if self.state == READING_DIE:
                        self._read_die(frame)
                    elif self.state == READING_TRACK:
                        self._read_track(frame)
                    else:
                        self._read_setup(frame)
        self._prev_frame = frame

    def _refresh_zone(self, image: np.ndarray, t: float) -> None:
        if t - self._zone_checked < ZONE_REFRESH_S:
            return
        self._zone_checked = t
        try:
            self.zone = self.readers.timed("locate", self.readers.locate_zone, image)
        except Exception as exc:
            if self.zone is None:
                self.health.error(f"reveal zone not found: {exc}")
                self._status_dirty = True

    # --- reads -------------------------------------------------------------------------------
    def _read_die(self, frame: Frame) -> None:
        image = frame.image
        if self.zone is None:  # no markers seen yet: look now, else read the whole frame
            self._zone_checked = -1e9
            self._refresh_zone(image, frame.t)
        zone = self.zone or (0, 0, image.shape[1], image.shape[0])
        try:
            reading, jpeg = self.readers.timed("die", self.readers.read_die, image, zone)
        except Exception as exc:
            reading, jpeg = failed_die(f"read failed: {type(exc).__name__}: {exc}"), \
                encode_jpeg(crop(image, zone))
        reading = {**reading, "mode": "play", "ts": time.time()}
        self._send_die(reading, jpeg)
        self._begin(READING_TRACK, frame.t,
                    frames=self.cfg.track_still_frames)

    def _send_die(self, reading: dict[str, Any], jpeg: bytes | None) -> None:
        ok = reading.get("colour") is not None and reading.get("face") is not None
        if ok:
            self.health.dice_read += 1
        else:
            self.health.read_errors += 1
            self.health.error(f"die not read: {reading.get('reason') or 'uncertain'}")
            self._attention = True
            self._show()
        self.sink.die_read(reading, jpeg)
        if self.devices is not None:
            (self.devices.buzzer.chirp_read if ok else self.devices.buzzer.chirp_look)()
        self._status_dirty = True

    def _read_track(self, frame: Frame, note: str | None = None) -> None:
        try:
            reading = self.readers.timed("track", self.readers.read_track, frame.image)
        except Exception as exc:
            reading = {"track": {}, "desert": {}, "confidence": 0.0, "uncertain": [],
                       "reason": f"read failed: {type(exc).__name__}: {exc}"}
        if reading.get("reason"):
            self.health.read_errors += 1
            self.health.error(f"track not read: {reading['reason']}")
        else:
            self.health.tracks_read += 1
        if note:
            reading = {**reading, "note": note}
        self.sink.track_read({**reading, "ts": time.time()})
        self._finish()

    def _read_setup(self, frame: Frame) -> None:
        image = frame.image
        try:
            dice = self.readers.timed("dice", self.readers.read_dice, image)
        except Exception as exc:
            dice = []
            self.health.error(f"setup roll not read: {type(exc).__name__}: {exc}")
        n = self.cfg.setup_dice
        colours = [d.get("colour") for d, _ in dice]
        complete = (len(dice) == n and None not in colours and len(set(colours)) == n
                    and all(d.get("face") for d, _ in dice))
        for i, (reading, jpeg) in enumerate(dice):
            self._send_die({**reading, "mode": "setup", "index": i, "of": len(dice),
                            "ts": time.time()}, jpeg)
        if not complete:
            self.health.read_errors += 1
            self.health.error(f"setup roll: read {len(dice)} dice {colours}, expected {n} "
                              "dice of different colours")
            self._attention = True
            if self.devices is not None:
                self.devices.buzzer.chirp_look()
            self.state = SETUP  # stay in setup: press confirm (or the slider) to read again
            self.health.state = SETUP
            self._settler = None
            if self.devices is not None:
                self.devices.light.off()
            self._show()
            return
        self.health.mode = "play"
        self._read_track(frame, note="starting position")

    def _finish(self) -> None:
        self.state = READY
        self.health.state = READY
        self.health.mode = "play"
        self._settler = None
        if self.devices is not None:
            self.devices.light.off()
        self._status_dirty = True
        self._show()

    def _timeouts(self) -> None:
        now = time.monotonic()
        if self.state == READING_DIE and now - self._phase_start > self.cfg.die_timeout_s:
            image = self._prev_frame.image if self._prev_frame is not None else None
            jpeg = encode_jpeg(crop(image, self.zone)) if image is not None and self.zone else None
            reading = {**failed_die(f"the die did not settle within {self.cfg.die_timeout_s:g} s"),
                       "mode": "play", "ts": time.time()}
            self._send_die(reading, jpeg)
            self._begin(READING_TRACK, now,
                        frames=self.cfg.track_still_frames)
        elif self.state == READING_TRACK and now - self._phase_start > self.cfg.track_timeout_s:
            if self._prev_frame is not None:
                self._read_track(self._prev_frame,
                                 note=f"no move seen within {self.cfg.track_timeout_s:g} s")
            else:
                self.health.error("track not read: no frames")
                self._finish()

    # --- outputs -----------------------------------------------------------------------------
    def _show(self, led: LedState | None = None) -> None:
        if self.devices is None:
            return
        if led is None:
            if self.health.state == "camera_error":
                led = LedState.ERROR
            elif self._attention:
                led = LedState.ATTENTION
            elif self.state in (READING_DIE, READING_TRACK):
                led = LedState.READING
            elif self.state == SETUP:
                led = LedState.ATTENTION if self._attention else LedState.READING
            else:
                led = LedState.READY
        self.devices.status.show(led)

    def _publish_status(self, force: bool = False) -> None:
        now = time.monotonic()
        due = now - self._last_status >= self.cfg.status_interval_s
        if not (force or self._status_dirty or due):
            return
        self._last_status = now
        self._status_dirty = False
        snap = self.health.snapshot(self.camera)
        snap["attention"] = self._attention
        snap["reveal_zone"] = list(self.zone) if self.zone else None
        snap["light_on"] = self.devices.light.is_on if self.devices is not None else None
        snap["read_ms"] = {k: round(float(np.median(v)), 1)
                           for k, v in self.readers.timings.items() if v}
        self.sink.status(snap)
