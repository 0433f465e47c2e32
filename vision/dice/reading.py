"""What a die reader answers (``DieReading``, ``DiceReport``) and the checks of its arguments.

Why a module of its own: every reader (the reveal zone's, the full frame's, the pip path's) makes
these, so they sit below all of them and no reader imports another to reach them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.dice.reasons import Reason, Reasons, Why, sentence_of

Box = tuple[int, int, int, int]
BGR = tuple[float, float, float]
Polygon = np.ndarray  # N x 2 float64 (x, y) points


@dataclass(frozen=True)
class DieReading:
    """One die: box (x, y, w, h) in pixels of the image given, face 1..6 or None, colour or None.

    ``reasons`` say why face or colour is None (or what was doubted): codes decide, ``reason``
    is their sentence for a person."""

    box: Box
    face: int | None
    colour: str | None
    confidence: float
    face_confidence: float
    colour_confidence: float
    pips: int = 0
    face_bgr: BGR | None = None
    reasons: Reasons = ()

    @property
    def reason(self) -> str | None:
        """Why face or colour is None, as one sentence (None when nothing was doubted)."""
        return sentence_of(self.reasons)

    @property
    def codes(self) -> tuple[Why, ...]:
        """The codes of ``reasons``, in order."""
        return tuple(r.code for r in self.reasons)

    @property
    def crop_box(self) -> Box:
        """The box grown by half its size on each side: what the hub shows a person to confirm."""
        x, y, w, h = self.box
        m = max(w, h) // 2
        return (x - m, y - m, w + 2 * m, h + 2 * m)

    def crop(self, image: np.ndarray) -> np.ndarray:
        """The ``crop_box`` of ``image`` (clipped to the frame), a copy."""
        x, y, w, h = self.crop_box
        H, W = image.shape[:2]
        x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
        return image[y0:y1, x0:x1].copy()

    def to_json(self) -> dict[str, Any]:
        return {
            "box": list(self.box),
            "face": self.face,
            "colour": self.colour,
            "confidence": round(self.confidence, 3),
        }


@dataclass
class DiceReport:
    """All dice of a frame, and why the list is empty or partial when it is."""

    dice: list[DieReading] = field(default_factory=list)
    why: Reason | None = None

    @property
    def reason(self) -> str | None:
        """``why`` as a sentence for a person."""
        return None if self.why is None else self.why.sentence

    @property
    def code(self) -> Why | None:
        """``why``'s code."""
        return None if self.why is None else self.why.code


def as_bgr(image: object) -> np.ndarray:
    """Validate and normalise an image argument: uint8 BGR. ValueError for a non-image."""
    if not isinstance(image, np.ndarray):
        raise ValueError(f"expected a numpy image, got {type(image).__name__}")
    if image.size == 0 or image.ndim not in (2, 3):
        raise ValueError(f"expected an HxW or HxWx3 image, got shape {image.shape}")
    if image.dtype != np.uint8:
        raise ValueError(f"expected a uint8 image, got {image.dtype}")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.shape[2] != 3:
        raise ValueError(f"expected 1, 3 or 4 channels, got {image.shape[2]}")
    return image


def zone_rect(zone: object, shape: tuple[int, ...]) -> tuple[Box, Polygon | None]:
    """(x, y, w, h) of a zone (a box or a polygon) clipped to the frame, and the polygon if the
    zone was one. ValueError for a zone that is neither, or lies outside the frame."""
    pts = np.asarray(zone, np.float64)
    poly = None
    if pts.shape == (4,):
        x, y, w, h = pts
    elif pts.ndim == 2 and pts.shape[1] == 2 and len(pts) >= 3:
        poly = pts
        x, y = pts.min(axis=0)
        w, h = pts.max(axis=0) - (x, y)
    else:
        raise ValueError(f"zone must be (x, y, w, h) or a polygon of (x, y) points, got {zone!r}")
    H, W = shape[:2]
    x0, y0 = int(max(np.floor(x), 0)), int(max(np.floor(y), 0))
    x1, y1 = int(min(np.ceil(x + w), W)), int(min(np.ceil(y + h), H))
    if x1 - x0 < 4 or y1 - y0 < 4:
        raise ValueError(f"zone {zone!r} lies outside the {W}x{H} frame")
    return (x0, y0, x1 - x0, y1 - y0), poly
