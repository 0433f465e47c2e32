"""The learned check of the full-frame reader's dice: drop what is not a die, settle the face.

Why after the hand-written path rather than instead of it: the body finder and the pip path
propose dice well (they find nearly every die) but also propose keys, letters, dust and wood
grain, and they read some faces wrong on photos unlike their tuning sets. The classifier
(``classifier``), trained on several sources, judges each proposal's crop:

- a proposal the classifier calls "not a die" (probability of a die under ``P_DIE_MIN``) is
  dropped: no phantom dice;
- where the pip path and the classifier name the same face, that face stands, with the higher
  of their confidences;
- where the pip path abstained, the classifier's face is taken when its calibrated probability
  reaches ``ANSWER_MIN`` (the hub's threshold), else the die stays found, its face abstaining;
- where they disagree, the classifier's face is taken when it is at least ``OVERRULE_MIN`` sure,
  else the face abstains: the hub asks a person rather than take a doubtful face.

Every number here was chosen on the split's calibration photos, never on the held-out ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from vision.dice.classifier import CropClass, DieClassifier, load_classifier
from vision.dice.reading import DieReading
from vision.dice.reasons import Reason, Why

COLOUR_CODES = frozenset(
    {
        Why.COLOUR_AMBIGUOUS,
        Why.NO_FACE_PIXELS,
        Why.FACE_TOO_DARK,
        Why.COLOUR_POLARITY,
        Why.COLOUR_FAR,
        Why.COLOUR_UNTRUSTED,
    }
)
P_DIE_MIN = 0.5  # the classifier's probability of a die below which a proposal is dropped
ANSWER_MIN = 0.80  # the classifier answers alone at this calibrated probability (the hub's)
OVERRULE_MIN = 0.97  # ... and overrules the pip path's face at this one


def face_verdict(v: CropClass, faces: Sequence[int] | None) -> tuple[int, float]:
    """The likeliest allowed face and its probability (the "not a die" mass counts against it)."""
    allowed = list(faces) if faces else [1, 2, 3, 4, 5, 6]
    p = np.array([v.probs[f] for f in allowed], np.float64)
    k = int(np.argmax(p))
    return allowed[k], float(p[k] / max(float(p.sum()) + v.probs[0], 1e-12))


def verify_readings(
    image: np.ndarray,
    readings: Sequence[DieReading],
    *,
    faces: Sequence[int] | None = None,
    classifier: DieClassifier | None = None,
) -> list[DieReading]:
    """``readings`` (``DieReading``) of ``image`` checked by the classifier (see the module)."""
    if not readings:
        return []
    clf = classifier or load_classifier()
    verdicts = clf.classify_boxes(image, [r.box for r in readings])
    out = []
    for r, v in zip(readings, verdicts, strict=True):
        if v.p_die < P_DIE_MIN:
            continue
        out.append(settle_face(r, v, faces))
    return out


def settle_face(r: DieReading, v: CropClass, faces: Sequence[int] | None) -> DieReading:
    """One reading's face after the classifier's verdict ``v``."""
    face, p = face_verdict(v, faces)
    reasons = r.reasons
    if r.face == face:
        new_face: int | None = face
        conf = max(p, r.face_confidence)
    elif p >= (ANSWER_MIN if r.face is None else OVERRULE_MIN):
        # the net is sure: its face, and the pip path's doubts about its own face are moot
        new_face, conf = face, p
        reasons = tuple(x for x in r.reasons if x.code in COLOUR_CODES)
    elif r.face is None:
        new_face, conf = None, p
        reasons = (
            *r.reasons,
            Reason(Why.LEARNED_UNSURE, f"the classifier reads {face} at only {p:.2f}"),
        )
    else:
        new_face, conf = None, p
        reasons = (
            *r.reasons,
            Reason(
                Why.LEARNED_DISAGREES, f"the pips read {r.face}, the classifier {face} at {p:.2f}"
            ),
        )
    overall = min(conf, r.colour_confidence) if new_face is not None else 0.0
    return replace(r, face=new_face, face_confidence=conf, confidence=overall, reasons=reasons)
