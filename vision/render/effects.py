"""Camera and lighting degradations shared by the dice and board renderers.

Why a module of its own: the dice reader and the track reader must both be measured under the
same kinds of trouble a real table has (a warm lamp, a dim room, a shaky hand, a cheap webcam's
noise and JPEG, a glare spot from a ceiling light). Every function takes and returns a uint8 BGR
image and never modifies its input; every random choice comes from the ``rng`` passed in, so a
scene is deterministic per seed.

Stable API (the board renderer imports it):
    kelvin_to_bgr(kelvin) -> (b, g, r) gains, max gain 1
    apply_lighting(image, colour=(1,1,1), strength=1.0, gradient=0.0, rng=None)
    gaussian_blur(image, sigma) / motion_blur(image, length, angle_deg)
    add_noise(image, rng, sigma) / jpeg(image, quality) / add_glare(image, center, radius, strength)
    EffectParams.sample(rng, ...) and apply_effects(image, params, rng)
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

__all__ = [
    "EffectParams",
    "add_glare",
    "add_noise",
    "apply_effects",
    "apply_lighting",
    "gaussian_blur",
    "jpeg",
    "kelvin_to_bgr",
    "motion_blur",
]


def _check(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"expected an HxWx3 BGR image, got {getattr(image, 'shape', type(image))}")
    return image


def kelvin_to_bgr(kelvin: float) -> tuple[float, float, float]:
    """Relative (b, g, r) gains of a black-body lamp, normalised so the largest is 1.

    Uses the well-known Tanner Helland fit of the Planckian locus: good enough to make a 2700 K
    bulb look like a warm bulb and 6500 K like daylight, which is all a test scene needs.
    """
    if not 1000 <= kelvin <= 40000:
        raise ValueError(f"colour temperature {kelvin} K is outside 1000..40000 K")
    t = kelvin / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * np.log(t) - 161.1195681661
        b = 0.0 if t <= 19 else 138.5177312231 * np.log(t - 10) - 305.0447927307
    else:
        r = 329.698727446 * (t - 60) ** -0.1332047592
        g = 288.1221695283 * (t - 60) ** -0.0755148492
        b = 255.0
    rgb = np.clip([r, g, b], 1.0, 255.0)
    rgb = rgb / rgb.max()
    return float(rgb[2]), float(rgb[1]), float(rgb[0])


def apply_lighting(
    image: np.ndarray,
    colour: tuple[float, float, float] = (1.0, 1.0, 1.0),
    strength: float = 1.0,
    gradient: float = 0.0,
    gradient_angle_deg: float = 0.0,
) -> np.ndarray:
    """Multiply the scene by a lamp's colour (b, g, r gains) and brightness.

    ``gradient`` in 0..1 darkens one side of the frame linearly (a lamp off to one side), along
    ``gradient_angle_deg``. Values saturate at 255 as a real sensor does.
    """
    _check(image)
    h, w = image.shape[:2]
    gain = np.asarray(colour, np.float32).reshape(1, 1, 3) * np.float32(strength)
    out = image.astype(np.float32) * gain
    if gradient > 0:
        a = np.deg2rad(gradient_angle_deg)
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        proj = (xs - w / 2) * np.cos(a) + (ys - h / 2) * np.sin(a)
        span = max(float(np.abs(proj).max()), 1.0)
        ramp = 1.0 - gradient * (proj / span + 1.0) / 2.0
        out *= ramp[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


def gaussian_blur(image: np.ndarray, sigma: float) -> np.ndarray:
    """Defocus. ``sigma`` in pixels; 0 returns a copy."""
    _check(image)
    if sigma <= 0:
        return image.copy()
    return cv2.GaussianBlur(image, (0, 0), sigmaX=float(sigma))


def motion_blur(image: np.ndarray, length: float, angle_deg: float = 0.0) -> np.ndarray:
    """A straight streak of ``length`` pixels: a hand still moving or a camera bumped."""
    _check(image)
    n = int(round(length))
    if n <= 1:
        return image.copy()
    k = np.zeros((n, n), np.float32)
    k[n // 2, :] = 1.0
    rot = cv2.getRotationMatrix2D(((n - 1) / 2, (n - 1) / 2), angle_deg, 1.0)
    k = cv2.warpAffine(k, rot, (n, n))
    k /= max(float(k.sum()), 1e-6)
    return cv2.filter2D(image, -1, k)


def add_noise(image: np.ndarray, rng: np.random.Generator, sigma: float) -> np.ndarray:
    """Sensor noise: Gaussian, per channel, ``sigma`` in grey levels."""
    _check(image)
    if sigma <= 0:
        return image.copy()
    noise = rng.normal(0.0, sigma, image.shape).astype(np.float32)
    return np.clip(image.astype(np.float32) + noise, 0, 255).astype(np.uint8)


def jpeg(image: np.ndarray, quality: int) -> np.ndarray:
    """Round-trip through JPEG at ``quality`` (1..100), as a webcam stream would."""
    _check(image)
    if not 1 <= quality <= 100:
        raise ValueError(f"JPEG quality {quality} is outside 1..100")
    ok, buf = cv2.imencode(".jpg", image, [int(cv2.IMWRITE_JPEG_QUALITY), int(quality)])
    if not ok:  # pragma: no cover - OpenCV always encodes a valid uint8 image
        raise RuntimeError("JPEG encoding failed")
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def add_glare(
    image: np.ndarray,
    center: tuple[float, float],
    radius: float,
    strength: float,
    colour: tuple[float, float, float] = (1.0, 1.0, 1.0),
) -> np.ndarray:
    """A soft specular spot (a ceiling light on a glossy surface): adds light, saturates."""
    _check(image)
    h, w = image.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    d2 = (xs - center[0]) ** 2 + (ys - center[1]) ** 2
    spot = np.exp(-d2 / (2.0 * max(radius, 1.0) ** 2)) * (255.0 * strength)
    add = spot[..., None] * np.asarray(colour, np.float32).reshape(1, 1, 3)
    return np.clip(image.astype(np.float32) + add, 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class EffectParams:
    """One draw of every degradation, kept so a test can say what a scene was rendered with."""

    kelvin: float = 5500.0
    strength: float = 1.0
    gradient: float = 0.0
    gradient_angle_deg: float = 0.0
    blur_sigma: float = 0.0
    motion_length: float = 0.0
    motion_angle_deg: float = 0.0
    noise_sigma: float = 0.0
    jpeg_quality: int = 95
    glare: tuple[float, float, float, float] | None = None  # x, y, radius, strength

    @classmethod
    def sample(
        cls,
        rng: np.random.Generator,
        size: tuple[int, int],
        *,
        kelvin: tuple[float, float] = (2700.0, 7500.0),
        strength: tuple[float, float] = (0.65, 1.15),
        max_blur: float = 1.2,
        max_motion: float = 3.0,
        max_noise: float = 6.0,
        jpeg_quality: tuple[int, int] = (60, 95),
        glare_probability: float = 0.3,
    ) -> EffectParams:
        """Draw a plausible table: a lamp between warm and daylight, some blur, noise and JPEG."""
        w, h = size
        glare = None
        if rng.random() < glare_probability:
            glare = (
                float(rng.uniform(0, w)),
                float(rng.uniform(0, h)),
                float(rng.uniform(0.03, 0.12) * min(w, h)),
                float(rng.uniform(0.15, 0.45)),
            )
        return cls(
            kelvin=float(rng.uniform(*kelvin)),
            strength=float(rng.uniform(*strength)),
            gradient=float(rng.uniform(0.0, 0.35)),
            gradient_angle_deg=float(rng.uniform(0, 360)),
            blur_sigma=float(rng.uniform(0.0, max_blur)),
            motion_length=float(rng.uniform(0.0, max_motion)),
            motion_angle_deg=float(rng.uniform(0, 180)),
            noise_sigma=float(rng.uniform(0.5, max_noise)),
            jpeg_quality=int(rng.integers(jpeg_quality[0], jpeg_quality[1] + 1)),
            glare=glare,
        )


def apply_effects(image: np.ndarray, params: EffectParams, rng: np.random.Generator) -> np.ndarray:
    """Apply ``params`` in the order light reaches a sensor: lamp, glare, optics, noise, codec."""
    out = apply_lighting(
        image, kelvin_to_bgr(params.kelvin), params.strength, params.gradient,
        params.gradient_angle_deg,
    )
    if params.glare is not None:
        x, y, r, s = params.glare
        out = add_glare(out, (x, y), r, s, kelvin_to_bgr(params.kelvin))
    out = gaussian_blur(out, params.blur_sigma)
    out = motion_blur(out, params.motion_length, params.motion_angle_deg)
    out = add_noise(out, rng, params.noise_sigma)
    return jpeg(out, params.jpeg_quality)
