"""A stand-in for picamera2 (the Raspberry Pi's camera library) with the calls the firmware makes,
refusing what the real one (and libcamera under it) refuses.

Why: there is no Pi camera in CI, yet ``PiCamera2Source`` (firmware/frames.py) must be exercised:
its two-stream configuration, the frames it decodes, ``capture_zone``'s cut from the
full-resolution buffer, its focus and its exposure lock under the ring light. Written from
picamera2's sources (``Picamera2``: ``sensor_resolution``, ``camera_controls``,
``create_video_configuration``, ``configure``, ``camera_config``, ``start``,
``capture_metadata``, ``set_controls``, ``capture_array``, ``capture_request``;
``CompletedRequest``: ``make_array``, ``release``; ``MappedArray``), with the same memory
behaviour: ``capture_array`` and ``make_array`` copy a whole buffer, while a ``MappedArray``
maps it, so only the pages read are touched. Put the folder above this one on ``sys.path`` (or
PYTHONPATH) to use it, with the libcamera stand-in beside it.

Strict where the real one is (``configure`` and ``set_controls`` raise as picamera2 does):
``colour_space`` must be a libcamera ``ColorSpace``; sizes even; the lores stream no larger than
main and, on a Pi 4 (``Picamera2.platform = "vc4"``), YUV; a control the camera does not
advertise is refused (``AfMode``/``LensPosition`` on a fixed-focus Camera Module 2); and,
stricter than libcamera (which ignores it silently), ``LensPosition`` outside manual focus. The
buffers must fit ``Picamera2.cma_bytes`` (None: no limit) on a Pi 4, or ``configure`` raises
``OSError(ENOMEM)`` as the dma-heap allocation does.

YUV420 streams are I420 buffers shaped (h * 3 / 2, stride) with the stride padded to 64 bytes,
encoded in the configured colour space with the textbook equations (below, written apart from
the firmware's decoder on purpose), as the ISP does. Auto-exposure and auto white balance are
simulated: with ``AeEnable``/``AwbEnable`` on, each frame's figures move half way to what the
scene asks for (``Picamera2.scene()`` -> (brightness, colour gains); tests tie it to the ring
light), so settling takes a few frames; off, the figures are the ones set.

Frames: ``Picamera2.film`` is a callable returning the current full-resolution BGR frame, or a
pair (that frame, its lores I420 buffer) (the tests set it; the lores image is made by resizing
when not given), or, when the environment variable ``FAKE_PICAMERA2_FILM`` names a folder, the
frames are files there, memory-mapped read-only like the camera's dmabufs: ``NAME.i420`` (the
full-resolution I420 buffer) and ``NAME.yuv`` (the lores one) (a real camera's ISP makes both in
hardware, so the process only ever reads what it maps); ``film.json`` gives the sizes and the
NAMEs in order, one per frame period, looped, or a ``control`` file whose content is the NAME to
show now, so the caller can lay the die as it presses the slider (bench/firmware.py).
"""

from __future__ import annotations

import errno
import json
import mmap
import os
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
from libcamera import ColorSpace

__all__ = ["Picamera2", "MappedArray", "CompletedRequest", "encode_i420"]

# Kr, Kb of the YCbCr encodings (ITU-R BT.601, BT.709, BT.2020)
_K = {"Rec601": (0.299, 0.114), "Rec709": (0.2126, 0.0722), "Rec2020": (0.2627, 0.0593)}
YUV_FORMATS = ("YUV420", "YVU420", "NV12", "NV21", "YUV422", "YUYV", "UYVY")
RGB_FORMATS = ("RGB888", "BGR888", "XBGR8888", "XRGB8888")


def _stride(width: int, fmt: str) -> int:
    bpp = 1 if fmt in YUV_FORMATS else (3 if fmt in ("RGB888", "BGR888") else 4)
    return -(-width * bpp // 64) * 64


def encode_i420(bgr: np.ndarray, colour_space: ColorSpace, stride: int | None = None) -> np.ndarray:
    """The I420 buffer (h * 3 / 2, stride) the ISP writes for ``bgr`` in ``colour_space``."""
    import cv2

    h, w = bgr.shape[:2]
    stride = stride or _stride(w, "YUV420")
    kr, kb = _K[colour_space.ycbcrEncoding.name]
    kg = 1 - kr - kb
    b, g, r = (bgr[..., i].astype(np.float64) / 255.0 for i in range(3))
    y = kr * r + kg * g + kb * b  # 0..1
    pb = (b - y) / (2 * (1 - kb))  # -0.5..0.5
    pr = (r - y) / (2 * (1 - kr))
    if colour_space.range.name == "Full":
        y8, u8, v8 = 255 * y, 128 + 255 * pb, 128 + 255 * pr
    else:
        y8, u8, v8 = 16 + 219 * y, 128 + 224 * pb, 128 + 224 * pr
    u8 = cv2.resize(u8, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    v8 = cv2.resize(v8, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    buf = np.zeros((h * 3 // 2, stride), np.uint8)
    buf[:h, :w] = np.clip(np.rint(y8), 0, 255)
    buf[h : h + h // 4].reshape(h // 2, stride // 2)[:, : w // 2] = np.clip(np.rint(u8), 0, 255)
    buf[h + h // 4 :].reshape(h // 2, stride // 2)[:, : w // 2] = np.clip(np.rint(v8), 0, 255)
    return buf


class _FileFilm:
    """I420 buffers mapped from files: the pages count as the process's only once read."""

    def __init__(self, folder: str, fps: float) -> None:
        root = Path(folder)
        meta = json.loads((root / "film.json").read_text())
        w, h = meta["size"]
        lw, lh = meta["lores"]
        mapped: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # each file mapped once
        for name in meta["frames"]:
            if name not in mapped:
                mapped[name] = (
                    self._map(root / f"{name}.i420").reshape(h * 3 // 2, _stride(w, "YUV420")),
                    self._map(root / f"{name}.yuv").reshape(lh * 3 // 2, _stride(lw, "YUV420")),
                )
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
    def __init__(self, cam: Picamera2, buffers: dict[str, np.ndarray]) -> None:
        self._cam = cam
        self._buffers = buffers
        self.released = False

    def make_array(self, name: str) -> np.ndarray:
        if name not in self._buffers:
            raise RuntimeError(f"Stream {name!r} is not defined")
        return np.array(self._buffers[name])  # a copy of the whole buffer, as picamera2's

    def release(self) -> None:
        self.released = True
        self._cam.released += 1


class MappedArray:
    """The request's buffer mapped as an array (no copy), valid inside ``with``."""

    def __init__(
        self, request: CompletedRequest, stream: str, reshape: bool = True, write: bool = True
    ) -> None:
        if stream not in request._buffers:
            raise RuntimeError(f"Stream {stream!r} is not defined")
        self._request = request
        self._stream = stream
        self.array: np.ndarray | None = None

    def __enter__(self) -> MappedArray:
        if self._request.released:
            raise RuntimeError("the request was released")
        self.array = self._request._buffers[self._stream]  # a view of the camera's buffer
        return self

    def __exit__(self, *exc: object) -> None:
        self.array = None


# the controls each sensor advertises: (min, max, default), as picamera2's camera_controls
_COMMON = {
    "AeEnable": (False, True, True),
    "AwbEnable": (False, True, True),
    "ExposureTime": (26, 112015443, 20000),
    "AnalogueGain": (1.0, 16.0, 1.0),
    "ColourGains": (0.0, 32.0, None),
    "FrameDurationLimits": (33333, 120000, 33333),
    "NoiseReductionMode": (0, 4, 0),
}
CONTROLS = {
    "imx708": {
        **_COMMON,
        "AfMode": (0, 2, 0),
        "LensPosition": (0.0, 15.0, 1.0),
        "AfTrigger": (0, 1, 0),
    },  # Camera Module 3: a lens motor
    "imx219": dict(_COMMON),  # Camera Module 2: fixed focus
}


class Picamera2:
    film: Any = None  # () -> full-resolution BGR frame; set by tests
    sensor_resolution: tuple[int, int] = (4608, 2592)
    model: str = "imx708"
    platform: str = "vc4"  # "vc4": Pi 4 and earlier; "pisp": Pi 5
    cma_bytes: int | None = None  # the CMA a Pi 4 has free for the buffers; None: enough
    # (brightness, colour gains) the scene asks auto-exposure and auto white balance for
    scene: Any = staticmethod(lambda: (1.0, (1.8, 1.5)))
    instances: list[Picamera2] = []
    fail_open: BaseException | None = None  # raised by Picamera2() (tests: busy, absent)

    def __init__(self) -> None:
        if Picamera2.fail_open is not None:
            raise Picamera2.fail_open
        self.camera_config: dict[str, Any] | None = None
        self.camera_controls = dict(CONTROLS[Picamera2.model])
        self.controls: dict[str, Any] = {"AeEnable": True, "AwbEnable": True}
        self.set_log: list[dict[str, Any]] = []  # every set_controls, in order
        self.metadata_log: list[dict[str, Any]] = []
        self._ae = {"ExposureTime": 20000.0, "AnalogueGain": 1.0, "ColourGains": (1.0, 1.0)}
        self.started = False
        self.released = 0
        self.requests = 0
        self._lock = threading.Lock()
        self._next = time.monotonic()
        self._fps = 30.0
        Picamera2.instances.append(self)

    # --- configuration ---------------------------------------------------------------------
    def create_video_configuration(
        self,
        main: dict | None = None,
        lores: dict | None = None,
        raw: dict | None = None,
        transform: Any = None,
        colour_space: Any = None,
        buffer_count: int = 6,
        controls: dict | None = None,
        display: str | None = "main",
        encode: str | None = "main",
        queue: bool = True,
        sensor: dict | None = None,
        use_case: str = "video",
    ) -> dict[str, Any]:
        main = {"format": "XBGR8888", "size": (1280, 720), **(main or {})}
        lores = None if lores is None else {"format": "YUV420", "size": main["size"], **lores}
        raw = None if raw is None else {"format": "SBGGR10_CSI2P", "size": main["size"], **raw}
        if colour_space is None:  # picamera2: by the video's size
            small = main["size"][0] < 1280 or main["size"][1] < 720
            colour_space = ColorSpace.Smpte170m() if small else ColorSpace.Rec709()
        for name, stream in (("display", display), ("encode", encode)):
            if (
                stream is not None
                and {"main": main, "lores": lores, "raw": raw}.get(stream) is None
            ):
                raise RuntimeError(f"{name.capitalize()} stream {stream} was not defined")
        return {
            "main": main,
            "lores": lores,
            "raw": raw,
            "colour_space": colour_space,
            "controls": dict(controls or {}),
            "buffer_count": buffer_count,
            "display": display,
            "encode": encode,
            "transform": transform,
        }

    @staticmethod
    def _check_stream(stream: Any, name: str) -> None:
        if type(stream) is not dict:
            raise RuntimeError(name + " stream should be a dictionary")
        fmt, size = stream.get("format"), stream.get("size")
        if not isinstance(fmt, str):
            raise RuntimeError(f"format in {name} stream should be a string")
        if name != "raw" and fmt not in YUV_FORMATS + RGB_FORMATS:
            raise RuntimeError(f"Bad format {fmt} in stream {name}")
        if type(size) is not tuple or len(size) != 2:
            raise RuntimeError(f"size in {name} stream should be (width, height)")
        if size[0] % 2 or size[1] % 2:
            raise RuntimeError("width and height should be even")

    def configure(self, config: dict[str, Any]) -> None:
        if not isinstance(config.get("colour_space"), ColorSpace):
            raise RuntimeError("Colour space has incorrect type")
        main, lores, raw = config["main"], config.get("lores"), config.get("raw")
        self._check_stream(main, "main")
        if lores is not None:
            self._check_stream(lores, "lores")
            if lores["size"][0] > main["size"][0] or lores["size"][1] > main["size"][1]:
                raise RuntimeError("lores stream dimensions may not exceed main stream")
            if Picamera2.platform == "vc4" and lores["format"] not in YUV_FORMATS:
                raise RuntimeError("lores stream must be YUV")
        if raw is not None:
            self._check_stream(raw, "raw")
        n = int(config["buffer_count"])
        need = 0
        streams = {"main": main, "lores": lores}
        for s in streams.values():
            if s is not None:
                w, h = s["size"]
                rows = h * 3 // 2 if s["format"] in YUV_FORMATS else h
                need += n * _stride(w, s["format"]) * rows
        if raw is not None:
            rw, rh = raw["size"]
            need += max(n, 4) * (-(-rw * 10 // 8 // 32) * 32) * rh
        if (
            Picamera2.platform == "vc4"
            and Picamera2.cma_bytes is not None
            and need > Picamera2.cma_bytes
        ):
            raise OSError(errno.ENOMEM, "Cannot allocate memory")
        self.buffer_bytes = need
        self._fps = float(config["controls"].get("FrameRate", 30.0))
        cfg: dict[str, Any] = {
            "colour_space": config["colour_space"],
            "buffer_count": n,
            "lores": None,
            "raw": raw,
        }
        for name, s in streams.items():
            if s is not None:
                cfg[name] = {**s, "stride": _stride(s["size"][0], s["format"])}
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

    # --- controls --------------------------------------------------------------------------
    def set_controls(self, controls: dict[str, Any]) -> None:
        for name in controls:
            if name != "FrameRate" and name not in self.camera_controls:
                raise RuntimeError(f"Control {name} is not advertised by libcamera")
        # stricter than libcamera, which silently ignores a LensPosition the AF algorithm drives
        if "LensPosition" in controls and int(
            controls.get("AfMode", self.controls.get("AfMode", 2))
        ):
            raise RuntimeError("LensPosition is ignored unless AfMode is Manual (0): set it first")
        self.controls.update(controls)
        self.set_log.append(dict(controls))

    def _pace(self) -> None:
        with self._lock:
            now = time.monotonic()
            if now < self._next:
                time.sleep(self._next - now)
            self._next = max(now, self._next) + 1.0 / self._fps

    def capture_metadata(self) -> dict[str, Any]:
        """The next frame's metadata: auto-exposure and white balance move half way per frame
        towards what the scene asks for while enabled, else report the figures set."""
        if not self.started:
            raise RuntimeError("camera not started")
        self._pace()
        brightness, gains = Picamera2.scene()
        if self.controls.get("AeEnable", True):
            want = 12000.0 / max(brightness, 0.05)
            self._ae["ExposureTime"] += (want - self._ae["ExposureTime"]) / 2
            self._ae["AnalogueGain"] = 1.0 + max(0.0, want - 30000.0) / 30000.0
        else:
            self._ae["ExposureTime"] = float(self.controls.get("ExposureTime", 20000))
            self._ae["AnalogueGain"] = float(self.controls.get("AnalogueGain", 1.0))
        if self.controls.get("AwbEnable", True):
            r, b = self._ae["ColourGains"]
            self._ae["ColourGains"] = (r + (gains[0] - r) / 2, b + (gains[1] - b) / 2)
        else:
            self._ae["ColourGains"] = tuple(self.controls.get("ColourGains", (1.0, 1.0)))
        meta = {
            "ExposureTime": int(round(self._ae["ExposureTime"])),
            "AnalogueGain": round(self._ae["AnalogueGain"], 3),
            "ColourGains": tuple(round(g, 4) for g in self._ae["ColourGains"]),
            "Lux": 400.0 * brightness,
        }
        if "LensPosition" in self.camera_controls:
            meta["LensPosition"] = float(self.controls.get("LensPosition", 1.0))
        self.metadata_log.append(meta)
        return meta

    # --- frames ----------------------------------------------------------------------------
    def _frame(self) -> dict[str, np.ndarray]:
        """The next sensor frame's buffers by stream, paced to the frame rate."""
        import cv2

        if not self.started:
            raise RuntimeError("camera not started")
        self._pace()
        got = Picamera2.film()
        frame, given_lores = got if isinstance(got, tuple) else (got, None)
        assert self.camera_config is not None
        cs = self.camera_config["colour_space"]
        out: dict[str, np.ndarray] = {}
        for name in ("main", "lores"):
            s = self.camera_config.get(name)
            if s is None:
                continue
            w, h = s["size"]
            if name == "lores" and given_lores is not None:
                out[name] = given_lores
                continue
            if frame.ndim == 2:  # already an I420 buffer (the file film's main)
                out[name] = frame
                continue
            img = (
                frame
                if frame.shape[:2] == (h, w)
                else cv2.resize(frame, (w, h), interpolation=cv2.INTER_AREA)
            )  # the ISP's scaler
            if s["format"] in YUV_FORMATS:
                out[name] = encode_i420(img, cs, s["stride"])
            else:
                out[name] = np.ascontiguousarray(img)
        return out

    def capture_array(self, name: str = "main") -> np.ndarray:
        buffers = self._frame()
        if name not in buffers:
            raise RuntimeError(f"Stream {name!r} is not defined")
        return np.array(buffers[name])  # a copy, as picamera2's make_array

    def capture_request(self) -> CompletedRequest:
        self.requests += 1
        return CompletedRequest(self, self._frame())
