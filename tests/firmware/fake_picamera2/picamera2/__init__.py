"""A stand-in for picamera2 (the Raspberry Pi's camera library) with the calls the firmware makes.

Why: there is no Pi camera in CI, yet ``PiCamera2Source`` (firmware/frames.py) must be exercised:
its two-stream configuration from the ``[camera]`` config, the lores frames the loop watches, and
``capture_zone``'s cut from the full-resolution buffer. Written from picamera2's documented API
(``Picamera2``: ``sensor_resolution``, ``create_video_configuration``, ``configure``,
``camera_config``, ``start``, ``capture_metadata``, ``set_controls``, ``capture_array``,
``capture_request``; ``CompletedRequest``: ``make_array``, ``release``; ``MappedArray``), with
the same memory behaviour: ``capture_array`` and ``make_array`` copy a whole buffer, while a
``MappedArray`` maps it, so only the pages read are touched. Put the folder above this one on
``sys.path`` (or PYTHONPATH) to use it.

Frames: ``Picamera2.film`` is a callable returning the current full-resolution BGR frame, or a
pair (that frame, its lores I420 image) (the tests set it; the lores image is made by resizing
when not given), or, when the environment variable ``FAKE_PICAMERA2_FILM`` names a folder, the
frames are raw ``NAME.bgr`` files there with their lores images ``NAME.yuv``, memory-mapped
read-only like the camera's dmabufs (a real camera's ISP makes the lores image in hardware, so
the process never reads the full frame for it); ``film.json`` gives the sizes and the NAMEs in
order, one per frame period, looped, or a ``control`` file whose content is the NAME to show
now, so the caller can lay the die as it presses the slider (bench/firmware.py).
"""

from __future__ import annotations

import json
import mmap
import os
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["Picamera2", "MappedArray", "CompletedRequest"]


class _FileFilm:
    """Raw BGR frames mapped from files: the pages count as the process's only once read."""

    def __init__(self, folder: str, fps: float) -> None:
        root = Path(folder)
        meta = json.loads((root / "film.json").read_text())
        w, h = meta["size"]
        lw, lh = meta["lores"]
        mapped: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # each file mapped once
        for name in meta["frames"]:
            if name not in mapped:
                mapped[name] = (self._map(root / f"{name}.bgr").reshape(h, w, 3),
                                self._map(root / f"{name}.yuv").reshape(lh * 3 // 2, lw))
        self.frames = [mapped[name] for name in meta["frames"]]
        if not self.frames:
            raise RuntimeError(f"{root}: film.json names no frames")
        self.mapped = mapped
        self.control = Path(meta["control"]) if meta.get("control") else None
        self.period = 1.0 / fps
        self.t0 = time.monotonic()

    @staticmethod
    def _map(path: Path) -> np.ndarray:
        with open(path, "rb") as fh:
            mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        return np.frombuffer(mm, np.uint8)

    def __call__(self) -> tuple[np.ndarray, np.ndarray]:
        if self.control is not None:
            try:
                return self.mapped[self.control.read_text().strip()]
            except (OSError, KeyError):
                pass  # not written yet, or mid-write: the film's first frame
            return self.frames[0]
        return self.frames[int((time.monotonic() - self.t0) / self.period) % len(self.frames)]


class CompletedRequest:
    def __init__(self, cam: Picamera2, main: np.ndarray, lores: np.ndarray | None) -> None:
        self._cam = cam
        self._main = main
        self._lores = lores
        self.released = False

    def make_array(self, name: str) -> np.ndarray:
        if name != "main":
            raise RuntimeError(f"Stream {name!r} is not defined")
        return np.array(self._main)  # a copy of the whole buffer, as picamera2's make_buffer

    def release(self) -> None:
        self.released = True
        self._cam.released += 1


class MappedArray:
    """The request's buffer mapped as an array (no copy), valid inside ``with``."""

    def __init__(self, request: CompletedRequest, stream: str, reshape: bool = True,
                 write: bool = True) -> None:
        if stream not in ("main", "lores") or (stream == "lores" and request._lores is None):
            raise RuntimeError(f"Stream {stream!r} is not defined")
        self._request = request
        self._stream = stream
        self.array: np.ndarray | None = None

    def __enter__(self) -> MappedArray:
        if self._request.released:
            raise RuntimeError("the request was released")
        # a view of the camera's buffer
        self.array = self._request._main if self._stream == "main" else self._request._lores
        return self

    def __exit__(self, *exc: object) -> None:
        self.array = None


class Picamera2:
    film: Any = None  # () -> full-resolution BGR frame; set by tests
    sensor_resolution: tuple[int, int] = (4608, 2592)
    instances: list[Picamera2] = []
    fail_open: BaseException | None = None  # raised by Picamera2() (tests: busy, absent)

    def __init__(self) -> None:
        if Picamera2.fail_open is not None:
            raise Picamera2.fail_open
        self.camera_config: dict[str, Any] | None = None
        self.controls: dict[str, Any] = {}
        self.started = False
        self.released = 0
        self.requests = 0
        self._lock = threading.Lock()
        self._next = time.monotonic()
        self._fps = 30.0
        Picamera2.instances.append(self)

    # --- configuration ---------------------------------------------------------------------
    def create_video_configuration(self, main: dict | None = None, lores: dict | None = None,
                                   controls: dict | None = None, buffer_count: int = 6,
                                   **_: Any) -> dict[str, Any]:
        main = dict(main or {"size": (1280, 720), "format": "XBGR8888"})
        config: dict[str, Any] = {"main": main, "lores": dict(lores) if lores else None,
                                  "controls": dict(controls or {}), "buffer_count": buffer_count}
        return config

    def configure(self, config: dict[str, Any]) -> None:
        main, lores = config["main"], config.get("lores")
        mw, mh = main["size"]
        if main.get("format") != "RGB888":
            raise RuntimeError("the fake supports main RGB888 only")
        if lores is not None:
            lw, lh = lores["size"]
            if lores.get("format") != "YUV420" or lw > mw or lh > mh or lw % 2 or lh % 2:
                raise RuntimeError(f"bad lores stream {lores}")
        self._fps = float(config["controls"].get("FrameRate", 30.0))
        cfg = {"main": {**main, "stride": mw * 3}}
        if lores is not None:
            cfg["lores"] = {**lores, "stride": lores["size"][0]}
        cfg["buffer_count"] = config["buffer_count"]
        self.camera_config = cfg

    def start(self) -> None:
        if self.camera_config is None:
            raise RuntimeError("configure first")
        if Picamera2.film is None:
            folder = os.environ.get("FAKE_PICAMERA2_FILM")
            if folder:
                Picamera2.film = _FileFilm(folder, self._fps)
        self.started = True

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        self.started = False

    def capture_metadata(self) -> dict[str, Any]:
        return {"ExposureTime": 16000, "AnalogueGain": 1.5, "ColourGains": (1.8, 1.5)}

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.controls.update(controls)

    # --- frames ----------------------------------------------------------------------------
    def _frame(self) -> tuple[np.ndarray, np.ndarray | None]:
        """The next sensor frame (main, lores or None), paced to the frame rate."""
        if not self.started:
            raise RuntimeError("camera not started")
        with self._lock:
            now = time.monotonic()
            if now < self._next:
                time.sleep(self._next - now)
            self._next = max(now, self._next) + 1.0 / self._fps
        got = Picamera2.film()
        frame, lores = got if isinstance(got, tuple) else (got, None)
        assert self.camera_config is not None
        w, h = self.camera_config["main"]["size"]
        if frame.shape[:2] != (h, w):  # the sensor scaled to the stream's size (the ISP's work)
            import cv2

            frame = cv2.resize(frame, (w, h), interpolation=cv2.INTER_AREA)
        return frame, lores

    def capture_array(self, name: str = "main") -> np.ndarray:
        import cv2

        frame, yuv = self._frame()
        assert self.camera_config is not None
        if name == "main":
            return np.array(frame)  # a copy, as picamera2's make_array
        lores = self.camera_config.get("lores")
        if name != "lores" or lores is None:
            raise RuntimeError(f"Stream {name!r} is not defined")
        if yuv is not None:
            return np.array(yuv)  # a copy, as picamera2's make_array
        return self._lores_of(frame)

    def capture_request(self) -> CompletedRequest:
        self.requests += 1
        frame, yuv = self._frame()
        lores = None
        assert self.camera_config is not None
        if self.camera_config.get("lores") is not None:
            lores = yuv if yuv is not None else self._lores_of(frame)
        return CompletedRequest(self, frame, lores)

    def _lores_of(self, frame: np.ndarray) -> np.ndarray:
        import cv2

        assert self.camera_config is not None
        size = tuple(self.camera_config["lores"]["size"])
        small = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
        return cv2.cvtColor(small, cv2.COLOR_BGR2YUV_I420)
