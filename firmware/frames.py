"""Frame sources: everything the watch loop can take pictures from, behind one interface.

A :class:`FrameSource` has ``read() -> BGR uint8 frame or None`` (None: no frame this time),
``close()``, ``fps`` (the rate it aims at) and ``name``; it is usable with ``with``. Optionally
``capture_zone(box) -> (crop, scale) | None``: the box of a ``read()`` frame cut from the
camera's full-resolution stream (``scale`` = full-resolution pixels per preview pixel), for the
die read — at 1280x720 a die is ~20 px and only ~60 % of them read; cut from 4608x2592 (~70 px)
nearly all do. None (the default) means "not supported": the caller reads the preview frame.
Backends:

* :class:`PiCamera2Source` — the Pi camera through picamera2, imported only when used;
* :class:`UsbCameraSource` — a USB webcam through OpenCV;
* :class:`ReplaySource` — a folder of images, one image or a video, looped, paced like a camera;
* :class:`RenderedSource` — frames from a callable (the renderer, in the demo and the tests).

:func:`open_source` builds one from the ``[camera]`` section of the config.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from firmware.camera_fault import CameraFault, classify, describe
from firmware.config import CameraConfig
from firmware.picamera import (
    MIB,
    Lamp,
    Locked,
    focus_controls,
    i420_planes,
    lock_exposure,
    pi_platform,
    plan_streams,
    read_cma,
    ycbcr_of,
    yuv420_to_bgr,
)

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov", ".h264", ".mjpeg", ".mjpg")


class CameraError(RuntimeError):
    """A camera that cannot be opened or has failed; the watch loop reopens it with backoff.

    ``fault``: why, as a value (firmware.camera_fault), when it is known; the status topic
    carries it so that the dashboard can say what to do."""

    def __init__(self, message: str, fault: CameraFault | None = None) -> None:
        super().__init__(message)
        self.fault = fault


class FrameSource:
    """Base class: subclasses implement ``read`` and ``close``."""

    name: str = "frames"
    fps: float = 30.0

    def read(self) -> np.ndarray | None:
        raise NotImplementedError

    def read_into(self, spare: Callable[[], np.ndarray | None]) -> np.ndarray | None:
        """:meth:`read`, decoding into the buffer ``spare()`` gives when this source can (a
        frame nobody will look at any more, or None), called once the frame has arrived.

        Why: the camera supervisor (firmware.camera) keeps only the newest frame; while the
        loop is busy (a read is the process's memory peak) each new frame replaced one that
        nobody took, so two frames lived where one would do. A source that decodes into the
        replaced frame's buffer keeps one fewer (2.7 MB at 1280x720). Sources that cannot
        (a replay, a USB camera) just read."""
        return self.read()

    def close(self) -> None:
        pass

    def capture_zone(self, box: tuple[int, int, int, int]) -> tuple[np.ndarray, float] | None:
        """``box`` (x, y, w, h, in ``read()`` pixels) cut from a full-resolution frame taken now,
        and the scale of that frame to ``read()``'s; None: this source has no such stream."""
        return None

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Pacer:
    """Holds a source to ``fps`` frames per second, like a camera's frame clock."""

    def __init__(self, fps: float | None) -> None:
        self.period = 1.0 / fps if fps else 0.0
        self._next = time.monotonic()

    def wait(self) -> None:
        if not self.period:
            return
        now = time.monotonic()
        if now < self._next:
            time.sleep(self._next - now)
            self._next += self.period
        else:  # late: do not try to catch up with a burst of frames
            self._next = now + self.period


def flicker_free_exposure(
    exposure_us: float, gain: float, mains_hz: int, frame_us: float
) -> tuple[int, float]:
    """(exposure in µs, analogue gain) with the exposure a whole number of light-flicker periods.

    Why: lamps on AC mains flicker at twice the mains frequency (100 Hz in Europe, 120 Hz in
    North America). An exposure that is not a whole number of flicker periods (10 ms at 50 Hz,
    8.33 ms at 60 Hz) catches a different share of each flicker cycle in each frame: rolling
    bands and frame-to-frame brightness changes, which the settle machine would take for motion
    and which shift a die's colour. A whole number of periods integrates every cycle fully.

    The exposure auto-exposure chose is rounded to the nearest whole number of periods that still
    fits in one frame (``frame_us``, less 2 % for readout), at least one; the gain makes up the
    difference so the image is as bright as auto-exposure wanted (never below gain 1.0).
    """
    if mains_hz not in (50, 60):
        raise ValueError(f"mains_hz must be 50 or 60, got {mains_hz}")
    period = 1_000_000 / (2 * mains_hz)
    # the sensor needs a little of each frame for readout: libcamera would clip an exposure of
    # the whole frame to something that is no longer a whole number of periods
    fits = max(1, int(frame_us * 0.98 // period))
    periods = min(max(1, round(exposure_us / period)), fits)
    exposure = int(round(periods * period))
    new_gain = max(1.0, gain * exposure_us / exposure) if exposure_us > 0 else gain
    return exposure, float(new_gain)


def full_stream_size(sensor: tuple[int, int], preview: tuple[int, int]) -> tuple[int, int]:
    """The largest size of the preview's aspect ratio inside the sensor (even numbers).

    Why: the full-resolution stream and the watched frames share one crop of the sensor, so they
    must have the same aspect ratio; a 16:9 preview on a 4:3 sensor (Camera Module 2) cuts the
    sensor's top and bottom rather than squeezing the image."""
    sw, sh = (int(v) for v in sensor)
    pw, ph = (int(v) for v in preview)
    if sw <= 0 or sh <= 0 or pw <= 0 or ph <= 0:
        raise ValueError(f"sizes must be positive, got sensor {sensor} and preview {preview}")
    w: float
    h: float
    if sw * ph >= sh * pw:  # the sensor is wider than the preview: full height
        w, h = sh * pw / ph, sh
    else:
        w, h = sw, sw * ph / pw
    return int(w) // 2 * 2, int(h) // 2 * 2


ZONE_BAND_ROWS = 64  # rows of the full-resolution buffer copied (then let go) at a time


def drop_mapped_rows(array: np.ndarray, row0: int, row1: int) -> bool:
    """Let the kernel drop this process's page-table entries for rows ``row0:row1`` of a
    memory-mapped buffer just read (``madvise(MADV_DONTNEED)``); True if it was done.

    Why: every page of a camera buffer the process has read counts in its resident memory for
    as long as the buffer stays mapped (picamera2 maps each buffer once, for good), and the reveal
    zone's rows span ~10 MB of a 4608x2592 buffer: with three buffers in turn that is the size of
    everything else the process holds. The data stays in the buffer (a shared mapping: the next
    read faults the pages in again). Only for arrays that view a mapping (they do not own their
    memory), and only pages entirely inside the array; any failure (no glibc, a mapping that
    refuses it) just leaves the pages mapped.
    """
    if array.flags.owndata or array.ndim < 2 or row1 <= row0:
        return False
    try:
        import ctypes
        import mmap

        page = mmap.PAGESIZE
        base = int(array.__array_interface__["data"][0])
        stride = int(array.strides[0])
        lo = base + max(row0, 0) * stride
        hi = base + min(row1, array.shape[0]) * stride
        lo, hi = -(-lo // page) * page, hi // page * page  # whole pages inside the rows only
        if hi <= lo:
            return False
        libc = ctypes.CDLL(None, use_errno=True)
        madv_dontneed = 4
        return int(libc.madvise(ctypes.c_void_p(lo), ctypes.c_size_t(hi - lo), madv_dontneed)) == 0
    except (OSError, AttributeError, ValueError):
        return False


class PiCamera2Source(FrameSource):
    """The Raspberry Pi camera (libcamera) through picamera2, set for the ring light.

    On open (and so on every reopen by the supervisor): the stream plan that fits the camera
    memory (firmware.picamera.plan_streams), Rec.709 for the camera's YUV streams, manual focus
    at ``lens_position`` dioptres on a camera with a lens motor, and exposure and white balance
    measured with the ring held on (``lamp``) and then locked (firmware.picamera.lock_exposure;
    the exposure a whole number of mains flicker periods, see :func:`flicker_free_exposure`).

    ``full_size``: None, one stream (``lores`` at ``size``) and ``capture_zone`` returns None.
    Otherwise the ``main`` stream runs at ``full_size`` ("sensor": the sensor's resolution cut
    to ``size``'s aspect ratio, 4608x2592 on a Camera Module 3) and the frames the loop watches
    come from the ``lores`` stream at ``size``, so :meth:`capture_zone` cuts the reveal zone from
    the full-resolution image of the same sensor frame. Both streams are YUV420 and decoded with
    the camera's colour space (firmware.picamera.yuv420_to_bgr), never OpenCV's BT.601.

    Memory: the main buffer (17.9 MB at 4608x2592 in YUV420) is never copied:
    :meth:`capture_zone` maps the request's buffer (picamera2's ``MappedArray``, the camera's own
    dmabuf), copies out only the zone's rows and columns of each plane a band at a time and lets
    go of the pages it read (:func:`drop_mapped_rows`). Full resolution caps the frame rate
    (about 14 fps on the IMX708's full mode), which the settle machine's frame counts tolerate.
    NOT exercised on a Pi here (no Pi camera in CI): written against picamera2's and libcamera's
    sources; tests/firmware/fake_picamera2 is a stand-in with the same calls that refuses what
    they refuse, used by the tests and by bench/firmware.py.
    """

    def __init__(
        self,
        size: tuple[int, int] = (1280, 720),
        fps: float = 30.0,
        warmup_s: float = 1.5,
        mains_hz: int = 50,
        full_size: tuple[int, int] | str | None = None,
        *,
        lamp: Lamp | None = None,
        lens_position: float | None = None,
    ) -> None:
        try:
            from picamera2 import Picamera2  # only on the Pi: python3-picamera2 from apt
        except Exception as exc:  # ImportError, or "numpy.dtype size changed" (ValueError)
            hint = (
                "; on Raspberry Pi OS: sudo apt install python3-picamera2, and a venv made "
                "with --system-site-packages"
                if isinstance(exc, ImportError)
                else ""
            )
            raise CameraError(describe(CameraFault.IMPORT, exc) + hint, CameraFault.IMPORT) from exc
        self.name = "picamera2"
        self.fps = float(fps)
        self._full: tuple[int, int] | None = None
        self._size = (int(size[0]), int(size[1]))
        self.lamp = lamp
        self.notes: list[str] = []
        try:
            self._cam = Picamera2()
        except Exception as exc:  # no camera attached, or held by another process
            fault = classify(exc, "open")
            raise CameraError(describe(fault, exc), fault) from exc
        try:
            self._configure(full_size)
            self._cam.start()
            self.focus(lens_position)
            self.relock(max_settle_s=warmup_s, mains_hz=mains_hz)
        except Exception as exc:
            self.close()
            fault = classify(exc, "start")
            raise CameraError(describe(fault, exc), fault) from exc

    def _configure(self, full_size: tuple[int, int] | str | None) -> None:
        from libcamera import ColorSpace  # python3-libcamera, beside picamera2

        sensor = tuple(int(v) for v in self._cam.sensor_resolution)
        wanted: tuple[int, int] | None = None
        if full_size == "sensor":
            wanted = full_stream_size((sensor[0], sensor[1]), self._size)
        elif full_size is not None:
            wanted = (int(full_size[0]), int(full_size[1]))
        self.platform = pi_platform()
        cma = read_cma()
        plan, self.notes = plan_streams(
            (sensor[0], sensor[1]),
            self._size,
            wanted,
            platform=self.platform,
            cma_free=cma[1] if cma else None,
        )
        for note in self.notes:
            log.warning("camera: %s", note)
        self.plan = plan
        lores = {"size": self._size, "format": "YUV420"}
        main = {"size": plan.main, "format": "YUV420"} if plan.main else None
        config = self._cam.create_video_configuration(
            main=main if main is not None else lores,
            lores=lores if main is not None else None,
            raw={"size": plan.raw},
            colour_space=ColorSpace.Rec709(),
            controls={"FrameRate": self.fps},
            buffer_count=plan.buffers,
            display=None,
            encode=None,
        )
        self._cam.configure(config)
        cfg = self._cam.camera_config
        # the colour space and sizes libcamera settled on (it may adjust them)
        self.ycbcr = ycbcr_of(cfg["colour_space"])
        self._watch = "lores" if main is not None else "main"
        size = cfg[self._watch]["size"]
        self._size = (int(size[0]), int(size[1]))
        if main is not None:
            full = cfg["main"]["size"]
            self._full = (int(full[0]), int(full[1]))
            self._scale = (self._full[0] / self._size[0], self._full[1] / self._size[1])
        log.info(
            "Pi camera (%s): watched %sx%s YUV420%s, %s, plan %r: %.0f MiB of camera memory (%s)",
            self.platform,
            *self._size,
            f", die read at {self._full[0]}x{self._full[1]}" if self._full else "",
            self.ycbcr.name,
            plan.name,
            plan.camera_bytes() / MIB,
            "CMA" if plan.cma_bytes(self.platform) else "system memory",
        )

    def focus(self, dioptres: float | None) -> dict[str, Any]:
        """Manual focus at ``dioptres`` (None: the build guide's arm, firmware.geometry); what
        was set ({} on a fixed-focus camera). The set-up calls it to adjust the focus."""
        if dioptres is None:
            from firmware.geometry import default_lens_position

            dioptres = default_lens_position()
        controls = focus_controls(self._cam.camera_controls, float(dioptres))
        if controls:
            self._cam.set_controls(controls)
            log.info(
                "Pi camera: manual focus at %.2f dioptres (%.0f mm)",
                controls["LensPosition"],
                1000 / max(controls["LensPosition"], 1e-3),
            )
        self.lens_position = controls.get("LensPosition")
        return controls

    def relock(self, *, max_settle_s: float, mains_hz: int) -> Locked:
        """Measure exposure and white balance with the ring held on, and lock them."""
        self.locked = lock_exposure(
            self._cam,
            self.lamp,
            max_settle_s=max_settle_s,
            mains_hz=mains_hz,
            frame_us=1_000_000 / self.fps,
        )
        log.info(
            "Pi camera: locked under the ring after %.1f s (%d frames, %s): %s",
            self.locked.settle_s,
            self.locked.frames,
            "settled" if self.locked.converged else "still moving",
            self.locked.controls,
        )
        return self.locked

    def read(self) -> np.ndarray | None:
        return self.read_into(lambda: None)

    def read_into(self, spare: Callable[[], np.ndarray | None]) -> np.ndarray | None:
        # the watched stream mapped and decoded in place (capture_array would copy it first),
        # into a spare frame when there is one, its pages let go after: blocks until the next
        # frame (the frame clock)
        request = self._cam.capture_request()
        try:
            with self._mapped(request, self._watch) as m:
                buf = m.array  # I420 planes, (h * 3 / 2, stride)
                bgr = yuv420_to_bgr(*i420_planes(buf, self._size), self.ycbcr, out=spare())
                drop_mapped_rows(buf, 0, buf.shape[0])
        finally:
            request.release()
        return bgr

    @staticmethod
    def _mapped(request: Any, stream: str) -> Any:
        """picamera2's MappedArray of a request's stream, read-only where it can say so."""
        from picamera2 import MappedArray

        try:
            return MappedArray(request, stream, write=False)
        except TypeError:  # picamera2 before 0.3.17 has no write argument
            return MappedArray(request, stream)

    def capture_zone(self, box: tuple[int, int, int, int]) -> tuple[np.ndarray, float] | None:
        """The box cut from the next frame's full-resolution ``main`` buffer, mapped, never
        copied whole (see the class docstring); the request goes back to the camera at once."""
        if self._full is None:
            return None
        sx, sy = self._scale
        x, y, w, h = box
        # even edges: each chroma sample covers a 2x2 block
        fx0, fy0 = max(int(x * sx), 0) // 2 * 2, max(int(y * sy), 0) // 2 * 2
        fx1 = min(-(-int((x + w) * sx) // 2) * 2, self._full[0])
        fy1 = min(-(-int((y + h) * sy) // 2) * 2, self._full[1])
        if fx1 <= fx0 or fy1 <= fy0:
            return None
        request = self._cam.capture_request()
        try:
            with self._mapped(request, "main") as m:
                full = m.array
                yp, up, vp = i420_planes(full, self._full)
                zy = np.empty((fy1 - fy0, fx1 - fx0), np.uint8)
                zu = np.empty(((fy1 - fy0) // 2, (fx1 - fx0) // 2), np.uint8)
                zv = np.empty_like(zu)
                # a band of rows at a time, its pages let go at once: the process never holds
                # more than one band of the buffer (the zone's rows span ~5 MB of pages)
                for r0 in range(fy0, fy1, ZONE_BAND_ROWS):
                    r1 = min(r0 + ZONE_BAND_ROWS, fy1)
                    zy[r0 - fy0 : r1 - fy0] = yp[r0:r1, fx0:fx1]
                    c0, c1 = (r0 - fy0) // 2, (r1 - fy0) // 2
                    zu[c0:c1] = up[r0 // 2 : r1 // 2, fx0 // 2 : fx1 // 2]
                    zv[c0:c1] = vp[r0 // 2 : r1 // 2, fx0 // 2 : fx1 // 2]
                    drop_mapped_rows(full, r0, r1)
                h_full = self._full[1]
                drop_mapped_rows(full, h_full, full.shape[0])  # the chroma planes' pages
        finally:
            request.release()
        return yuv420_to_bgr(zy, zu, zv, self.ycbcr), sx

    def close(self) -> None:
        cam = getattr(self, "_cam", None)
        if cam is not None:
            try:
                cam.stop()
            finally:
                cam.close()
            self._cam = None


class UsbCameraSource(FrameSource):
    """A USB webcam (UVC) through OpenCV's VideoCapture; it blocks on the camera's frame clock."""

    def __init__(
        self, index: int = 0, size: tuple[int, int] = (1280, 720), fps: float = 30.0
    ) -> None:
        import cv2

        self.name = f"usb:{index}"
        self.fps = float(fps)
        self._cap = cv2.VideoCapture(index)
        if not self._cap.isOpened():
            self._cap.release()
            raise CameraError(f"cannot open USB camera {index} (/dev/video{index})")
        self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
        self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        self._cap.set(cv2.CAP_PROP_FPS, fps)
        self._cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # the newest frame, not a stale queue

    def read(self) -> np.ndarray | None:
        ok, frame = self._cap.read()
        return frame if ok else None

    def close(self) -> None:
        self._cap.release()


class ReplaySource(FrameSource):
    """Frames from a folder of images (sorted by name), one image, or a video file.

    ``fps`` paces ``read`` like a camera (None or 0: as fast as asked); ``loop`` starts again at
    the end, otherwise ``read`` returns None once the frames are used up. Decoded images are kept
    (up to ``cache`` of them) so a looped still frame costs no decoding; they are keyed by the
    file itself (device, inode), so a film made of links to a few images keeps only those few
    in memory.
    """

    def __init__(
        self, path: str | Path, *, fps: float | None = 30.0, loop: bool = True, cache: int = 64
    ) -> None:
        self.path = Path(path)
        self.name = f"replay:{self.path.name}"
        self.fps = float(fps or 0.0)
        self.loop = loop
        self._pacer = _Pacer(fps)
        self._video: Any = None
        self._files: list[Path] = []
        self._cache: dict[tuple[int, int], np.ndarray] = {}
        self._keys: list[tuple[int, int]] = []
        self._cache_max = cache
        self._i = 0
        if self.path.is_dir():
            self._files = sorted(
                p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES
            )
            if not self._files:
                raise CameraError(f"{self.path}: no images ({', '.join(IMAGE_SUFFIXES)}) in it")
            self._keys = [self._key(p) for p in self._files]
        elif self.path.is_file() and self.path.suffix.lower() in IMAGE_SUFFIXES:
            self._files = [self.path]
            self._keys = [self._key(self.path)]
        elif self.path.is_file():
            self._open_video()
        else:
            raise CameraError(f"{self.path}: no such folder, image or video")

    @staticmethod
    def _key(path: Path) -> tuple[int, int]:
        st = path.stat()
        return (st.st_dev, st.st_ino)

    def _open_video(self) -> None:
        import cv2

        self._video = cv2.VideoCapture(str(self.path))
        if not self._video.isOpened():
            raise CameraError(f"{self.path}: OpenCV cannot open it as a video")

    def __len__(self) -> int:
        return len(self._files)

    def read(self) -> np.ndarray | None:
        self._pacer.wait()
        if self._video is not None:
            ok, frame = self._video.read()
            if not ok and self.loop:
                self._video.set(1, 0)  # CAP_PROP_POS_FRAMES = 1: back to the start
                ok, frame = self._video.read()
            return frame if ok else None
        if self._i >= len(self._files):
            if not self.loop:
                return None
            self._i = 0
        i = self._i
        self._i += 1
        frame = self._cache.get(self._keys[i])
        if frame is None:
            import cv2

            read: np.ndarray | None = cv2.imread(str(self._files[i]), cv2.IMREAD_COLOR)
            frame = read
            if frame is None:
                raise CameraError(f"{self._files[i]}: not a readable image")
            if len(self._cache) < self._cache_max:
                self._cache[self._keys[i]] = frame
        return frame

    def close(self) -> None:
        if self._video is not None:
            self._video.release()
            self._video = None


class RenderedSource(FrameSource):
    """Frames made by a callable (``render() -> frame or None``), paced to ``fps`` if given.

    The demo gives it a renderer of the board with the die just released; tests give it a
    sequence, or a callable that raises to act as a failing camera. ``zone``: an optional
    ``zone(box) -> (crop, scale) | None`` rendering the box at full resolution (see
    :meth:`FrameSource.capture_zone`).
    """

    def __init__(
        self,
        render: Callable[[], np.ndarray | None],
        *,
        fps: float | None = None,
        name: str = "rendered",
        zone: Callable[[tuple[int, int, int, int]], tuple[np.ndarray, float] | None] | None = None,
    ) -> None:
        self._render = render
        self._zone = zone
        self.name = name
        self.fps = float(fps or 0.0)
        self._pacer = _Pacer(fps)

    def read(self) -> np.ndarray | None:
        self._pacer.wait()
        return self._render()

    def capture_zone(self, box: tuple[int, int, int, int]) -> tuple[np.ndarray, float] | None:
        return None if self._zone is None else self._zone(box)


def open_source(cam: CameraConfig, lamp: Lamp | None = None) -> FrameSource:
    """The frame source the ``[camera]`` section describes (raises CameraError if it cannot).
    ``lamp``: the ring light, held on while the Pi camera measures its exposure."""
    size = (cam.width, cam.height)
    if cam.kind == "picamera2":
        full: tuple[int, int] | str | None = None
        if cam.full_resolution:
            full = (cam.full_size[0], cam.full_size[1]) if cam.full_size else "sensor"
        return PiCamera2Source(
            size,
            cam.fps,
            cam.warmup_s,
            cam.mains_hz,
            full_size=full,
            lamp=lamp,
            lens_position=cam.lens_position or None,
        )
    if cam.kind == "usb":
        return UsbCameraSource(cam.index, size, cam.fps)
    if cam.kind == "replay":
        return ReplaySource(cam.path, fps=cam.fps)
    raise CameraError(f"unknown camera kind {cam.kind!r}")
