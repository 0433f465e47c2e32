"""The watch loop: slider -> light -> die settles -> read -> hub -> track settles -> read -> hub.

One thread owns the loop; everything else talks to it through a queue (GPIO edges) or flags
(camera failures), so sinks are only ever called from the loop's thread. Each pass handles the
queued events and then at most one frame — the newest the camera supervisor has; older ones are
dropped and counted — so the work per frame is bounded and the loop never falls behind.

States (``health.state``)::

    ready --slider--> reading_die --die settled: read, send--> reading_track --settled--> ready
                          | no settle within die_timeout_s: a failed reading is sent (the hub
                          |   asks a person), LED "attention", a different chirp
    setup --confirm or slider--> (whole frame settles) read every die, then the track --> ready
    ready --confirm (Marco Polo II)--> reading_frame --whole frame settles: read every die,
                          send them in one observe_dice--> ready

Which game the table plays (firmware.games: the config's ``[table] game``, else the game the
hub's retained state names, else Camel Up) is looked at on every pass: Camel Up and the horse
race read one die per slider press (faces 1..3 with colour among the dice left; faces 1..6 and
no colour), Marco Polo II reads all the dice of one still frame on the confirm button, and its
slider does nothing. The starting roll (setup) is Camel Up's: another game leaves setup mode.

When to read is vision.motion's ``ZoneWatcher`` (the product's settle machine), never a read per
frame: a "die" watcher on the reveal zone, fed every frame in every state, says when a die has
appeared and lain still for ``still_frames`` frames with no hand over it, once per die (the zone
must empty before the next die can be read); a "track" watcher on a quarter-size frame says when
the table has changed after the die and is still again with no hand. A die watcher READ is paired
with the release it belongs to: one release, one read. A die that settled just before its release
was seen (within ``CLAIM_S``) is claimed by that release; a die that stays in the zone from the
turn before is taken as the background for the next one. A change at the zone's border that came
before the release's edge and lies still (a desert tile placed by the zone, a stack leaning into
it: the die watcher calls it a hand, and would until the die timeout) is not the die: at the edge
the last still frame before it becomes the empty zone (``_quiet_zone``).

What the die reader is given: the zone cut from the camera's full-resolution stream when the
source has one (``FrameSource.capture_zone``: a die is ~70 px there, ~20 px in the 1280x720
preview, and only ~60 % of preview dice read), with the empty zone cut from the same stream as
``background`` (taken when the zone was last seen empty); otherwise the preview frame with the
empty zone's preview crop. Plus the markers' white balance, the dice still in the pyramid and
Camel Up's faces 1..3 (the horse race's: 1..6, any colour). The reading says which frame it
came from (``frame``, hub.observations.DieFrame): when the full-resolution cut shows no die, or no
longer the still die, the still preview frame is read, a ``preview_fallback`` that the hub never
plays without asking a person (a ~20 px die can be read wrong at a high confidence).

The loop never dies of a camera or a reader: both are caught, reported in the status and on the
LED, and the loop goes on (the camera supervisor reopens the camera with backoff).
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import threading
import time
from typing import Any

import numpy as np

from firmware.camera import CameraSupervisor, Frame
from firmware.config import WatchConfig
from firmware.devices import Devices, LedState
from firmware.games import (
    AUTO,
    SETUP_COLOURS,
    dice_colours,
    dice_frame_readings,
    horse_race_die,
    palette_for,
    profile,
    table_game,
)
from firmware.health import Health
from firmware.palette import TablePalette
from firmware.readers import Box, Readers, crop, encode_jpeg, failed_die
from firmware.sinks import ObservationSink
from hub.observations import DieFrame
from hub.wire import FirmwareState
from vision.motion import State as ZoneState
from vision.motion import ZoneWatcher

log = logging.getLogger(__name__)


#: The loop's states (``health.state``; see the module docstring): the wire's FirmwareState, so
#: the status payload and its schema (docs/schemas/firmware-status.json) name the same states.
LoopState = FirmwareState


READY, READING_DIE, READING_TRACK, SETUP = (
    LoopState.READY,
    LoopState.READING_DIE,
    LoopState.READING_TRACK,
    LoopState.SETUP,
)
READING_FRAME = LoopState.READING_FRAME
ZONE_REFRESH_S = 10.0  # how often the reveal zone is looked for again while idle
CLAIM_S = 1.0  # a die that settled this long before its release's edge is still that release's
REBASE_S = 2.0  # idle, the zone changed (a tile placed by it) and never emptied: new background
ZONE_JITTER_PX = 4  # a re-found zone this close to the watched one is the same zone
EMPTY_FULL_REFRESH_S = 30.0  # how often the full-resolution empty zone is taken again, idle


def _table(image: np.ndarray) -> np.ndarray:
    """The whole table for the track and setup watchers: a quarter size is plenty."""
    return image[::4, ::4]


def _same_zone(a: Box | None, b: Box | None) -> bool:
    if a is None or b is None:
        return a is b
    return all(abs(x - y) <= ZONE_JITTER_PX for x, y in zip(a, b, strict=True))


def _looks_alike(full: np.ndarray, preview: np.ndarray) -> bool:
    """Whether a full-resolution cut of the zone shows what the preview's crop of it shows.

    Why: the full-resolution capture comes a frame or more after the preview frame that said
    the zone was empty; a die that landed in between must not become the empty background
    (the reader would then find no die). Compared at the preview's size, in grey, with a
    difference (after the median offset) large enough to ignore noise and the streams' different
    sharpness: a die covers
    ~1-2 % of the zone, so 0.4 % of pixels differing is a change."""
    import cv2

    h, w = preview.shape[:2]
    if h < 2 or w < 2 or full.ndim != 3:
        return False
    small = cv2.resize(full, (w, h), interpolation=cv2.INTER_AREA)
    a = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (3, 3), 0).astype(np.int16)
    b = cv2.GaussianBlur(cv2.cvtColor(preview, cv2.COLOR_BGR2GRAY), (3, 3), 0).astype(np.int16)
    d = a - b
    d -= int(np.median(d))  # the streams' exposure and lamp gradient may differ a little
    return float(np.mean(np.abs(d) > 40)) < 0.004


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
        game: str = AUTO,
        palette: TablePalette | None = None,
    ) -> None:
        self.camera = camera
        self.sink = sink
        self.devices = devices
        self.cfg = config or WatchConfig()
        self.health = health or Health(table)
        self.readers = readers or Readers()
        # the die reader's colours: the table's taught palette when stored (firmware.palette)
        self.palette = palette or TablePalette(self.cfg.palette)
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
        # the reveal zone's die watcher, for every state but setup
        self._die_watch: ZoneWatcher | None = None
        self._die_box: Box | None = None  # the box the die watcher crops
        # the track / setup watcher of the current phase
        self._phase_watch: ZoneWatcher | None = None
        self._setup_still = 0
        self._zone_busy_since: float | None = None  # idle, the die watcher not empty since
        self._track_moved = False  # the track watcher has seen the move begin (READING_TRACK)
        self._track_still = 0  # frames since, with nothing moving and no hand
        self._unclaimed: Frame | None = None  # a die that settled with no release pending
        # idle, the zone busy with a still border-touching change: (box, the latest frame with
        # no motion, its full-resolution cut or None), the empty zone if a release comes now
        self._quiet_zone: tuple[Box, Frame, tuple[np.ndarray, float] | None] | None = None
        # the empty reveal zone (the die reader's background): the preview crop of the last
        # frame the die watcher called empty, and (box, crop, scale, t) from the full-resolution
        # stream, taken when the zone became empty (and now and then while it stays so)
        self._empty_zone: tuple[Box, np.ndarray] | None = None
        self._empty_full: tuple[Box, np.ndarray, float, float] | None = None
        # white balance from the markers' white borders: worked out on the frame of each track
        # read (and when the board is first found), reused for the dice until the next one
        self.white_gains: tuple[float, float, float] | None = None
        self._phase_start = 0.0
        self._attention = False
        # the game served: [table] game, or (auto) the hub's, looked at every pass (_follow_game)
        self.configured_game = game
        self.game = table_game(game, None)
        self._slider_idle_said = False  # Marco Polo II: "the slider does nothing" logged once
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

    def request_setup(self) -> None:
        """Read the starting roll next, as ``--setup`` does at start (the set-up link's
        `pyramid camera setup`: the running service, not a second watch process)."""
        self.events.put(("setup", time.monotonic(), time.time()))

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
        self.health.state = LoopState.STOPPED
        self._publish_status(force=True)
        if self.devices is not None:
            self.devices.light.off()
            self.devices.status.show(LedState.OFF)

    # --- one pass ----------------------------------------------------------------------------
    def _pass(self) -> None:
        frame = self.camera.next_frame(timeout=0.05)
        self._handle_camera_flags()
        self._follow_game()
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
            self.health.state = LoopState.CAMERA_ERROR
            self._status_dirty = True
            self._show(LedState.ERROR)
            if self.devices is not None:
                self.devices.buzzer.chirp_error()
            # said at once: a camera that is back within a pass must not hide that it failed
            self._publish_status(force=True)
        if self._camera_recovered:
            self._camera_recovered = False
            self.health.state = self.state
            self._status_dirty = True
            self._show()

    def _follow_game(self) -> None:
        """Serve the game the table plays now (firmware.games.table_game): the config's, or the
        hub's as the sink last heard it. A change takes effect between phases' events: a phase
        under way finishes as it began, except that Marco Polo II stops watching the zone."""
        try:
            hub_game = self.sink.game()
        except Exception:  # a sink must not stop the loop
            log.exception("the sink could not say the game")
            hub_game = None
        game = table_game(self.configured_game, hub_game)
        if game == self.game:
            return
        log.info("the table plays %s now (was %s)", game, self.game)
        new, old = profile(game), profile(self.game)
        if not (new.reveal_zone and old.reveal_zone):
            # the reveal zone's watcher starts afresh: under a game without one (Marco Polo II)
            # it is not fed, and a reference from before would differ from the table as it is now
            self._die_watch, self._die_box = None, None
            self._unclaimed, self._quiet_zone = None, None
        self.game = game
        self._slider_idle_said = False
        self._status_dirty = True
        if self.state == SETUP and not new.starting_roll:
            log.info("setup mode reads Camel Up's starting roll; %s has none: left", game)
            self._finish()
        elif self.state == READING_FRAME and not new.frame_dice:
            self._finish()

    def _event(self, kind: str, t_mono: float, t_wall: float) -> None:
        game = profile(self.game)
        if kind == "setup":
            if not game.starting_roll:
                self.health.error(f"setup: {self.game} has no starting roll to read")
            elif self.state in (READY, SETUP):
                self.state = SETUP
                self.health.state = SETUP
                self.health.mode = "setup"
                self._phase_watch = None
                self._attention = False
                log.info(
                    "setup mode: roll the five dice into the reveal zone, then press "
                    "confirm (or the slider)"
                )
            else:
                self.health.error(f"setup: the loop is {self.state}; ask again when it is done")
            self._status_dirty = True
            self._show()
            return
        if kind == "release" and game.frame_dice:
            self.health.releases += 1
            if not self._slider_idle_said:
                self._slider_idle_said = True
                log.info(
                    "Marco Polo II: the pyramid's slider does nothing; press the confirm "
                    "button once the dice are rolled to read them all"
                )
            return
        if kind == "confirm" and game.frame_dice:
            self._attention = False
            if self.state in (READING_DIE, READING_TRACK):
                log.info("confirm: the %s phase is dropped for a Marco Polo II frame", self.state)
            self._begin(READING_FRAME, t_mono, frames=self.cfg.still_frames)
            return
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

    def _begin(
        self, state: LoopState, t_mono: float, *, frames: int, frame: Frame | None = None
    ) -> None:
        self.state = state
        self.health.state = state
        self._phase_start = t_mono
        self._phase_watch = None
        base = frame or self._prev_frame
        claimed: Frame | None = None
        if state == READING_DIE:
            if self.zone is None and base is not None:  # no markers seen yet: look now
                self._zone_checked = -1e9
                self._refresh_zone(base.image, base.t)
            if self.zone is not None:
                watch = self._zone_watcher()
                if watch.state in (ZoneState.READ, ZoneState.HELD):
                    # the die before this one still lies there: it is background now
                    self._zone_watcher(base, fresh=True)
                elif (
                    self._quiet_zone is not None
                    and self._quiet_zone[0] == self._die_box
                    and watch.state in (ZoneState.MOVING, ZoneState.STILL)
                    and watch.hand
                ):
                    self._rebase_at_edge(*self._quiet_zone)
                if self._unclaimed is not None and t_mono - self._unclaimed.t <= CLAIM_S:
                    claimed = self._unclaimed  # settled just before the edge was seen
            else:
                # no reveal zone (markers hidden): any settled change of the table will do
                self._phase_watch = self._new_watcher("track", frames, base)
            self._unclaimed = None
        elif state == READING_TRACK:
            self._phase_watch = self._new_watcher("track", frames, base)
            self._track_moved, self._track_still = False, 0
        elif state in (SETUP, READING_FRAME):
            self._phase_watch = self._new_watcher("track", frames, base)
            self._setup_still = 0
        if self.devices is not None:
            self.devices.light.on()
        self._status_dirty = True
        self._show()
        if claimed is not None:
            self._read_die(claimed)

    def _rebase_at_edge(
        self, box: Box, quiet: Frame, full: tuple[np.ndarray, float] | None
    ) -> None:
        """The release's edge came while the zone held a still change at its border (see the
        module docstring): the zone as it lay still before the edge is the empty zone."""
        log.info(
            "release: the reveal zone held a still change at its border; its last still "
            "frame is the empty zone"
        )
        self._zone_watcher(quiet, fresh=True)
        self._empty_zone = (box, crop(quiet.image, box).copy())
        self._empty_full = None if full is None else (box, full[0], full[1], quiet.t)
        self._quiet_zone = None

    def _new_watcher(self, mode: str, frames: int, base: Frame | None) -> ZoneWatcher:
        watch = self.readers.watcher(mode, frames)
        if base is not None:
            # the last frame before the event is the reference: the first frame after it can
            # already show the change
            watch.set_background(_table(base.image))
        return watch

    def _zone_watcher(self, base: Frame | None = None, fresh: bool = False) -> ZoneWatcher:
        """The die watcher for the current zone (a new one if the zone moved, or ``fresh``)."""
        if fresh or self._die_watch is None or not _same_zone(self._die_box, self.zone):
            self._die_box = self.zone
            self._quiet_zone = None
            self._die_watch = self.readers.watcher("die", self.cfg.still_frames)
            if base is not None and self._die_box is not None:
                self._die_watch.set_background(crop(base.image, self._die_box))
        return self._die_watch

    def _frame(self, frame: Frame) -> None:
        image = frame.image
        zone_game = profile(self.game).reveal_zone  # a reveal zone (and board markers) to watch
        if self.state == READY and self.fixed_zone is None and zone_game:
            self._refresh_zone(image, frame.t)
        state = self.state
        if self.zone is not None and state not in (SETUP, READING_FRAME) and zone_game:
            if self._watch_zone(frame) and state == READING_DIE:
                self._prev_frame = frame  # the frame before is let go before the read
                self._read_die(frame)
                return  # the track watcher starts from this frame
        watch = self._phase_watch
        if watch is not None and frame.t > self._phase_start:  # frames after the event only
            change = watch.update(_table(image))
            # the frame before is not needed by any read below: let it go first (a read is the
            # process's memory peak, and a frame is 2.7 MB)
            self._prev_frame = frame
            if state in (SETUP, READING_FRAME):
                moving = watch.state == ZoneState.MOVING or watch.hand
                self._setup_still = 0 if moving else self._setup_still + 1
                if self._setup_still >= self.cfg.still_frames:
                    (self._read_setup if state == SETUP else self._read_frame)(frame)
            elif change is not None and change.read:
                if state == READING_TRACK:
                    self._read_track(frame)
                elif state == READING_DIE:  # no reveal zone: the whole table settled
                    self._read_die(frame)
            elif state == READING_TRACK and self._move_over(watch):
                self._read_track(frame)
        self._prev_frame = frame

    def _move_over(self, watch: ZoneWatcher) -> bool:
        """A move the track watcher saw begin, and after which nothing has moved, with no hand,
        for ``track_still_frames`` frames — even if the watcher went back to "empty" rather than
        READ: at its thumbnail's scale a camel moved one space (or a die picked up) may differ
        from the reference by less than its smallest object, and then the watcher never READs
        and the track would only be read at ``track_timeout_s``."""
        if watch.state == ZoneState.MOVING or watch.hand:
            self._track_moved, self._track_still = True, 0
            return False
        if not self._track_moved:
            return False
        self._track_still += 1
        return self._track_still >= self.cfg.track_still_frames

    def _watch_zone(self, frame: Frame) -> bool:
        """Feed the die watcher; True when a die has just settled (a READ)."""
        watch = self._zone_watcher(self._prev_frame)
        assert self._die_box is not None
        try:
            change = watch.update(crop(frame.image, self._die_box))
        except ValueError:  # the frame changed size (camera reopened): start again
            self._zone_watcher(frame, fresh=True)
            return False
        self._keep_quiet(frame, watch)
        if watch.state == ZoneState.EMPTY:
            self._keep_empty(frame, became=change is not None)
            self._zone_busy_since = None
        elif self.state == READY and watch.state in (ZoneState.MOVING, ZoneState.STILL):
            # a desert tile placed at the zone's edge, a camel stack leaning into it: a change
            # that touches the border reads as a hand and never settles, so the next die would
            # never be read. Idle for REBASE_S (no die is pending), the zone as it is becomes
            # the empty zone.
            since = self._zone_busy_since = self._zone_busy_since or frame.t
            if frame.t - since >= REBASE_S:
                self._zone_busy_since = None
                self._zone_watcher(frame, fresh=True)
                self._empty_full = None
                return False
        else:
            self._zone_busy_since = None
        if change is None or not change.read:
            return False
        if self.state != READING_DIE:
            self._unclaimed = frame  # kept for a release seen just after it
            log.info("a die settled in the reveal zone with no release pending")
            return False
        return True

    def _keep_quiet(self, frame: Frame, watch: ZoneWatcher) -> None:
        """Idle, with a still border-touching change in the zone: keep its latest still frame
        (and, once per still stretch, its full-resolution cut) for :meth:`_rebase_at_edge`."""
        quiet = int(getattr(watch, "quiet_frames", 0))
        busy = watch.state in (ZoneState.MOVING, ZoneState.STILL) and watch.hand
        if quiet == 0 or not busy or self.state != READY:
            self._quiet_zone = None
            return
        box = self._die_box
        assert box is not None
        full = self._quiet_zone[2] if self._quiet_zone is not None else None
        if full is None and quiet == 2:  # still for two frames: worth a capture
            got = self._capture_zone(box)
            if got is not None and _looks_alike(got[0], crop(frame.image, box)):
                full = got
        self._quiet_zone = (box, frame, full)

    def _keep_empty(self, frame: Frame, became: bool) -> None:
        """Keep the empty zone as the die reader's background (preview crop every frame; the
        full-resolution cut when the zone has just emptied, or is stale, while nothing is being
        read — it costs a capture)."""
        box = self._die_box
        assert box is not None
        self._empty_zone = (box, crop(frame.image, box).copy())
        full = self._empty_full
        stale = full is None or full[0] != box or became or frame.t - full[3] > EMPTY_FULL_REFRESH_S
        if stale and self.state != READING_DIE:
            got = self._capture_zone(box)
            if got is not None and not _looks_alike(got[0], self._empty_zone[1]):
                got = None  # taken a moment after the frame: something landed meanwhile
            self._empty_full = None if got is None else (box, got[0], got[1], frame.t)

    def _capture_zone(self, box: Box) -> tuple[np.ndarray, float] | None:
        fn = getattr(self.camera, "capture_zone", None)
        if fn is None:
            return None
        got = self.readers.timed("zone_capture", fn, box)
        if got is None:
            return None
        image, scale = got
        if not isinstance(image, np.ndarray) or image.ndim != 3 or image.size == 0:
            return None
        return image, float(scale)

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
            return
        if self.white_gains is None:
            self._learn_white(image)

    def _learn_white(self, image: np.ndarray) -> None:
        try:
            gains = self.readers.timed("white", self.readers.white_gains_of, image)
        except Exception:
            log.exception("white balance from the markers failed")
            return
        if gains is not None:
            self.white_gains = gains

    # --- reads -------------------------------------------------------------------------------
    def _read_die(self, frame: Frame) -> None:
        image = frame.image
        self._unclaimed = None
        zone = self._die_box or self.zone or (0, 0, image.shape[1], image.shape[0])
        # the preview frame, with the empty zone's preview crop...
        src, src_zone, scale = image, zone, 1.0
        read_from = DieFrame.PREVIEW  # said in the reading: the hub asks about a fallback
        background = preview_background = None
        if self._empty_zone is not None and self._empty_zone[0] == zone:
            background = preview_background = self._empty_zone[1]
        if self._die_box is not None and zone == self._die_box:
            full = self._capture_zone(zone)
            if full is not None and not _looks_alike(full[0], crop(image, zone)):
                # taken a moment after the still frame: under load the die may be gone by then
                # (picked up, the camel moved) or a hand over it; the still frame is what lay
                # there, so it is read, at the preview's resolution (issue 14)
                log.info("the full-resolution zone no longer shows the still die: preview read")
                full, read_from = None, DieFrame.PREVIEW_FALLBACK
            if full is not None:  # ...or better, the zone cut from the full-resolution stream
                src, scale = full
                read_from = DieFrame.FULL
                src_zone = (0, 0, src.shape[1], src.shape[0])
                e = self._empty_full
                background = (
                    e[1] if e is not None and e[0] == zone and e[1].shape == src.shape else None
                )
        face_only = profile(self.game).face_only
        hints: dict[str, Any] = {
            "white_gains": self.white_gains,
            # a horse-race die has no colour to narrow by; the reader still names one (it says
            # whether the pips are dark), among Camel Up's five by default; a Camel Up die's
            # among the dice the hub says are left, else the game's dice
            "expected_colours": None
            if face_only
            else dice_colours(self.game, self.sink.dice_left()),
            "faces": profile(self.game).die_faces,
            "palette": palette_for(self.game, self.palette.current()),
        }
        reading, jpeg = self._read_zone(src, src_zone, background, hints)
        if scale != 1.0 and reading.get("box") is None:
            # no die in the full-resolution cut, though the preview saw one lie still: the cut,
            # or the empty zone it is told from, was taken a moment off the still frames (a
            # white or yellow die on the sand-coloured zone barely changes the grey that
            # _looks_alike compares). The preview frame and its empty zone are the watcher's
            # own, so the die is read there (issue 14: reads at confidence 0.0 under load).
            log.info("no die in the full-resolution zone: the still preview frame is read")
            src, src_zone, scale = image, zone, 1.0
            read_from = DieFrame.PREVIEW_FALLBACK
            reading, jpeg = self._read_zone(src, src_zone, preview_background, hints)
        if scale != 1.0 and reading.get("box"):  # back to preview pixels, as the hub expects
            bx, by, bw, bh = reading["box"]
            reading = {
                **reading,
                "box": [
                    int(zone[0] + bx / scale),
                    int(zone[1] + by / scale),
                    max(int(round(bw / scale)), 1),
                    max(int(round(bh / scale)), 1),
                ],
            }
        if face_only:  # face and confidence, as the hub's horse race reads them
            reading = horse_race_die(reading)
        reading = {**reading, "mode": "play", "frame": read_from, "ts": time.time()}
        self._send_die(reading, jpeg)
        self._begin(READING_TRACK, frame.t, frames=self.cfg.track_still_frames, frame=frame)

    def _read_zone(
        self, src: np.ndarray, zone: Box, background: np.ndarray | None, hints: dict[str, Any]
    ) -> tuple[dict[str, Any], bytes | None]:
        """The die reader on ``zone`` of ``src``; a failure is a failed reading, not a raise."""
        if background is not None:
            hints = {**hints, "background": background}
        try:
            got: tuple[dict[str, Any], bytes | None] = self.readers.timed(
                "die", self.readers.read_die, src, zone, **hints
            )
            return got
        except Exception as exc:
            return (
                failed_die(f"read failed: {type(exc).__name__}: {exc}"),
                encode_jpeg(crop(src, zone)),
            )

    def _send_die(self, reading: dict[str, Any], jpeg: bytes | None) -> None:
        ok = reading.get("face") is not None and (
            reading.get("colour") is not None
            or (profile(self.game).face_only and reading.get("mode") != "setup")
        )
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

    def _read_track(self, frame: Frame, note: str | None = None, mode: str | None = None) -> None:
        try:
            reading = self.readers.timed("track", self.readers.read_track, frame.image)
        except Exception as exc:
            reading = {
                "track": {},
                "desert": {},
                "confidence": 0.0,
                "uncertain": [],
                "reason": f"read failed: {type(exc).__name__}: {exc}",
            }
        if reading.get("reason"):
            self.health.read_errors += 1
            self.health.error(f"track not read: {reading['reason']}")
        else:
            self.health.tracks_read += 1
            self._learn_white(frame.image)  # the board is in view: the lamp as it is now
        if self._die_box is not None and mode is None:
            # the table has settled after the move: what lies in the zone now (camels and tiles
            # placed near it, a die left there) is the background the next die is told from; a
            # reference from turns ago would differ at its border and look like a hand forever
            self._zone_watcher(frame, fresh=True)
            self._empty_zone = (self._die_box, crop(frame.image, self._die_box).copy())
            self._empty_full = None  # taken again from the full-resolution stream
        if note:
            reading = {**reading, "note": note}
        if mode:  # "setup": the hub keeps it as the starting position, never checks a game by it
            reading = {**reading, "mode": mode}
        self.sink.track_read({**reading, "ts": time.time()})
        self._finish()

    def _whole_frame_dice(
        self, image: np.ndarray, **kw: Any
    ) -> list[tuple[dict[str, Any], bytes | None]]:
        """Every die of a whole still frame (the setup roll, a Marco Polo II frame), with the
        camera paused meanwhile: a frame decoded during the read would sit in memory at its
        peak, and nobody looks at it (``CameraSupervisor.paused``, issue 14's memory)."""
        with self.camera.paused():
            dice: list[tuple[dict[str, Any], bytes | None]] = self.readers.timed(
                "dice",
                self.readers.read_dice,
                image,
                white_gains=self.white_gains,
                palette=self.palette.current(),
                **kw,
            )
        return dice

    def _read_setup(self, frame: Frame) -> None:
        image = frame.image
        self._learn_white(image)
        try:
            dice = self._whole_frame_dice(image, expected_colours=list(SETUP_COLOURS))
        except Exception as exc:
            dice = []
            self.health.error(f"setup roll not read: {type(exc).__name__}: {exc}")
        n = self.cfg.setup_dice
        colours = [d.get("colour") for d, _ in dice]
        complete = (
            len(dice) == n
            and None not in colours
            and len(set(colours)) == n
            and all(d.get("face") for d, _ in dice)
        )
        for i, (reading, jpeg) in enumerate(dice):
            self._send_die(
                {**reading, "mode": "setup", "index": i, "of": len(dice), "ts": time.time()}, jpeg
            )
        if not complete:
            self.health.read_errors += 1
            self.health.error(
                f"setup roll: read {len(dice)} dice {colours}, expected {n} "
                "dice of different colours"
            )
            self._attention = True
            if self.devices is not None:
                self.devices.buzzer.chirp_look()
            self.state = SETUP  # stay in setup: press confirm (or the slider) to read again
            self.health.state = SETUP
            self._phase_watch = None
            if self.devices is not None:
                self.devices.light.off()
            self._show()
            return
        self.health.mode = "play"
        self._read_track(frame, note="starting position", mode="setup")

    def _read_frame(self, frame: Frame) -> None:
        """Marco Polo II: every die of this still frame, in one observe_dice (boxes in the
        frame's pixels). The hub sorts them to the players' boards and asks a person about the
        rest; an empty list is sent too (the hub then asks about every player)."""
        image = frame.image
        self._learn_white(image)  # kept from before if this table shows no markers
        try:
            dice = self._whole_frame_dice(image)
        except Exception as exc:
            self.health.read_errors += 1
            self.health.error(f"dice not read: {type(exc).__name__}: {exc}")
            self._attention = True
            if self.devices is not None:
                self.devices.buzzer.chirp_look()
            self._finish()
            return
        readings = dice_frame_readings([d for d, _ in dice])
        self.sink.dice_read(readings, ts=time.time())
        unread = sum(1 for r in readings if r["colour"] is None or r["face"] is None)
        self.health.dice_read += len(readings) - unread
        ok = bool(readings) and unread == 0
        if not ok:
            self.health.read_errors += 1
            self.health.error(f"frame: {len(readings)} dice found, {unread} not read")
            self._attention = True
        log.info("frame: %d dice sent, %d not read", len(readings), unread)
        if self.devices is not None:
            (self.devices.buzzer.chirp_read if ok else self.devices.buzzer.chirp_look)()
        self._finish()

    def _finish(self) -> None:
        self.state = READY
        self.health.state = READY
        self.health.mode = "play"
        self._phase_watch = None
        if self.devices is not None:
            self.devices.light.off()
        self._status_dirty = True
        self._show()

    def _timeouts(self) -> None:
        now = time.monotonic()
        if self.state == READING_DIE and now - self._phase_start > self.cfg.die_timeout_s:
            image = self._prev_frame.image if self._prev_frame is not None else None
            jpeg = encode_jpeg(crop(image, self.zone)) if image is not None and self.zone else None
            reading = {
                **failed_die(f"the die did not settle within {self.cfg.die_timeout_s:g} s"),
                "mode": "play",
                "ts": time.time(),
            }
            self._send_die(reading, jpeg)
            self._begin(READING_TRACK, now, frames=self.cfg.track_still_frames)
        elif self.state == READING_FRAME and now - self._phase_start > self.cfg.die_timeout_s:
            # hands over the boards all along: a frame read now would miss or misread dice
            self.health.error(
                f"dice not read: the table was not still within "
                f"{self.cfg.die_timeout_s:g} s; press confirm again"
            )
            self._attention = True
            if self.devices is not None:
                self.devices.buzzer.chirp_look()
            self._finish()
        elif self.state == READING_TRACK and now - self._phase_start > self.cfg.track_timeout_s:
            if self._prev_frame is not None:
                self._read_track(
                    self._prev_frame, note=f"no move seen within {self.cfg.track_timeout_s:g} s"
                )
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
            elif self.state in (READING_DIE, READING_TRACK, READING_FRAME):
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
        status = dataclasses.replace(
            self.health.status(self.camera),
            attention=self._attention,
            game=self.game,
            reveal_zone=[int(v) for v in self.zone] if self.zone else None,
            white_gains=(
                [round(g, 3) for g in self.white_gains] if self.white_gains is not None else None
            ),
            zone_state=str(self._die_watch.state) if self._die_watch is not None else None,
            light_on=self.devices.light.is_on if self.devices is not None else None,
            read_ms={
                k: round(float(np.median(v)), 1) for k, v in self.readers.timings.items() if v
            },
            **self.palette.status().fields(),
        )
        self.sink.status(status.to_payload())
