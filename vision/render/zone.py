"""The reveal zone as the firmware sees it: a 1280x720 preview frame and the zone cut from the
camera's full-resolution stream, with and without the die.

Why: in a 1280x720 frame the die is ~20 px wide and its pips 3-4 px, blurred and JPEG'd. The
Camera Module 3 gives 4608x2592 (3.6x the preview): the same die there is ~70 px. Rendering the
whole full-resolution frame costs seconds, so only the zone's window is rendered at full
resolution (the camera's intrinsics scaled, then shifted to the window), with the same pose,
table, camels, die and lamp as the preview. The preview frame is what the firmware locates the
board and measures the white balance in (the markers are outside the zone).

Effects: the lamp (colour temperature, strength) and the glare are the preview's; the lamp's
gradient is scaled to the window's share of the frame (it is a slope across the whole frame).
Blur, noise and JPEG are drawn in pixels of each image: ``full_blur_factor`` (default 2) makes
the full-resolution image softer per pixel than the preview (a small lens at its full sensor
resolution), so the full-resolution figures are not flattered by an over-sharp render.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from vision.board import BoardGeometry, BoardLocation, CameraPose, load_geometry, reveal_zone_box
from vision.render.effects import EffectParams, apply_effects

__all__ = ["ZoneScene", "render_zone_scene"]


@dataclass
class ZoneScene:
    """One die landing in the reveal zone, at two resolutions."""

    preview: np.ndarray  # frame_size BGR, the die in it
    preview_empty: np.ndarray  # the same frame before the die landed (another noise draw)
    zone: np.ndarray  # the zone's box cut from the full-resolution frame, the die in it
    zone_empty: np.ndarray  # the same cut before the die landed
    zone_box_full: tuple[int, int, int, int]  # where ``zone`` lies in the full frame
    zone_box_preview: tuple[int, int, int, int]  # the zone's box in the preview
    colour: str
    face: int
    die_box_preview: tuple[int, int, int, int]
    die_box_zone: tuple[int, int, int, int]  # in ``zone`` pixels
    pose: CameraPose  # the preview camera
    effects: EffectParams


def _scaled(pose: CameraPose, s: float, dx: float = 0.0, dy: float = 0.0) -> CameraPose:
    A = np.array([[s, 0, -dx], [0, s, -dy], [0, 0, 1.0]])
    return CameraPose(K=A @ pose.K, R=pose.R, t=pose.t)


def render_zone_scene(
    rng: np.random.Generator,
    die: tuple[str, int] | tuple[str, int, str],
    *,
    frame_size: tuple[int, int] = (1280, 720),
    full_size: tuple[int, int] = (4608, 2592),
    pose: CameraPose | None = None,
    track: dict[int, list[str]] | None = None,
    geometry: BoardGeometry | None = None,
    margin_mm: float = 10.0,
    full_blur_factor: float = 2.0,
    effect_kwargs: dict[str, Any] | None = None,
) -> ZoneScene:
    """Render a die in the reveal zone: preview frames and full-resolution zone cuts.

    ``full_size`` must have the preview's aspect ratio (the sensor's binned and full modes do).
    """
    from vision.render.board import render_board_scene, sample_pose

    geo = geometry or load_geometry()
    fw, fh = frame_size
    W, H = full_size
    s = W / fw
    if abs(H / fh - s) > 0.01 * s or s < 1:
        raise ValueError(f"full size {full_size} is not an enlargement of {frame_size}")
    pose = pose or sample_pose(rng, geo, frame_size)
    scene_seed = int(rng.integers(1 << 62))
    fx = EffectParams.sample(rng, frame_size, **(effect_kwargs or {}))
    noise_seeds = rng.integers(1 << 62, size=4)

    def render(size: tuple[int, int], p: CameraPose, with_die: bool) -> tuple[np.ndarray, Any]:
        return render_board_scene(
            np.random.default_rng(scene_seed),
            track=track,
            die=die if with_die else None,
            size=size,
            pose=p,
            geometry=geo,
            effects=False,
        )

    preview, truth = render(frame_size, pose, True)
    preview_empty, _ = render(frame_size, pose, False)
    pv = BoardLocation(pose=pose, homography=pose.homography, image_size=frame_size)
    zone_prev = reveal_zone_box(pv, geo, margin_mm=margin_mm)
    full = _scaled(pose, s)
    loc = BoardLocation(pose=full, homography=full.homography, image_size=full_size)
    x0, y0, w, h = reveal_zone_box(loc, geo, margin_mm=margin_mm)
    window = _scaled(pose, s, x0, y0)
    zone, ztruth = render((w, h), window, True)
    zone_empty, _ = render((w, h), window, False)
    glare = None
    if fx.glare is not None:
        gx, gy, gr, gs = fx.glare
        glare = (gx * s - x0, gy * s - y0, gr * s, gs)
    # the lamp's gradient is a slope across the full frame: over the window it is smaller
    fx_zone = replace(
        fx,
        gradient=fx.gradient * max(w, h) / max(W, H),
        glare=glare,
        blur_sigma=fx.blur_sigma * full_blur_factor,
        motion_length=fx.motion_length * full_blur_factor,
    )
    rngs = [np.random.default_rng(int(v)) for v in noise_seeds]
    preview = apply_effects(preview, fx, rngs[0])
    preview_empty = apply_effects(preview_empty, fx, rngs[1])
    zone = apply_effects(zone, fx_zone, rngs[2])
    zone_empty = apply_effects(zone_empty, fx_zone, rngs[3])
    assert truth.die is not None and ztruth.die is not None
    return ZoneScene(
        preview,
        preview_empty,
        zone,
        zone_empty,
        (x0, y0, w, h),
        zone_prev,
        die[0],
        int(die[1]),
        tuple(truth.die["box"]),
        tuple(ztruth.die["box"]),
        pose,
        fx,
    )
