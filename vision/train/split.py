"""The split of the real dice photos into train / calibration / held-out, decided before tuning.

Why a committed file: every figure the learned reader reports is on photos it was neither trained
nor calibrated on, and anyone can check which ones. The split is a pure function of the set's name
and the photo's file name (SHA-1), so it is reproducible and does not move when a set grows:

- ``skovy-catan`` is held out whole: a source (camera, table, Catan dice with coloured pips) the
  model never sees, standing in for the unseen sources the product is judged on;
- of every other set, photos whose hash falls in [0, 0.25) are held out, [0.25, 0.40) calibrate
  the confidence (temperature, thresholds), the rest train.

``python -m vision.train.split`` rewrites ``split.json`` from the labels (it lists every photo).

Folds of the train part (``fold_files``, parts named ``train-fold-K/N``): for out-of-fold
verdicts (a net trained on one fold reads the others' photos as it would unseen ones), each
set's train photos ordered by another hash of their name and dealt to the N folds in turn, so
that every fold holds a set's share of photos to within one.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Literal

Part = Literal["train", "calibration", "heldout"]

SPLIT_FILE = Path(__file__).with_name("split.json")
UNSEEN_SOURCES = ("skovy-catan",)
SETS = ("matteop65-train", "matteop65-valid", "byler-train", "skovy-catan", "rune55-trays")
HELDOUT_SHARE = 0.25
CALIBRATION_SHARE = 0.15


def real_root() -> Path:
    """The labelled real photos: ``shared/data/dice-real`` beside the repository (or beside a
    folder holding it, for a checkout one level deeper); the nearest one found going up."""
    here = Path(__file__).resolve().parents[2]
    for base in (here.parent, *here.parent.parents):
        cand = base / "shared" / "data" / "dice-real"
        if cand.is_dir():
            return cand
    return here.parent / "shared" / "data" / "dice-real"


def part_of(set_name: str, file_name: str) -> Part:
    """Which part a photo belongs to, by the hash of ``set/file`` alone."""
    if set_name in UNSEEN_SOURCES:
        return "heldout"
    digest = hashlib.sha1(f"{set_name}/{file_name}".encode()).hexdigest()
    u = int(digest[:8], 16) / 2**32
    if u < HELDOUT_SHARE:
        return "heldout"
    if u < HELDOUT_SHARE + CALIBRATION_SHARE:
        return "calibration"
    return "train"


FOLD_PREFIX = "train-fold-"


def parse_fold(text: str) -> tuple[int, int]:
    """``K/N`` -> (K, N), 1 <= K <= N, N >= 2 (a ``ValueError`` otherwise)."""
    k, sep, n = text.partition("/")
    if not sep or not k.isdigit() or not n.isdigit() or not 1 <= int(k) <= int(n) or int(n) < 2:
        raise ValueError(f"a fold is K/N with 1 <= K <= N and N >= 2, not {text!r}")
    return int(k), int(n)


def fold_files(files: list[str], set_name: str, k: int, n: int) -> list[str]:
    """The files of fold ``k`` of ``n`` (1-based) among one set's train ``files``."""
    order = sorted(files, key=lambda f: hashlib.sha1(f"fold/{set_name}/{f}".encode()).hexdigest())
    mine = set(order[k - 1 :: n])
    return [f for f in files if f in mine]


def part_files(part: str) -> dict[str, list[str]]:
    """{set: files} of a part of the committed split: ``train``, ``calibration``, ``heldout``,
    or ``train-fold-K/N`` (fold K of the train part's N, ``fold_files``)."""
    sets = load()
    if not part.startswith(FOLD_PREFIX):
        return {name: list(parts.get(part, [])) for name, parts in sets.items()}
    k, n = parse_fold(part[len(FOLD_PREFIX) :])
    return {
        name: fold_files(list(parts.get("train", [])), name, k, n) for name, parts in sets.items()
    }


def build(root: Path) -> dict[str, dict[str, list[str]]]:
    """{set: {part: [file, ...]}} for every set found under ``root``."""
    out: dict[str, dict[str, list[str]]] = {}
    for name in SETS:
        labels = root / name / "labels.json"
        if not labels.is_file():
            continue
        files = [im["file"] for im in json.loads(labels.read_text())["images"]]
        parts: dict[str, list[str]] = {"train": [], "calibration": [], "heldout": []}
        for f in sorted(files):
            parts[part_of(name, f)].append(f)
        out[name] = parts
    return out


def load() -> dict[str, dict[str, list[str]]]:
    """The committed split."""
    data: dict[str, dict[str, list[str]]] = json.loads(SPLIT_FILE.read_text())["sets"]
    return data


def main(argv: list[str] | None = None) -> int:
    root = Path(argv[0]) if argv else real_root()
    sets = build(root)
    doc = {
        "rule": __doc__.strip().splitlines()[0],
        "unseen_sources": list(UNSEEN_SOURCES),
        "heldout_share": HELDOUT_SHARE,
        "calibration_share": CALIBRATION_SHARE,
        "sets": sets,
    }
    SPLIT_FILE.write_text(json.dumps(doc, indent=1) + "\n")
    for name, parts in sets.items():
        print(name, {k: len(v) for k, v in parts.items()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
