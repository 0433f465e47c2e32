"""A die body read by its own marks: pips found against the body's colour, not the frame's grey.

Why: the frame-wide pip finder needs a clear grey step; red pips on a dark red die or pips on
marbled plastic differ from their face mostly in colour. A body with no pip the frame-wide finder
saw is read here, or abstains with a reason (its colour is still named from the body).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np

from vision.dice.bodies import Body
from vision.dice.face import fit_face
from vision.dice.pippath import COLOUR_THRESHOLD
from vision.dice.pips import Pip
from vision.dice.reading import Box, DieReading
from vision.dice.reasons import Reason, Why
from vision.dice.vetoes import face_too_small
from vision.palette import Palette
from vision.whitebalance import balance_colour

BLOB_MIN_SIDE = 28.0  # px: smaller bodies' colour marks are mostly noise (tuned: even byler)
MARK_DIFF = 22.0  # Lab distance from the body's colour that makes a mark a pip to read
FAINT_MARK_DIFF = 12.0  # ... and one that only tells a die from a blank blob (tuned: even byler)
SPLIT_MARK_DIFF = 30.0  # ... or, higher, one that parts close pips a blurred rim joins (smoky dice)
FAINT_MIN_SQUARE = 0.8  # ... on a body this square at least (tuned: even byler, matteop65-train)
FAINT_SPAN = (0.6, 1.4)  # ... whose face spans this share of the body's side (tuned: ditto)
BLOB_FIT_MIN = 0.8  # fit confidence for a face read from body-colour marks (tuned: even byler)


def read_marks(
    img: np.ndarray, body: Body, box: Box, pal: Palette, gains: Sequence[float] | None
) -> DieReading | None:
    """A body with no pip of the frame-wide finder: read by its marks, or abstaining with why;
    None when it has no mark at all (a die always shows at least one pip)."""
    colour_bgr = body_colour(img, body)
    blobs = body_blobs(img, body)
    if not blobs:
        if any(
            faint_marks_make_die(body, body_blobs(img, body, min_diff=d))
            for d in (FAINT_MARK_DIFF, SPLIT_MARK_DIFF)
        ):
            return abstain(
                box,
                colour_bgr,
                pal,
                gains,
                Reason(Why.MARKS_TOO_FAINT, "marks on the die are too faint"),
            )
        return None
    return _read_blobs(body, box, blobs, colour_bgr, pal, gains)


def faint_marks_make_die(body: Body, marks: list[Pip]) -> bool:
    """Whether faint marks on a body with no clear one show it is a die (a dark translucent
    die's blurred red pips), though too faint to read: the body is near-square and the marks
    fit a face about the body's size. A blank object's faint marks (a laptop's corner, a
    cable's plug) are lone specks much smaller than a face on a less square body."""
    if not marks or body.squareness < FAINT_MIN_SQUARE:
        return False
    fit = fit_face(marks)
    if fit is None:
        return False
    return FAINT_SPAN[0] <= fit.side_px / max(body.side, 1e-6) <= FAINT_SPAN[1]


def body_colour(img: np.ndarray, body: Body) -> np.ndarray:
    """Median colour of the body's inner part (pips are a minority of it)."""
    x0, y0, x1, y1 = body.clipped(img.shape)
    mask = body.mask(x0, y0, (y1 - y0, x1 - x0))
    k = max(int(body.side * 0.15), 1)
    mask = cv2.erode(mask, np.ones((k, k), np.uint8))
    px = img[y0:y1, x0:x1][mask > 0]
    if len(px) == 0:
        px = img[y0:y1, x0:x1].reshape(-1, 3)
    return np.median(px.astype(np.float32), axis=0)


def abstain(
    box: Box, bgr: np.ndarray, pal: Palette, gains: Sequence[float] | None, why: Reason | None
) -> DieReading:
    """A die found but its face not read (``why``): its colour named from ``bgr``."""
    balanced = balance_colour(bgr, gains)
    colour, conf = pal.classify(balanced)
    if colour is not None and conf < COLOUR_THRESHOLD:
        colour = None
    return DieReading(
        box=box,
        face=None,
        colour=colour,
        confidence=0.0,
        face_confidence=0.0,
        colour_confidence=float(conf),
        pips=0,
        face_bgr=(float(balanced[0]), float(balanced[1]), float(balanced[2])),
        reasons=(*(() if why is None else (why,)), *_colour_doubt(colour, conf)),
    )


def body_blobs(img: np.ndarray, body: Body, min_diff: float = MARK_DIFF) -> list[Pip]:
    """Pip-like marks on a body, found against the body's OWN colour (pips darker or lighter).

    The frame-wide pip finder needs a clear grey step; red pips on a dark red die or pips on
    marbled plastic differ from their face mostly in colour, so here each pixel is measured by its
    Lab distance from the body's median colour and split by Otsu's threshold within the body
    (at least ``min_diff``).
    """
    x0, y0, x1, y1 = body.clipped(img.shape)
    if x1 - x0 < 6 or y1 - y0 < 6:
        return []
    crop = img[y0:y1, x0:x1]
    mask = body.mask(x0, y0, crop.shape)
    k = max(int(round(body.side * 0.08)), 1)
    mask = cv2.erode(mask, np.ones((k, k), np.uint8))
    if mask.sum() < 20:
        return []
    lab = cv2.cvtColor(crop.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    face = np.median(lab[mask > 0], axis=0)
    dist = np.linalg.norm(lab - face, axis=2)
    vals = dist[mask > 0]
    d8 = np.clip(vals * 2.0, 0, 255).astype(np.uint8)
    otsu, _ = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    thr = max(float(otsu) / 2.0, min_diff)
    spread = float(np.median(np.abs(vals - np.median(vals))))
    thr = max(thr, 4.0 * spread)
    on = ((dist > thr) & (mask > 0)).astype(np.uint8)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(on, connectivity=8)
    out: list[Pip] = []
    for i in range(1, n):
        bx, by, bw, bh, area = stats[i]
        r = float(np.sqrt(area / np.pi))
        rel = r / body.side
        if rel < 0.035 or rel > 0.2:
            continue
        fill = area / max(bw * bh, 1)
        if min(bw, bh) < 0.5 * max(bw, bh) or fill < 0.5:
            continue
        ys, xs = np.nonzero(labels == i)
        if len(xs) < 4:
            continue
        cov = np.cov(np.vstack([xs, ys]).astype(np.float32))
        ev = np.linalg.eigvalsh(cov)
        ratio = float(np.sqrt(max(ev[0], 1e-6) / max(ev[1], 1e-6)))
        contrast = float(np.median(dist[labels == i]))
        dark = bool(np.median(lab[:, :, 0][labels == i]) < face[0])
        out.append(
            Pip(
                float(x0 + cents[i][0]),
                float(y0 + cents[i][1]),
                r,
                ratio,
                dark,
                contrast,
                float(face[0]),
                spread,
                (0.0, 0.0, 0.0),
            )
        )
    return out


def _read_blobs(
    body: Body,
    box: Box,
    blobs: list[Pip],
    colour_bgr: np.ndarray,
    pal: Palette,
    gains: Sequence[float] | None,
) -> DieReading:
    """A face from the body's own blobs, or an abstaining reading that says why not."""
    rs = [p.r for p in blobs]
    if max(rs) > 1.6 * min(rs):
        return abstain(
            box,
            colour_bgr,
            pal,
            gains,
            Reason(Why.MARKS_DIFFER_IN_SIZE, "marks on the die differ in size"),
        )
    if len(blobs) > 6:
        return abstain(
            box,
            colour_bgr,
            pal,
            gains,
            Reason(Why.TOO_MANY_MARKS, f"{len(blobs)} marks on the die"),
        )
    fit = fit_face(blobs)
    if fit is None or fit.confidence < BLOB_FIT_MIN:
        return abstain(
            box,
            colour_bgr,
            pal,
            gains,
            Reason(Why.MARKS_NOT_A_FACE, "marks on the die do not fit a face"),
        )
    why = face_too_small(body, fit, blobs)
    if why is None and fit.face == 1:
        # a lone mark is a face 1 only dead centre: a face with its other pips unseen is not
        (px, py), (cx, cy) = (blobs[0].x, blobs[0].y), body.centre
        if np.hypot(px - cx, py - cy) > 0.1 * body.side:
            why = Reason(Why.LONE_MARK_OFF_CENTRE, "a lone mark off the die's centre")
    if why is None and fit.face > 1:
        ratio = fit.side_px / max(body.side, 1e-6)
        # marks found by colour alone must span the face as a die's pips do; two marks fix no
        # shape, so they must also sit symmetric about the body's centre
        if not 0.6 <= ratio <= 1.1:
            why = Reason(Why.MARKS_SPAN_WRONG, f"marks span {ratio:.2f} of the die, not a face")
        elif (
            fit.face == 2 and np.hypot(*(fit.corners.mean(axis=0) - body.centre)) > 0.08 * body.side
        ):
            why = Reason(Why.TWO_MARKS_OFF_CENTRE, "two marks off the die's centre")
    if why is None and body.side < BLOB_MIN_SIDE:
        why = Reason(
            Why.DIE_TOO_SMALL_FOR_MARKS,
            f"die of {body.side:.0f} px too small to read marks by colour",
        )
    if why is not None:
        return abstain(box, colour_bgr, pal, gains, why)
    r = abstain(box, colour_bgr, pal, gains, None)
    conf = float(min(fit.confidence, r.colour_confidence) if r.colour else fit.confidence)
    return replace(
        r,
        face=fit.face,
        face_confidence=float(fit.confidence),
        pips=len(blobs),
        confidence=conf,
        reasons=()
        if r.colour
        else (Reason(Why.COLOUR_AMBIGUOUS, "colour is between palette entries"),),
    )


def _colour_doubt(colour: str | None, conf: float) -> tuple[Reason, ...]:
    """Why a die found has no colour named, when it has none: a reading names no colour
    exactly when a colour doubt says why (``reasons.COLOUR_CODES``)."""
    if colour is not None:
        return ()
    return (
        Reason(Why.COLOUR_AMBIGUOUS, f"colour is between palette entries (confidence {conf:.2f})"),
    )
