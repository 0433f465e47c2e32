"""Every die reader's last step: proposals judged by the learned net, one calibrated confidence.

Why: the hand-written readers (the body finder and pip path of ``fullframe``, the pip path of a
zone) find nearly every die but also propose keys, letters, dust and wood grain, and read some
faces wrong on photos unlike their tuning sets; the learned net (``classifier``), trained on
several sources, judges a crop far better than it finds one on its own. So a reading is:

1. **proposals** (``propose``): the hand-written readers' dice, each with the net's verdict on
   its crop, and the net's own detections over the frame (``detect``), each classified again on
   its exact crop;
2. **verdict** (``decide``): a hand proposal the net calls "not a die" (``Gates.keep``) is
   dropped; a detection lying on no kept die is added when the net is sure enough it is one
   (``Gates.detect``); the face is the net's, answered at a calibrated probability that depends
   on what the pip path said: the same face (``Gates.agree``), nothing (``Gates.answer``), another
   face (``Gates.overrule``), or no pip path at all (``Gates.alone``; or ``Gates.steady`` for
   the least probability of its face over the crop sizes the net tried, ``steady``);
3. **one confidence** (``hub_scale``): each case's gate maps to the hub's threshold (0.80), so a
   reading's ``confidence`` at or above 0.80 means it passed a gate whose wrong answers, on the
   calibration photos, stayed within the target (0.5 % of found dice), whichever path found it.
   A reading without a colour never reaches the hub's threshold.

The gates are chosen on the split's calibration photos only (``python -m vision.eval.dice_gates
--write``), stored in ``gates.json`` beside this module with the hashes of the model's weights
and metadata (``model_hashes``) they were chosen for.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.dice.classifier import META_FILE, MODEL_FILE, CropClass, DieClassifier, ModelError
from vision.dice.colour import classify_face_colour
from vision.dice.detect import Detection, detect_dice_verdicts
from vision.dice.reading import DieReading
from vision.dice.reasons import COLOUR_CODES, Reason, Why
from vision.dice.zone import ZoneDie
from vision.palette import Palette

GATES_FILE = Path(__file__).resolve().parent / "gates.json"
SAME_DIE = 0.7  # a detection this near a kept die (in die sides) is that die (touching dice's
# centres are a side apart; at 0.6 a window astride two read dice was a third, on calibration)
#: a frame's die, for ``SAME_DIE``, is at least this share of its kept hand bodies' median side
#: (``frame_die_side``): 0.8 removed fewer doubled dice, 1.0 began to lose touching ones
FRAME_DIE = 0.9
#: a hand body whose pips read nothing, this many times the frame's median body, that holds two
#: or more of the net's dice is those dice (``astride_bodies``)
ASTRIDE = 1.6
REFUSED = 0.05  # a hand proposal the net gives less than this chance of a die is a non-die ...
LARGER = 1.8  # ... and a proposal inside it at most 1/LARGER its side is a mark on it
#: a proposal whose pips did not read, under this side in pixels, is dropped: the net's crop of
#: it is a blob blown up 3-4 times (a key's letter, a dot of print), which it takes for a 1
#: (none of the calibration photos' dice is under 20 px; a keyboard's letters are 12-17 px)
UNREAD_MIN_PX = 18
#: the dense pass's "die" probability at which a window is a detection to classify on its own
#: crop (``propose``); whether it is a die is the crop's verdict's (``Gates.detect``). Why not
#: the gate for both: the dense window sees the die through the net's padding at a scale's
#: size, its exact crop at the die's; on the calibration photos, windows of 0.3 to 0.5 whose
#: crop the net calls a die found 13 more labelled dice (647 -> 660) and no false one
WINDOW_FLOOR = 0.3
HUB_AT = 0.80  # the hub's threshold (hub.observations.DIE_CONFIDENCE_THRESHOLD; no hub import)
NO_COLOUR_CAP = 0.5  # a reading without a colour is at most this sure: the hub asks a person


@dataclass(frozen=True)
class Gates:
    """The calibrated probabilities at which the net keeps a proposal and answers a face."""

    keep: float  # a hand proposal is kept at this probability of a die
    detect: float  # a detection of the net alone is a die when its crop's verdict reaches this
    agree: float  # the pip path read the net's face: answered at this probability
    answer: float  # the pip path abstained
    overrule: float  # the pip path read another face: the net's face at this probability
    alone: float  # a die only the net found
    colour: float  # the palette's raw confidence of a named colour that maps to the hub's 0.80
    #: a die only the net found whose crop reads its face at every size tried (``steady``):
    #: answered when the least of those probabilities reaches this (1.0: never by this path)
    steady: float = 1.0

    @staticmethod
    def from_json(text: str, source: str) -> tuple[Gates, str]:
        """The gates and the model hash they were chosen for; ModelError naming ``source``."""
        try:
            d = json.loads(text)
            g = Gates(**{k: float(d["gates"][k]) for k in Gates.__dataclass_fields__})
            return g, str(d["model_sha256"])
        except (ValueError, KeyError, TypeError) as e:
            raise ModelError(f"die reader gates are unreadable: {source}: {e}") from e


def model_sha256(path: Path = MODEL_FILE) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def model_hashes(model: Path = MODEL_FILE, meta: Path = META_FILE) -> dict[str, str]:
    """The hashes ``gates.json`` records of the model its gates were chosen for: the weights
    (``model_sha256``) and the metadata (``meta_sha256``). Why both: the temperatures and the
    views live in the metadata, and a changed temperature moves every calibrated probability
    the gates are compared with, as new weights would."""
    return {"model_sha256": model_sha256(model), "meta_sha256": model_sha256(meta)}


@lru_cache(maxsize=1)
def load_gates(path: Path = GATES_FILE) -> Gates:
    """The shipped gates (cached). ModelError naming the file if it is missing or unreadable."""
    if not path.is_file():
        raise ModelError(f"die reader gates file is missing: {path}")
    return Gates.from_json(path.read_text(), str(path))[0]


def hub_scale(p: float, gate: float) -> float:
    """A calibrated probability on the hub's scale: ``gate`` -> ``HUB_AT``, linear on each side
    (monotone: the order of readings is kept)."""
    p = min(max(float(p), 0.0), 1.0)
    if gate >= 1.0:
        return HUB_AT * min(p, 0.999)
    if p >= gate:
        return HUB_AT + (1.0 - HUB_AT) * (p - gate) / (1.0 - gate)
    return HUB_AT * p / max(gate, 1e-9)


@dataclass(frozen=True)
class Proposal:
    """A die proposed by a hand-written reader (``hand``) or by the net alone (``det``), with
    the net's verdict on its crop."""

    verdict: CropClass
    hand: DieReading | None = None
    det: Detection | None = None

    @property
    def centre_side(self) -> tuple[float, float, float]:
        if self.hand is not None:
            x, y, w, h = self.hand.box
            return x + w / 2, y + h / 2, float(max(w, h))
        assert self.det is not None
        return self.det.cx, self.det.cy, self.det.side


def propose(
    img: np.ndarray,
    hand: Sequence[DieReading],
    clf: DieClassifier,
    *,
    detect_min: float,
    box_offset: tuple[int, int] = (0, 0),
) -> list[Proposal]:
    """The hand readers' dice (boxes in ``img`` pixels plus ``box_offset``) with the net's
    verdicts, then the net's detections in ``img`` whose window reaches ``detect_min``, with
    the verdicts on their crops (``detect.detect_dice_verdicts``)."""
    ox, oy = box_offset
    boxes = [(x - ox, y - oy, w, h) for x, y, w, h in (r.box for r in hand)]
    out = [Proposal(v, hand=r) for r, v in zip(hand, clf.classify_boxes(img, boxes), strict=True)]
    for d, v in detect_dice_verdicts(img, classifier=clf, min_p=detect_min):
        out.append(Proposal(v, det=replace(d, cx=d.cx + ox, cy=d.cy + oy)))
    return out


def face_verdict(v: CropClass, faces: Sequence[int] | None) -> tuple[int, float]:
    """The likeliest allowed face and its probability among all seven classes: the "not a die"
    mass and the faces not allowed count against it (a die showing 3 read among 1..2 is a
    doubt, not a sure 2)."""
    allowed = list(faces) if faces else [1, 2, 3, 4, 5, 6]
    p = np.array([v.probs[f] for f in allowed], np.float64)
    k = int(np.argmax(p))
    return allowed[k], float(p[k] / max(float(np.sum(v.probs)), 1e-12))


def kept(props: Sequence[Proposal], gates: Gates) -> list[Proposal]:
    """The proposals that are dice: hand ones the net does not refuse (nor marks on a larger
    thing it refuses, nor tiny blobs the pips did not read, nor blobs of several dice the net
    found one by one: ``astride_bodies``), then detections on no kept die, surest face first."""
    refused = [
        p.centre_side
        for p in props
        if p.hand is not None and p.verdict.p_die < REFUSED and not _boxed_by_reach(p.hand)
    ]
    bodies = [
        p
        for p in props
        if p.hand is not None
        and p.verdict.p_die >= keep_gate(p.hand, gates)
        and not _inside_larger(p.centre_side, refused)
        and (p.hand.face is not None or p.centre_side[2] >= UNREAD_MIN_PX)
    ]
    out = one_body_per_die(bodies)
    astride = astride_bodies(out, props, gates)
    if astride:
        out = one_body_per_die([p for p in bodies if not any(p is a for a in astride)])
    places = [p.centre_side for p in out]
    die = frame_die_side(out)
    # surest face first: the "die" probability saturates on a tray of dice (``detect``)
    dets = sorted((p for p in props if p.det is not None), key=lambda p: -max(p.verdict.probs[1:]))
    for p in dets:
        assert p.det is not None
        if p.verdict.p_die < gates.detect:
            continue
        cx, cy, s = p.centre_side
        if any(np.hypot(cx - x, cy - y) < SAME_DIE * max(s, t, die) for x, y, t in places):
            continue
        out.append(p)
        places.append((cx, cy, s))
    return out


def astride_bodies(
    hands: Sequence[Proposal], props: Sequence[Proposal], gates: Gates
) -> list[Proposal]:
    """The kept hand bodies that box several dice as one: a body whose pips read no face, at
    least ``ASTRIDE`` times the frame's median body (three bodies or more), holding the centres
    of two or more of the net's detections that are dice (``Gates.detect``), each smaller than
    that and no two the same die (``SAME_DIE``). Those detections then stand for the dice.

    Why: on a white tray the body finder joins touching dice into one blob, and that box
    (two to six dice) was kept as one unread die; the detections inside it, each a die to the
    net at 0.999 and more, were dropped as the same die as that box (``kept``), and the dice
    were lost. A body whose pips read a face stays: its face is the pip path's witness that it
    is one die. On the calibration photos: 4 dice more found (byler-train 259 -> 263), 5 more
    answered at the gates before (7 at gates re-chosen), no false die and no wrong answer
    more; 1.3 to 1.6 times the median all gave the same, within a die. On the split's train
    photos: 6 more found, 2 more false dice (rune55-trays, whose labels miss some dice), no
    wrong answer more. Cross-fitted (``vision.eval.dice_gates --cross-fit 10``): 78.1 ->
    78.8 % of found answered, 0.70 % wrong both."""
    if len(hands) < 3:
        return []
    med = float(np.median([p.centre_side[2] for p in hands]))
    dice = sorted(
        (
            q
            for q in props
            if q.det is not None
            and q.verdict.p_die >= gates.detect
            and q.centre_side[2] < ASTRIDE * med
        ),
        key=lambda q: -max(q.verdict.probs[1:]),
    )
    out = []
    for p in hands:
        assert p.hand is not None
        if p.hand.face is not None or p.centre_side[2] < ASTRIDE * med:
            continue
        x, y, w, h = p.hand.box
        held: list[tuple[float, float, float]] = []
        for q in dice:
            cx, cy, s = q.centre_side
            if not (x <= cx <= x + w and y <= cy <= y + h):
                continue
            if any(np.hypot(cx - u, cy - v) < SAME_DIE * max(s, t, med) for u, v, t in held):
                continue
            held.append((cx, cy, s))
        if len(held) >= 2:
            out.append(p)
    return out


def frame_die_side(hands: Sequence[Proposal]) -> float:
    """The side, in pixels, below which no die of this frame is taken to be when a detection is
    compared with the dice already kept (``SAME_DIE``): ``FRAME_DIE`` times the median side of
    the kept hand bodies, or 0 (no bound) when fewer than three were kept.

    Why: the net sizes a detection by its scales (``detect.SCALES``), and on a tray of large
    dice it can box one die twice with two windows each about two thirds of the die, side by
    side; measured by their own sides they lie a side apart, as touching dice do, and both
    were kept (a false die). The dice of one frame are about one size, and the body finder
    measures a die whole, so a detection nearer a kept die than ``SAME_DIE`` of the frame's
    die is that die. On the split's train photos 3 false dice fewer and none found lost; on
    calibration 1 fewer."""
    sides = [p.centre_side[2] for p in hands]
    return FRAME_DIE * float(np.median(sides)) if len(sides) >= 3 else 0.0


def one_body_per_die(hands: Sequence[Proposal]) -> list[Proposal]:
    """Hand proposals less a box whose pips read no face lying nearer than ``SAME_DIE`` of the
    smaller side to another kept one (those whose pips read a face first, then the surer die to
    the net): it is that die again.

    Why: the body finder can box one die twice, the whole die and one of its side faces (a
    large white die seen obliquely), or the die and the die with its shadow; both boxes pass
    the net, and the second became a false die. Touching dice lie about a side apart, two boxes
    of one die nearer. Two boxes that both read a face stay: a top face and a side face both
    read look alike to this rule, and which is the top is the pip path's call, not a distance's.
    The smaller side, not the larger, so that a box astride two dice does not swallow a die
    beside it."""
    order = sorted(hands, key=lambda p: (p.hand is None or p.hand.face is None, -p.verdict.p_die))
    out: list[Proposal] = []
    for p in order:
        cx, cy, s = p.centre_side
        if (p.hand is None or p.hand.face is None) and any(
            np.hypot(cx - x, cy - y) < SAME_DIE * min(s, t)
            for x, y, t in (q.centre_side for q in out)
        ):
            continue
        out.append(p)
    return [p for p in hands if any(p is q for q in out)]


def keep_gate(r: DieReading, gates: Gates) -> float:
    """The net's "die" probability at which a hand proposal is kept: ``Gates.keep``, or, when
    its pips read a face (every check of the pip path passed), ``Gates.detect`` if lower.

    Why: a die the net finds alone is a die at ``detect``; one whose pips the hand reader also
    read as a face has two independent witnesses and needs no more from the net than that. On
    the split's train and calibration photos, 15 more dice found for 3 more false ones
    (0.95 / 0.80, the model of November 2026)."""
    if r.face is not None:
        return min(gates.keep, gates.detect)
    return gates.keep


def _boxed_by_reach(r: DieReading) -> bool:
    """Whether ``r`` is boxed by how far its face's colour reaches rather than by a body
    (``pippath.grown_to_reach``): that box is a guess at a face, which may take in a tray's
    felt and the dice on it, so the net refusing it says nothing of the marks inside it."""
    return any(x.code == Why.FACE_COLOUR_REACH for x in r.reasons)


def _inside_larger(
    c: tuple[float, float, float], others: Sequence[tuple[float, float, float]]
) -> bool:
    """Whether ``c`` (centre, side) lies within a proposal ``LARGER`` times its side: marks on a
    larger thing the net called "not a die" (a key's colon, a card's print) are no die's face."""
    x, y, s = c
    return any(t >= LARGER * s and abs(x - u) < t / 2 and abs(y - v) < t / 2 for u, v, t in others)


def steady(d: Detection, face: int, faces: Sequence[int] | None) -> float:
    """The least probability of ``face`` over the net's verdicts on a detection's crop at each
    size tried (``Detection.tried``), or 0 when one of them reads another face.

    Why a second witness for a die only the net found: its box is the net's guess of the die's
    size and place, and on a tray of touching dice a crop too small shows part of a face (the
    middle four pips of a 6) and one astride two dice a mix, each read surely. The die's own
    face reads the same whether its crop is a fifth larger or smaller; a part or a mix does
    not. On the calibration photos, the dice only the net found that were read wrong above
    0.9 were mostly such crops (a 6 boxed at 0.6 of its side read 4 at 0.99)."""
    if not d.tried:
        return 0.0
    reads = [face_verdict(v, faces) for v in d.tried]
    if any(f != face for f, _ in reads):
        return 0.0
    return min(p for _, p in reads)


def face_case(p: Proposal, gates: Gates, faces: Sequence[int] | None) -> tuple[int, float, float]:
    """(the net's face, its probability, the gate of this proposal's case). A die only the net
    found is answered by its verdict (``Gates.alone``) or by its steadiness over the sizes
    tried (``Gates.steady``), whichever is the surer on the hub's scale."""
    face, prob = face_verdict(p.verdict, faces)
    if p.hand is None:
        assert p.det is not None
        sure = steady(p.det, face, faces)
        if gates.steady < 1.0 and hub_scale(sure, gates.steady) > hub_scale(prob, gates.alone):
            return face, sure, gates.steady
        gate = gates.alone
    elif p.hand.face is None:
        gate = gates.answer
    elif p.hand.face == face:
        gate = gates.agree
    else:
        gate = gates.overrule
    return face, prob, gate


def decide(
    img: np.ndarray,
    props: Sequence[Proposal],
    pal: Palette,
    gains: Sequence[float] | None,
    gates: Gates,
    faces: Sequence[int] | None = None,
    *,
    box_offset: tuple[int, int] = (0, 0),
) -> list[DieReading]:
    """The dice of ``img`` from its proposals (see the module)."""
    out = []
    for p in kept(props, gates):
        face, prob, gate = face_case(p, gates, faces)
        base: DieReading | None = p.hand
        if base is None:
            assert p.det is not None
            base = detection_base(img, p.det, pal, gains, box_offset)
            if base is None:
                continue
        out.append(_settled(base, face, prob, gate, gates.colour))
    return out


def _settled(r: DieReading, face: int, prob: float, gate: float, colour_gate: float) -> DieReading:
    """``r`` with the net's face (or none) and the confidences on the hub's scale."""
    answered = prob >= gate
    reasons = tuple(x for x in r.reasons if x.code in COLOUR_CODES)
    if not answered:
        if r.face is not None and r.face != face:
            why = Reason(
                Why.LEARNED_DISAGREES,
                f"the pips read {r.face}, the classifier {face} at {prob:.2f}",
            )
        else:
            why = Reason(Why.LEARNED_UNSURE, f"the classifier reads {face} at only {prob:.2f}")
        reasons = (*[x for x in r.reasons if x.code not in COLOUR_CODES], why, *reasons)
    face_conf = hub_scale(prob, gate)
    colour_conf = hub_scale(r.colour_confidence, colour_gate)
    if r.colour is None:
        colour_conf = min(colour_conf, NO_COLOUR_CAP)
    return replace(
        r,
        face=face if answered else None,
        face_confidence=face_conf,
        colour_confidence=colour_conf,
        confidence=min(face_conf, colour_conf) if answered else 0.0,
        reasons=reasons,
    )


def detection_base(
    img: np.ndarray,
    d: Detection,
    pal: Palette,
    gains: Sequence[float] | None,
    box_offset: tuple[int, int],
) -> DieReading | None:
    """A die only the net found, before its face: its box and its top face's colour."""
    ox, oy = box_offset
    x, y, w, h = d.box
    x -= ox
    y -= oy
    H, W = img.shape[:2]
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    patch = img[y0:y1, x0:x1]
    mask = np.zeros(patch.shape[:2], np.uint8)
    centre = (patch.shape[1] // 2, patch.shape[0] // 2)
    cv2.circle(mask, centre, max(1, int(0.4 * min(patch.shape[:2]))), 1, -1)
    colour, colour_conf, bal, colour_why = classify_face_colour(patch, mask, d.side, pal, gains)
    return DieReading(
        box=(x0 + ox, y0 + oy, x1 - x0, y1 - y0),
        face=None,
        colour=colour,
        confidence=0.0,
        face_confidence=0.0,
        colour_confidence=float(colour_conf),
        face_bgr=(float(bal[0]), float(bal[1]), float(bal[2])),
        reasons=() if colour_why is None else (colour_why,),
    )


def settle_zone(zd: ZoneDie, v: CropClass, gates: Gates, faces: Sequence[int]) -> DieReading | None:
    """The reveal zone's die (``zone.zone_die``) after the net's verdict ``v`` on its box.

    The zone reader's body (what changed against the empty zone) is its own proposal step and
    is kept; its face is settled as a frame's are: the same face stands (at the surer of the
    two confidences); where the zone reader abstained the net's face is taken at
    ``Gates.answer`` (not on a die under ``UNREAD_MIN_PX``, a blob to the net); where they
    differ the net's face is taken at ``Gates.overrule``, else the face abstains. A die whose
    colour is None is never sure (``NO_COLOUR_CAP``).

    A face the net answers where the pips read none vouches for the body as a die's top face:
    the colour the unread face withheld (``ZoneDie.unread_colour``) is named again, and a body
    without a single pip (``ZoneDie.pipless``: blur or a streak of glare hid them) is that die.
    A pipless body the net does not answer stays what the pips made of it: no die (None)."""
    r = zd.reading
    face, prob = face_verdict(v, faces)
    net_answers = r.face is None and prob >= gates.answer and max(r.box[2:]) >= UNREAD_MIN_PX
    if zd.pipless and not net_answers:
        return None
    face_conf = r.face_confidence
    reasons = r.reasons
    new_face = r.face
    colour = r.colour
    if r.face == face:
        face_conf = max(face_conf, hub_scale(prob, gates.agree))
    elif net_answers:
        new_face, face_conf = face, hub_scale(prob, gates.answer)
        if colour is None and zd.unread_colour is not None:
            colour = zd.unread_colour
        withheld = Why.COLOUR_UNTRUSTED if colour is not None else None
        reasons = tuple(x for x in r.reasons if x.code in COLOUR_CODES and x.code != withheld)
    elif r.face is not None and prob >= gates.overrule:
        new_face, face_conf = face, hub_scale(prob, gates.overrule)
    elif r.face is not None:
        new_face, face_conf = None, 0.0
        reasons = (
            *r.reasons,
            Reason(
                Why.LEARNED_DISAGREES,
                f"the pips read {r.face}, the classifier {face} at {prob:.2f}",
            ),
        )
    colour_conf = r.colour_confidence
    if colour is None:
        colour_conf = min(colour_conf, NO_COLOUR_CAP)
    parts = [c for c, named in ((face_conf, new_face), (colour_conf, colour)) if named]
    overall = min(parts) if new_face is not None else 0.0
    if colour is None:
        overall = min(overall, NO_COLOUR_CAP)
    return replace(
        r,
        face=new_face,
        colour=colour,
        face_confidence=face_conf,
        colour_confidence=colour_conf,
        confidence=float(overall),
        reasons=reasons,
    )
