"""White balance from a reference in the scene, so a warm lamp does not turn white into yellow.

The reference is something we know is neutral: the white border of an ArUco marker on the board,
or a printed grey patch. Its median colour gives per-channel gains that make it grey again; the
same gains applied to a die make its colour comparable with the calibrated palette.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np


def _polygon_mask(shape: tuple[int, int], polygon: Sequence[Sequence[float]]) -> np.ndarray:
    pts = np.asarray(polygon, np.float64)
    if pts.ndim != 2 or pts.shape[1] != 2 or len(pts) < 3:
        raise ValueError(f"a reference polygon needs at least 3 (x, y) points, got {pts.shape}")
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 255)
    return mask > 0


Gains = tuple[float, float, float]
MIN_PIXELS = 20  # a reference of fewer pixels is no reference
MIN_LEVEL = 25.0  # a reference whose bright half has a channel's median below this: too dark


def _bright_median(px: np.ndarray, bright_fraction: float) -> np.ndarray:
    """Median BGR of the brightest ``bright_fraction`` of N x 3 pixels (float64)."""
    px = np.asarray(px, np.float64).reshape(-1, 3)
    lum = px.mean(axis=1)
    cut = np.quantile(lum, 1.0 - bright_fraction)
    med: np.ndarray = np.median(px[lum >= cut], axis=0)
    return med


def gains_from_pixels(px: np.ndarray, *, bright_fraction: float = 0.5) -> Gains | None:
    """(b, g, r) gains that make the brightest ``bright_fraction`` of a neutral reference's
    pixels (N x 3 BGR) grey, keeping their brightness; None when there are fewer than
    ``MIN_PIXELS`` or they are too dark to balance on. The one white-balance rule: every
    reference (a patch, the markers' white borders) goes through it."""
    if len(px) < MIN_PIXELS:
        return None
    med = _bright_median(px, bright_fraction)
    if med.min() < MIN_LEVEL:
        return None
    gains = med.mean() / med
    return float(gains[0]), float(gains[1]), float(gains[2])


def gains_from_mask(image: np.ndarray, mask: np.ndarray) -> Gains | None:
    """``gains_from_pixels`` of ``image[mask]`` (a marker's white border, from
    ``vision.board.marker_white_mask``); None if too few or too dark pixels."""
    return gains_from_pixels(image[mask])


def gains_from_patch(
    image: np.ndarray, polygon: Sequence[Sequence[float]], *, bright_fraction: float = 0.5
) -> Gains:
    """(b, g, r) gains that make the patch inside ``polygon`` neutral (``gains_from_pixels``).

    Only the brightest ``bright_fraction`` of the patch counts, so a marker's black inner square
    (or a shadow across the patch) does not pull the estimate. The gains keep the patch's
    brightness: they change colour, not exposure. Raises ValueError if the patch is too small,
    too dark or clipped to be a reference.
    """
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError("gains_from_patch needs an HxWx3 BGR image")
    mask = _polygon_mask(image.shape[:2], polygon)
    px = image[mask]
    if len(px) < MIN_PIXELS:
        raise ValueError(
            f"reference patch covers only {len(px)} pixels; need at least {MIN_PIXELS}"
        )
    gains = gains_from_pixels(px, bright_fraction=bright_fraction)
    if gains is None:
        med = _bright_median(px, bright_fraction)
        raise ValueError(f"reference patch is too dark to balance on (median BGR {med.round()})")
    return gains


def apply_gains(image: np.ndarray, gains: Sequence[float]) -> np.ndarray:
    """Multiply each channel by its gain, saturating at 255. Returns a new uint8 image."""
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError("apply_gains needs an HxWx3 BGR image")
    g = np.asarray(gains, np.float32)
    if g.shape != (3,) or not np.all(np.isfinite(g)) or np.any(g <= 0) or np.any(g > 10):
        raise ValueError(f"gains must be three positive numbers up to 10, got {gains}")
    out: np.ndarray = np.clip(image.astype(np.float32) * g.reshape(1, 1, 3), 0, 255)
    return out.astype(np.uint8)


def balance_colour(
    bgr: Sequence[float] | np.ndarray, gains: Sequence[float] | None
) -> tuple[float, float, float]:
    """One colour through the gains (used for a die's face colour)."""
    if gains is None:
        return float(bgr[0]), float(bgr[1]), float(bgr[2])
    out = np.clip(np.asarray(bgr, np.float64) * np.asarray(gains, np.float64), 0, 255)
    return float(out[0]), float(out[1]), float(out[2])
