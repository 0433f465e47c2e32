"""Where the die reader's answers are lost: every found die of the calibration photos that it
does not answer, by cause.

    python -m vision.eval.dice_gates_causes --cache PATH

(``PATH`` the proposals ``python -m vision.eval.dice_gates --cache PATH`` keeps; made if absent.)

Why: "answered" is the issue's widest gap, and a fix should go where most answers are lost. A
found die is unanswered when the net's face probability is under its case's gate
(``learned.face_case``). Each such die is put under one cause:

- ``box``: on the crop of the *labelled* box the net is sure (at that case's gate) and right:
  the finder's box (off-centre, too tight or loose, astride two dice) cost the answer;
- ``overruled``: the pip path read another face (case ``overrule``), and the label crop does
  not settle it either;
- ``net_unsure``: the net is unsure of this die however it is cut; of these, ``right_below``
  had the right face under the gate: what a laxer gate could win at most (each wrong one below
  the gate, ``wrong_below``, is what it would cost).

Calibration photos only (``vision/train/split.json``); never the held-out part.
"""

from __future__ import annotations

import argparse
import json
import pickle
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.dice.classifier import DieClassifier, die_crop, load_classifier
from vision.dice.learned import Gates, face_case, kept, load_gates
from vision.eval.dice import match
from vision.eval.dice_gates import Box, Photo, _box, _case, collect

CAUSES = ("box", "overruled", "net_unsure")


@dataclass(frozen=True)
class Unanswered:
    """A found die the reader did not answer, and what the net made of its labelled box."""

    case: str  # learned.face_case's case: agree, answer, overrule, alone
    source: str  # the photo's set
    right: bool  # the net's face (under the gate) was the labelled one
    label_sure_right: bool  # on the labelled box's crop the net is right at the case's gate

    @property
    def cause(self) -> str:
        if self.label_sure_right:
            return "box"
        return "overruled" if self.case == "overrule" else "net_unsure"


def tally(found: int, answered: int, dice: Iterable[Unanswered]) -> dict[str, Any]:
    """The counts the tool prints: by cause, by case, by set, and right/wrong under the gate."""
    xs = list(dice)
    unsure = [d for d in xs if d.cause == "net_unsure"]
    return {
        "found": found,
        "answered": answered,
        "unanswered": len(xs),
        "by_cause": {c: sum(d.cause == c for d in xs) for c in CAUSES},
        "by_case": dict(Counter(d.case for d in xs)),
        "by_set": dict(Counter(d.source for d in xs)),
        "net_unsure_right_below": sum(d.right for d in unsure),
        "net_unsure_wrong_below": sum(not d.right for d in unsure),
    }


def photo_files(part: str = "calibration") -> dict[tuple[str, str], Path]:
    """Each photo of ``part`` by (set, its labels as sorted JSON): a cached ``Photo`` holds no
    file name."""
    from vision.train import split

    root = split.real_root()
    out: dict[tuple[str, str], Path] = {}
    for name, parts in split.load().items():
        f = root / name / "labels.json"
        files = set(parts.get(part, []))
        if not files or not f.is_file():
            continue
        for im in json.loads(f.read_text())["images"]:
            if im["file"] in files:
                out[(name, json.dumps(im["dice"], sort_keys=True))] = root / name / im["file"]
    return out


def unanswered(
    img: np.ndarray, photo: Photo, gates: Gates, clf: DieClassifier
) -> tuple[int, int, list[Unanswered]]:
    """(found, answered, the unanswered found dice) of one photo at ``gates``."""
    ks = kept(photo.props, gates)
    boxes = [Box(_box(p), i) for i, p in enumerate(ks)]
    pairs = match(photo.labels, boxes)  # type: ignore[arg-type]
    found = answered = 0
    held: list[tuple[dict[str, Any], str, bool, float]] = []
    for lab, b in pairs:
        if b is None:
            continue
        found += 1
        p = ks[b.i]  # type: ignore[attr-defined]
        face, prob, gate = face_case(p, gates, None)
        if prob >= gate:
            answered += 1
        else:
            held.append((lab, _case(p, face), face == int(lab["face"]), gate))
    if not held:
        return found, answered, []
    crops = []
    for lab, _, _, _ in held:
        x, y, w, h = lab["box"]
        crops.append(die_crop(img, x + w / 2, y + h / 2, max(w, h)))
    out = []
    for (lab, case, right, gate), v in zip(held, clf.classify(np.stack(crops)), strict=True):
        sure = v.face == int(lab["face"]) and v.face_prob >= gate
        out.append(Unanswered(case, photo.source, right, sure))
    return found, answered, out


def causes(
    photos: Sequence[Photo], gates: Gates, files: dict[tuple[str, str], Path]
) -> dict[str, Any]:
    clf = load_classifier()
    found = answered = 0
    dice: list[Unanswered] = []
    for ph in photos:
        path = files[(ph.source, json.dumps(ph.labels, sort_keys=True))]
        img = cv2.imread(str(path))
        if img is None:
            raise ValueError(f"cannot read {path}")
        f, a, u = unanswered(img, ph, gates, clf)
        found, answered = found + f, answered + a
        dice.extend(u)
    return tally(found, answered, dice)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m vision.eval.dice_gates_causes", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--cache", metavar="PATH", help="the proposals (made and kept if absent)")
    args = ap.parse_args(argv)
    if args.cache and Path(args.cache).is_file():
        photos = pickle.loads(Path(args.cache).read_bytes())
    else:
        photos = collect("calibration")
        if args.cache:
            Path(args.cache).write_bytes(pickle.dumps(photos))
    print(json.dumps(causes(photos, load_gates(), photo_files()), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
