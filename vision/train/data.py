"""The classifier's training data: die crops and not-a-die crops, as the reader will crop them.

- real dice of the split's train (or calibration) photos, each cropped several times with random
  rotation, scale and shift, then photometric jitter (white balance, exposure, contrast, blur,
  noise, JPEG);
- rendered dice (``vision.render.dice``): Camel Up's five colours, the extra colours and grey,
  faces 1..6, on rendered tables with the renderer's lamp, blur, noise and glare;
- not a die: patches of the real photos away from every labelled die, what the hand-written
  reader took for a die where there is none (its false dice on the train photos), rendered
  distractors (``distractors``: keys, letters, dust, wood, coins, tiles, camel parts, dot
  patterns), and what the hand-written reader proposes on rendered printed pages (``page_crops``).

Labels: 0 = not a die, 1..6 = the face. All random draws come from one seeded generator.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.dice.classifier import CONTEXT, INPUT, die_crop
from vision.train import split as split_mod
from vision.train.distractors import distractor

PIP_BOX_SETS = ("matteop65-train", "matteop65-valid")  # labels box the pips, not the die
PIP_BOX_TO_DIE = 1.25  # a face 2..6's pip box over the die's side (measured on crops)
#: a die crop the training re-cuts every epoch (``vision.train.train.recut``) is stored this
#: many of the die's sides wide, at the net's pixels per die (``WIDE`` pixels): room round the
#: reader's crop (``CONTEXT``) for any turn, a 1.25 scale and a shift of 0.12 side
WIDE_CONTEXT = 2 * CONTEXT
WIDE = 2 * INPUT


@dataclass(frozen=True)
class LabelledDie:
    cx: float
    cy: float
    side: float
    face: int


def labelled_photos(
    part: str, limit: int | None = None
) -> Iterator[tuple[str, dict[str, Any], np.ndarray, list[LabelledDie]]]:
    """(set, image record, BGR image, its labelled dice) of the first ``limit`` photos (all:
    None) of ``part``: what every kind of real crop is cut from."""
    for k, (name, im, img) in enumerate(photos(part)):
        if limit is not None and k >= limit:
            break
        yield name, im, img, photo_dice(name, im)


def photo_dice(set_name: str, im: dict[str, Any]) -> list[LabelledDie]:
    """The labelled dice of one photo with their centre and the die's side (whole die)."""
    dice = im["dice"]
    out = []
    if set_name in PIP_BOX_SETS:
        # the pip boxes of faces 2..6 tell the die's size; a face 1's box is the pip alone
        sides = [max(d["box"][2:]) for d in dice if int(d["face"]) >= 2]
        die = PIP_BOX_TO_DIE * float(np.median(sides)) if sides else 0.0
    for d in dice:
        x, y, w, h = d["box"]
        side = float(max(w, h))
        if set_name in PIP_BOX_SETS:
            side = die if die else side * 2.0
        out.append(LabelledDie(x + w / 2, y + h / 2, side, int(d["face"])))
    return out


def photos(part: str, root: Path | None = None) -> Iterator[tuple[str, dict[str, Any], np.ndarray]]:
    """(set, image record, BGR image) of every photo in ``part`` of the committed split (a
    fold of the train part too: ``split.part_files``)."""
    root = root or split_mod.real_root()
    for name, listed in split_mod.part_files(part).items():
        files = set(listed)
        if not files:
            continue
        labels = json.loads((root / name / "labels.json").read_text())
        for im in labels["images"]:
            if im["file"] in files:
                img = cv2.imread(str(root / name / im["file"]))
                if img is not None:
                    yield name, im, img


def jitter_crop(
    img: np.ndarray,
    cx: float,
    cy: float,
    side: float,
    rng: np.random.Generator,
    *,
    rotate: bool = True,
    scale: tuple[float, float] = (0.8, 1.25),
    shift: float = 0.12,
) -> np.ndarray:
    """``die_crop`` after a random rotation about the die, a scale and a shift of its centre."""
    s = side * float(rng.uniform(*scale))
    cx += float(rng.uniform(-shift, shift)) * side
    cy += float(rng.uniform(-shift, shift)) * side
    if rotate:
        r = int(np.ceil(CONTEXT * s))  # a window large enough for the rotated crop
        x0, y0 = int(cx) - r, int(cy) - r
        h, w = img.shape[:2]
        pad = (max(0, -y0), max(0, y0 + 2 * r - h), max(0, -x0), max(0, x0 + 2 * r - w))
        win = img[max(y0, 0) : min(y0 + 2 * r, h), max(x0, 0) : min(x0 + 2 * r, w)]
        if win.size == 0:
            return die_crop(img, cx, cy, s)
        if any(pad):
            win = cv2.copyMakeBorder(win, *pad, cv2.BORDER_REPLICATE)
        m = cv2.getRotationMatrix2D((cx - x0, cy - y0), float(rng.uniform(0, 360)), 1.0)
        win = cv2.warpAffine(
            win,
            m,
            (win.shape[1], win.shape[0]),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REFLECT,
        )
        return die_crop(win, cx - x0, cy - y0, s)
    return die_crop(img, cx, cy, s)


def photometric(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """White balance, exposure, contrast, gamma, blur, noise and JPEG jitter of one crop."""
    x = crop.astype(np.float32)
    x *= rng.uniform(0.7, 1.3, 3).astype(np.float32) * float(rng.uniform(0.6, 1.4))
    mean = x.mean()
    x = (x - mean) * float(rng.uniform(0.6, 1.3)) + mean
    x = np.clip(x, 0, 255)
    if rng.random() < 0.3:
        x = 255.0 * (x / 255.0) ** float(rng.uniform(0.6, 1.6))
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), float(rng.uniform(0.3, 1.3)))
    if rng.random() < 0.5:
        x += rng.normal(0, rng.uniform(1, 9), x.shape).astype(np.float32)
    out: np.ndarray = np.clip(x, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        q = int(rng.integers(30, 95))
        ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        if ok:
            out = np.asarray(cv2.imdecode(enc, cv2.IMREAD_COLOR))
    return out


def _away_from(dice: list[LabelledDie], x: float, y: float, reach: float) -> bool:
    return all(np.hypot(d.cx - x, d.cy - y) > reach * d.side for d in dice)


def real_crops(
    part: str,
    rng: np.random.Generator,
    *,
    per_die: int,
    per_photo_bg: int,
    hard_negatives: bool,
    limit: int | None = None,
    augment: bool = True,
) -> tuple[list[np.ndarray], list[int], list[str]]:
    """Crops, labels and a source tag per crop from the real photos of ``part``."""
    crops: list[np.ndarray] = []
    labels: list[int] = []
    tags: list[str] = []
    for name, _, img, dice in labelled_photos(part, limit):
        for d in dice:
            for _ in range(per_die):
                c = (
                    jitter_crop(img, d.cx, d.cy, d.side, rng)
                    if augment
                    else die_crop(img, d.cx, d.cy, d.side)
                )
                crops.append(photometric(c, rng) if augment else c)
                labels.append(d.face)
                tags.append(name)
        if not dice:
            continue
        med = float(np.median([d.side for d in dice]))
        h, w = img.shape[:2]
        got = tries = 0
        while got < per_photo_bg and tries < 50 * per_photo_bg:
            tries += 1
            x, y = float(rng.uniform(0, w)), float(rng.uniform(0, h))
            if not _away_from(dice, x, y, 1.1):
                continue
            c = jitter_crop(img, x, y, med, rng, scale=(0.5, 1.6), shift=0.0)
            crops.append(photometric(c, rng) if augment else c)
            labels.append(0)
            tags.append(name + ":background")
            got += 1
        for d in dice:  # beside a die, not on it: the detector's peak must sit on the die
            if rng.random() < 0.5:
                continue
            a = float(rng.uniform(0, 2 * np.pi))
            x = d.cx + float(rng.uniform(0.7, 1.0)) * d.side * np.cos(a)
            y = d.cy + float(rng.uniform(0.7, 1.0)) * d.side * np.sin(a)
            if not _away_from(dice, x, y, 0.7):
                continue
            c = jitter_crop(img, x, y, d.side, rng, scale=(0.85, 1.2), shift=0.0)
            crops.append(photometric(c, rng) if augment else c)
            labels.append(0)
            tags.append(name + ":beside")
        if hard_negatives:
            for c in false_dice_crops(img, dice):
                for _ in range(2 if augment else 1):
                    crops.append(photometric(c, rng) if augment else c)
                    labels.append(0)
                    tags.append(name + ":false-die")
    return crops, labels, tags


def wide_real_crops(
    part: str, rng: np.random.Generator, *, per_die: int, limit: int | None = None
) -> tuple[list[np.ndarray], list[int], list[str]]:
    """``per_die`` wide crops (``WIDE_CONTEXT``) of each labelled die of ``part``'s photos, each
    with its own photometric jitter (``photometric``) but no turn, scale or shift: those are
    drawn anew every epoch (``vision.train.train.recut``)."""
    crops: list[np.ndarray] = []
    labels: list[int] = []
    tags: list[str] = []
    for name, _, img, dice in labelled_photos(part, limit):
        for d in dice:
            wide = die_crop(img, d.cx, d.cy, d.side, context=WIDE_CONTEXT, out=WIDE)
            for _ in range(per_die):
                crops.append(photometric(wide, rng))
                labels.append(d.face)
                tags.append(name)
    return crops, labels, tags


def false_dice_crops(img: np.ndarray, dice: list[LabelledDie]) -> list[np.ndarray]:
    """Crops of what the hand-written full-frame path (alone: the learned check is what is being
    trained) reads as a die where no labelled die is."""
    from vision.dice.fullframe import read_full_frame
    from vision.palette import default_palette

    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    out = []
    for r in read_full_frame(img, gray, default_palette(), None):
        x, y, w, h = r.box
        cx, cy = x + w / 2, y + h / 2
        if _away_from(dice, cx, cy, 0.9):
            out.append(die_crop(img, cx, cy, max(w, h)))
    return out


def rendered_crops(
    n_scenes: int, rng: np.random.Generator, seed0: int = 700_000, *, wide: bool = False
) -> tuple[list[np.ndarray], list[int], list[str]]:
    """Crops of rendered dice (faces 1..6, many colours) on rendered tables, seeds from
    ``seed0`` (evaluation uses 100,000.., the hand-written reader was tuned on 300,000..);
    ``wide``: each die's wide crop (``WIDE_CONTEXT``), its scale and shift left to the epoch."""
    from vision.render.dice import CAMEL_UP_COLOURS, EXTRA_COLOURS, render_dice_scene

    names = list(CAMEL_UP_COLOURS) + list(EXTRA_COLOURS) + [(128, 128, 128)]
    crops: list[np.ndarray] = []
    labels: list[int] = []
    tags: list[str] = []
    for s in range(seed0, seed0 + n_scenes):
        srng = np.random.default_rng(s)
        cols = [names[int(i)] for i in srng.integers(0, len(names), 5)]
        grey = [c for c in cols if not isinstance(c, str)]
        if grey:  # a grey die (the second edition's) with white pips: drawn as a custom colour
            cols = [c if isinstance(c, str) else (128, 128, 128) for c in cols]
        img, truth = render_dice_scene(
            srng,
            5,
            colours=cols,  # type: ignore[arg-type]
            faces=(1, 2, 3, 4, 5, 6),
            die_px=(22.0, 70.0),
        )
        for d in truth.dice:
            x, y, w, h = d.box
            crops.append(
                die_crop(img, x + w / 2, y + h / 2, max(w, h), context=WIDE_CONTEXT, out=WIDE)
                if wide
                else jitter_crop(
                    img,
                    x + w / 2,
                    y + h / 2,
                    max(w, h),
                    rng,
                    rotate=False,
                    scale=(0.85, 1.2),
                    shift=0.1,
                )
            )
            labels.append(d.face)
            tags.append("rendered")
    return crops, labels, tags


def distractor_crops(
    n: int, rng: np.random.Generator
) -> tuple[list[np.ndarray], list[int], list[str]]:
    """``n`` rendered not-a-die crops."""
    crops = []
    for _ in range(n):
        s = int(rng.integers(40, 120))
        patch = distractor(rng, s)
        crops.append(photometric(die_crop(patch, s / 2, s / 2, s / CONTEXT), rng))
    return crops, [0] * n, ["distractor"] * n


def stack(
    parts: list[tuple[list[np.ndarray], list[int], list[str]]], side: int = INPUT
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The parts' crops (``side`` pixels square) as one array, their labels and tags."""
    crops = [c for p in parts for c in p[0]]
    labels = [v for p in parts for v in p[1]]
    tags = [t for p in parts for t in p[2]]
    x = np.stack(crops) if crops else np.zeros((0, side, side, 3), np.uint8)
    return x, np.asarray(labels, np.int64), tags


def page_crops(
    n_pages: int, rng: np.random.Generator, *, per_page: int = 24
) -> tuple[list[np.ndarray], list[int], list[str]]:
    """Not-a-die crops of what the hand-written full-frame reader proposes on ``n_pages``
    rendered printed pages (``distractors.text_page``), at most ``per_page`` of each, cropped
    as the reader's proposals are, plus two random glyph-sized windows per page.

    Why: a page of text is where that reader proposes glyph clusters (".:" looks like three
    pips), and the net, which had only seen small letters in its distractor patches, took such
    a crop for a die at 0.99."""
    from vision.dice.fullframe import read_full_frame
    from vision.palette import default_palette
    from vision.train.distractors import text_page

    pal = default_palette()
    crops: list[np.ndarray] = []
    for _ in range(n_pages):
        page = text_page(rng, 480, 360)
        found = read_full_frame(page, cv2.cvtColor(page, cv2.COLOR_BGR2GRAY), pal, None)
        pick = rng.permutation(len(found))[:per_page]
        boxes = [found[int(i)].box for i in pick]
        for x, y, w, h in boxes:
            c = jitter_crop(
                page, x + w / 2, y + h / 2, max(w, h), rng, scale=(0.9, 1.1), shift=0.05
            )
            crops.append(photometric(c, rng))
        for _ in range(2):
            s = float(rng.uniform(14, 50))
            c = jitter_crop(page, float(rng.uniform(0, 480)), float(rng.uniform(0, 360)), s, rng)
            crops.append(photometric(c, rng))
    return crops, [0] * len(crops), ["page"] * len(crops)


def finder_crops(
    part: str,
    rng: np.random.Generator,
    *,
    per_die: int,
    limit: int | None = None,
) -> tuple[list[np.ndarray], list[int], list[str]]:
    """Crops of the boxes the hand-written finder (``reader.hand_proposals``, as ``read_dice``
    runs it on a whole frame) draws on the photos of ``part``: each box that matches a
    labelled die (``vision.eval.dice.match``) ``per_die`` times, jittered a little in place,
    scale and turn, with the die's face; each box on no labelled die once, as not a die.

    Why: the net is asked about the finder's boxes, not the label boxes it was trained on, and
    a finder's box is often off-centre, too tight or too loose, or takes in a neighbour; on the
    calibration photos most dice the reader found but did not answer were ones the net was
    unsure of on such a crop (``vision.eval.dice_gates_causes``). Why the hand finder and not
    the net's own detections: those come from a previous model, and the training data should
    not depend on the weights it replaces."""
    from vision.dice.reader import hand_proposals
    from vision.eval.dice import match
    from vision.palette import default_palette

    pal = default_palette()
    crops: list[np.ndarray] = []
    labels: list[int] = []
    tags: list[str] = []
    for name, im, img, dice in labelled_photos(part, limit):
        found = hand_proposals(img, pal, None)
        hit: set[int] = set()
        for lab, r in match(im["dice"], found):
            if r is None:
                continue
            hit.add(id(r))
            x, y, w, h = r.box
            for _ in range(per_die):
                c = jitter_crop(
                    img, x + w / 2, y + h / 2, max(w, h), rng, scale=(0.9, 1.12), shift=0.06
                )
                crops.append(photometric(c, rng))
                labels.append(int(lab["face"]))
                tags.append(name + ":finder")
        for r in found:
            x, y, w, h = r.box
            if id(r) in hit or not _away_from(dice, x + w / 2, y + h / 2, 0.9):
                continue
            c = jitter_crop(img, x + w / 2, y + h / 2, max(w, h), rng, scale=(0.95, 1.05))
            crops.append(photometric(c, rng))
            labels.append(0)
            tags.append(name + ":finder-false")
    return crops, labels, tags


ASTRIDE_REACH = 1.6  # two dice whose centres are within this many sides are neighbours


def astride_crops(
    part: str,
    rng: np.random.Generator,
    *,
    per_pair: int,
    limit: int | None = None,
) -> tuple[list[np.ndarray], list[int], list[str]]:
    """Not-a-die crops of the photos of ``part``: ``per_pair`` die-sized windows on the midpoint
    of each two neighbouring dice (centres at most ``ASTRIDE_REACH`` sides apart), each holding
    half of both.

    Why: the detector slides windows over the frame, and on a tray of touching dice a window
    between two dice sees half of each; the net, trained on framed dice and on patches at least
    0.7 of a side from every die (``real_crops``: "beside" only where no other die is near),
    never saw such a window, and read some surely as a face on the calibration photos. Why not
    a too-small or off-centre window on one die too (its middle four pips): the tray sets' labels
    box a die loosely (its sides in perspective, its corners when turned), so such a window cut
    by the label still frames the whole face often enough to contradict the dice."""
    crops: list[np.ndarray] = []
    tags: list[str] = []
    for name, _, img, dice in labelled_photos(part, limit):
        for x, y, side in astride_points(dice):
            for _ in range(per_pair):
                c = jitter_crop(img, x, y, side, rng, scale=(0.85, 1.2), shift=0.05)
                crops.append(photometric(c, rng))
                tags.append(name + ":astride")
    return crops, [0] * len(crops), tags


#: sets whose labels tell a die's size well enough to cut a part of its face from (``part_crops``):
#: the pip-box sets, whose die side is the photo's median pip box's (``photo_dice``). Not
#: rune55-trays, whose labels box a die loosely (its sides in perspective, its corners when
#: turned), nor byler-train: of 40 windows cut from such labels, five still showed a whole die
PART_SETS = PIP_BOX_SETS
PART_SCENES = 400  # rendered scenes (seeds from ``PART_SEED0``) whose dice give part windows too
PART_SEED0 = 720_000
PART_SIDE = (0.4, 0.5)  # a part window's side over the die's (a die's own crops: 0.8 and up)
PART_OFF = (0.25, 0.35)  # its centre's distance from the die's, in die sides


def part_crops(
    part: str,
    rng: np.random.Generator,
    *,
    per_die: int,
    limit: int | None = None,
) -> tuple[list[np.ndarray], list[int], list[str]]:
    """Not-a-die crops: ``per_die`` windows on a part of each die's face (``PART_SIDE`` of its
    side, centred ``PART_OFF`` sides off the die's centre), of the photos of ``part`` whose
    labels tell a die's size (``PART_SETS``) and of rendered dice (``PART_SCENES``).

    Why: the reader's wrong answers surest of their case were such windows read as the face
    they show a part of (on the calibration photos a 6 boxed off its centre read 5 at 0.9992,
    a 4 boxed round one pip read 1 at 0.979, a 5 read 2 at 0.982): the net had only seen a die's
    crops at 0.8 to 1.25 of its side, and a part of a face framed like a die looks like a
    smaller face."""
    from vision.render.dice import render_dice_scene

    crops: list[np.ndarray] = []
    tags: list[str] = []

    def cut(img: np.ndarray, d: LabelledDie, tag: str) -> None:
        for _ in range(per_die):
            x, y, s = part_window(d, rng)
            c = jitter_crop(img, x, y, s, rng, scale=(1.0, 1.0), shift=0.0)
            crops.append(photometric(c, rng))
            tags.append(tag)

    for name, _, img, dice in labelled_photos(part, limit):
        if name in PART_SETS:
            for d in dice:
                cut(img, d, name + ":part")
    for seed in range(PART_SEED0, PART_SEED0 + (2 if limit else PART_SCENES)):
        img, truth = render_dice_scene(
            np.random.default_rng(seed), 5, faces=(1, 2, 3, 4, 5, 6), die_px=(22.0, 70.0)
        )
        for rd in truth.dice:
            x, y, w, h = rd.box
            cut(img, LabelledDie(x + w / 2, y + h / 2, float(max(w, h)), rd.face), "rendered:part")
    return crops, [0] * len(crops), tags


def part_window(d: LabelledDie, rng: np.random.Generator) -> tuple[float, float, float]:
    """(x, y, side) of a window on a part of die ``d``'s face: ``PART_SIDE`` of its side,
    centred ``PART_OFF`` of its side from its centre, in a random direction."""
    a = float(rng.uniform(0, 2 * np.pi))
    r = float(rng.uniform(*PART_OFF)) * d.side
    s = float(rng.uniform(*PART_SIDE)) * d.side
    return d.cx + r * float(np.cos(a)), d.cy + r * float(np.sin(a)), s


def astride_points(dice: list[LabelledDie]) -> list[tuple[float, float, float]]:
    """(x, y, side) of the midpoint of each two neighbouring dice and their mean side, where no
    third die sits (within 0.4 of its side)."""
    out = []
    for i, a in enumerate(dice):
        for b in dice[i + 1 :]:
            side = (a.side + b.side) / 2
            if np.hypot(a.cx - b.cx, a.cy - b.cy) > ASTRIDE_REACH * side:
                continue
            x, y = (a.cx + b.cx) / 2, (a.cy + b.cy) / 2
            if _away_from(dice, x, y, 0.4):
                out.append((x, y, side))
    return out
