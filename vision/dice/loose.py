"""Loose faces: pips of a whole frame with no die body round them (a white die on a light table).

Why apart from the bodies: with no body, the pip path's checks alone decide the face (a key's
letters on a desk look like a die's pips to both readers, so the crop never names a face the pip
path doubted), the fitted face square stands for the body, and a lone pip is a die only where a
die's body can be seeded round it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from vision.dice.bodies import Body, seeded_body
from vision.dice.crossread import square_body, with_crop_read
from vision.dice.face import labs_of
from vision.dice.pippath import Cand, grown_to_reach, pip_reading, unexplained_spot
from vision.dice.pips import Pip
from vision.dice.reading import DieReading
from vision.dice.vetoes import pip_nearby
from vision.palette import Palette

LOOSE_MAX_SIDE = 0.25  # a face outside every body: at most this share of the frame's side
LOOSE_MAX_REL = 2.0  # ... and at most this many times the side of the frame's median body
LONE_FACE_REL = (0.5, 1.1)  # a lone pip's implied face against the median body's side (a die's)
SEED_LIGHT_CHROMA = 25.0  # Lab chroma round a light pip to seed a body (matteop65's keyboard
# keys, grey and black: < 25; byler's coloured dice: >= 30)
SEED_FACE_TO_DIE = 1.3  # a die's side over its face 1's fitted side, when no median body tells


def may_be_loose_face(cand: Cand, shape: tuple[int, ...], die_side: float) -> bool:
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


def loose_reading(
    img: np.ndarray,
    gray: np.ndarray,
    cand: Cand,
    pips: list[Pip],
    pal: Palette,
    gains: Sequence[float] | None,
) -> DieReading | None:
    """Pips with no body round them (a white die on a light table): the pip path's checks
    alone decide the face (a key's letters look like a die's pips to both readers, so the
    square's crop never names a face the pip path doubted), and the fitted face square stands
    for the body, so the colour is read from the face itself, as a body's is."""
    g, fit = cand
    if fit is None:
        return None
    why = unexplained_spot(gray, g, fit) or pip_nearby(g, fit, pips)
    r = pip_reading(g, fit, pal, gains, img.shape, 0, 0, why)
    if r is None:
        return None
    grown = grown_to_reach(r, gray, g, fit, 0, 0)
    if grown is not r:
        # the face's colour goes on well beyond the fitted face: the die, if it is one, is the
        # face that colour fills (a key's ":" is two dots on a keycap, not a die's 2 seen close)
        return grown
    return with_crop_read(img, square_body(fit), r, pal, gains, dark=g[0].dark)[0]


def lone_pip_die(
    img: np.ndarray,
    r: DieReading,
    cand: Cand,
    die_side: float,
    read: list[DieReading],
    pal: Palette,
    gains: Sequence[float] | None,
) -> DieReading | None:
    """A lone pip whose face abstains, outside every body: a die only where a die's body is
    seeded round it (``seeded_die``), boxed by that body; else None. On that body, when the
    face the pip implies is the size of the frame's dice, the body's crop may confirm the face 1
    the pip path doubted for where its pip lies (``crossread.with_crop_read``)."""
    g, fit = cand
    assert fit is not None  # a loose reading has a fitted face
    body = seeded_die(img, g[0], die_side or SEED_FACE_TO_DIE * fit.side_px, read)
    if body is None:
        return None
    r = replace(r, box=body.box)
    if die_side and LONE_FACE_REL[0] <= fit.side_px / die_side <= LONE_FACE_REL[1]:
        # only a count of one confirms: a seeded body may take in a tilted die's side face,
        # whose pips a larger count would add to the top face's
        confirmed = with_crop_read(img, body, r, pal, gains, pip_count=1, dark=g[0].dark)[0]
        if confirmed is not None and confirmed.face in (None, 1):
            r = confirmed
    return r


def seeded_die(img: np.ndarray, pip: Pip, side: float, read: list[DieReading]) -> Body | None:
    """The die's body round a lone pip (``bodies.seeded_body``: a white die on a light table, a
    coloured die the mask lost), unless a die already ``read`` holds its centre; a light pip
    only on a coloured face. None: a lone blob with nothing die-like round it may be a speck, or
    a side face's pip of a die read already."""
    if not pip.dark and float(np.hypot(*labs_of([pip.ring_bgr])[0, 1:])) < SEED_LIGHT_CHROMA:
        return None  # a light pip on a grey or black face: as likely a key's letter as a die
    body = seeded_body(img, pip.x, pip.y, pip.r, side)
    if body is None:
        return None
    cx, cy = body.centre
    if any(x <= cx <= x + w and y <= cy <= y + h for x, y, w, h in (q.box for q in read)):
        return None
    return body
