"""The Raspberry Pi camera (libcamera, through picamera2), set for the table's ring light.

What this module decides, and why:

* **Exposure and white balance under the ring.** The ring light is on whenever a die or the
  track is read, so exposure and white balance are measured with it on: the ring is held on
  (:meth:`Lamp.hold`), auto-exposure and auto white balance run until their figures stop moving
  (:func:`settled`), then both are locked (``AeEnable``/``AwbEnable`` off, the figures set by
  hand, the exposure a whole number of mains flicker periods). Every (re)open of the camera
  locks again the same way, so a camera reopened after a fault is never locked under whatever
  light happened to be on.
* **Focus.** The Camera Module 3 (IMX708) has a voice-coil lens: left to continuous autofocus it
  hunts whenever a hand passes. It is set to manual focus (``AfMode`` manual) at
  ``LensPosition`` = 1 / (lens-to-reveal-zone distance in metres), from firmware.geometry for the
  build guide's arm, or ``[camera] lens_position``. Cameras without the control (Module 2, HQ)
  are left alone: picamera2 refuses a control the camera does not advertise.
* **Colour.** One colour space is set for the camera (libcamera applies one to every stream):
  Rec.709, limited range, as picamera2 picks for video at 1280x720 and up. Every YUV stream is
  decoded with that colour space's own matrix and range (:func:`yuv420_to_bgr`); OpenCV's
  ``COLOR_YUV2BGR_I420`` assumes BT.601 and would shift yellow and blue (issue 14).
* **Memory.** The two streams are YUV420 (1.5 bytes a pixel; the die zone is decoded alone),
  three buffers each; the stream plan's camera memory (:func:`plan_streams`) is checked against
  the CMA the kernel reserved, on a Pi 4, and a smaller plan taken when it does not fit. The
  figures and their sources are in docs/running-on-the-pi.md, "Camera memory".

picamera2 and libcamera are imported only when a camera is opened (they exist only on the Pi);
tests/firmware/fake_picamera2 is a stand-in that refuses what the real ones refuse.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

log = logging.getLogger(__name__)

# ---------------------------------------------------------------------------------------------
# colour: libcamera's YCbCr encodings and ranges


@dataclass(frozen=True)
class YCbCr:
    """A YCbCr encoding (luma weights ``kr``, ``kb``) and its range, named as libcamera does."""

    name: str
    kr: float
    kb: float
    full_range: bool

    def matrix(self) -> np.ndarray:
        """3x4 matrix taking (Y, Cb, Cr, 1) in 0..255 to (B, G, R), for cv2.transform."""
        kg = 1.0 - self.kr - self.kb
        if self.full_range:
            ys, cs, y0 = 1.0, 1.0, 0.0
        else:  # Y in 16..235, Cb/Cr in 16..240
            ys, cs, y0 = 255.0 / 219.0, 255.0 / 224.0, 16.0
        r_cr = 2.0 * (1.0 - self.kr) * cs
        b_cb = 2.0 * (1.0 - self.kb) * cs
        g_cb = -2.0 * self.kb * (1.0 - self.kb) / kg * cs
        g_cr = -2.0 * self.kr * (1.0 - self.kr) / kg * cs
        rows = []
        for c_cb, c_cr in ((b_cb, 0.0), (g_cb, g_cr), (0.0, r_cr)):  # B, G, R
            offset = -ys * y0 - 128.0 * (c_cb + c_cr)
            rows.append([ys, c_cb, c_cr, offset])
        return np.array(rows, np.float32)


_ENCODINGS = {"Rec601": (0.299, 0.114), "Rec709": (0.2126, 0.0722), "Rec2020": (0.2627, 0.0593)}
# libcamera's ColorSpace presets (ColorSpace::toString names them): encoding and range
_PRESETS = {
    "sYCC": ("Rec601", True),
    "SMPTE170M": ("Rec601", False),
    "Rec709": ("Rec709", False),
    "Rec2020": ("Rec2020", False),
}


def _name(value: object) -> str:
    """An enum's name as the bindings give it ("Rec709"), or the last part of its str()."""
    name = getattr(value, "name", None)
    return str(name) if name is not None else str(value).rsplit(".", 1)[-1]


def ycbcr_of(colour_space: object) -> YCbCr:
    """The YCbCr decoding of a libcamera ``ColorSpace``: from its ``ycbcrEncoding`` and
    ``range`` where it has them (the Python bindings), else from its text: a preset's name
    ("Rec709", "sYCC"), "primaries/transfer/encoding/range", or the bindings' str(),
    ``<libcamera.ColorSpace 'Rec709'>``."""
    if hasattr(colour_space, "ycbcrEncoding") and hasattr(colour_space, "range"):
        enc, rng = _name(colour_space.ycbcrEncoding), _name(colour_space.range)
        if enc not in _ENCODINGS or rng not in ("Full", "Limited"):
            raise ValueError(f"unknown colour space {colour_space}: cannot decode its YUV")
        full = rng == "Full"
    else:
        text = str(colour_space).strip()
        match = re.fullmatch(r"<libcamera\.ColorSpace '(.*)'>", text)
        text = match.group(1) if match else text
        if text in _PRESETS:
            enc, full = _PRESETS[text]
        else:
            parts = text.split("/")
            if len(parts) != 4 or parts[2] not in _ENCODINGS or parts[3] not in ("Full", "Limited"):
                raise ValueError(f"unknown colour space {text!r}: cannot decode its YUV")
            enc, full = parts[2], parts[3] == "Full"
    kr, kb = _ENCODINGS[enc]
    return YCbCr(f"{enc} {'full' if full else 'limited'} range", kr, kb, full)


def i420_planes(
    buf: np.ndarray, size: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Views (no copy) of the Y, U and V planes of an I420 buffer shaped (h * 3 / 2, stride),
    as picamera2 maps a YUV420 stream: Y is h rows of ``stride``, U and V h/2 rows of stride/2."""
    w, h = size
    stride = buf.shape[1]
    y = buf[:h, :w]
    u = buf[h : h + h // 4].reshape(h // 2, stride // 2)[:, : w // 2]
    v = buf[h + h // 4 : h + h // 2].reshape(h // 2, stride // 2)[:, : w // 2]
    return y, u, v


def yuv420_to_bgr(
    y: np.ndarray, u: np.ndarray, v: np.ndarray, ycbcr: YCbCr, out: np.ndarray | None = None
) -> np.ndarray:
    """BGR uint8 from 4:2:0 planes (chroma at half size), decoded with ``ycbcr``'s matrix.

    Each chroma sample covers its 2x2 block of pixels, as OpenCV's I420 conversion does, so only
    the matrix differs from it.

    Why it is written out: the camera thread runs this on every 1280x720 frame, 30 times a
    second. Upsampling each chroma plane, merging and transforming allocated four full-size
    arrays per frame (7.2 MB); here the planes are written straight into the one output array
    (chroma repeated over its 2x2 blocks, what INTER_NEAREST at exactly twice the size does) and
    the colour matrix is applied in place, so a frame costs its own 2.7 MB and nothing else.
    Byte-identical to the resize/merge/transform it replaces (tests/firmware/test_picamera.py).
    ``out``: a frame to write into instead of a new one (used when it is (h, w, 3) uint8 and
    contiguous; else a new array is made).
    """
    import cv2

    h, w = y.shape
    if h % 2 or w % 2 or u.shape != (h // 2, w // 2) or v.shape != u.shape:
        # odd sizes (never a libcamera stream; a hand-made buffer): the general path
        uu = cv2.resize(np.ascontiguousarray(u), (w, h), interpolation=cv2.INTER_NEAREST)
        vv = cv2.resize(np.ascontiguousarray(v), (w, h), interpolation=cv2.INTER_NEAREST)
        return cv2.transform(cv2.merge([np.ascontiguousarray(y), uu, vv]), ycbcr.matrix())
    if (
        out is None
        or out.shape != (h, w, 3)
        or out.dtype != np.uint8
        or not out.flags.c_contiguous
        or not out.flags.writeable
    ):
        out = np.empty((h, w, 3), np.uint8)
    out[..., 0] = y
    for dy in (0, 1):
        for dx in (0, 1):
            out[dy::2, dx::2, 1] = u
            out[dy::2, dx::2, 2] = v
    return cv2.transform(out, ycbcr.matrix(), dst=out)


# ---------------------------------------------------------------------------------------------
# memory: the stream plan and the kernel's camera memory (CMA)

MIB = 1024 * 1024
VC4, PISP = "vc4", "pisp"  # Pi 4 (and earlier): VideoCore ISP; Pi 5: the PiSP back end
RAW_BUFFERS_MIN = 4  # libcamera's rpi pipeline keeps at least this many raw (Unicam/CFE) buffers
BUFFERS = 3  # per output stream: one being filled, one queued, one read by the firmware


def _align(n: int, to: int) -> int:
    return -(-n // to) * to


def yuv420_bytes(size: tuple[int, int]) -> int:
    w, h = size
    return _align(w, 64) * h * 3 // 2  # strides padded to 64 bytes


def raw10_bytes(size: tuple[int, int]) -> int:
    w, h = size
    return _align(w * 10 // 8, 32) * h  # 10-bit Bayer, CSI-2 packed


@dataclass(frozen=True)
class StreamPlan:
    """The camera's streams: ``main`` (full resolution, the die zone is cut from it; None: one
    stream only), ``lores`` (the watched frames), both YUV420, ``buffers`` each; ``raw`` is the
    sensor mode libcamera will pick for ``main``."""

    name: str
    main: tuple[int, int] | None
    lores: tuple[int, int]
    raw: tuple[int, int]
    buffers: int = BUFFERS

    def camera_bytes(self) -> int:
        """Camera memory of the plan: every stream buffer plus the raw buffers."""
        out = self.buffers * yuv420_bytes(self.lores)
        if self.main is not None:
            out += self.buffers * yuv420_bytes(self.main)
        return out + max(self.buffers, RAW_BUFFERS_MIN) * raw10_bytes(self.raw)

    def cma_bytes(self, platform: str) -> int:
        """What of it comes out of CMA: all of it on a Pi 4 (VC4: Unicam and the ISP need
        contiguous memory); none on a Pi 5, whose camera blocks sit behind an IOMMU and take
        buffers from system memory (raspberrypi/linux#6361)."""
        return self.camera_bytes() if platform == VC4 else 0


def plan_streams(
    sensor: tuple[int, int],
    preview: tuple[int, int],
    full_size: tuple[int, int] | None,
    *,
    platform: str,
    cma_free: int | None,
) -> tuple[StreamPlan, list[str]]:
    """The largest plan that fits, and notes saying what was given up and why.

    ``full_size``: the die stream's size (None: no die stream). Plans tried in order: that size;
    half of it (the sensor's 2x2 binned mode on a Camera Module 3); the preview alone. On a Pi 4
    a plan fits when its CMA need is at most 90 % of ``cma_free`` (None: unknown, assumed to
    fit); on a Pi 5 the CMA is not used for camera buffers."""
    notes: list[str] = []
    candidates: list[StreamPlan] = []
    if full_size is not None:
        candidates.append(StreamPlan("full", full_size, preview, full_size))
        half = (full_size[0] // 4 * 2, full_size[1] // 4 * 2)
        if half[0] >= preview[0] and half[1] >= preview[1]:
            candidates.append(StreamPlan("half", half, preview, half))
    raw_for_preview = (sensor[0] // 4 * 2, sensor[1] // 4 * 2)  # binned mode: fast, small
    candidates.append(StreamPlan("preview", None, preview, raw_for_preview))
    for plan in candidates:
        need = plan.cma_bytes(platform)
        if cma_free is None or need <= 0.9 * cma_free:
            return plan, notes
        notes.append(
            f"stream plan {plan.name!r} needs {need / MIB:.0f} MiB of CMA, "
            f"{cma_free / MIB:.0f} MiB free: too much"
        )
    return candidates[-1], notes


MEMINFO = Path("/proc/meminfo")
MODEL = Path("/proc/device-tree/model")


def read_cma(meminfo: Path | None = None) -> tuple[int, int] | None:
    """(CmaTotal, CmaFree) in bytes, or None where the kernel has no CMA."""
    meminfo = meminfo or MEMINFO
    found: dict[str, int] = {}
    try:
        for line in meminfo.read_text().splitlines():
            key, _, rest = line.partition(":")
            if key in ("CmaTotal", "CmaFree"):
                found[key] = int(rest.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    if "CmaTotal" not in found or "CmaFree" not in found:
        return None
    return found["CmaTotal"], found["CmaFree"]


def pi_platform(model_file: Path | None = None) -> str:
    """PISP on a Raspberry Pi 5 (and later), VC4 otherwise."""
    model_file = model_file or MODEL
    try:
        model = model_file.read_bytes().decode(errors="replace")
    except OSError:
        return VC4
    return PISP if model.startswith("Raspberry Pi 5") or "Compute Module 5" in model else VC4


# ---------------------------------------------------------------------------------------------
# exposure and white balance


class Lamp(Protocol):
    """The ring light as the camera sees it: held on while exposure is measured."""

    def hold(self) -> contextlib.AbstractContextManager[None]: ...


SETTLE_KEYS = ("ExposureTime", "AnalogueGain", "ColourGains")


def _figures(meta: Mapping[str, Any]) -> list[float]:
    out: list[float] = []
    for key in SETTLE_KEYS:
        v = meta.get(key)
        if isinstance(v, (tuple, list)):
            out.extend(float(x) for x in v)
        elif v is not None:
            out.append(float(v))
    return out


def settled(history: Sequence[Mapping[str, Any]], frames: int = 3, tolerance: float = 0.02) -> bool:
    """Whether auto-exposure and auto white balance have stopped moving: the last ``frames``
    frames' exposure, gain and colour gains all within ``tolerance`` (relative) of each other."""
    if len(history) < frames:
        return False
    rows = [_figures(m) for m in history[-frames:]]
    if not rows[0] or any(len(r) != len(rows[0]) for r in rows):
        return False
    for column in zip(*rows, strict=True):
        lo, hi = min(column), max(column)
        if hi - lo > tolerance * max(abs(hi), 1e-9):
            return False
    return True


@dataclass(frozen=True)
class Locked:
    """What was locked and how long settling took (for the log and the status)."""

    controls: dict[str, Any]
    settle_s: float
    frames: int
    converged: bool


def lock_exposure(
    cam: Any,
    lamp: Lamp | None,
    *,
    max_settle_s: float,
    mains_hz: int,
    frame_us: float,
    clock: Callable[[], float] = time.monotonic,
) -> Locked:
    """Turn the ring on, let AE and AWB settle on it, lock them (see the module docstring).

    ``cam`` is a started picamera2 ``Picamera2``: ``capture_metadata()`` blocks until the next
    frame, so the loop runs at the frame rate. Gives up waiting after ``max_settle_s`` and locks
    what it has (``converged`` False), which is still measured under the ring."""
    from firmware.frames import flicker_free_exposure

    hold = lamp.hold() if lamp is not None else contextlib.nullcontext()
    with hold:
        cam.set_controls({"AeEnable": True, "AwbEnable": True})
        t0 = clock()
        history: list[Mapping[str, Any]] = []
        converged = False
        while True:
            history.append(cam.capture_metadata())
            if settled(history):
                converged = True
                break
            if clock() - t0 >= max_settle_s:
                break
        meta = history[-1]
        locked: dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
        for key in SETTLE_KEYS:
            if key in meta:
                locked[key] = meta[key]
        if "ExposureTime" in locked:
            locked["ExposureTime"], locked["AnalogueGain"] = flicker_free_exposure(
                float(locked["ExposureTime"]),
                float(locked.get("AnalogueGain", 1.0)),
                mains_hz,
                frame_us,
            )
        cam.set_controls(locked)
    return Locked(locked, clock() - t0, len(history), converged)


# ---------------------------------------------------------------------------------------------
# focus


def focus_controls(camera_controls: Mapping[str, Any], dioptres: float) -> dict[str, Any]:
    """Manual focus at ``dioptres`` (1 / metres) for a camera with a lens motor, clamped to the
    range the camera advertises; {} for a fixed-focus camera (no ``AfMode`` control)."""
    if "AfMode" not in camera_controls or "LensPosition" not in camera_controls:
        return {}
    lo, hi = (float(x) for x in tuple(camera_controls["LensPosition"])[:2])
    try:
        from libcamera import controls as lc

        manual: Any = lc.AfModeEnum.Manual
    except ImportError:  # the stand-in: the enum's value
        manual = 0
    return {"AfMode": manual, "LensPosition": float(min(max(dioptres, lo), hi))}
