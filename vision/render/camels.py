"""Wooden camel blocks in 3-D, drawn through a pinhole camera with a painter's algorithm.

Why real 3-D and not flat stickers: the track reader's whole difficulty is perspective — an
oblique camera sees a stack as coloured bands, a top face that looks taller than a side, blocks
a little off-centre, and one stack hiding part of the one behind it. Only a projected solid
produces those honestly.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.board import BoardGeometry, CameraPose

__all__ = ["Block", "stack_blocks", "draw_blocks", "draw_shadows"]


@dataclass(frozen=True)
class Block:
    """One camel: centre on the board (mm), base height (mm), yaw (rad), size and RGB colour."""

    x: float
    y: float
    base: float
    yaw: float
    length: float
    width: float
    height: float
    rgb: tuple[int, int, int]

    def corners(self) -> tuple[np.ndarray, np.ndarray]:
        """Footprint corners (4 x 2, mm) and the base and top heights."""
        c, s = np.cos(self.yaw), np.sin(self.yaw)
        hl, hw = self.length / 2, self.width / 2
        local = np.array([[-hl, -hw], [hl, -hw], [hl, hw], [-hl, hw]])
        rot = np.array([[c, -s], [s, c]])
        return local @ rot.T + [self.x, self.y], np.array([self.base, self.base + self.height])


def stack_blocks(
    geometry: BoardGeometry,
    track: dict[int, list[str]],
    rng: np.random.Generator,
    jitter_mm: float = 2.0,
    jitter_deg: float = 5.0,
) -> list[Block]:
    """The blocks of every stack, placed by hand: a little off-centre and askew, as people do."""
    blocks: list[Block] = []
    for space, colours in track.items():
        if space not in geometry.space_centres:
            raise ValueError(
                f"space {space} is not on the track (1..{len(geometry.space_centres)})"
            )
        if len(colours) > geometry.max_stack:
            raise ValueError(f"space {space}: {len(colours)} camels, at most {geometry.max_stack}")
        dx, dy = geometry.direction(space)
        yaw0 = float(np.arctan2(dy, dx))
        cx, cy = geometry.space_centres[space]
        bx, by = cx + rng.normal(0, jitter_mm), cy + rng.normal(0, jitter_mm)
        for level, name in enumerate(colours):
            if name not in geometry.colours:
                raise ValueError(f"space {space}: unknown camel colour {name!r}")
            blocks.append(
                Block(
                    x=float(bx + rng.normal(0, jitter_mm * 0.6)),
                    y=float(by + rng.normal(0, jitter_mm * 0.6)),
                    base=level * geometry.camel_height,
                    yaw=yaw0 + float(np.deg2rad(rng.normal(0, jitter_deg))),
                    length=geometry.camel_length * float(rng.uniform(0.98, 1.02)),
                    width=geometry.camel_width * float(rng.uniform(0.98, 1.02)),
                    height=geometry.camel_height * float(rng.uniform(0.97, 1.0)),
                    rgb=geometry.colours[name],
                )
            )
    return blocks


def _faces(block: Block) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(footprint-xy 4x2, heights 4, outward normal in board frame (z down)) for 5 faces."""
    fp, (z0, z1) = block.corners()
    faces = [(fp, np.full(4, z1), np.array([0.0, 0.0, -1.0]))]  # top
    for i in range(4):
        a, b = fp[i], fp[(i + 1) % 4]
        edge = b - a
        n = np.array([edge[1], -edge[0], 0.0])
        mid = (a + b) / 2 - [block.x, block.y]
        if n[:2] @ mid < 0:
            n = -n
        faces.append((np.array([a, b, b, a]), np.array([z0, z0, z1, z1]), n / np.linalg.norm(n)))
    return faces


def draw_blocks(
    image: np.ndarray,
    pose: CameraPose,
    blocks: list[Block],
    light_dir: np.ndarray,
    ambient: float = 0.5,
) -> None:
    """Draw ``blocks`` into ``image`` (BGR, in place), far ones first, lit from ``light_dir``.

    ``light_dir`` points from the scene towards the lamp, in board coordinates (z down).
    """
    cam = pose.centre
    order = sorted(
        blocks, key=lambda b: -float(np.linalg.norm(cam - [b.x, b.y, -(b.base + b.height / 2)]))
    )
    for b in order:
        centre = np.array([b.x, b.y, -(b.base + b.height / 2)])
        for xy, hts, normal in _faces(b):
            fc = np.array([xy[:, 0].mean(), xy[:, 1].mean(), -hts.mean()])
            if (cam - fc) @ normal <= 0 and not np.allclose(fc, centre):
                continue  # faces away from the camera
            shade = ambient + (1 - ambient) * max(0.0, float(normal @ light_dir))
            bgr = np.array(b.rgb[::-1], np.float64) * shade
            pts = pose.project(xy, hts)
            poly = np.round(pts * 16).astype(np.int32)
            cv2.fillConvexPoly(
                image,
                poly,
                tuple(float(v) for v in np.clip(bgr, 0, 255)),
                lineType=cv2.LINE_AA,
                shift=4,
            )
            edge = tuple(float(v) for v in np.clip(bgr * 0.72, 0, 255))
            cv2.polylines(image, [poly], True, edge, 1, lineType=cv2.LINE_AA, shift=4)


def draw_shadows(
    image: np.ndarray,
    pose: CameraPose,
    blocks: list[Block],
    light_dir: np.ndarray,
    strength: float = 0.35,
) -> None:
    """Soft shadows of the blocks on the board (in place): footprints swept away from the lamp."""
    h, w = image.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    horiz = light_dir[:2]
    elev = max(float(-light_dir[2]), 0.2)
    for b in blocks:
        fp, (_, z1) = b.corners()
        reach = z1 / elev * np.sqrt(max(1 - elev**2, 0.0))
        off = -horiz / max(np.linalg.norm(horiz), 1e-6) * reach
        pts = np.concatenate([pose.project(fp, 0.0), pose.project(fp + off, 0.0)])
        hull = cv2.convexHull(np.round(pts).astype(np.int32))
        cv2.fillConvexPoly(mask, hull, 1)
    bx, by, bw, bh = cv2.boundingRect(mask)
    if bw == 0 or bh == 0:
        return
    k = max(3.0, w / 400)
    # only the shadows' box (plus the blur's reach) changes: a full-frame float pass is slow
    pad = int(np.ceil(4 * k))
    x0, x1 = max(bx - pad, 0), min(bx + bw + pad, w)
    y0, y1 = max(by - pad, 0), min(by + bh + pad, h)
    soft = cv2.GaussianBlur(mask[y0:y1, x0:x1].astype(np.float32), (0, 0), k)
    shade = 1.0 - np.float32(strength) * soft
    roi = image[y0:y1, x0:x1]
    roi[:] = cv2.multiply(roi, cv2.merge([shade, shade, shade]), dtype=cv2.CV_8U)
