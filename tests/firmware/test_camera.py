"""The camera supervisor: failures are reported and the camera comes back; frames are dropped,
never queued."""

from __future__ import annotations

import threading
import time

import numpy as np

from firmware.camera import CameraSupervisor
from firmware.frames import FrameSource, RenderedSource

GOOD = np.full((36, 64, 3), 128, np.uint8)
BLACK = np.zeros((36, 64, 3), np.uint8)


class Scripted(FrameSource):
    """A camera whose n-th opening behaves as the script says."""

    opened = 0

    def __init__(self, behaviour: str) -> None:
        self.behaviour = behaviour
        self.name = f"scripted:{behaviour}"
        self.reads = 0

    def read(self) -> np.ndarray | None:
        self.reads += 1
        time.sleep(0.002)
        if self.behaviour == "raise" and self.reads > 2:
            raise OSError("cable pulled")
        if self.behaviour == "black":
            return BLACK
        if self.behaviour == "freeze" and self.reads > 2:
            threading.Event().wait(1.5)  # a read that hangs
        return GOOD


def supervisor(
    script: list[str], errors: list[str], recovered: threading.Event, **kw
) -> CameraSupervisor:
    def open_source() -> FrameSource:
        i = min(Scripted.opened, len(script) - 1)
        Scripted.opened += 1
        if script[i] == "fail-open":
            raise OSError("no camera")
        return Scripted(script[i])

    Scripted.opened = 0
    return CameraSupervisor(
        open_source, backoff_s=(0.01, 0.05), on_error=errors.append, on_recover=recovered.set, **kw
    )


def wait_frames(cam: CameraSupervisor, n: int, timeout: float = 3.0) -> int:
    got = 0
    deadline = time.monotonic() + timeout
    while got < n and time.monotonic() < deadline:
        if cam.next_frame(0.1) is not None:
            got += 1
    return got


def test_a_camera_that_raises_is_reported_and_reopened() -> None:
    errors: list[str] = []
    back = threading.Event()
    with supervisor(["raise", "fail-open", "ok"], errors, back) as cam:
        assert back.wait(3.0)
        assert wait_frames(cam, 5) == 5
    assert any("cable pulled" in e for e in errors)
    assert any("cannot open the camera: no camera" in e for e in errors)
    assert cam.reopens >= 1


def test_black_frames_are_reported_never_delivered_and_recovered() -> None:
    errors: list[str] = []
    back = threading.Event()
    with supervisor(["black", "ok"], errors, back, black_frames=5) as cam:
        first = cam.next_frame(3.0)
        assert back.wait(3.0)
    assert first is not None and first.image.mean() > 100
    assert errors and "black frames" in errors[0]


def test_a_frozen_read_is_detected_and_the_camera_reopened() -> None:
    errors: list[str] = []
    back = threading.Event()
    with supervisor(["freeze", "ok"], errors, back, freeze_timeout_s=0.3) as cam:
        assert wait_frames(cam, 2) == 2
        time.sleep(0.6)
        assert back.wait(3.0)
        assert wait_frames(cam, 3) == 3
    assert any("froze" in e for e in errors)


def test_frames_the_loop_had_no_time_for_are_dropped_and_counted() -> None:
    cam = CameraSupervisor(lambda: RenderedSource(lambda: GOOD, fps=200)).start()
    try:
        first = cam.next_frame(1.0)
        assert first is not None
        # a slow pass of the loop: at least 10 frames arrive meanwhile (waited for, not timed,
        # so a loaded machine only makes the test slower)
        deadline = time.monotonic() + 5.0
        while cam.captured < first.seq + 10 and time.monotonic() < deadline:
            time.sleep(0.01)
        with cam._cond:  # what the capture thread has delivered so far
            newest = cam._seq
        frame = cam.next_frame(1.0)
        assert frame is not None
        assert frame.seq >= newest >= first.seq + 10  # the newest frame, not a stale one
        assert cam.dropped >= frame.seq - first.seq - 1  # every skipped frame counted
    finally:
        cam.stop()


class Decoding(FrameSource):
    """A camera that decodes into the spare frame it is given, as PiCamera2Source does."""

    def __init__(self) -> None:
        self.name = "decoding"
        self.n = 0
        self.spares: list[np.ndarray | None] = []

    def read(self) -> np.ndarray | None:
        return self.read_into(lambda: None)

    def read_into(self, spare) -> np.ndarray | None:
        time.sleep(0.005)
        self.n += 1
        out = spare()
        self.spares.append(out)
        if out is None:
            out = np.empty_like(GOOD)
        out[:] = 100 + self.n % 100
        return out


def test_a_frame_the_loop_had_no_time_for_is_decoded_into_never_one_it_holds() -> None:
    """While the loop is busy, each new frame is decoded into the one it replaces (one frame
    alive, not two); a frame the loop took, or the set-up link peeked at, is never written."""
    source = Decoding()
    with CameraSupervisor(lambda: source) as cam:
        held = cam.next_frame(2.0)
        assert held is not None
        # the frame the loop took may itself have been decoded into a spare before it took it
        # (under load, frames come before the first take): only spares after it must differ
        taken = len(source.spares)
        copy = held.image.copy()
        time.sleep(0.3)  # the loop is busy: about 60 frames come meanwhile
        assert np.array_equal(held.image, copy), "the loop's frame was written over"
        spares = [s for s in source.spares if s is not None]
        assert len(spares) >= 10, "frames nobody took were not reused"
        assert all(s is not held.image for s in source.spares[taken:])
        assert cam.dropped >= len(spares)
        newest = cam.next_frame(1.0)
        assert newest is not None and newest.seq > held.seq
        shown = cam.peek(newest.t, 1.0)  # the set-up link has this one now
        assert shown is not None
        shown_copy = shown.image.copy()
        time.sleep(0.1)
        assert np.array_equal(shown.image, shown_copy), "a peeked frame was written over"


def test_a_paused_camera_decodes_nothing_and_lets_the_unseen_frame_go() -> None:
    """While the loop reads a whole frame (CameraSupervisor.paused) no frame is decoded and the
    slot's frame nobody took is let go; a pause longer than the freeze timeout is not a frozen
    camera; the first frame after it comes within a frame or two; peek() still gets frames."""
    source = Decoding()
    errors: list[str] = []
    with CameraSupervisor(lambda: source, freeze_timeout_s=0.3, on_error=errors.append) as cam:
        held = cam.next_frame(2.0)
        assert held is not None
        with cam.paused():
            time.sleep(0.05)  # a decode under way when the pause began ends
            decoded = source.n
            with cam._cond:
                assert cam._latest is None or cam._latest is held  # nothing unseen is kept
            time.sleep(0.8)  # over twice the freeze timeout
            assert source.n == decoded, "frames were decoded during the pause"
            shown = cam.peek(time.monotonic(), 2.0)  # the set-up link asks meanwhile
            assert shown is not None and source.n > decoded
            after_peek = source.n
            time.sleep(0.2)
            assert source.n <= after_peek + 1  # back to not decoding once it was answered
        resumed = time.monotonic()
        frame = cam.next_frame(2.0)
        assert frame is not None and frame.t > resumed
    assert errors == [] and cam.reopens == 0
