"""The full-frame reader's vetoes of a face the pip path fitted: what its neighbourhood and the
die's body say against it.

Each returns a ``Reason`` (the veto) or None. The pip path's own vetoes (a blur, a missed pip, a
lone pip off its face's centre) are ``pippath.unexplained_spot``'s.
"""

from __future__ import annotations

import numpy as np

from vision.dice.bodies import Body
from vision.dice.face import FaceFit
from vision.dice.pips import Pip
from vision.dice.reasons import Reason, Why

LONE_PAIR_REL = 1.2  # another pip this near a lone pip (in its implied face's sides): same face


def stray_pips(body: Body, group: list[Pip], pips: list[Pip]) -> Reason | None:
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
            return Reason(Why.STRAY_PIP, "a pip-like blob on the die is not one of the face's pips")
    return None


def pip_nearby(group: list[Pip], fit: FaceFit, pips: list[Pip]) -> Reason | None:
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
            return Reason(Why.PIP_NEARBY, "another pip lies on the lone pip's face")
    return None


def face_too_small(body: Body, fit: FaceFit, group: list[Pip]) -> Reason | None:
    """Pips that fit a face much smaller than the body, or off its centre: a pattern missing
    pips (a die's lone pip is its centre pip), or a side face."""
    fc = fit.corners.mean(axis=0)
    bc = np.array([p.mean() for p in body.contour.T])
    if np.hypot(*(fc - bc)) > 0.22 * body.side:
        return Reason(Why.PIPS_OFF_BODY_CENTRE, "the pips are off the centre of the die's body")
    if fit.face == 1:
        rel = group[0].r / max(body.side, 1e-6)
        if rel > 0.25:
            # not a doubt about the outline: the blob is the die's whole face or a large mark,
            # so a crop that counts one pip on this body is not a second count of it
            return Reason(
                Why.BLOB_TOO_LARGE_FOR_BODY,
                f"a blob {rel:.2f} of the die's side is too large for its pip",
            )
        if rel < 0.06:
            return Reason(
                Why.LONE_PIP_TOO_SMALL, f"a lone pip {rel:.2f} of the die's size is not a face 1"
            )
        return None
    ratio = fit.side_px / max(body.side, 1e-6)
    if ratio < 0.45:
        return Reason(Why.FACE_SMALL_FOR_BODY, f"the fitted face is {ratio:.2f} of the die's size")
    return None
