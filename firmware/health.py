"""The firmware's health, as published (retained) on ``camelup/<table>/firmware/status``.

Why retained: a dashboard or Home Assistant that connects later must see at once whether the
pyramid is watching, how fast the camera runs and what went wrong last, without waiting for the
next beat.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

from hub.wire import CameraFault, FirmwareState, FirmwareStatus

log = logging.getLogger(__name__)

THERMAL_ZONE = Path("/sys/class/thermal/thermal_zone0/temp")


class CpuThermometer:
    """CPU temperature through gpiozero's CPUTemperature where the kernel exposes one, else None."""

    def __init__(self, pin_factory: Any = None, sensor_file: Path = THERMAL_ZONE) -> None:
        self._dev: Any = None
        if not sensor_file.exists():
            return
        try:
            from gpiozero import CPUTemperature

            self._dev = CPUTemperature(sensor_file=str(sensor_file), pin_factory=pin_factory)
        except Exception as exc:  # no pin factory off a Pi, or an unreadable sensor
            log.info("no CPU temperature: %s", exc)
            self._dev = None

    def read(self) -> float | None:
        if self._dev is None:
            return None
        try:
            return round(float(self._dev.temperature), 1)
        except Exception:
            return None

    def close(self) -> None:
        if self._dev is not None:
            self._dev.close()


def _fault(value: Any) -> CameraFault | None:
    """The camera's last fault as the wire's enum (an unknown word is FAILED, never a crash)."""
    if value is None:
        return None
    try:
        return CameraFault(getattr(value, "value", value))
    except ValueError:
        return CameraFault.FAILED


class Health:
    """Counters of the watch loop; :meth:`snapshot` is the status payload."""

    def __init__(self, table: str, thermometer: CpuThermometer | None = None) -> None:
        self.table = table
        self.thermometer = thermometer
        self.started = time.time()
        self.state: str = FirmwareState.STARTING
        self.mode = "play"
        self.releases = 0
        self.dice_read = 0
        self.tracks_read = 0
        self.read_errors = 0
        self.frames_processed = 0
        self.last_error: str | None = None
        self.last_error_ts: float | None = None
        self._lock = threading.Lock()
        self._frame_times: list[float] = []
        self.loop_ms_max = 0.0

    def frame(self, now: float, work_ms: float) -> None:
        with self._lock:
            self.frames_processed += 1
            self._frame_times.append(now)
            cut = now - 2.0
            while self._frame_times and self._frame_times[0] < cut:
                self._frame_times.pop(0)
            self.loop_ms_max = max(self.loop_ms_max, work_ms)

    def fps(self) -> float:
        with self._lock:
            ts = self._frame_times
            if len(ts) < 2 or ts[-1] == ts[0]:
                return 0.0
            return (len(ts) - 1) / (ts[-1] - ts[0])

    def error(self, message: str) -> None:
        with self._lock:
            self.last_error = message
            self.last_error_ts = time.time()

    def status(self, camera: Any = None) -> FirmwareStatus:
        """The status message (hub.wire.FirmwareStatus) of the counters and ``camera``'s
        health; the loop adds what it knows (game, zone, palette) with ``dataclasses.replace``."""
        fault = getattr(camera, "last_fault", None) if camera is not None else None
        cam: dict[str, Any] = {}
        if camera is not None:
            cam = dict(
                camera=camera.source_name,
                camera_fps=round(camera.fps_captured, 1),
                dropped_frames=camera.dropped,
                camera_errors=camera.errors,
                camera_reopens=camera.reopens,
                # why the camera fails now (firmware.camera_fault), None while it gives frames
                camera_fault=_fault(fault),
            )
        return FirmwareStatus(
            table=self.table,
            state=FirmwareState(self.state),
            mode=self.mode,
            ts=round(time.time(), 3),
            uptime_s=round(time.time() - self.started, 1),
            fps=round(self.fps(), 1),
            frames=self.frames_processed,
            loop_ms_max=round(self.loop_ms_max, 1),
            cpu_temp_c=self.thermometer.read() if self.thermometer else None,
            releases=self.releases,
            dice_read=self.dice_read,
            tracks_read=self.tracks_read,
            read_errors=self.read_errors,
            last_error=self.last_error,
            last_error_ts=self.last_error_ts,
            **cam,
        )

    def snapshot(self, camera: Any = None) -> dict[str, Any]:
        """The status payload: plain JSON types only (``status(camera).to_payload()``)."""
        return self.status(camera).to_payload()
