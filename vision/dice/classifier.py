"""The learned die classifier: a die crop in, face 1..6 or "not a die" out, with a calibrated
probability. Run with OpenCV's ``cv2.dnn`` on a small ONNX file shipped in the package.

Why a learned model beside the hand-written pip reader: the pip reader was tuned on few photo
sets, and on photos of other sources it invents dice (keyboard keys, dust, letters) and misses
faces. The classifier was trained (``vision.train``, PyTorch at training time only) on real crops
of several sources and on rendered Camel Up dice, with "not a die" crops of backgrounds and
rendered distractors; its probabilities are temperature-scaled on a calibration split, so that a
confidence means the same share of wrong answers as the hub's threshold assumes.

The crop is defined here, once, and used by the training too: a square of ``CONTEXT`` times the
die's side about the die's centre, resized to ``INPUT`` pixels, scaled to about -2..2 by fixed
constants (no per-crop statistics: the same net then also runs over a whole frame at once, see
``detect``; the training's colour and exposure jitter stand for the lamps it will meet).

A crop's verdict may average the net's logits over turned and mirrored views of the crop
(``dihedral``; the metadata's ``"views"``, 1 when absent, and a temperature fitted on those
averages by ``vision.train.train --views``). Why: a die's face and its dieness do not change
when the crop is turned or mirrored, while the small net's errors do. On the calibration crops,
with the candidate model of November 2026 (widths 16..128, printed pages as not-a-die): one view
right 0.9565, log-loss 0.130, dice answerable at 99 % right 85.2 %; four views (the crop, its
half turn, their mirror images) 0.9655, 0.109, 88.9 %; eight 0.9672, 0.104, 88.9 %. Four cost
half of eight. The shipped net (widths 12..96) reads its crops over eight views: on the
calibration crops right 0.9499 -> 0.9613 (four views 0.9575), log-loss 0.151 -> 0.121, dice
answerable at 99 % right 82.9 -> 85.7 % (four 85.4 %); on the calibration photos, under gates
re-chosen for each, it found 649 dice of 722 (one view 633, four 656), 11 false (17, 14),
answered 402 (393, 375), wrong 1 (1, 1). Fewer views for unsure crops only were tried too
(November 25, gates re-chosen on the calibration photos; eight: found 645, false 11, answered
408, wrong 1): the four quarter turns alone read the calibration crops as well as eight
(answerable at 99 % 86.0 %) but on the photos found 624, false 12, answered 396; six (those
and the mirror image's half turns) 649, 13, 392. The wider candidate over eight views: 650,
17, 412. Wrong was 1 in each; none was kept. The whole-frame pass (``dense_logits``) stays
one view: its speed matters there, and its logits are scaled by their own temperature
(``dense_temperature``, fitted on one view; the views' mean is surer than one view, so its
temperature is lower). Only a crop whose first view is unsure (``SURE``) is turned: most
crops, bare table or a plain die, are settled by one view at the one-view temperature.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

INPUT = 48  # crop side in pixels, as the net takes it
CONTEXT = 1.5  # crop side over the die's side: the die and a margin of table round it
CLASSES = ("none", "1", "2", "3", "4", "5", "6")  # index 0: not a die
VIEW_COUNTS = (1, 4, 8)  # views a verdict averages: the crop alone, or its turns and mirror images
#: crops per pass of their views: the net's activations grow with the batch (8 x 64 crops take
#: ~0.2 GB in cv2.dnn; a frame's thousand detections in one pass took several GB)
VIEW_CHUNK = 64
#: images per run of the net (``net_logits``). Why: cv2.dnn allocates every layer's output for the
#: batch it is given, about 0.3 MB an image for this net, and keeps it until a run of another
#: shape. A whole frame's seven further views of 8 crops went through as one batch of 56: the
#: watch's peak rose 16 MB and 11 MB stayed held after the read (issue 14). In runs of 8 the
#: logits are the same to the bit and the time per image the same within noise.
NET_BATCH = 8
#: a crop whose first view gives one class (a face, or "not a die") at least this calibrated
#: chance (at the one-view temperature) keeps that view's verdict; only the others are turned and
#: mirrored. Why: the views cost 0.67 ms each per crop in OpenCV's default engine (0.3 ms in the
#: classic one, ``read_net``), eight of them broke the 5 ms per die and the 12 MP photo's 1.5 s,
#: and they change nothing on a crop already sure: on the calibration
#: crops (2,897, model of November 2026) 71 % are this sure in one view, of them 2 read wrong by
#: one view and the same 2 by eight; right (0.9613) and dice answerable at 99 % right (85.7 %)
#: are those of eight views on every crop, at 3.0 views per crop on average instead of 8
SURE = 0.99
MODEL_DIR = Path(__file__).resolve().parent / "models"
MODEL_FILE = MODEL_DIR / "die_classifier.onnx"
META_FILE = MODEL_DIR / "die_classifier.json"


def read_net(model: Path) -> cv2.dnn.Net:
    """The ONNX net in ``cv2.dnn``'s classic engine where this OpenCV has more than one.

    Why: OpenCV 5's default engine (``ENGINE_AUTO``, which takes the new one for this graph)
    runs this small net 2.3 times slower on one thread: a batch of eight crops took 4.9 ms of
    CPU against 2.1 ms in the classic engine, whose logits differ by 3e-6 at most (a loaded
    machine, November 2026). OpenCV 4 has only the classic engine and no ``engine`` argument."""
    engine = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
    if engine is None:
        return cv2.dnn.readNetFromONNX(str(model))
    return cv2.dnn.readNetFromONNX(str(model), engine=engine)


class ModelError(RuntimeError):
    """The classifier's model file is missing or unreadable; the message names the file."""


@dataclass(frozen=True)
class CropClass:
    """One crop's verdict: probabilities over ``CLASSES`` (calibrated), and what they mean."""

    probs: tuple[float, ...]

    @property
    def p_die(self) -> float:
        """Probability that the crop is a die (any face)."""
        return 1.0 - self.probs[0]

    @property
    def face(self) -> int:
        """The likeliest face, 1..6 (whether or not the crop is likely a die)."""
        return 1 + int(np.argmax(self.probs[1:]))

    @property
    def face_prob(self) -> float:
        """Probability of that face (over all seven classes: a doubt about dieness counts)."""
        return float(self.probs[self.face])

    def prob_of(self, faces: Sequence[int]) -> np.ndarray:
        """Probabilities of ``faces`` renormalised among them (a Camel Up die shows 1..3)."""
        p = np.array([self.probs[f] for f in faces], np.float64)
        return p / max(float(p.sum()), 1e-12)


def die_crop(
    image: np.ndarray,
    cx: float,
    cy: float,
    side: float,
    *,
    context: float = CONTEXT,
    out: int = INPUT,
) -> np.ndarray:
    """The classifier's input crop (``INPUT`` x ``INPUT`` BGR uint8) of a die at (cx, cy) whose
    side is ``side`` pixels. Parts outside the frame are filled by replicating its edge.
    ``context`` and ``out``: a wider square at the same pixels per die (the training's crops
    that are re-cut every epoch, ``vision.train.data.WIDE_CONTEXT``)."""
    half = 0.5 * context * max(float(side), 2.0)
    x0, y0 = int(np.floor(cx - half)), int(np.floor(cy - half))
    x1, y1 = int(np.ceil(cx + half)), int(np.ceil(cy + half))
    h, w = image.shape[:2]
    pad = (max(0, -y0), max(0, y1 - h), max(0, -x0), max(0, x1 - w))
    patch = image[max(y0, 0) : min(y1, h), max(x0, 0) : min(x1, w)]
    if patch.size == 0:
        return np.zeros((out, out, 3), np.uint8)
    if any(pad):
        patch = cv2.copyMakeBorder(patch, *pad, cv2.BORDER_REPLICATE)
    interp = cv2.INTER_AREA if patch.shape[0] > out else cv2.INTER_LINEAR
    return cv2.resize(patch, (out, out), interpolation=interp)


def to_blob(crops: np.ndarray) -> np.ndarray:
    """N x INPUT x INPUT x 3 uint8 crops -> the net's N x 3 x INPUT x INPUT float32 input."""
    # transposed while still bytes, then scaled in place: one float array, not two (the same
    # numbers; a whole frame's read peaks in the net's pass, issue 14)
    x = np.ascontiguousarray(crops.transpose(0, 3, 1, 2)).astype(np.float32)
    x -= 128.0
    x /= 64.0
    return x


def dihedral(crops: np.ndarray, views: int = 8) -> np.ndarray:
    """N x H x W x C crops -> views x N: each crop turned and mirrored, view k of crop i at row
    k * N + i, view 0 the crop itself. Eight views: the four quarter turns of the crops, then of
    their mirror images; four: the half turns only (0 and 180 degrees) of both; one: the crops."""
    turns = (0, 1, 2, 3) if views == 8 else (0, 2)
    images = (crops, crops[:, :, ::-1]) if views > 1 else (crops,)
    out: list[np.ndarray] = []
    for img in images:
        out.extend(np.rot90(img, k, axes=(1, 2)) for k in (turns if views > 1 else (0,)))
    return np.ascontiguousarray(np.concatenate(out))


def view_mean(logits: np.ndarray, views: int) -> np.ndarray:
    """(views * N) x K logits of ``views`` stacked views -> the N x K mean over the views."""
    out: np.ndarray = logits.reshape(views, -1, logits.shape[1]).mean(axis=0)
    return out


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """Probabilities of N x K logits divided by the calibration ``temperature``."""
    z = logits / temperature
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    out: np.ndarray = e / e.sum(axis=1, keepdims=True)
    return out


class DieClassifier:
    """The ONNX net and its calibration, loaded once (``load_classifier``)."""

    def __init__(
        self, model: Path = MODEL_FILE, meta: Path = META_FILE, *, sure: float = SURE
    ) -> None:
        self.sure = sure  # above 1: every crop over all its views
        for f in (model, meta):
            if not f.is_file():
                raise ModelError(f"die classifier file is missing: {f}")
        try:
            info = json.loads(meta.read_text())
            self.temperature = float(info["temperature"])
            self.views = int(info.get("views", 1))
            self.dense_temperature = float(info.get("dense_temperature", self.temperature))
            if info["input"] != INPUT or tuple(info["classes"]) != CLASSES:
                raise ValueError(f"made for input {info['input']} and classes {info['classes']}")
            if self.views not in VIEW_COUNTS:
                raise ValueError(f"views must be one of {VIEW_COUNTS}, not {self.views}")
        except (ValueError, KeyError, TypeError) as e:
            raise ModelError(f"die classifier metadata is unreadable: {meta}: {e}") from e
        try:
            self.net = read_net(model)
            probe = self.net_logits(np.zeros((1, INPUT, INPUT, 3), np.uint8))
        except cv2.error as e:
            raise ModelError(
                f"die classifier model is unreadable: {model}: {str(e).strip().splitlines()[-1]}"
            ) from e
        if probe.shape != (1, len(CLASSES)):
            raise ModelError(f"die classifier model gives {probe.shape} outputs: {model}")
        self.info = info

    def net_logits(self, crops: np.ndarray) -> np.ndarray:
        """Raw logits (N x 7) of N crops, ``NET_BATCH`` crops per run of the net."""
        if len(crops) <= NET_BATCH:
            return self._run(crops)
        return np.concatenate(
            [self._run(crops[k : k + NET_BATCH]) for k in range(0, len(crops), NET_BATCH)]
        )

    def _run(self, crops: np.ndarray) -> np.ndarray:
        self.net.setInput(to_blob(crops))
        return np.asarray(self.net.forward(), np.float64).reshape(len(crops), len(CLASSES))

    def crop_logits(self, crops: np.ndarray) -> np.ndarray:
        """The logits (N x 7) a verdict is made of, to be read at ``temperature``: the mean of
        ``net_logits`` over the crops' ``views`` (``dihedral``), a chunk of crops per pass; a
        crop its first view already calls sure (``sure``, default ``SURE``) keeps that view's
        logits, rescaled so that their softmax at ``temperature`` is the one view's calibrated
        softmax (at ``dense_temperature``)."""
        if self.views == 1:
            return self.net_logits(crops)
        parts = [
            self._views_mean(crops[k : k + VIEW_CHUNK]) for k in range(0, len(crops), VIEW_CHUNK)
        ]
        return np.concatenate(parts) if parts else np.zeros((0, len(CLASSES)))

    def _views_mean(self, crops: np.ndarray) -> np.ndarray:
        first = self.net_logits(crops)
        more = softmax(first, self.dense_temperature).max(axis=1) < self.sure
        out = first * (self.temperature / self.dense_temperature)
        if not more.any():
            return out
        sub = crops[more]
        rest = self.net_logits(dihedral(sub, self.views)[len(sub) :])
        out[more] = (
            first[more] + rest.reshape(self.views - 1, len(sub), -1).sum(axis=0)
        ) / self.views
        return out

    def dense_logits(self, image: np.ndarray) -> np.ndarray:
        """7 x gh x gw logits of the net slid over a whole (padded, scaled) frame: window
        (i, j) is the 48 px square at (8 j, 8 i) of ``image``. One view: their probabilities
        are ``softmax`` at ``dense_temperature``."""
        self.net.setInput(to_blob(image[None]))
        out = np.asarray(self.net.forward(), np.float64)
        return out.reshape(out.shape[1:])

    def classify(self, crops: np.ndarray) -> list[CropClass]:
        """Calibrated verdicts of N crops (``die_crop``)."""
        if len(crops) == 0:
            return []
        probs = softmax(self.crop_logits(crops), self.temperature)
        return [CropClass(tuple(float(v) for v in row)) for row in probs]

    def classify_boxes(
        self, image: np.ndarray, boxes: Sequence[tuple[float, float, float, float]]
    ) -> list[CropClass]:
        """Verdicts of dice boxed (x, y, w, h) in ``image``: crop about each box's centre."""
        crops = (
            np.stack([die_crop(image, x + w / 2, y + h / 2, max(w, h)) for x, y, w, h in boxes])
            if boxes
            else np.zeros((0,))
        )
        return self.classify(crops)


@lru_cache(maxsize=1)
def load_classifier() -> DieClassifier:
    """The shipped classifier (cached). ``ModelError`` naming the file if it is absent or bad."""
    return DieClassifier(MODEL_FILE, META_FILE)  # the module's names, read now (tests swap them)
