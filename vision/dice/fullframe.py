"""The full-frame path: every die of a whole frame, one reading per die body.

Why a separate path from the reveal zone: on a whole frame the reader must also decide *where* the
dice are, and pips alone decide it badly (a tilted die's side faces become extra dice; a die whose
pips barely contrast is not found at all). Here:

1. die bodies are segmented from the table (``bodies.find_bodies``);
2. pip groups are found as the pip path finds them (``pips`` + ``face``; ``pippath``), a group of
   two touching dice's pips parted (``overlap.two_faces``);
3. each body keeps ONE face: the group inside it seen most squarely (the top face; a side face is
   foreshortened), checked against the body (``vetoes``: its pips explain every pip-like blob on
   the body, and the face is not much smaller than the body) -- else the body is found but its
   face abstains; a body with no pip at all is read by its own marks (``marks``);
4. groups outside every body (a white die on a light table may not stand out by colour) are kept
   only when they read as a face, and of faces touching each other (top and side of one die) only
   the squarest stays (``loose``, ``overlap.one_per_die``);
5. every die is read a second way, alone at a common scale (``cropread``, as the reveal-zone
   reader reads its die): its colour is that read (the lit top face; the palette narrowed to
   the colours whose pips have the polarity seen, the exposure told by white pips), and its
   count vetoes a face the pip path read differently (``crossread``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from vision.dice.bodies import Body, find_bodies
from vision.dice.crossread import on_the_square, with_crop_read
from vision.dice.face import FaceFit, group_pips
from vision.dice.loose import lone_pip_die, loose_reading, may_be_loose_face
from vision.dice.marks import abstain, body_colour, read_marks
from vision.dice.overlap import one_per_die, squareness, two_faces
from vision.dice.pippath import (
    Cand,
    candidates,
    extent,
    keep_top_faces,
    pip_reading,
    unexplained_spot,
)
from vision.dice.pips import Pip, find_pips
from vision.dice.reading import DieReading
from vision.dice.reasons import Reason, Why
from vision.dice.vetoes import face_too_small, pip_nearby, stray_pips
from vision.palette import Palette

PIP_BODY_RATIO = 2.6  # a die's side is ~10 pip radii, a pip's ~2: a body under 2.6 is the pip
# a body under this share of the face fitted to its pips is a fragment (a pip, a glint, a patch
# of shade), not the die: a die's top face is at most its body, and a body seen from above is
# rarely under 0.8 of the face it carries
FRAGMENT_OF_FACE = 0.5


def read_full_frame(
    img: np.ndarray,
    gray: np.ndarray,
    pal: Palette,
    white_gains: Sequence[float] | None,
    *,
    unmarked: bool = False,
) -> list[DieReading]:
    """DieReadings of every die in ``img`` (a whole frame, no zone); ``gray`` is its grey
    (``cv2.COLOR_BGR2GRAY``). ``unmarked``: also each body the pip path found no mark on
    (``unmarked_bodies``), as a die whose face is unread, for the learned net to judge."""
    pips = find_pips(img, gray=gray)  # the same grey: one frame-sized copy fewer (issue 14)
    bodies = find_bodies(img)
    cands: list[Cand] = []
    if pips:
        cands = [c for g in group_pips(pips, img) for c in two_faces(candidates(g))]
    owner: list[int | None] = []
    for g, fit in cands:
        x0, y0, x1, y1 = extent(g, fit)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        hit = [
            i
            for i, b in enumerate(bodies)
            if b.contains(cx, cy, margin=0.1 * b.side) and may_own(b, g, fit)
        ]
        owner.append(min(hit, key=lambda i: _dist2(bodies[i], cx, cy)) if hit else None)
    # the dice of one frame are about one size: the median body's side (unknown below three)
    die_side = float(np.median([b.side for b in bodies])) if len(bodies) >= 3 else 0.0
    out: list[DieReading] = []
    markless: list[Body] = []
    for i, body in enumerate(bodies):
        mine = [c for c, o in zip(cands, owner, strict=True) if o == i]
        r = body_reading(img, gray, body, mine, pips, pal, white_gains)
        if r is None:
            markless.append(body)
        best = max(mine, key=squareness) if mine else None
        count = (
            len(best[0])
            if best is not None and best[1] is not None and best[1].face == len(best[0])
            else None
        )
        dark = best[0][0].dark if best is not None and count is not None else None
        r, c = with_crop_read(img, body, r, pal, white_gains, pip_count=count, dark=dark)
        if r is not None and best is not None:
            r = on_the_square(img, r, c, best, body, pal, white_gains)
            if count is not None:
                r = holding_face(r, best, img.shape)
        if (
            r is not None
            and r.face is None
            and best is not None
            and len(best[0]) == 1
            and best[1] is not None
            and body.side < PIP_BODY_RATIO * best[0][0].r
            and best[1].side_px <= 1.6 * die_side
        ):
            # the body is the lone pip itself (a white die on a light table shows only its
            # pip), and the face that pip implies is the size of the frame's other dice (not a
            # whole die taken for a pip): the pip is read as one outside every body is
            loose_r = loose_reading(img, gray, best, pips, pal, white_gains)
            if loose_r is not None and loose_r.face is None:
                loose_r = lone_pip_die(img, loose_r, best, die_side, out, pal, white_gains)
            r = loose_r or r
        if r is not None:
            out.append(r)
    loose = [
        c
        for c, o in zip(cands, owner, strict=True)
        if o is None and may_be_loose_face(c, img.shape, die_side)
    ]
    for g, fit in one_per_die(keep_top_faces(loose)):
        # pips with no body round them stand on the pip path's word alone: a key's letters on a
        # desk look like a die's pips to both readers, and its edge like a face's
        lr = loose_reading(img, gray, (g, fit), pips, pal, white_gains)
        if lr is not None and lr.face is None and len(g) == 1:
            lr = lone_pip_die(img, lr, (g, fit), die_side, out, pal, white_gains)
        if lr is not None:
            out.append(lr)
    if unmarked:
        out.extend(unmarked_bodies(img, markless, out, pal, white_gains))
    return out


def unmarked_bodies(
    img: np.ndarray,
    bodies: Sequence[Body],
    read: Sequence[DieReading],
    pal: Palette,
    gains: Sequence[float] | None,
) -> list[DieReading]:
    """A reading whose face is unread for each of ``bodies`` (those the pip path found no
    mark on) whose centre lies in no reading of ``read``.

    Why: the pip path finds no mark on a black die with red pips, nor on some dark or
    translucent dice, and such a body was dropped as "not a die", while the net's crop of it
    reads a die at 0.9 to 1.0 and most often its face. The net's dense pass, which sees the die
    through a coarser grid, missed several of them (byler-train's calibration photos: 7 dice
    near no proposal at all). Given to the net as proposals, they are kept at ``Gates.keep``
    and answered at ``Gates.answer`` like any body whose pips abstained. Calibration photos:
    found 661 -> 667, false dice 8 both, answered 502 -> 504, wrong 1 both; train photos:
    found 2,304 -> 2,315, false 27 -> 28, no wrong answer more."""
    out = []
    for b in bodies:
        cx, cy = b.centre
        if any(x <= cx <= x + w and y <= cy <= y + h for x, y, w, h in (r.box for r in read)):
            continue
        x0, y0, x1, y1 = b.clipped(img.shape)
        why = Reason(Why.NO_PIPS, "no mark found on it")
        out.append(abstain((x0, y0, x1 - x0, y1 - y0), body_colour(img, b), pal, gains, why))
    return out


def body_reading(
    img: np.ndarray,
    gray: np.ndarray,
    body: Body,
    mine: list[Cand],
    pips: list[Pip],
    pal: Palette,
    gains: Sequence[float] | None,
) -> DieReading | None:
    """A body's die by the pip path: its squarest face, checked against the body; by its own
    marks when no pip group lies on it; None when it shows no mark at all."""
    x0, y0, x1, y1 = body.clipped(img.shape)
    box = (x0, y0, x1 - x0, y1 - y0)
    if not mine:
        return read_marks(img, body, box, pal, gains)
    colour_bgr = body_colour(img, body)
    g, fit = max(mine, key=squareness)
    if fit is None:
        return abstain(
            box,
            colour_bgr,
            pal,
            gains,
            Reason(Why.PIPS_NOT_A_FACE, f"{len(g)} pips do not make a face"),
        )
    why = (
        unexplained_spot(gray, g, fit)
        or stray_pips(body, g, pips)
        or pip_nearby(g, fit, pips)
        or face_too_small(body, fit, g)
    )
    r = pip_reading(g, fit, pal, gains, img.shape, 0, 0, why)
    if r is None:
        return abstain(
            box, colour_bgr, pal, gains, Reason(Why.FACE_OUTSIDE_FRAME, "face outside the frame")
        )
    return replace(r, box=box)


def may_own(body: Body, group: list[Pip], fit: FaceFit | None) -> bool:
    """Whether ``body`` may own the face of ``group`` (fitted as ``fit``): not when the body is a
    fragment of that face (``FRAGMENT_OF_FACE``). Why: a white die on a light wooden table
    does not stand out by colour, so the body mask keeps only a pip or a shaded corner of it;
    that fragment owned the face, the reading took the fragment's box, and the net, cropping
    that box, saw one blob of a die three times its size and overruled or doubted a clear 3.
    Left to no body, the face is read as a loose one, boxed by its fitted square. A lone pip
    keeps its own rule (``PIP_BODY_RATIO`` in ``read_full_frame``): its fitted face is implied
    by one pip's size."""
    return fit is None or len(group) < 2 or body.side >= FRAGMENT_OF_FACE * fit.side_px


def holding_face(r: DieReading, cand: Cand, shape: tuple[int, ...]) -> DieReading:
    """``r`` boxed so that its box holds its top face (``cand``, two or more pips that fit the
    face of their count), within the frame. Why: a white die on a light table keeps only part
    of its body in the mask; the box of that part cut the die, and the net, reading the crop
    of that box, saw a die cut in half, and dropped the die or doubted its face."""
    g, fit = cand
    if fit is None or len(g) < 2:
        return r
    fx0, fy0, fx1, fy1 = extent(g, fit)
    x, y, w, h = r.box
    x0, y0 = max(0, int(np.floor(min(x, fx0)))), max(0, int(np.floor(min(y, fy0))))
    x1 = min(shape[1], int(np.ceil(max(x + w, fx1))))
    y1 = min(shape[0], int(np.ceil(max(y + h, fy1))))
    if (x0, y0, x1 - x0, y1 - y0) == (x, y, w, h):
        return r
    return replace(r, box=(x0, y0, x1 - x0, y1 - y0))


def _dist2(b: Body, x: float, y: float) -> float:
    cx, cy = b.centre
    return (cx - x) ** 2 + (cy - y) ** 2
