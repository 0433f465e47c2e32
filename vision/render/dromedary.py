"""Wooden dromedaries: the Camel Up camel as a cut-out profile with thickness, drawn in 3-D.

Why not blocks: a real camel is a chunky profile sawn from a plank (hump, neck and head, a gap
between the front and back legs), painted in a saturated colour with the grain showing through.
Camels stack hump-into-belly: the upper camel's legs straddle the lower one's hump, so a stack's
side shows interleaved colours, legs with the board seen between them, heads poking out at the
front, and camels leaning and overhanging as people put them down. The track reader must read
that, not tidy bands.

The profile is given in units of the camel's length (u, forwards) and of its profile height
(v, up); ``PITCH`` of the profile height is one camel of a stack (board.yaml's camel height).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.board import CameraPose

__all__ = ["PITCH", "PROFILE", "Dromedary", "draw_dromedaries", "stack_dromedaries"]

# (u in lengths, v in profile heights); front (head) at +u. Belly at 0.3, hump top at 1.0: the
# upper camel's belly rests on the lower one's hump, so a stack rises 0.7 profile heights a camel.
PROFILE = np.array(
    [
        (-0.42, 0.00),
        (-0.22, 0.00),
        (-0.20, 0.30),
        (0.16, 0.30),
        (0.18, 0.00),
        (0.36, 0.00),
        (0.37, 0.45),
        (0.42, 0.62),
        (0.47, 0.88),
        (0.56, 0.90),
        (0.57, 1.04),
        (0.44, 1.10),
        (0.33, 0.98),
        (0.28, 0.78),
        (0.14, 0.78),
        (0.06, 0.97),
        (-0.06, 1.00),
        (-0.17, 0.96),
        (-0.30, 0.78),
        (-0.44, 0.70),
        (-0.50, 0.50),
        (-0.44, 0.46),
    ]
)
PITCH = 0.70


@dataclass(frozen=True)
class Dromedary:
    """One camel: where it stands (board mm, base height mm), which way it faces, its size and
    paint (RGB), and its wood grain's seed."""

    x: float
    y: float
    base: float
    yaw: float
    length: float
    width: float
    height: float  # profile height (mm): the stack pitch is PITCH of it
    rgb: tuple[int, int, int]
    grain_seed: int

    def frame(self) -> tuple[np.ndarray, np.ndarray]:
        """Unit vectors (board xy) forwards and across."""
        d = np.array([np.cos(self.yaw), np.sin(self.yaw)])
        return d, np.array([-d[1], d[0]])


def stack_dromedaries(
    stacks: dict[int, list[tuple[str, tuple[int, int, int]]]],
    centres: dict[int, tuple[float, float]],
    directions: dict[int, tuple[float, float]],
    pitch_mm: float,
    length_mm: float,
    width_mm: float,
    rng: np.random.Generator,
    *,
    overhang_mm: float = 2.5,
    lean_deg: float = 6.0,
    backwards: frozenset[str] = frozenset(),
) -> list[Dromedary]:
    """The camels of every stack as a person puts them down: the stack off-centre, each camel a
    little forwards or back on the one below (overhang) and turned (lean). Camels named in
    ``backwards`` (the second edition's crazy camels) face the other way round the track."""
    out: list[Dromedary] = []
    for space, camels in stacks.items():
        cx, cy = centres[space]
        dx, dy = directions[space]
        yaw0 = float(np.arctan2(dy, dx))
        if rng.random() < 0.08:  # now and then a camel put down facing backwards
            yaw0 += np.pi
        bx, by = cx + rng.normal(0, 2.5), cy + rng.normal(0, 2.5)
        size = float(rng.uniform(0.97, 1.03))
        for level, (name, rgb) in enumerate(camels):
            yaw = yaw0 + float(np.deg2rad(rng.normal(0, lean_deg)))
            if name in backwards:
                yaw += np.pi
            fwd = rng.normal(0, overhang_mm)
            side = rng.normal(0, 0.5 * overhang_mm)
            out.append(
                Dromedary(
                    x=float(bx + fwd * np.cos(yaw0) - side * np.sin(yaw0)),
                    y=float(by + fwd * np.sin(yaw0) + side * np.cos(yaw0)),
                    base=level * pitch_mm,
                    yaw=yaw,
                    length=length_mm * size,
                    width=width_mm * float(rng.uniform(0.8, 1.0)),
                    height=pitch_mm / PITCH * size,
                    rgb=rgb,
                    grain_seed=int(rng.integers(1 << 30)),
                )
            )
    return out


def _points(c: Dromedary, side: float) -> tuple[np.ndarray, np.ndarray]:
    """Board xy (N x 2) and heights (N) of the profile on one side (-1 or +1)."""
    d, a = c.frame()
    u = PROFILE[:, 0] * c.length
    xy = np.array([c.x, c.y]) + u[:, None] * d + (side * c.width / 2) * a
    return xy, c.base + PROFILE[:, 1] * c.height


def _shade(rgb: tuple[int, int, int], normal: np.ndarray, light: np.ndarray) -> np.ndarray:
    s = 0.45 + 0.55 * max(0.0, float(normal @ light))
    return np.array(rgb[::-1], np.float64) * s


def _grain(
    image: np.ndarray,
    poly: np.ndarray,
    along: np.ndarray,
    colour: np.ndarray,
    seed: int,
) -> None:
    """Fill ``poly`` (image px, N x 2) with ``colour`` (BGR) and wood grain running ``along``."""
    h, w = image.shape[:2]
    x0, y0 = np.floor(poly.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(poly.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [np.round((poly - [x0, y0]) * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    n = np.array([-along[1], along[0]], np.float32)
    g = np.random.default_rng(seed)
    across = xs * n[0] + ys * n[1]
    wave = xs * along[0] + ys * along[1]
    freq = float(g.uniform(0.5, 1.1))
    grain = np.sin(across * freq + 1.6 * np.sin(wave * 0.08 + float(g.uniform(0, 6))))
    tone = 1.0 + 0.07 * grain.astype(np.float32) + np.float32(g.normal(0, 0.02))
    paint = np.clip(colour.astype(np.float32)[None, None] * tone[..., None], 0, 255)
    a = (mask.astype(np.float32) / 255.0)[..., None]
    roi = image[y0:y1, x0:x1]
    roi[:] = np.clip(roi * (1 - a) + paint * a, 0, 255).astype(np.uint8)


def draw_dromedaries(
    image: np.ndarray, pose: CameraPose, camels: list[Dromedary], light: np.ndarray
) -> None:
    """Draw ``camels`` into ``image`` (BGR, in place), far ones first: per camel the rim (the
    profile's edges extruded through its thickness) that faces the camera, then the side that
    faces it, grained. ``light`` points from the scene to the lamp (board frame, z down)."""
    cam = pose.centre
    order = sorted(
        camels,
        key=lambda c: -float(np.linalg.norm(cam - [c.x, c.y, -(c.base + 0.5 * c.height)])),
    )
    m = len(PROFILE)
    for c in order:
        d, a = c.frame()
        centre3 = np.array([c.x, c.y, -(c.base + 0.5 * c.height)])
        side = 1.0 if (cam - centre3)[:2] @ a > 0 else -1.0
        near_xy, near_h = _points(c, side)
        far_xy, far_h = _points(c, -side)
        near = pose.project(near_xy, near_h)
        far = pose.project(far_xy, far_h)
        rims = []
        for i in range(m):
            j = (i + 1) % m
            du, dv = PROFILE[j] - PROFILE[i]
            # outward normal of the (counter-clockwise) profile edge, in (u, v), then board 3-D
            nu, nv = dv * c.height, -du * c.length
            nrm = np.array([nu * d[0], nu * d[1], -nv])
            nrm /= max(float(np.linalg.norm(nrm)), 1e-9)
            mid = np.array(
                [
                    (near_xy[i, 0] + near_xy[j, 0] + far_xy[i, 0] + far_xy[j, 0]) / 4,
                    (near_xy[i, 1] + near_xy[j, 1] + far_xy[i, 1] + far_xy[j, 1]) / 4,
                    -(near_h[i] + near_h[j]) / 2,
                ]
            )
            if (cam - mid) @ nrm <= 0:
                continue
            quad = np.array([near[i], near[j], far[j], far[i]])
            rims.append((float(np.linalg.norm(cam - mid)), quad, nrm))
        for _, quad, nrm in sorted(rims, key=lambda r: -r[0]):
            bgr = np.clip(_shade(c.rgb, nrm, light) * 0.92, 0, 255)
            cv2.fillConvexPoly(
                image, np.round(quad * 16).astype(np.int32), bgr.tolist(), cv2.LINE_AA, 4
            )
        normal = np.array([a[0] * side, a[1] * side, 0.0])
        bgr = _shade(c.rgb, normal, light)
        along = near[5] - near[0]
        along = along / max(float(np.linalg.norm(along)), 1e-6)
        _grain(image, near, along, bgr, c.grain_seed)
        edge = np.clip(bgr * 0.6, 0, 255).tolist()
        cv2.polylines(image, [np.round(near * 16).astype(np.int32)], True, edge, 1, cv2.LINE_AA, 4)
