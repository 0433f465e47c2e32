"""Camera probes (``vision.render.probes``) and their run through the track eval."""

from __future__ import annotations

import numpy as np
import pytest

from vision.eval import table as et
from vision.render.probes import Probe, apply_probe, tone_curve


def _frame() -> np.ndarray:
    rng = np.random.default_rng(7)
    img = np.full((90, 160, 3), 128, np.uint8)
    img[20:70, 30:130] = rng.integers(0, 256, (50, 100, 3), dtype=np.uint8)
    img[0, 0], img[0, 1] = (0, 0, 0), (255, 255, 255)
    return img


@pytest.mark.parametrize("probe", list(Probe))
def test_each_probe_gives_a_new_frame_of_the_same_shape_and_leaves_its_input(probe: Probe) -> None:
    img = _frame()
    before = img.copy()
    out = apply_probe(img, probe, np.random.default_rng(1))
    assert out.shape == img.shape and out.dtype == np.uint8 and out is not img
    assert np.array_equal(img, before)
    if probe is Probe.NONE:
        assert np.array_equal(out, img)
    else:
        assert not np.array_equal(out, img), probe
    again = apply_probe(img, probe, np.random.default_rng(1))
    assert np.array_equal(out, again)  # deterministic for one rng seed


def test_the_tone_curves_move_mid_tones_and_keep_black_and_white() -> None:
    img = _frame()
    dark, bright = tone_curve(img, 1.4), tone_curve(img, 0.7)
    assert tuple(dark[0, 0]) == (0, 0, 0) and tuple(dark[0, 1]) == (255, 255, 255)
    assert tuple(bright[0, 1]) == (255, 255, 255)
    assert dark[45, 5, 0] < 128 < bright[45, 5, 0]


def test_a_probe_is_applied_to_the_frame_read_and_to_the_set_up_snapshots() -> None:
    plain = et.render_scene(4_000_003, "same")
    dark = et.render_scene(4_000_003, "same", probe=Probe.DARK)
    assert np.array_equal(dark.image, tone_curve(plain.image, 1.4))
    assert plain.profile is not None and dark.profile is not None
    # the set-up was taught from darkened snapshots: other colours learnt for the same camels
    assert set(dark.profile.camels) == set(plain.profile.camels)
    assert dark.profile.camels["white"].chroma != plain.profile.camels["white"].chroma
    r = et.evaluate(2, seed=4_000_003, condition="same", jobs=1, probe=Probe.DARK)
    assert r["probe"] == "dark" and r["clear_spaces"] > 20
