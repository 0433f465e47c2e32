"""One die body of a whole frame, read at a common scale the way the reveal-zone reader reads it.

Why: the frame-wide pip finder and its ring colours were tuned to find dice anywhere; once a body
is found, its die is better read alone. The body is cut out and scaled so its longer side is
``vision.dice.zone.CROP_PX`` pixels, so every threshold below is in die-relative units whatever
the die's size in the frame:

- colour: the median of the lit top face (``vision.dice.colour.top_face_pixels``), white-balanced,
  against the palette *restricted to the colours whose pips are the polarity seen*: a dim white
  die (dark pips) is never called black (light pips), a dim orange never red. Its confidence is
  the palette's margin between the two nearest remaining colours;
- face: pips are blobs darker (or lighter) than the face by a large share of the face's contrast
  (a black-hat / top-hat wider than a pip). Their number must be a die's face *and* they must lie
  as that face lies them out on the body (``vision.dice.face.fit_face`` for 2..6; one pip in the
  middle), and the weakest pip must stand out clearly above anything else on the face (a missed
  pip, glare, a blur-melted pair all close that gap). Otherwise the face abstains, with a reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.dice import zone as zone_reader
from vision.dice.bodies import Body
from vision.dice.colour import LIGHT_PIPS, dark_pips, top_face_pixels
from vision.dice.face import fit_face
from vision.dice.pips import Pip
from vision.dice.reading import BGR
from vision.dice.reasons import Reason, Reasons, Why
from vision.palette import (
    CAMEL_UP,
    L_WEIGHT,
    MAX_DISTANCE,
    SCALE_PENALTY,
    Palette,
    name_by_distance,
)
from vision.whitebalance import balance_colour

FACE_MIN_CONF = zone_reader.FACE_MIN_CONF  # one die read alone: the reveal zone's thresholds
COLOUR_MIN_CONF = zone_reader.COLOUR_MIN_CONF
PIP_WHITE = 235.0  # a white pip's balanced brightness under the palette's light
_NEAR_SCALES = np.geomspace(0.75, 1.33, 9)  # around the exposure the pips tell
_WIDE_SCALES = np.geomspace(0.4, 2.5, 21)  # no reference: orange/yellow/white differ in hue
WIDE_PENALTY = 6.0
NARROW_MAX = 0.6 * MAX_DISTANCE  # nearness required of a colour named from a narrowed palette
PIP_REL_R = zone_reader.PIP_REL_R


@dataclass(frozen=True)
class CropRead:
    """What one body reads as: face and colour (None with reasons when unsure)."""

    face: int | None
    face_confidence: float
    colour: str | None
    colour_confidence: float
    face_bgr: BGR
    pips: int
    dark: bool | None  # pips darker than the face (None: no pips read)
    reasons: Reasons


def scaled_crop(img: np.ndarray, body: Body) -> tuple[np.ndarray, np.ndarray, float]:
    """The body cut out with a margin and scaled to the zone reader's crop size: BGR, its mask,
    and the top face's side in scaled pixels (the short side of the body's rectangle: the long
    one includes the strip of side faces a tilted die shows)."""
    x0, y0, x1, y1 = body.clipped(img.shape)
    mask = body.mask(x0, y0, (y1 - y0, x1 - x0))
    (_, _), (rw, rh), _ = cv2.minAreaRect(body.contour.reshape(-1, 1, 2).astype(np.float32))
    zb = zone_reader.Body((x0, y0, x1 - x0, y1 - y0), mask, float(min(rw, rh)))
    return zone_reader.scaled_body(img, zb)


def polarity_palette(pal: Palette, dark: bool | None) -> Palette:
    """The palette's colours whose dice have pips of this polarity (all of them if unknown).

    Colours the convention does not name (a table's own calibrated names) are always kept."""
    if dark is None:
        return pal
    known = {*CAMEL_UP, *LIGHT_PIPS}
    keep = [n for n in pal.colours if n not in known or ((n in LIGHT_PIPS) != dark)]
    return pal.restricted(keep) if keep else pal


def palette_distances(
    bgr: Sequence[float], pal: Palette, scales: np.ndarray, penalty: float
) -> np.ndarray:
    """Distance of a balanced face colour to each palette entry, the face tried at each exposure
    ``scales`` (a cost of ``penalty`` per e-fold): ``Palette.distances`` with a chosen range."""
    obs = np.clip(np.asarray(bgr, np.float32)[None, :] * scales[:, None].astype(np.float32), 0, 255)
    labs = cv2.cvtColor((obs / 255.0)[None].astype(np.float32), cv2.COLOR_BGR2Lab)[0]
    refs = np.array(list(pal.colours.values()), np.float64)
    w = np.array([L_WEIGHT, 1.0, 1.0])
    d = np.sqrt((((labs[:, None, :] - refs[None, :, :]) * w) ** 2).sum(axis=2))
    d += penalty * np.abs(np.log(scales))[:, None]
    # an exposure that would clip a channel changes the hue, which no lamp does to an unclipped
    # face: such scales are not tried (the least of them is, if all would clip)
    raw = float(max(max(bgr), 1e-6)) * scales
    ok = raw <= 255.0
    if not ok.any():
        ok = scales == scales.min()
    out: np.ndarray = d[ok].min(axis=0)
    return out


def classify(
    big: np.ndarray,
    mask: np.ndarray,
    side: float,
    pal: Palette,
    gains: Sequence[float] | None,
    dark: bool | None,
    pip_bgr: Sequence[float] | None = None,
) -> tuple[str | None, float, BGR, Reason | None]:
    """(colour or None, confidence, balanced BGR, reason if None) of the top face.

    The exposure: light pips are white paint under the same lamp as the face, so they tell how
    bright white is *at this die* (a dim lamp, the dark side of the frame): the face is scaled
    by it before it is compared (a dim green is then not black). Dark pips tell nothing, but
    the colours left (orange, yellow, white) differ in hue, so a wide exposure range is allowed.
    """
    px = top_face_pixels(big, mask, side)
    if len(px) == 0:
        return None, 0.0, (0.0, 0.0, 0.0), Reason(Why.NO_FACE_PIXELS, "no face pixels")
    bal = balance_colour(np.median(px.astype(np.float32), axis=0), gains)
    return classify_bgr(bal, pal, dark, None if pip_bgr is None else balance_colour(pip_bgr, gains))


def classify_bgr(
    bal: Sequence[float], pal: Palette, dark: bool | None, pip_bal: Sequence[float] | None = None
) -> tuple[str | None, float, BGR, Reason | None]:
    """``classify`` of a balanced face colour (and the balanced pip colour, if known)."""
    bgr: BGR = (float(bal[0]), float(bal[1]), float(bal[2]))
    if max(bgr) < 30:
        return None, 0.0, bgr, Reason(Why.FACE_TOO_DARK, "die face is too dark to name its colour")
    sub = polarity_palette(pal, dark)
    names = list(sub.colours)
    if dark is False and pip_bal is not None and max(pip_bal) >= 40:
        white = max(pip_bal)
        prior = float(np.clip(PIP_WHITE / white, 0.5, 3.0))
        d = palette_distances(bgr, sub, prior * _NEAR_SCALES, SCALE_PENALTY)
    elif dark is True:
        d = palette_distances(bgr, sub, _WIDE_SCALES, WIDE_PENALTY)
    else:
        d = sub.distances(bgr)
    if len(names) == 1:
        # one colour left: it must still be near, and nearer than any other of the palette's
        full = pal.distances(bgr)
        allnames = list(pal.colours)
        if allnames[int(np.argmin(full))] != names[0] and float(d[0]) > MAX_DISTANCE / 2:
            return (
                None,
                0.0,
                bgr,
                Reason(Why.COLOUR_POLARITY, "colour does not match the pips' polarity"),
            )
    name, conf = name_by_distance(d, names)
    if name is not None and len(names) < len(pal.colours) and float(d.min()) > NARROW_MAX:
        # a colour named only because the pips ruled the nearer ones out must itself be near
        return (
            None,
            conf,
            bgr,
            Reason(
                Why.COLOUR_FAR, f"colour is far from every colour with such pips ({d.min():.0f})"
            ),
        )
    if name is None or conf < COLOUR_MIN_CONF:
        return (
            None,
            conf,
            bgr,
            Reason(
                Why.COLOUR_AMBIGUOUS, f"colour is between palette entries (confidence {conf:.2f})"
            ),
        )
    return name, conf, bgr, None


@dataclass(frozen=True)
class FaceCount:
    """The face of a body's scaled crop: the count if it reads, else None and why not."""

    face: int | None
    confidence: float
    pips: int
    dark: bool | None
    why: Reason | None
    pip_bgr: BGR | None = None  # the pips' own colour, if they were found


def _response(
    g: np.ndarray, mask: np.ndarray, inner: np.ndarray, side: float, dark: bool
) -> tuple[np.ndarray, float]:
    vals = g[inner > 0]
    face_level = float(np.percentile(vals, 65 if dark else 35))
    gf = np.where(mask > 0, g, face_level).astype(np.float32)
    k = int(round(side * 0.42)) | 1
    kern = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    r = cv2.morphologyEx(gf, cv2.MORPH_BLACKHAT if dark else cv2.MORPH_TOPHAT, kern)
    r[inner == 0] = 0
    return r, face_level


def count_face(
    gray: np.ndarray,
    mask: np.ndarray,
    side: float,
    dark: bool | None,
    faces: Sequence[int] = (1, 2, 3, 4, 5, 6),
    colour_img: np.ndarray | None = None,
) -> FaceCount:
    """Pips on the scaled body crop: their count, their layout and the gap to the next spot."""
    e = int(round(0.2 * side)) | 1  # the rim: bevel, blur halo and table stay out
    inner = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (e, e)))
    if int(inner.sum()) < 30:
        return FaceCount(
            None, 0.0, 0, dark, Reason(Why.BODY_TOO_SMALL, "die body too small to read")
        )
    g = gray.astype(np.float32)
    tries = []
    for dk in (True, False) if dark is None else (dark,):
        r, level = _response(g, mask, inner, side, dk)
        tries.append((float(r.max()), dk, r, level))
    peak, dark_, resp, face_level = max(tries, key=lambda t: t[0])
    contrast_ref = face_level if dark_ else max(255.0 - face_level, 40.0)
    if peak < 0.2 * contrast_ref or peak < 12:
        return FaceCount(
            None,
            0.0,
            0,
            None,
            Reason(Why.NO_PIPS_STAND_OUT, f"no pips stand out (peak {peak:.0f})"),
        )
    found = zone_reader.find_pip_blobs(resp, peak, side, faces)
    count, blobs = found.count, found.blobs
    if found.why is not None:
        return FaceCount(None, 0.0, count, dark_, found.why)
    rest, near = zone_reader.strongest_elsewhere(resp, found, side)
    weakest = min(b[2] for b in blobs)
    pip_bgr: BGR | None = None
    if colour_img is not None:
        core = (resp > 0.75 * weakest) & (near > 0)
        if int(core.sum()) >= 3:
            med = np.median(colour_img[core].astype(np.float32), axis=0)
            pip_bgr = (float(med[0]), float(med[1]), float(med[2]))
    err = _layout_error(np.array([b[3] for b in blobs], np.float64), mask, side)
    if err > 1.0:
        return FaceCount(
            None,
            0.0,
            count,
            dark_,
            Reason(
                Why.LAYOUT, f"{count} pips do not lie as on a die's face (layout error {err:.2f})"
            ),
        )
    gap = (weakest - rest) / max(weakest, 1e-6)
    conf = float(np.clip(gap / 0.5, 0.0, 1.0) * (1.0 - 0.5 * err))
    if conf < FACE_MIN_CONF:
        return FaceCount(
            None,
            conf,
            count,
            dark_,
            Reason(
                Why.SPOT_BESIDE_PIPS, f"a pip-like spot besides the {count} pips (gap {gap:.2f})"
            ),
            pip_bgr,
        )
    return FaceCount(count, conf, count, dark_, None, pip_bgr)


def _layout_error(pts: np.ndarray, mask: np.ndarray, side: float) -> float:
    """How far the pips lie from a die face's layout on this body: 0 perfect, > 1 not a face.

    The pattern must be centred on the top face (the body's centre, less the side-face strip a
    tilted die shows: up to ~0.16 of a side), span the face as a die's pips do, and fit the
    layout of its count (one pip: only the centring)."""
    ys, xs = np.nonzero(mask)
    c = np.array([xs.mean(), ys.mean()])
    n = len(pts)
    off = float(np.linalg.norm(pts.mean(axis=0) - c)) / side
    if n == 1:
        return off / 0.2
    fake = [
        Pip(float(x), float(y), PIP_REL_R * side, 1.0, True, 50.0, 128.0, 1.0, (0.0, 0.0, 0.0))
        for x, y in pts
    ]
    fit = fit_face(fake)
    if fit is None:
        return 9.0
    span = fit.side_px / side  # the fitted face against the body's top face
    err = max(off / 0.2, abs(span - 1.0) / 0.3, fit.residual / 0.08)
    if n >= 4:
        err = max(err, max(0.0, 0.7 - fit.anisotropy) / 0.2)
    return float(err)


def read_body(
    img: np.ndarray,
    body: Body,
    pal: Palette,
    gains: Sequence[float] | None,
    faces: Sequence[int] = (1, 2, 3, 4, 5, 6),
    dark: bool | None = None,
) -> CropRead:
    """Face and colour of the die whose body this is (see the module doc).

    ``dark``: the pips' polarity if known (the frame-wide pip finder saw them)."""
    big, mbig, side = scaled_crop(img, body)
    gray = cv2.cvtColor(big, cv2.COLOR_BGR2GRAY)
    if dark is None:
        # the pips' polarity: from a first guess at the colour when there is one (an orange
        # die's glint must not pass for a white pip), else whichever polarity stands out more
        first, _, _, _ = classify(big, mbig, side, pal, gains, None)
        dark = dark_pips(first, (0.0, 0.0, 0.0))
    fc = count_face(gray, mbig, side, dark, faces, big)
    dark = fc.dark if fc.pips else dark
    colour, cconf, bgr, why = classify(big, mbig, side, pal, gains, dark, fc.pip_bgr)
    reasons = tuple(r for r in (fc.why, why) if r)
    return CropRead(fc.face, fc.confidence, colour, cconf, bgr, fc.pips, fc.dark, reasons)
