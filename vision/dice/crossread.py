"""A body's die read two ways and joined: the pip path's face and the crop's (``cropread``).

The pip path reads the face from the frame-wide pips; the crop reads the body alone at a common
scale. Where they disagree the stricter wins, except where the pip path's veto doubted only where
its pips lie (``PLACE_DOUBTS``) or only the body's outline (``GEOMETRY_DOUBTS``): there the
second count (the crop's, or that of the square the pips span) may name the face.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np

from vision.dice import cropread
from vision.dice.bodies import Body
from vision.dice.cropread import CropRead
from vision.dice.face import FaceFit
from vision.dice.pippath import Cand
from vision.dice.reading import BGR, DieReading
from vision.dice.reasons import COLOUR_CODES, Reason, Why, has_any
from vision.palette import Palette

#: the pip path's vetoes about where the pips lie on the face, which the crop read checks its own
#: way (a blur, a blob too large, a missed pip stay vetoes)
PLACE_DOUBTS = frozenset(
    {
        Why.LONE_PIP_OFF_CENTRE,
        Why.PIPS_OFF_BODY_CENTRE,
        Why.LONE_PIP_TOO_SMALL,
        Why.FACE_SMALL_FOR_BODY,
        Why.FACE_COLOUR_REACH,
    }
)
#: the pip path's veto of a lone blob too large for the face round it (a marker's black square, a
#: pip melted with glare): no doubt of a count the crop found larger, so the crop names that count
LARGE_BLOB = frozenset({Why.LONE_BLOB_TOO_LARGE})
#: the pip path's reasons that doubt only the body's outline (``vetoes.face_too_small``)
GEOMETRY_DOUBTS = frozenset(
    {Why.PIPS_OFF_BODY_CENTRE, Why.LONE_PIP_TOO_SMALL, Why.FACE_SMALL_FOR_BODY}
)


def square_body(fit: FaceFit) -> Body:
    """A body standing for a fitted face: its square, a little grown (the face's rim)."""
    c = fit.corners.mean(axis=0)
    pts = np.round(c + 1.08 * (fit.corners - c)).astype(np.int32)
    x0, y0 = pts.min(axis=0)
    x1, y1 = pts.max(axis=0)
    return Body(
        (int(x0), int(y0), int(x1 - x0 + 1), int(y1 - y0 + 1)),
        pts,
        float(1.08 * fit.side_px),
        1.0,
        1.0,
    )


def with_crop_read(
    img: np.ndarray,
    body: Body,
    r: DieReading | None,
    pal: Palette,
    gains: Sequence[float] | None,
    pip_count: int | None = None,
    dark: bool | None = None,
) -> tuple[DieReading | None, CropRead | None]:
    """The body read a second way (``cropread``: alone, at a common scale) and the two joined.

    Face: the pip path's, unless the crop counts more pips (then none). Where the pip path
    vetoed its own face only for where its pips lie (off the centre, a face small for the die),
    the crop names the face if it counts at least ``pip_count`` (the pips of the face the pip
    path fitted): both counted alike, or the crop found the pips whose absence put the pip
    path's pattern off the centre (a face 3 seen as one corner pip); likewise where its lone
    blob was too large for a pip and the crop counts more. A veto for a missed pip or a blur
    stands.
    Colour: the crop's (the lit top face, its exposure told by the pips), else the pip path's.
    """
    if r is None:
        return None, None  # the pip path found no mark on it at all: not a die
    c = cropread.read_body(img, body, pal, gains, dark=dark)
    reasons: list[Reason] = []
    face, fconf = r.face, r.face_confidence
    if c.face is not None and face is not None and c.face > face:
        # more pips on the crop than the pip path fitted: it missed one (a crop that sees
        # fewer pips than a full layout fit has lost a faint one, and does not veto)
        face, fconf = None, 0.0
        reasons.append(
            Reason(Why.COUNTS_DISAGREE, f"the pips read {r.face} one way and {c.face} the other")
        )
    elif (
        face is None
        and c.face is not None
        and pip_count is not None
        and (
            (c.face >= pip_count and has_any(r.reasons, PLACE_DOUBTS))
            or (c.face > pip_count and has_any(r.reasons, LARGE_BLOB))
        )
    ):
        face, fconf = c.face, c.face_confidence
    elif face is None:
        # the face's doubts only: the colour is settled below, from either reading, and says
        # its own doubt (the pip path's "between palette entries" stood beside the crop's named
        # colour)
        reasons.extend(
            [x for x in r.reasons or c.reasons if x.code not in COLOUR_CODES]
            or (Reason(Why.NO_FACE, "no face"),)
        )
    colour, cconf = c.colour, c.colour_confidence
    bgr: BGR | None = c.face_bgr
    if colour is not None and colour == r.colour:
        cconf = max(cconf, r.colour_confidence)  # two readings of the colour agree
    if c.pips == 0:
        # no pip on the crop: the body found may be a pip itself or a side face, not the top
        colour, cconf, bgr = r.colour, r.colour_confidence, r.face_bgr
    if colour is None:
        reasons.extend(
            c.reasons or (Reason(Why.COLOUR_AMBIGUOUS, "colour is between palette entries"),)
        )
        if not has_any(reasons, COLOUR_CODES):  # the crop's doubts were of its face only
            src = r if c.pips == 0 else c
            reasons.extend(
                [x for x in src.reasons if x.code in COLOUR_CODES]
                or [Reason(Why.COLOUR_AMBIGUOUS, "colour is between palette entries")]
            )
    parts = [v for v, k in ((fconf, face), (cconf, colour)) if k is not None]
    return replace(
        r,
        face=face,
        face_confidence=float(fconf),
        colour=colour,
        colour_confidence=float(cconf),
        face_bgr=bgr,
        confidence=float(min(parts)) if parts else 0.0,
        pips=max(r.pips, c.pips),
        reasons=tuple(reasons),
    ), c


def on_the_square(
    img: np.ndarray,
    r: DieReading,
    c: CropRead | None,
    cand: Cand,
    body: Body,
    pal: Palette,
    gains: Sequence[float] | None,
) -> DieReading:
    """The body's top face read on the square its pips span, where the outline misled.

    A body whose outline took in a patch of table or lost part of a white die misleads the
    pip path's geometry checks and the crop's colour. When the top face's pips fit face N and
    the square they span, read alone at a common scale, counts N too with the same polarity (two
    counts that agree, on the face's own square), that square's reading is used: for the face
    if only the outline was doubted, and for the colour whenever the body's own crop did not
    count N."""
    g, fit = cand
    if fit is None or fit.confidence < 0.5 or len(g) != fit.face:
        return r
    geometry_doubt = r.face is None and has_any(r.reasons, GEOMETRY_DOUBTS)
    took_in_table = geometry_doubt and extra_is_table(img, body, fit)
    face_doubt = took_in_table or (geometry_doubt and body_is_partial(img, body, fit))
    colour_doubt = c is not None and c.face != fit.face and r.face in (None, fit.face)
    if not face_doubt and not colour_doubt:
        return r
    sq = cropread.read_body(img, square_body(fit), pal, gains, dark=g[0].dark)
    if sq.face != fit.face or sq.dark != g[0].dark:
        if (
            colour_doubt
            and c is not None
            and c.pips == 0
            and r.colour is not None
            and r.face_bgr is not None
        ):
            # neither crop read the face: the ring colour round the pips stays, but named only
            # among the colours whose pips are the polarity the pips have
            name, conf, _, why = cropread.classify_bgr(r.face_bgr, pal, g[0].dark)
            if name != r.colour:
                parts = [v for v, k in ((r.face_confidence, r.face), (conf, name)) if k is not None]
                return replace(
                    r,
                    colour=name,
                    colour_confidence=float(conf),
                    confidence=float(min(parts)) if parts else 0.0,
                    reasons=r.reasons + ((why,) if why else ()),
                )
        return r
    face, fconf = r.face, r.face_confidence
    if face_doubt:
        face, fconf = fit.face, min(fit.confidence, sq.face_confidence)
    parts = [v for v, k in ((fconf, face), (sq.colour_confidence, sq.colour)) if k is not None]
    # each doubt from the reading that settled it: the face's from the outline's reading, the
    # colour's from the square's (a doubt of a colour the square does not name stood beside
    # the square's colour, and a colour it withheld went without its doubt)
    reasons: tuple[Reason, ...] = ()
    if face is None:
        reasons = tuple(x for x in r.reasons or sq.reasons if x.code not in COLOUR_CODES)
    if sq.colour is None:
        reasons += tuple(x for x in sq.reasons if x.code in COLOUR_CODES) or (
            Reason(Why.COLOUR_AMBIGUOUS, "colour is between palette entries"),
        )
    return replace(
        r,
        # an outline that took in a patch of table boxed the table too: the net, cropping that
        # box, saw the die off its centre (and the die is where its face is). Not a lone pip's:
        # its square is implied by the pip's size, and often half the die's
        box=square_body(fit).box if took_in_table and face is not None and len(g) > 1 else r.box,
        face=face,
        face_confidence=float(fconf),
        confidence=float(min(parts)) if parts else 0.0,
        colour=sq.colour,
        colour_confidence=float(sq.colour_confidence),
        face_bgr=sq.face_bgr,
        reasons=reasons,
    )


def extra_is_table(img: np.ndarray, body: Body, fit: FaceFit) -> bool:
    """Whether the part of the body beyond the fitted face (and the side-face strip a tilted die
    shows) looks like the table round it rather than like the die: an outline that took in a
    patch of table, not a die whose top face is elsewhere."""
    x0, y0, x1, y1 = body.clipped(img.shape)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return False
    crop = img[y0:y1, x0:x1]
    mask = body.mask(x0, y0, crop.shape)
    c = fit.corners.mean(axis=0)
    face = np.zeros_like(mask)
    cv2.fillConvexPoly(face, np.round(c + 0.8 * (fit.corners - c) - (x0, y0)).astype(np.int32), 1)
    die = np.zeros_like(mask)
    cv2.fillConvexPoly(die, np.round(c + 1.35 * (fit.corners - c) - (x0, y0)).astype(np.int32), 1)
    extra = (mask > 0) & (die == 0)
    if int(extra.sum()) < 0.1 * fit.side_px**2 or int(face.sum()) < 10:
        return False
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2Lab).astype(np.float32)
    # the table: a ring just outside the body
    ring = cv2.dilate(mask, np.ones((5, 5), np.uint8), iterations=2) & (1 - mask)
    if int(ring.sum()) < 10:
        return False
    e = np.median(lab[extra], axis=0)
    t = np.median(lab[ring > 0], axis=0)
    f = np.median(lab[face > 0], axis=0)
    w = np.array([0.5, 1.0, 1.0], np.float32)  # a table's light varies more than its hue
    to_table = float(np.linalg.norm((e - t) * w))
    to_face = float(np.linalg.norm((e - f) * w))
    return to_table < 20.0 and to_table + 8.0 < to_face


def body_is_partial(img: np.ndarray, body: Body, fit: FaceFit) -> bool:
    """Whether the outline lost part of the die (a white die on a light table): the face the
    pips span reaches well beyond the body, and what lies there looks like the face round the
    pips, not like the table (a side face's pips near the body's edge span a square that
    reaches onto the table)."""
    x, y, w, h = body.box
    H, W = img.shape[:2]
    m = int(round(0.5 * fit.side_px)) + 2
    x0, y0 = (
        max(min(x, int(fit.corners[:, 0].min())) - m, 0),
        max(min(y, int(fit.corners[:, 1].min())) - m, 0),
    )
    x1 = min(max(x + w, int(fit.corners[:, 0].max())) + m, W)
    y1 = min(max(y + h, int(fit.corners[:, 1].max())) + m, H)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return False
    crop = img[y0:y1, x0:x1]
    mask = body.mask(x0, y0, crop.shape)
    c = fit.corners.mean(axis=0)

    def square(k: float) -> np.ndarray:
        q = np.zeros_like(mask)
        cv2.fillConvexPoly(q, np.round(c + k * (fit.corners - c) - (x0, y0)).astype(np.int32), 1)
        return q

    sq, core, die = square(0.9), square(0.55), square(1.4)
    lost = (sq > 0) & (mask == 0)
    if int(lost.sum()) < 0.2 * int(sq.sum()):
        return False
    k = max(int(round(0.3 * fit.side_px)), 3) | 1
    grown = cv2.dilate(mask | die, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    table = (grown > 0) & (die == 0) & (mask == 0)
    face = (core > 0) & (mask > 0)
    if int(table.sum()) < 10 or int(face.sum()) < 10:
        return False
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2Lab).astype(np.float32)
    e = np.median(lab[lost], axis=0)
    to_face = float(np.linalg.norm(e - np.median(lab[face], axis=0)))
    to_table = float(np.linalg.norm(e - np.median(lab[table], axis=0)))
    return to_face + 8.0 < to_table
