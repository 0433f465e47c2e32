"""What the watch-loop tests share: a running watch on mock pins over a frame source, and a
wait for a condition. One place, so a change to how the loop is started and stopped (its
camera, its pins) is made once for every test that drives it end to end."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from firmware.camera import CameraSupervisor
from firmware.devices import Devices
from firmware.frames import FrameSource
from firmware.readers import Readers
from firmware.sinks import ObservationSink
from firmware.watch import WatchLoop
from hardware.pinmap import load_pinmap


@contextmanager
def running_watch(
    mock_factory: object, source: Callable[[], FrameSource], sink: ObservationSink, **loop_kw: Any
) -> Iterator[tuple[WatchLoop, Devices]]:
    """The watch loop with the real readers over frames from ``source``, its readings going to
    ``sink``, on gpiozero's mock pins; the loop, camera and pins stopped on leaving.
    ``loop_kw`` goes to WatchLoop (config, reveal_zone, ...)."""
    devices = Devices(load_pinmap(), pin_factory=mock_factory)
    camera = CameraSupervisor(source).start()
    loop = WatchLoop(camera, sink, devices=devices, readers=Readers(), **loop_kw).start()
    try:
        yield loop, devices
    finally:
        loop.stop()
        camera.stop()
        devices.close()


def wait_until(pred: Callable[[], object], timeout: float = 5.0) -> bool:
    """Whether ``pred()`` came true within ``timeout`` seconds (a deadline, not a timing)."""
    deadline = time.monotonic() + timeout
    while not pred() and time.monotonic() < deadline:
        time.sleep(0.02)
    return bool(pred())
