"""Camera probes: one fixed change of how a rendered frame looks, applied to every frame of a
table (its set-up snapshots and the frames read), to see how the track reader takes a camera or
a renderer that is not ours.

Why: the track figures come from our own renderer, whose tone curve, sharpness and compression
the reader's rules were tuned on; a camera module, a phone, or scenes rendered by other hands
differ in exactly these. The renderer's own effects (``vision.render.effects``) are drawn at
random per scene and were part of the tuning; a probe is one named departure held over a whole
run, so that its figure can be set beside the plain run's on the same seeds. What the reader
should do under a probe is read less (abstain) rather than read wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

import cv2
import numpy as np

from vision.render.effects import add_noise, gaussian_blur, jpeg

__all__ = ["Probe", "apply_probe", "tone_curve"]


class Probe(StrEnum):
    """A named camera departure (``apply_probe``)."""

    NONE = "none"
    JPEG60 = "jpeg60"  # a stream compressed at quality 60
    BLUR1 = "blur1"  # slightly out of focus (Gaussian sigma 1 px at 1280x720)
    BLUR2 = "blur2"  # clearly out of focus (sigma 2 px)
    NOISE8 = "noise8"  # a small sensor in a dim room (sigma 8 grey levels)
    BRIGHT = "bright"  # a flatter, brighter tone curve (gamma 0.7)
    DARK = "dark"  # a steeper, darker tone curve (gamma 1.4)
    VIGNETTE = "vignette"  # a cheap lens: corners a quarter darker
    PALE = "pale"  # colours a quarter less saturated
    SHARPENED = "sharpened"  # a phone's unsharp mask


def tone_curve(image: np.ndarray, gamma: float) -> np.ndarray:
    """Every channel through ``v ** gamma`` (v in 0..1): above 1 darker mid-tones, below 1
    brighter; black and white stay where they are."""
    lut = np.clip(np.round(255.0 * (np.arange(256) / 255.0) ** gamma), 0, 255).astype(np.uint8)
    return np.asarray(cv2.LUT(image, lut))


def _vignette(image: np.ndarray, depth: float) -> np.ndarray:
    h, w = image.shape[:2]
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((x - w / 2) / (w / 2)) ** 2 + ((y - h / 2) / (h / 2)) ** 2
    gain = (1.0 - depth * r2 / 2.0)[..., None]
    return np.asarray(np.clip(image.astype(np.float32) * gain, 0, 255), np.uint8)


def _saturation(image: np.ndarray, factor: float) -> np.ndarray:
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV).astype(np.float32)
    hsv[..., 1] = np.clip(hsv[..., 1] * factor, 0, 255)
    return np.asarray(cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR))


def _sharpen(image: np.ndarray) -> np.ndarray:
    soft = cv2.GaussianBlur(image, (0, 0), 1.5)
    return np.asarray(cv2.addWeighted(image, 1.8, soft, -0.8, 0))


#: each probe's change of a frame; only the noise draws from the rng
_CHANGE: dict[Probe, Callable[[np.ndarray, np.random.Generator], np.ndarray]] = {
    Probe.NONE: lambda im, _: im.copy(),
    Probe.JPEG60: lambda im, _: jpeg(im, 60),
    Probe.BLUR1: lambda im, _: gaussian_blur(im, 1.0),
    Probe.BLUR2: lambda im, _: gaussian_blur(im, 2.0),
    Probe.NOISE8: lambda im, rng: add_noise(im, rng, 8.0),
    Probe.BRIGHT: lambda im, _: tone_curve(im, 0.7),
    Probe.DARK: lambda im, _: tone_curve(im, 1.4),
    Probe.VIGNETTE: lambda im, _: _vignette(im, 0.25),
    Probe.PALE: lambda im, _: _saturation(im, 0.75),
    Probe.SHARPENED: lambda im, _: _sharpen(im),
}


def apply_probe(image: np.ndarray, probe: Probe, rng: np.random.Generator) -> np.ndarray:
    """``image`` (uint8 BGR) as the camera of ``probe`` would give it; a new array (the input
    is not changed). ``rng`` is drawn from only by the noise probe."""
    return _CHANGE[probe](image, rng)
