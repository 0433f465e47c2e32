"""The full frame read by both paths: the hand-written proposals checked by the learned net, and
the dice only the net found.

1. The hand-written full-frame reader's dice (``fullframe``) are each checked by the classifier
   (``verify``): not a die -> dropped; the face settled between the pips and the net.
2. The net's own detections (``detect``) that lie on no die of step 1 are added: the face is the
   classifier's on an exact crop (answered at ``verify.ANSWER_MIN``), the colour is the top
   face's against the palette (``colour.classify_face_colour``), as for every other die.

The confidence of every die is its face's calibrated probability, capped by its colour's: a die
whose colour is unknown is never reported as a sure reading.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.dice.classifier import DieClassifier, load_classifier
from vision.dice.colour import classify_face_colour
from vision.dice.detect import Detection, detect_dice
from vision.dice.reading import DieReading
from vision.dice.reasons import Reason, Why
from vision.dice.verify import ANSWER_MIN, face_verdict, verify_readings
from vision.palette import Palette

SAME_DIE = 0.6  # a detection this near a found die (in die sides) is that die


def read_learned(
    img: np.ndarray,
    hand: Sequence[DieReading],
    pal: Palette,
    gains: Sequence[float] | None,
    *,
    classifier: DieClassifier | None = None,
    faces: Sequence[int] | None = None,
) -> list[DieReading]:
    """The dice of ``img``: ``hand`` (DieReadings of the hand-written path) verified, plus the
    net's detections on no die of them."""
    clf = classifier or load_classifier()
    kept = verify_readings(img, hand, faces=faces, classifier=clf)
    centres: list[tuple[float, float, float]] = [
        (x + w / 2, y + h / 2, float(max(w, h))) for x, y, w, h in (r.box for r in kept)
    ]
    extra: list[DieReading] = []
    for d in detect_dice(img, classifier=clf):
        if any(np.hypot(d.cx - x, d.cy - y) < SAME_DIE * max(d.side, s) for x, y, s in centres):
            continue
        r = detection_reading(img, d, pal, gains, clf, faces)
        if r is not None:
            extra.append(r)
            centres.append((d.cx, d.cy, d.side))
    return kept + extra


def detection_reading(
    img: np.ndarray,
    d: Detection,
    pal: Palette,
    gains: Sequence[float] | None,
    clf: DieClassifier,
    faces: Sequence[int] | None,
) -> DieReading | None:
    """A DieReading for a die the net found: classified again on its exact crop (None if that
    crop is not a die after all)."""
    x, y, w, h = d.box
    v = clf.classify_boxes(img, [(x, y, w, h)])[0]
    if v.p_die < 0.5:
        return None
    face, p = face_verdict(v, faces)
    H, W = img.shape[:2]
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    patch = img[y0:y1, x0:x1]
    mask = np.zeros(patch.shape[:2], np.uint8)
    cv2.circle(
        mask,
        (patch.shape[1] // 2, patch.shape[0] // 2),
        max(1, int(0.4 * min(patch.shape[:2]))),
        1,
        -1,
    )
    colour, colour_conf, bal, colour_why = classify_face_colour(patch, mask, d.side, pal, gains)
    reasons: list[Reason] = []
    answered = p >= ANSWER_MIN
    if not answered:
        reasons.append(Reason(Why.LEARNED_UNSURE, f"the classifier reads {face} at only {p:.2f}"))
    if colour is None and colour_why is not None:
        reasons.append(colour_why)
    return DieReading(
        box=(x0, y0, x1 - x0, y1 - y0),
        face=face if answered else None,
        colour=colour,
        confidence=min(p, colour_conf) if answered else 0.0,
        face_confidence=p,
        colour_confidence=float(colour_conf),
        face_bgr=(float(bal[0]), float(bal[1]), float(bal[2])),
        reasons=tuple(reasons),
    )
