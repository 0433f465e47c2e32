"""The learned die classifier as shipped: the ONNX file read by cv2.dnn, PyTorch's outputs on
fixed crops, its size and calibration, and clean rendered dice of every face."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.dice.classifier import (
    CLASSES,
    INPUT,
    META_FILE,
    MODEL_FILE,
    die_crop,
    load_classifier,
)
from vision.render.dice import draw_die, make_background

REFERENCE = Path(__file__).resolve().parents[1] / "fixtures" / "die_classifier_ref.npz"


def test_shipped_model_loads_with_cv2_dnn_and_gives_pytorchs_logits() -> None:
    """The reference logits were written by PyTorch when the model was trained and exported."""
    ref = np.load(REFERENCE)
    clf = load_classifier()
    got = clf.net_logits(ref["crops"])
    assert got.shape == (len(ref["crops"]), len(CLASSES))
    np.testing.assert_allclose(got, ref["logits"], atol=1e-3)


def test_shipped_model_is_small_and_calibrated() -> None:
    meta = json.loads(META_FILE.read_text())
    assert MODEL_FILE.stat().st_size <= 3 * 1024 * 1024
    assert 0.3 < meta["temperature"] < 5.0
    assert meta["input"] == INPUT and meta["quick"] is False


def test_reference_crops_are_read_as_what_they_show() -> None:
    """The fixed crops: rendered dice (faces known) and distractors (not a die)."""
    ref = np.load(REFERENCE)
    verdicts = load_classifier().classify(ref["crops"])
    dice = [v for v in verdicts if v.p_die >= 0.5]
    assert len(dice) >= 8 and sum(v.p_die < 0.5 for v in verdicts[-6:]) >= 5


def _rendered_die(face: int, colour: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = make_background(rng, (160, 160))
    d = draw_die(img, (80.0, 80.0), 48.0, colour, face, rng)
    x, y, w, h = d.box
    return die_crop(img, x + w / 2, y + h / 2, max(w, h))


@pytest.mark.parametrize("face", [1, 2, 3, 4, 5, 6])
def test_clean_rendered_dice_are_read_right(face: int) -> None:
    crops = np.stack(
        [_rendered_die(face, c, 40 + face) for c in ("blue", "green", "orange", "yellow", "white")]
    )
    verdicts = load_classifier().classify(crops)
    assert [v.face for v in verdicts] == [face] * 5
    assert min(v.face_prob for v in verdicts) >= 0.8
