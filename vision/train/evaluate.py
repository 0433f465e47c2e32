"""How a trained die classifier does on real photos it was not trained on, without wiring it.

    python -m vision.train.evaluate [--part calibration] [--model DIR] [--threshold 0.8]

The model alone, on the photos of one part of the split (by default the calibration part: the
part a candidate model may be chosen on; the held-out part is for the one final figure): every
labelled die cropped at its label box (``die_crop``) and read by the classifier: the share
answered at the threshold, the share of answers right, and the share answerable at 99 % right
whatever the threshold; and the "not a die" crops of those photos (background patches and the
hand-written path's false dice): the share the classifier takes for a die.

The whole reader with a model (its gates chosen for that model) is measured by
``python -m vision.eval.dice_gates``. The hand-written proposals do not depend on the model; they
are kept in a cache file (``--cache``) so that comparing models re-runs only the net.
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.dice.classifier import META_FILE, MODEL_FILE, DieClassifier, die_crop
from vision.train import data


@dataclass
class Tally:
    """Counts of one set (or pooled)."""

    images: int = 0
    dice: int = 0
    crops_answered: int = 0
    crops_right: int = 0
    negatives: int = 0
    negatives_taken: int = 0
    errors: list[str] = field(default_factory=list)
    crop_scores: list[tuple[float, bool]] = field(default_factory=list)

    def add(self, o: Tally) -> None:
        for k in self.__dataclass_fields__:
            if k not in ("errors", "crop_scores"):
                setattr(self, k, getattr(self, k) + getattr(o, k))
        self.crop_scores += o.crop_scores

    def coverage_at(self, precision: float) -> float:
        """The largest share of the dice's crops answerable (most confident first) with at
        least ``precision`` of the answers right: the model's quality, whatever the threshold."""
        ranked = sorted(self.crop_scores, key=lambda s: -s[0])
        right = best = 0
        for k, (_, ok) in enumerate(ranked, 1):
            right += ok
            if right >= precision * k:
                best = k
        return best / max(len(ranked), 1)

    def row(self, name: str) -> str:
        def pct(a: int, b: int) -> str:
            return f"{100.0 * a / b:6.1f}" if b else "     -"

        return (
            f"{name:16s} {self.images:4d} photos {self.dice:5d} dice | answered "
            f"{pct(self.crops_answered, self.dice)} % right "
            f"{pct(self.crops_right, self.crops_answered)} % | answerable at 99 % right "
            f"{100 * self.coverage_at(0.99):5.1f} % | not-a-die crops taken "
            f"{pct(self.negatives_taken, self.negatives)} % of {self.negatives:4d}"
        )


def _hand(img: np.ndarray) -> list[Any]:
    from vision.dice.fullframe import read_full_frame
    from vision.palette import default_palette

    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    return list(read_full_frame(img, gray, default_palette(), None))


def evaluate(
    part: str, clf: DieClassifier, threshold: float, cache: Path | None
) -> dict[str, Tally]:
    from vision.dice.learned import face_verdict

    hand_cache: dict[str, list[Any]] = {}
    if cache is not None and cache.is_file():
        hand_cache = pickle.loads(cache.read_bytes())
    dirty = False
    out: dict[str, Tally] = {}
    rng = np.random.default_rng(5)
    for name, im, img in data.photos(part):
        t = out.setdefault(name, Tally())
        t.images += 1
        dice = data.photo_dice(name, im)
        t.dice += len(dice)
        if dice:
            crops = np.stack([die_crop(img, d.cx, d.cy, d.side) for d in dice])
            for d, v in zip(dice, clf.classify(crops), strict=True):
                face, p = face_verdict(v, None)
                t.crop_scores.append((p, face == d.face))
                if p >= threshold:
                    t.crops_answered += 1
                    t.crops_right += face == d.face
                    if face != d.face:
                        t.errors.append(
                            f"{name} {im['file']} crop: face {d.face} read {face} {p:.2f}"
                        )
        key = f"{name}/{im['file']}"
        if key not in hand_cache:
            hand_cache[key] = _hand(img)
            dirty = True
        hand = hand_cache[key]
        negs = []
        if dice:
            med = float(np.median([d.side for d in dice]))
            h, w = img.shape[:2]
            for _ in range(40):
                x, y = float(rng.uniform(0, w)), float(rng.uniform(0, h))
                if data._away_from(dice, x, y, 1.1):
                    negs.append(die_crop(img, x, y, med * float(rng.uniform(0.6, 1.5))))
                if len(negs) >= 6:
                    break
        for r in hand:
            x, y, w, h = r.box
            if data._away_from(dice, x + w / 2, y + h / 2, 0.9):
                negs.append(die_crop(img, x + w / 2, y + h / 2, max(w, h)))
        if negs:
            vs = clf.classify(np.stack(negs))
            t.negatives += len(vs)
            t.negatives_taken += sum(v.p_die >= 0.5 for v in vs)
    if cache is not None and dirty:
        cache.write_bytes(pickle.dumps(hand_cache))
    pooled = Tally()
    for t in out.values():
        pooled.add(t)
    out["pooled"] = pooled
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="evaluate", description=__doc__.splitlines()[0])
    p.add_argument("--part", default="calibration", choices=("train", "calibration", "heldout"))
    p.add_argument("--model", type=Path, default=MODEL_FILE.parent)
    p.add_argument("--threshold", type=float, default=0.8)
    p.add_argument("--cache", type=Path)
    p.add_argument("--errors", action="store_true", help="list the wrong answers")
    args = p.parse_args(argv)
    cv2.setNumThreads(1)
    clf = DieClassifier(args.model / MODEL_FILE.name, args.model / META_FILE.name)
    t0 = time.time()
    res = evaluate(args.part, clf, args.threshold, args.cache)
    print(f"== {args.model} on the {args.part} part, answer threshold {args.threshold}")
    for name, t in res.items():
        print(t.row(name))
        if args.errors and name != "pooled":
            for e in t.errors:
                print("   ", e)
    print(f"({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
