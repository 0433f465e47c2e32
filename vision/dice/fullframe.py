"""The full-frame path: every die of a whole frame, one reading per die body.

Why a separate path from the reveal zone: on a whole frame the reader must also decide *where* the
dice are, and pips alone decide it badly (a tilted die's side faces become extra dice; a die whose
pips barely contrast is not found at all). Here:

1. die bodies are segmented from the table (``bodies.find_bodies``);
2. pip groups are found as before (``pips`` + ``face``);
3. each body keeps ONE face: the group inside it seen most squarely (the top face; a side face is
   foreshortened), checked against the body (its pips explain every pip-like blob on the body, and
   the face is not much smaller than the body) -- else the body is found but its face abstains;
4. groups outside every body (a white die on a light table may not stand out by colour) are kept
   only when they read as a face, and of faces touching each other (top and side of one die) only
   the squarest stays;
5. every die is read a second way, alone at a common scale (``cropread``, as the reveal-zone
   reader reads its die): its colour is that read (the lit top face; the palette narrowed to
   the colours whose pips have the polarity seen, the exposure told by white pips), and its
   count vetoes a face the pip path read differently (``_with_crop_read``).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.dice import cropread
from vision.dice.bodies import Body, find_bodies, seeded_body
from vision.dice.face import FaceFit, _labs_of, fit_face, group_pips
from vision.dice.pips import Pip, find_pips
from vision.palette import Palette
from vision.whitebalance import balance_colour

Cand = tuple[list[Pip], "FaceFit | None"]
BLOB_MIN_SIDE = 28.0  # px: smaller bodies' colour marks are mostly noise (tuned: even byler)
LOOSE_MAX_SIDE = 0.25  # a face outside every body: at most this share of the frame's side
LOOSE_MAX_REL = 2.0  # ... and at most this many times the side of the frame's median body
MARK_DIFF = 22.0  # Lab distance from the body's colour that makes a mark a pip to read
FAINT_MARK_DIFF = 12.0  # ... and one that only tells a die from a blank blob (tuned: even byler)
SPLIT_MARK_DIFF = 30.0  # ... or, higher, one that parts close pips a blurred rim joins (smoky dice)
FAINT_MIN_SQUARE = 0.8  # ... on a body this square at least (tuned: even byler, matteop65-train)
FAINT_SPAN = (0.6, 1.4)  # ... whose face spans this share of the body's side (tuned: ditto)
BLOB_FIT_MIN = 0.8  # fit confidence for a face read from body-colour marks (tuned: even byler)
LONE_PAIR_REL = 1.2  # another pip this near a lone pip (in its implied face's sides): same face
LONE_FACE_REL = (0.5, 1.1)  # a lone pip's implied face against the median body's side (a die's)
ONE_DIE_REACH = 1.0  # faces closer than this many of the larger's side are one die's (tuned:
# even byler: one die's faces 0.64..0.94 apart, two dice's mostly >= 1.06)
SPLIT_DIRECTIONS = 12  # cuts tried through a group of two dice's pips (every 15 degrees)
SPLIT_FIT_MIN = 0.8  # both faces of a cut must fit this well (tuned: even byler)
SPLIT_SIDE_RATIO = 1.3  # ... and be about one size
SEED_LIGHT_CHROMA = 25.0  # Lab chroma round a light pip to seed a body (matteop65's keyboard
# keys, grey and black: < 25; byler's coloured dice: >= 30)
SEED_FACE_TO_DIE = 1.3  # a die's side over its face 1's fitted side, when no median body tells
PIP_BODY_RATIO = 2.6  # a die's side is ~10 pip radii, a pip's ~2: a body under 2.6 is the pip


def read_full_frame(img: np.ndarray, gray: np.ndarray, pal: Palette,
                    white_gains: Sequence[float] | None) -> list:
    """DieReadings of every die in ``img`` (a whole frame, no zone)."""
    from vision.dice import reader as rd

    pips = find_pips(img)
    bodies = find_bodies(img)
    cands: list[Cand] = []
    if pips:
        lab = cv2.cvtColor(img.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
        cands = [c for g in group_pips(pips, lab) for c in _two_faces(rd._candidates(g))]
    owner: list[int | None] = []
    for g, fit in cands:
        x0, y0, x1, y1 = rd._extent(g, fit)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        hit = [i for i, b in enumerate(bodies) if b.contains(cx, cy, margin=0.1 * b.side)]
        owner.append(min(hit, key=lambda i: _dist2(bodies[i], cx, cy)) if hit else None)
    # the dice of one frame are about one size: the median body's side (unknown below three)
    die_side = float(np.median([b.side for b in bodies])) if len(bodies) >= 3 else 0.0
    out = []
    for i, body in enumerate(bodies):
        mine = [c for c, o in zip(cands, owner, strict=True) if o == i]
        r = _body_reading(img, gray, body, mine, pips, pal, white_gains)
        best = max(mine, key=_squareness) if mine else None
        count = len(best[0]) if best is not None and best[1] is not None \
            and best[1].face == len(best[0]) else None
        dark = best[0][0].dark if count is not None else None
        r, c = _with_crop_read(img, body, r, pal, white_gains, pip_count=count, dark=dark)
        if r is not None and best is not None:
            r = _on_the_square(img, r, c, best, body, pal, white_gains)
        if (r is not None and r.face is None and best is not None and len(best[0]) == 1
                and best[1] is not None and body.side < PIP_BODY_RATIO * best[0][0].r
                and best[1].side_px <= 1.6 * die_side):
            # the body is the lone pip itself (a white die on a light table shows only its
            # pip), and the face that pip implies is the size of the frame's other dice (not a
            # whole die taken for a pip): the pip is read as one outside every body is
            loose_r = _loose_reading(img, gray, best, pips, pal, white_gains)
            if loose_r is not None and loose_r.face is None:
                loose_r = _lone_pip_die(img, loose_r, best, die_side, out, pal, white_gains)
            r = loose_r or r
        if r is not None:
            out.append(r)
    loose = [c for c, o in zip(cands, owner, strict=True) if o is None
             and _may_be_loose_face(c, img.shape, die_side)]
    for g, fit in _one_per_die(rd._keep_top_faces(loose)):
        # pips with no body round them stand on the pip path's word alone: a key's letters on a
        # desk look like a die's pips to both readers, and its edge like a face's
        r = _loose_reading(img, gray, (g, fit), pips, pal, white_gains)
        if r is not None and r.face is None and len(g) == 1:
            r = _lone_pip_die(img, r, (g, fit), die_side, out, pal, white_gains)
        if r is not None:
            out.append(r)
    return out


def _lone_pip_die(img: np.ndarray, r, cand: Cand, die_side: float, read: list, pal: Palette,
                  gains: Sequence[float] | None):
    """A lone pip whose face abstains, outside every body: a die only where a die's body is
    seeded round it (``_seeded_die``), boxed by that body; else None. On that body, when the
    face the pip implies is the size of the frame's dice, the body's crop may confirm the face 1
    the pip path doubted for where its pip lies (``_with_crop_read``)."""
    from dataclasses import replace

    g, fit = cand
    body = _seeded_die(img, g[0], die_side or SEED_FACE_TO_DIE * fit.side_px, read)
    if body is None:
        return None
    r = replace(r, box=body.box)
    if die_side and LONE_FACE_REL[0] <= fit.side_px / die_side <= LONE_FACE_REL[1]:
        # only a count of one confirms: a seeded body may take in a tilted die's side face,
        # whose pips a larger count would add to the top face's
        confirmed = _with_crop_read(img, body, r, pal, gains, pip_count=1, dark=g[0].dark)[0]
        if confirmed is not None and confirmed.face in (None, 1):
            r = confirmed
    return r


def _seeded_die(img: np.ndarray, pip: Pip, side: float, read: list) -> Body | None:
    """The die's body round a lone pip (``bodies.seeded_body``: a white die on a light table, a
    coloured die the mask lost), unless a die already ``read`` holds its centre; a light pip
    only on a coloured face. None: a lone blob with nothing die-like round it may be a speck, or
    a side face's pip of a die read already."""
    if not pip.dark and float(np.hypot(*_labs_of([pip.ring_bgr])[0, 1:])) < SEED_LIGHT_CHROMA:
        return None  # a light pip on a grey or black face: as likely a key's letter as a die
    body = seeded_body(img, pip.x, pip.y, pip.r, side)
    if body is None:
        return None
    cx, cy = body.centre
    if any(x <= cx <= x + w and y <= cy <= y + h for x, y, w, h in (q.box for q in read)):
        return None
    return body


def _two_faces(cands: list[Cand]) -> list[Cand]:
    """A group of 7..12 pips that fits no face split into the two faces it may be.

    Two dice of one colour touching (two green dice side by side) show pips that link across
    the thin gap between them into one group no face fits. Such a group is cut by a straight
    line (the gap) in each of ``SPLIT_DIRECTIONS`` directions; the cut is kept when both sides
    fit faces at ``SPLIT_FIT_MIN`` at least, of about one size, lying apart as two dice do.
    Else the group stays as it was (no face)."""
    if len(cands) != 1 or cands[0][1] is not None or not 7 <= len(cands[0][0]) <= 12:
        return cands
    g = cands[0][0]
    pts = np.array([(p.x, p.y) for p in g])
    best: tuple[float, list[Cand]] | None = None
    for a in np.linspace(0, np.pi, SPLIT_DIRECTIONS, endpoint=False):
        order = np.argsort(pts @ np.array([np.cos(a), np.sin(a)]))
        for k in range(len(g) - 6, 7):
            halves = [[g[i] for i in order[:k]], [g[i] for i in order[k:]]]
            fits = [fit_face(h) for h in halves]
            if any(f is None or f.confidence < SPLIT_FIT_MIN for f in fits):
                continue
            s0, s1 = fits[0].side_px, fits[1].side_px
            gap = np.hypot(*(fits[0].corners.mean(axis=0) - fits[1].corners.mean(axis=0)))
            if max(s0, s1) > SPLIT_SIDE_RATIO * min(s0, s1) or gap < ONE_DIE_REACH * max(s0, s1):
                continue
            score = min(f.confidence for f in fits)
            if best is None or score > best[0]:
                best = (score, list(zip(halves, fits, strict=True)))
    return cands if best is None else best[1]


def _may_be_loose_face(cand: Cand, shape: tuple[int, ...], die_side: float) -> bool:
    """Whether pips outside every body may be one die's face: they fit a face no larger than
    a die can be. Checked before the overlap rules, so that a wrong group (the tray's rim or a
    whole die taken for large pips, several dice's pips in one face) does not suppress the
    real faces it overlaps and is then dropped itself."""
    g, fit = cand
    if fit is None or fit.side_px > LOOSE_MAX_SIDE * min(shape[:2]):
        return False  # no face, or one larger than any die the frame can hold
    if len(g) == 1 and fit.confidence <= 0:
        return False  # a lone blob far from round (two pips run together): no face 1
    # pips of several dice (or of a die and a speck) taken for one face
    return not (die_side and fit.side_px > LOOSE_MAX_REL * die_side)


def _face_side(cand: Cand) -> float:
    """A candidate's face side: the fitted square's, else its pips' extent."""
    from vision.dice import reader as rd

    g, fit = cand
    if fit is not None:
        return float(fit.side_px)
    x0, y0, x1, y1 = rd._extent(g, fit)
    return float(max(x1 - x0, y1 - y0))


def _loose_reading(img: np.ndarray, gray: np.ndarray, cand: Cand, pips: list[Pip],
                   pal: Palette, gains: Sequence[float] | None):
    """Pips with no body round them (a white die on a light table): the pip path's checks
    alone decide the face (a key's letters look like a die's pips to both readers, so the
    square's crop never names a face the pip path doubted), and the fitted face square stands
    for the body, so the colour is read from the face itself, as a body's is."""
    from vision.dice import reader as rd

    g, fit = cand
    if fit is None:
        return None
    why = rd._unexplained_spot(gray, g, fit) or _pip_nearby(g, fit, pips)
    r = rd._reading(g, fit, pal, gains, img.shape, 0, 0, why)
    if r is None:
        return None
    return _with_crop_read(img, _square_body(fit), r, pal, gains, dark=g[0].dark)[0]


# the pip path's vetoes about where the pips lie on the face, which the crop read checks its own
# way (a blur, a blob too large, a missed pip stay vetoes)
_PLACE_DOUBTS = ("off the centre", "of the die's size", "face colour reaches")
# the pip path's veto of a lone blob too large for the face round it (a marker's black square, a
# pip melted with glare): no doubt of a count the crop found larger, so the crop names that count
_LARGE_BLOB = "too large for its face"

# the pip path's reasons that doubt only the body's outline (``_face_too_small``)
_GEOMETRY_DOUBTS = ("off the centre of the die's body", "of the die's size")


def _extra_is_table(img: np.ndarray, body: Body, fit: FaceFit) -> bool:
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
    if int(extra.sum()) < 0.1 * fit.side_px ** 2 or int(face.sum()) < 10:
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


def _body_is_partial(img: np.ndarray, body: Body, fit: FaceFit) -> bool:
    """Whether the outline lost part of the die (a white die on a light table): the face the
    pips span reaches well beyond the body, and what lies there looks like the face round the
    pips, not like the table (a side face's pips near the body's edge span a square that
    reaches onto the table)."""
    x, y, w, h = body.box
    H, W = img.shape[:2]
    m = int(round(0.5 * fit.side_px)) + 2
    x0, y0 = max(min(x, int(fit.corners[:, 0].min())) - m, 0), \
        max(min(y, int(fit.corners[:, 1].min())) - m, 0)
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


def _on_the_square(img: np.ndarray, r, c, cand: Cand, body: Body, pal: Palette,
                   gains: Sequence[float] | None):
    """The body's top face read on the square its pips span, where the outline misled.

    A body whose outline took in a patch of table or lost part of a white die misleads the
    pip path's geometry checks and the crop's colour. When the top face's pips fit face N and
    the square they span, read alone at a common scale, counts N too with the same polarity (two
    counts that agree, on the face's own square), that square's reading is used: for the face
    if only the outline was doubted, and for the colour whenever the body's own crop did not
    count N."""
    from dataclasses import replace

    g, fit = cand
    if fit is None or fit.confidence < 0.5 or len(g) != fit.face:
        return r
    face_doubt = (r.face is None and bool(r.reason)
                  and any(w in r.reason for w in _GEOMETRY_DOUBTS)
                  and (_extra_is_table(img, body, fit) or _body_is_partial(img, body, fit)))
    colour_doubt = c is not None and c.face != fit.face and r.face in (None, fit.face)
    if not face_doubt and not colour_doubt:
        return r
    sq = cropread.read_body(img, _square_body(fit), pal, gains, dark=g[0].dark)
    if sq.face != fit.face or sq.dark != g[0].dark:
        if colour_doubt and c.pips == 0 and r.colour is not None:
            # neither crop read the face: the ring colour round the pips stays, but named only
            # among the colours whose pips are the polarity the pips have
            name, conf, _, why = cropread.classify_bgr(r.face_bgr, pal, g[0].dark)
            if name != r.colour:
                parts = [v for v, k in ((r.face_confidence, r.face), (conf, name))
                         if k is not None]
                reason = "; ".join(w for w in (r.reason, why) if w) or None
                return replace(r, colour=name, colour_confidence=float(conf),
                               confidence=float(min(parts)) if parts else 0.0, reason=reason)
        return r
    face, fconf = r.face, r.face_confidence
    if face_doubt:
        face, fconf = fit.face, min(fit.confidence, sq.face_confidence)
    parts = [v for v, k in ((fconf, face), (sq.colour_confidence, sq.colour)) if k is not None]
    reason = None if face is not None and sq.colour is not None else (r.reason or sq.reason)
    return replace(r, face=face, face_confidence=float(fconf),
                   confidence=float(min(parts)) if parts else 0.0,
                   colour=sq.colour, colour_confidence=float(sq.colour_confidence),
                   face_bgr=sq.face_bgr, reason=reason)


def _square_body(fit: FaceFit) -> Body:
    """A body standing for a fitted face: its square, a little grown (the face's rim)."""
    c = fit.corners.mean(axis=0)
    pts = np.round(c + 1.08 * (fit.corners - c)).astype(np.int32)
    x0, y0 = pts.min(axis=0)
    x1, y1 = pts.max(axis=0)
    return Body((int(x0), int(y0), int(x1 - x0 + 1), int(y1 - y0 + 1)), pts,
                float(1.08 * fit.side_px), 1.0, 1.0)


def _with_crop_read(img: np.ndarray, body: Body, r, pal: Palette,
                    gains: Sequence[float] | None, pip_count: int | None = None,
                    dark: bool | None = None):
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
    from dataclasses import replace

    if r is None:
        return None, None  # the pip path found no mark on it at all: not a die
    c = cropread.read_body(img, body, pal, gains, dark=dark)
    reasons = []
    face, fconf = r.face, r.face_confidence
    if c.face is not None and face is not None and c.face > face:
        # more pips on the crop than the pip path fitted: it missed one (a crop that sees
        # fewer pips than a full layout fit has lost a faint one, and does not veto)
        face, fconf = None, 0.0
        reasons.append(f"the pips read {r.face} one way and {c.face} the other")
    elif (face is None and c.face is not None and pip_count is not None and (
            (c.face >= pip_count and any(w in (r.reason or "") for w in _PLACE_DOUBTS))
            or (c.face > pip_count and _LARGE_BLOB in (r.reason or "")))):
        face, fconf = c.face, c.face_confidence
    elif face is None:
        reasons.append(r.reason or c.reason or "no face")
    colour, cconf, bgr = c.colour, c.colour_confidence, c.face_bgr
    if colour is not None and colour == r.colour:
        cconf = max(cconf, r.colour_confidence)  # two readings of the colour agree
    if c.pips == 0:
        # no pip on the crop: the body found may be a pip itself or a side face, not the top
        colour, cconf, bgr = r.colour, r.colour_confidence, r.face_bgr
    if colour is None:
        reasons.append(c.reason or "colour is between palette entries")
    parts = [v for v, k in ((fconf, face), (cconf, colour)) if k is not None]
    return replace(r, face=face, face_confidence=float(fconf), colour=colour,
                   colour_confidence=float(cconf), face_bgr=bgr,
                   confidence=float(min(parts)) if parts else 0.0,
                   pips=max(r.pips, c.pips), reason="; ".join(reasons) or None), c


def _dist2(b: Body, x: float, y: float) -> float:
    cx, cy = b.centre
    return (cx - x) ** 2 + (cy - y) ** 2


def _squareness(c: Cand) -> tuple[float, float, float]:
    """Rank of a face as the top one: reads as a face, seen squarely, large round pips."""
    g, fit = c
    ok = 1.0 if fit is not None and fit.confidence > 0 else 0.0
    round_ = float(np.median([p.axis_ratio for p in g]))
    r = float(np.median([p.r for p in g]))
    return (ok, round(round_, 1), r)


def _body_reading(img: np.ndarray, gray: np.ndarray, body: Body, mine: list[Cand],
                  pips: list[Pip], pal: Palette, gains: Sequence[float] | None):
    from vision.dice import reader as rd

    x0, y0, x1, y1 = body.clipped(img.shape)
    box = (x0, y0, x1 - x0, y1 - y0)
    colour_bgr = _body_colour(img, body)
    if not mine:
        blobs = body_blobs(img, body)
        if not blobs:
            if any(_faint_marks_make_die(body, body_blobs(img, body, min_diff=d))
                   for d in (FAINT_MARK_DIFF, SPLIT_MARK_DIFF)):
                return _abstain(box, colour_bgr, pal, gains, "marks on the die are too faint")
            return None  # no pip-like mark at all: a die always shows at least one pip
        return _read_blobs(img, gray, body, box, blobs, colour_bgr, pal, gains)
    g, fit = max(mine, key=_squareness)
    if fit is None:
        return _abstain(box, colour_bgr, pal, gains, f"{len(g)} pips do not make a face")
    why = rd._unexplained_spot(gray, g, fit) or _stray_pips(body, g, pips) \
        or _pip_nearby(g, fit, pips) or _face_too_small(body, fit, g)
    r = rd._reading(g, fit, pal, gains, img.shape, 0, 0, why)
    if r is None:
        return _abstain(box, colour_bgr, pal, gains, "face outside the frame")
    from dataclasses import replace

    return replace(r, box=box)


def _faint_marks_make_die(body: Body, marks: list[Pip]) -> bool:
    """Whether faint marks on a body with no clear one show it is a die (a dark translucent
    die's blurred red pips), though too faint to read: the body is near-square and the marks
    fit a face about the body's size. A blank object's faint marks (a laptop's corner, a
    cable's plug) are lone specks much smaller than a face on a less square body."""
    from vision.dice.face import fit_face

    if not marks or body.squareness < FAINT_MIN_SQUARE:
        return False
    fit = fit_face(marks)
    if fit is None:
        return False
    return FAINT_SPAN[0] <= fit.side_px / max(body.side, 1e-6) <= FAINT_SPAN[1]


def _stray_pips(body: Body, group: list[Pip], pips: list[Pip]) -> str | None:
    """A pip-like blob on the body's face that the group does not explain: a pip we missed."""
    ids = {id(p) for p in group}
    r = float(np.median([p.r for p in group]))
    dark = group[0].dark
    gx = float(np.mean([p.x for p in group]))
    gy = float(np.mean([p.y for p in group]))
    for p in pips:
        if id(p) in ids or p.dark != dark or not 0.6 * r <= p.r <= 1.6 * r:
            continue
        if p.axis_ratio < 0.6:
            continue  # a foreshortened pip of a side face
        if (p.x - gx) ** 2 + (p.y - gy) ** 2 > (0.55 * body.side) ** 2:
            continue
        if body.contains(p.x, p.y):
            return "a pip-like blob on the die is not one of the face's pips"
    return None


def _pip_nearby(group: list[Pip], fit: FaceFit, pips: list[Pip]) -> str | None:
    """A lone pip with a pip like it closer than a neighbouring die's pip could be: two pips of
    one face that were grouped apart (a lamp's falloff across the face parts their rings), not a
    face 1. A neighbour's lone pip is a die's side away, ~1.4 of the face a lone pip implies."""
    if len(group) != 1:
        return None
    q = group[0]
    for p in pips:
        if p is q or p.dark != q.dark or p.axis_ratio < 0.6 or not 0.7 * q.r <= p.r <= 1.4 * q.r:
            continue
        if np.hypot(p.x - q.x, p.y - q.y) <= LONE_PAIR_REL * fit.side_px:
            return "another pip lies on the lone pip's face"
    return None


def _face_too_small(body: Body, fit: FaceFit, group: list[Pip]) -> str | None:
    """Pips that fit a face much smaller than the body, or off its centre: a pattern missing
    pips (a die's lone pip is its centre pip), or a side face."""
    fc = fit.corners.mean(axis=0)
    bc = np.array([p.mean() for p in body.contour.T])
    if np.hypot(*(fc - bc)) > 0.22 * body.side:
        return "the pips are off the centre of the die's body"
    if fit.face == 1:
        rel = group[0].r / max(body.side, 1e-6)
        if rel > 0.25:
            # not a doubt about the outline: the blob is the die's whole face or a large mark,
            # so a crop that counts one pip on this body is not a second count of it
            return f"a blob {rel:.2f} of the die's side is too large for its pip"
        if rel < 0.06:
            return f"a lone pip {rel:.2f} of the die's size is not a face 1"
        return None
    ratio = fit.side_px / max(body.side, 1e-6)
    if ratio < 0.45:
        return f"the fitted face is {ratio:.2f} of the die's size"
    return None


def _body_colour(img: np.ndarray, body: Body) -> np.ndarray:
    """Median colour of the body's inner part (pips are a minority of it)."""
    x0, y0, x1, y1 = body.clipped(img.shape)
    mask = body.mask(x0, y0, (y1 - y0, x1 - x0))
    k = max(int(body.side * 0.15), 1)
    mask = cv2.erode(mask, np.ones((k, k), np.uint8))
    px = img[y0:y1, x0:x1][mask > 0]
    if len(px) == 0:
        px = img[y0:y1, x0:x1].reshape(-1, 3)
    return np.median(px.astype(np.float32), axis=0)


def _abstain(box, bgr: np.ndarray, pal: Palette, gains: Sequence[float] | None, why: str):
    from vision.dice import reader as rd

    balanced = balance_colour(bgr, gains)
    colour, conf = pal.classify(balanced)
    if colour is not None and conf < rd.COLOUR_THRESHOLD:
        colour = None
    return rd.DieReading(box=box, face=None, colour=colour, confidence=0.0, face_confidence=0.0,
                         colour_confidence=float(conf), pips=0,
                         face_bgr=(float(balanced[0]), float(balanced[1]), float(balanced[2])),
                         reason=why)


def _one_per_die(cands: list[Cand]) -> list[Cand]:
    """Of faces that touch (the top and a side face of one die), keep the squarest.

    Faces of one die lie closer than the larger face's side (a side face's centre is about half
    a side from the top's); faces of two dice side by side lie at least about a die's side apart,
    which is more than its face's. So the reach is measured in the faces' fitted sides, not their
    boxes (a turned face's box is up to 1.4 times its side, and two neighbouring dice's boxes
    reached each other)."""
    from vision.dice import reader as rd

    order = sorted(cands, key=_squareness, reverse=True)
    kept: list[Cand] = []
    geo: list[tuple[float, float, float]] = []
    for c in order:
        x0, y0, x1, y1 = rd._extent(*c)
        cx, cy, s = (x0 + x1) / 2, (y0 + y1) / 2, _face_side(c)
        if any(np.hypot(cx - kx, cy - ky) < ONE_DIE_REACH * max(s, ks) for kx, ky, ks in geo):
            continue
        kept.append(c)
        geo.append((cx, cy, s))
    return kept


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
        out.append(Pip(float(x0 + cents[i][0]), float(y0 + cents[i][1]), r, ratio, dark,
                       contrast, float(face[0]), spread, (0.0, 0.0, 0.0)))
    return out


def _read_blobs(img: np.ndarray, gray: np.ndarray, body: Body, box, blobs: list[Pip],
                colour_bgr: np.ndarray, pal: Palette, gains: Sequence[float] | None):
    """A face from the body's own blobs, or an abstaining reading that says why not."""
    from vision.dice.face import fit_face

    rs = [p.r for p in blobs]
    if max(rs) > 1.6 * min(rs):
        return _abstain(box, colour_bgr, pal, gains, "marks on the die differ in size")
    if len(blobs) > 6:
        return _abstain(box, colour_bgr, pal, gains, f"{len(blobs)} marks on the die")
    fit = fit_face(blobs)
    if fit is None or fit.confidence < BLOB_FIT_MIN:
        return _abstain(box, colour_bgr, pal, gains, "marks on the die do not fit a face")
    why = _face_too_small(body, fit, blobs)
    if why is None and fit.face == 1:
        # a lone mark is a face 1 only dead centre: a face with its other pips unseen is not
        (px, py), (cx, cy) = (blobs[0].x, blobs[0].y), body.centre
        if np.hypot(px - cx, py - cy) > 0.1 * body.side:
            why = "a lone mark off the die's centre"
    if why is None and fit.face > 1:
        ratio = fit.side_px / max(body.side, 1e-6)
        # marks found by colour alone must span the face as a die's pips do; two marks fix no
        # shape, so they must also sit symmetric about the body's centre
        if not 0.6 <= ratio <= 1.1:
            why = f"marks span {ratio:.2f} of the die, not a face"
        elif (fit.face == 2
              and np.hypot(*(fit.corners.mean(axis=0) - body.centre)) > 0.08 * body.side):
            why = "two marks off the die's centre"
    if why is None and body.side < BLOB_MIN_SIDE:
        why = f"die of {body.side:.0f} px too small to read marks by colour"
    if why is not None:
        return _abstain(box, colour_bgr, pal, gains, why)
    r = _abstain(box, colour_bgr, pal, gains, "")
    from dataclasses import replace

    conf = float(min(fit.confidence, r.colour_confidence) if r.colour else fit.confidence)
    return replace(r, face=fit.face, face_confidence=float(fit.confidence), pips=len(blobs),
                   confidence=conf, reason=None if r.colour else "colour is between palette "
                   "entries")
