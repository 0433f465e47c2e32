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
from functools import lru_cache
from statistics import NormalDist

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

    Speed: the ramp is linear in x and y, so it is built from one row and one column; the
    multiply saturates inside OpenCV (no float64 full-frame copies, no np.clip pass).
    """
    _check(image)
    h, w = image.shape[:2]
    gain = np.asarray(colour, np.float32) * np.float32(strength)
    if gradient <= 0:
        # a scalar per channel (OpenCV takes a 4-tuple; its stubs only know arrays)
        scalar = tuple(float(v) for v in gain) + (0.0,)
        return np.asarray(cv2.multiply(image, scalar))  # type: ignore[call-overload]
    a = np.deg2rad(gradient_angle_deg)
    px = ((np.arange(w, dtype=np.float32) - w / 2) * np.float32(np.cos(a)))[None, :]
    py = ((np.arange(h, dtype=np.float32) - h / 2) * np.float32(np.sin(a)))[:, None]
    # |proj| is largest at a corner of the frame
    span = max(
        abs((0 - w / 2) * np.cos(a)) + abs((0 - h / 2) * np.sin(a)),
        abs((w - 1 - w / 2) * np.cos(a)) + abs((h - 1 - h / 2) * np.sin(a)),
        1.0,
    )
    ramp = (1.0 - gradient / 2.0) - np.float32(gradient / (2.0 * span)) * (px + py)
    return cv2.multiply(image, ramp[..., None] * gain, dtype=cv2.CV_8U)


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
    k = np.asarray(cv2.warpAffine(k, rot, (n, n)), np.float32)
    k /= max(float(k.sum()), 1e-6)
    return cv2.filter2D(image, -1, k)


@lru_cache(maxsize=1)
def _normal_quantiles() -> np.ndarray:
    """The 256 mid-quantiles of a unit normal: a byte of randomness -> one normal draw."""
    nd = NormalDist()
    return np.array([nd.inv_cdf((i + 0.5) / 256) for i in range(256)], np.float32)


def add_noise(image: np.ndarray, rng: np.random.Generator, sigma: float) -> np.ndarray:
    """Sensor noise: Gaussian, per channel, ``sigma`` in grey levels.

    Speed: one random byte per value mapped through the normal's 256 quantiles (a table lookup
    in OpenCV) instead of a float64 normal draw per value: ~10x cheaper for a 1280x720 frame.
    The distribution is a normal quantised to 256 levels (tails cut at 2.9 sigma), which no
    reader can tell from sensor noise."""
    _check(image)
    if sigma <= 0:
        return image.copy()
    idx = np.frombuffer(rng.bytes(image.size), np.uint8).reshape(image.shape)
    noise = cv2.LUT(idx, _normal_quantiles() * np.float32(sigma))
    return cv2.add(image, noise, dtype=cv2.CV_8U)


def jpeg(image: np.ndarray, quality: int) -> np.ndarray:
    """Round-trip through JPEG at ``quality`` (1..100), as a webcam stream would."""
    _check(image)
    if not 1 <= quality <= 100:
        raise ValueError(f"JPEG quality {quality} is outside 1..100")
    ok, buf = cv2.imencode(".jpg", image, [int(cv2.IMWRITE_JPEG_QUALITY), int(quality)])
    if not ok:  # pragma: no cover - OpenCV always encodes a valid uint8 image
        raise RuntimeError("JPEG encoding failed")
    out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if out is None:  # pragma: no cover - a buffer OpenCV just encoded decodes
        raise RuntimeError("JPEG decoding failed")
    return np.asarray(out)


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
    r = max(radius, 1.0)
    # beyond 3.5 radii the spot adds under half a grey level: work only on that box
    reach = 3.5 * r
    x0, x1 = max(int(center[0] - reach), 0), min(int(center[0] + reach) + 1, w)
    y0, y1 = max(int(center[1] - reach), 0), min(int(center[1] + reach) + 1, h)
    out = image.copy()
    if x0 >= x1 or y0 >= y1:
        return out
    dx2 = (np.arange(x0, x1, dtype=np.float32) - np.float32(center[0])) ** 2
    dy2 = (np.arange(y0, y1, dtype=np.float32) - np.float32(center[1])) ** 2
    spot = np.exp(-(dy2[:, None] + dx2[None, :]) / np.float32(2.0 * r * r)) * np.float32(
        255.0 * strength
    )
    add = spot[..., None] * np.asarray(colour, np.float32).reshape(1, 1, 3)
    out[y0:y1, x0:x1] = cv2.add(image[y0:y1, x0:x1], add, dtype=cv2.CV_8U)
    return out


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
        image,
        kelvin_to_bgr(params.kelvin),
        params.strength,
        params.gradient,
        params.gradient_angle_deg,
    )
    if params.glare is not None:
        x, y, r, s = params.glare
        out = add_glare(out, (x, y), r, s, kelvin_to_bgr(params.kelvin))
    out = gaussian_blur(out, params.blur_sigma)
    out = motion_blur(out, params.motion_length, params.motion_angle_deg)
    out = add_noise(out, rng, params.noise_sigma)
    return jpeg(out, params.jpeg_quality)
