"""The second edition's grey die: its numeral's shade (black or white) and value (1-3).

Why a reader of its own: the grey die has no pips. Its six faces are the numerals 1, 2, 3
printed in white and 1, 2, 3 printed in black on a grey body, and the numeral's shade says which
crazy camel moves (../shared/rules/camel-up-2.md). The pip readers find the die and name its
colour "grey" by the palette; this module then reads the top face:

1. the body's grey is the median of the die's middle (the numeral covers a fifth of it at most);
2. the top face is the body-coloured region round the die's centre, its holes filled: what is
   inside the face and not body-coloured is the numeral (the darker side faces, the shadow and
   the table lie outside the face, never in a hole of it);
3. the shade is the numeral's contrast polarity against the body: lighter is a white numeral,
   darker a black one;
4. the value is the numeral's shape, at any angle: the ink is centred on its centroid and scaled
   by its radius of gyration (both independent of the angle), then compared with templates of
   1, 2 and 3 turned through a full circle. The templates are drawn from OpenCV's Hershey faces
   other than those the renderer prints the dice with, so a reading is never a font matched to
   itself.

Every step can abstain, with a typed reason (``GreyWhy``) and a sentence; the confidences are
calibrated on rendered dice of seeds the measurement never uses (``bench/vision_greydie.py``
says how the constants below were chosen, and measures right / abstained / wrong on others).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

import cv2
import numpy as np

from vision.palette import Palette

__all__ = [
    "GreyFind",
    "GreyReading",
    "GreyReason",
    "GreyWhy",
    "Shade",
    "find_grey_die",
    "read_grey_die",
]


#: the grey die's name in the palette (the second edition's dice: hub.games.camelup2.model)
GREY = "grey"


class Shade(StrEnum):
    """The ink of the grey die's numeral: it names the crazy camel (black or white)."""

    BLACK = "black"
    WHITE = "white"


class GreyWhy(StrEnum):
    """Why the grey-die reader abstained. The values are stable codes."""

    NO_BACKGROUND = "grey_no_background"  # no empty zone to tell a pipless die from
    NOT_FOUND = "grey_not_found"  # nothing grey landed in the zone
    TOO_SMALL = "grey_too_small"  # the die is too few pixels across for its numeral
    NOT_GREY = "grey_not_grey"  # the die's middle is not a neutral grey
    NO_FACE = "grey_no_face"  # no body-coloured top face round the die's centre
    NO_NUMERAL = "grey_no_numeral"  # nothing on the face contrasts with it
    SHADE_UNCLEAR = "grey_shade_unclear"  # the numeral is neither clearly lighter nor darker
    SHAPE_UNCLEAR = "grey_shape_unclear"  # the numeral is not surely one of 1, 2, 3


@dataclass(frozen=True)
class GreyReason:
    """An abstention: ``code`` for code and tests, ``sentence`` for a person."""

    code: GreyWhy
    sentence: str

    def __str__(self) -> str:
        return self.sentence


@dataclass(frozen=True)
class GreyReading:
    """The grey die's numeral: ``shade`` and ``face`` (None when abstained on), each with its
    calibrated confidence; ``confidence`` is the chance both are right; ``reason`` says why
    one is None."""

    shade: Shade | None
    face: int | None
    shade_confidence: float
    face_confidence: float
    reason: GreyReason | None = None
    contrast: float = 0.0  # the numeral's L* minus the body's (signed)
    scores: tuple[float, float, float] = (0.0, 0.0, 0.0)  # shape match of 1, 2, 3

    @property
    def confidence(self) -> float:
        return self.shade_confidence * self.face_confidence

    @property
    def read(self) -> bool:
        return self.shade is not None and self.face is not None


# -- the constants (pixels of the die's box; L* 0-100) ------------------------------------------

MIN_SIDE_PX = 24.0  # a box under this: a numeral's stroke is a pixel or two, abstain
MAX_BODY_CHROMA = 30.0  # a*b* distance from neutral that is still grey
BODY_DL = 13.0  # L* step from the body that leaves the face (the lamp's slope stays within)
BODY_DC = 18.0  # a*b* step from the body that leaves the face (a warm lamp's gains make blue noisy)
MIN_INK_SHARE = 0.02  # the numeral's share of the face, at the least
MAX_INK_SHARE = 0.45  # and at the most (more: the "face" is something else)
MIN_CONTRAST = 12.0  # |L*| between numeral and body below which the shade is not said
POLARITY_SHARE = 0.8  # the share of the numeral's pixels that must agree on lighter / darker
CANVAS = 48  # the normalised numeral's canvas, pixels
GYRATION_PX = 14.0  # the numeral's radius of gyration on the canvas
ANGLE_STEP = 6  # degrees between the templates' turns
BLUR_PX = 0.8  # the normalised masks' blur (tolerance of stroke width and pixel steps)
# a shape is taken when its score (normalised correlation of the blurred masks) reaches
# MIN_SCORE and leads the next digit's by MIN_MARGIN; its confidence is P(right | margin), a
# logistic fitted on 572 rendered dice of the calibration seeds (`python -m bench.vision_greydie
# --calibrate`). MIN_MARGIN: above the largest margin of a wrong value among them (0.058).
MIN_SCORE = 0.8
MIN_MARGIN = 0.06
MARGIN_SLOPE = 54.7
MARGIN_MID = -0.0083
SHADE_SLOPE = 0.35  # the shade's confidence: logistic in |contrast| - MIN_CONTRAST

#: the templates' typefaces: not the renderer's (vision.render.dice.NUMERAL_FONTS)
TEMPLATE_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_COMPLEX)
TEMPLATE_STROKES = (0.09, 0.14)  # stroke widths, as shares of the digit's height


@dataclass(frozen=True)
class GreyFind:
    """Where the grey die lies: its box (x, y, w, h) in the image's pixels, and how surely its
    body is the palette's grey (``Palette.classify``'s confidence)."""

    box: tuple[int, int, int, int]
    colour_confidence: float


CHANGE_DE = 14.0  # Lab distance from the empty zone that is a change
GREYISH_DL = 35.0  # L* reach round the palette's grey (its side faces, a dim lamp)
GREYISH_DC = 16.0  # a*b* reach


def find_grey_die(
    image_bgr: np.ndarray,
    background: np.ndarray | None,
    palette: Palette,
    *,
    white_gains: Sequence[float] | None = None,
) -> GreyFind | GreyReason:
    """The grey die in ``image_bgr`` (the reveal zone), told from the empty zone
    ``background`` (same shape): the largest changed patch of the palette's grey whose colour
    the palette names grey. Why not the pip readers: the grey die has no pips, and they find a
    die by its pips. A reason when there is no background or no grey patch."""
    grey = palette.colours.get(GREY)
    if grey is None:
        return GreyReason(GreyWhy.NOT_FOUND, "the palette has no grey die")
    if background is None or background.shape != image_bgr.shape:
        return GreyReason(GreyWhy.NO_BACKGROUND, "no empty zone to find a die without pips against")
    gains = None if white_gains is None else np.asarray(white_gains, np.float32)

    def lab_of(img: np.ndarray) -> np.ndarray:
        f = img.astype(np.float32)
        if gains is not None:
            f *= gains[None, None, :]
            np.clip(f, 0, 255, out=f)
        f /= np.float32(255.0)
        out: np.ndarray = cv2.cvtColor(f, cv2.COLOR_BGR2Lab)
        return out

    lab = lab_of(image_bgr)
    changed = np.linalg.norm(lab - lab_of(background), axis=2) > CHANGE_DE
    greyish = (np.abs(lab[:, :, 0] - grey[0]) < GREYISH_DL) & (
        np.hypot(lab[:, :, 1] - grey[1], lab[:, :, 2] - grey[2]) < GREYISH_DC
    )
    mask = cv2.morphologyEx(
        (changed & greyish).astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)
    )
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    order = sorted(range(1, n), key=lambda i: -int(stats[i][4]))
    for i in order[:3]:
        bx, by, bw, bh, area = (int(v) for v in stats[i])
        if min(bw, bh) < MIN_SIDE_PX or max(bw, bh) > 2.2 * min(bw, bh):
            continue
        if area < 0.45 * bw * bh:
            continue
        core = cv2.erode((labels == i).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        pixels = image_bgr[core if core.any() else labels == i].astype(np.float32)
        if gains is not None:
            pixels = np.clip(pixels * gains[None, :], 0, 255)
        name, conf = palette.classify([float(v) for v in np.median(pixels, axis=0)])
        if name == GREY:
            return GreyFind((bx, by, bw, bh), conf)
    return GreyReason(GreyWhy.NOT_FOUND, "no grey die found in the reveal zone")


def _logistic(x: float) -> float:
    return float(1.0 / (1.0 + np.exp(-x)))


def _abstain(code: GreyWhy, sentence: str, **kw: object) -> GreyReading:
    return GreyReading(None, None, 0.0, 0.0, GreyReason(code, sentence), **kw)  # type: ignore[arg-type]


def read_grey_die(
    image_bgr: np.ndarray,
    box: tuple[int, int, int, int],
    *,
    white_gains: Sequence[float] | None = None,
) -> GreyReading:
    """The numeral on the grey die boxed (x, y, w, h) in ``image_bgr``: its shade and value,
    or an abstention with its reason. ``white_gains`` (b, g, r) make the lamp neutral (the
    markers' white, as the other readers take them)."""
    x, y, w, h = (int(v) for v in box)
    side = float(min(w, h))
    if side < MIN_SIDE_PX:
        return _abstain(GreyWhy.TOO_SMALL, f"the grey die is {side:.0f} px across: too small")
    H, W = image_bgr.shape[:2]
    m = int(round(0.1 * max(w, h)))
    x0, y0, x1, y1 = max(x - m, 0), max(y - m, 0), min(x + w + m, W), min(y + h + m, H)
    crop = image_bgr[y0:y1, x0:x1].astype(np.float32)
    if white_gains is not None:
        crop *= np.asarray(white_gains, np.float32)[None, None, :]
        np.clip(crop, 0, 255, out=crop)
    lab = cv2.cvtColor(crop / np.float32(255.0), cv2.COLOR_BGR2Lab)
    cx, cy = x + w / 2 - x0, y + h / 2 - y0
    body = _body_colour(lab, cx, cy, side)
    chroma = float(np.hypot(body[1], body[2]))
    if chroma > MAX_BODY_CHROMA:
        return _abstain(
            GreyWhy.NOT_GREY, f"the die's middle is coloured (a*b* {chroma:.0f}), not grey"
        )
    face = _top_face(lab, body, cx, cy, side)
    if face is None:
        return _abstain(GreyWhy.NO_FACE, "no grey top face found round the die's centre")
    filled, ink = face
    share = float(ink.sum()) / max(float(filled.sum()), 1.0)
    if share < MIN_INK_SHARE or share > MAX_INK_SHARE:
        return _abstain(
            GreyWhy.NO_NUMERAL,
            f"no numeral on the grey face (its ink would be {100 * share:.0f} % of the face)",
        )
    # the shade: of the pixels in the holes that clearly differ from the body, are most
    # lighter or darker? (a numeral is all one ink; a shadow's or bevel's edge in a hole is not)
    dl_map = lab[:, :, 0] - body[0]
    light = ink & (dl_map > MIN_CONTRAST)
    dark = ink & (dl_map < -MIN_CONTRAST)
    n_light, n_dark = int(light.sum()), int(dark.sum())
    strong = n_light + n_dark
    agree = max(n_light, n_dark) / strong if strong else 0.0
    mine = light if n_light >= n_dark else dark
    contrast = float(np.median(dl_map[mine])) if strong else 0.0
    if strong < MIN_INK_SHARE * float(filled.sum()) or agree < POLARITY_SHARE:
        return _abstain(
            GreyWhy.SHADE_UNCLEAR,
            f"the numeral is neither clearly lighter nor darker than the die "
            f"(L* {contrast:+.0f}, {100 * agree:.0f} % agree)",
            contrast=contrast,
        )
    shade = Shade.WHITE if contrast > 0 else Shade.BLACK
    shade_conf = _logistic(SHADE_SLOPE * (abs(contrast) - MIN_CONTRAST)) * agree
    # the shape: the numeral's own ink (past half its contrast), not the hole's other pixels
    scores = _shape_scores(ink & (dl_map * np.sign(contrast) > 0.5 * abs(contrast)))
    order = np.argsort(scores)[::-1]
    best, margin = float(scores[order[0]]), float(scores[order[0]] - scores[order[1]])
    rounded = (round(float(scores[0]), 3), round(float(scores[1]), 3), round(float(scores[2]), 3))
    if best < MIN_SCORE or margin < MIN_MARGIN:
        return GreyReading(
            shade,
            None,
            shade_conf,
            0.0,
            GreyReason(
                GreyWhy.SHAPE_UNCLEAR,
                f"the {shade.value} numeral is not surely 1, 2 or 3 "
                f"(best {int(order[0]) + 1} at {best:.2f}, {margin:.2f} ahead)",
            ),
            contrast,
            rounded,
        )
    face_conf = _logistic(MARGIN_SLOPE * (margin - MARGIN_MID))
    return GreyReading(shade, int(order[0]) + 1, shade_conf, face_conf, None, contrast, rounded)


def _body_colour(lab: np.ndarray, cx: float, cy: float, side: float) -> np.ndarray:
    """The median Lab of the die's middle (a disc of 0.35 sides round its centre)."""
    yy, xx = np.mgrid[0 : lab.shape[0], 0 : lab.shape[1]]
    disc = (xx - cx) ** 2 + (yy - cy) ** 2 <= (0.35 * side) ** 2
    out: np.ndarray = np.median(lab[disc], axis=0)
    return out


def _top_face(
    lab: np.ndarray, body: np.ndarray, cx: float, cy: float, side: float
) -> tuple[np.ndarray, np.ndarray] | None:
    """(the top face with its holes filled, the numeral: the holes), as boolean masks; None
    when no body-coloured region holds the die's centre."""
    dl = np.abs(lab[:, :, 0] - body[0])
    dc = np.hypot(lab[:, :, 1] - body[1], lab[:, :, 2] - body[2])
    is_body = ((dl < BODY_DL) & (dc < BODY_DC)).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(is_body, connectivity=4)
    if n <= 1:
        return None
    # the body component with the most pixels near the centre
    yy, xx = np.mgrid[0 : lab.shape[0], 0 : lab.shape[1]]
    near = (xx - cx) ** 2 + (yy - cy) ** 2 <= (0.45 * side) ** 2
    counts = np.bincount(labels[near], minlength=n)
    counts[0] = 0
    k = int(np.argmax(counts))
    if counts[k] < 0.25 * near.sum():
        return None
    comp = (labels == k).astype(np.uint8)
    # fill the holes: flood the outside from a padded border
    pad = cv2.copyMakeBorder(comp, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    outside = pad.copy()
    mask = np.zeros((pad.shape[0] + 2, pad.shape[1] + 2), np.uint8)
    cv2.floodFill(outside, mask, (0, 0), 2)
    filled = outside[1:-1, 1:-1] != 2
    ink = filled & (comp == 0)
    if not ink.any():
        return filled, ink
    # the numeral: the holes near the centre (a fleck at the face's edge is not ink)
    n2, lab2, st2, cent2 = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    keep = np.zeros(n2, bool)
    for i in range(1, n2):
        dx, dy = cent2[i][0] - cx, cent2[i][1] - cy
        if dx * dx + dy * dy <= (0.35 * side) ** 2 and st2[i][4] >= 2:
            keep[i] = True
    return filled, keep[lab2]


def _normalised(mask: np.ndarray) -> np.ndarray | None:
    """``mask``'s pixels centred on their centroid and scaled to GYRATION_PX radius of
    gyration on a CANVAS square (float 0..1, blurred a little); None when empty."""
    ys, xs = np.nonzero(mask)
    if len(xs) < 3:
        return None
    mx, my = float(xs.mean()), float(ys.mean())
    rg = float(np.sqrt(((xs - mx) ** 2 + (ys - my) ** 2).mean()))
    if rg <= 0:
        return None
    s = GYRATION_PX / rg
    c = CANVAS / 2
    a = np.array([[s, 0, c - s * mx], [0, s, c - s * my]], np.float32)
    out = cv2.warpAffine(mask.astype(np.float32), a, (CANVAS, CANVAS), flags=cv2.INTER_LINEAR)
    out = cv2.GaussianBlur(out, (0, 0), BLUR_PX)
    return np.asarray(out, np.float32)


@lru_cache(maxsize=1)
def _templates() -> tuple[np.ndarray, np.ndarray]:
    """(T x CANVAS^2 unit vectors of the templates turned through a circle, their digits)."""
    vecs, digits = [], []
    for digit in (1, 2, 3):
        for font in TEMPLATE_FONTS:
            for stroke in TEMPLATE_STROKES:
                size = 160
                img = np.zeros((size, size), np.uint8)
                (tw, th), _ = cv2.getTextSize(str(digit), font, 1.0, 1)
                scale = 80 / th
                thick = max(1, int(round(80 * stroke)))
                (tw, th), _ = cv2.getTextSize(str(digit), font, scale, thick)
                org = (size // 2 - tw // 2, size // 2 + th // 2)
                cv2.putText(img, str(digit), org, font, scale, 255, thick, cv2.LINE_AA)
                base = img > 127
                for angle in range(0, 360, ANGLE_STEP):
                    rot = cv2.getRotationMatrix2D((size / 2, size / 2), angle, 1.0)
                    turned = cv2.warpAffine(base.astype(np.uint8), rot, (size, size)) > 0
                    norm = _normalised(turned)
                    if norm is None:
                        continue
                    v = norm.ravel() - norm.mean()
                    vecs.append(v / max(float(np.linalg.norm(v)), 1e-9))
                    digits.append(digit)
    return np.asarray(vecs, np.float32), np.asarray(digits)


def _shape_scores(ink: np.ndarray) -> np.ndarray:
    """The best normalised correlation of the numeral with each digit's templates, at any
    angle: [score of 1, of 2, of 3]."""
    norm = _normalised(ink)
    out = np.zeros(3)
    if norm is None:
        return out
    v = norm.ravel() - norm.mean()
    v /= max(float(np.linalg.norm(v)), 1e-9)
    vecs, digits = _templates()
    corr = vecs @ v
    for d in (1, 2, 3):
        out[d - 1] = float(corr[digits == d].max())
    return out
