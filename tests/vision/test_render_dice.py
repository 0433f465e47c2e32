"""The dice renderer: deterministic per seed, truthful boxes, and the effects it applies."""

from __future__ import annotations

import numpy as np
import pytest

from vision.render import effects
from vision.render.dice import CAMEL_UP_COLOURS, draw_die, render_dice_scene


def test_scene_is_deterministic_per_seed() -> None:
    a, ta = render_dice_scene(np.random.default_rng(7))
    b, tb = render_dice_scene(np.random.default_rng(7))
    c, _ = render_dice_scene(np.random.default_rng(8))
    assert np.array_equal(a, b)
    assert ta.dice == tb.dice
    assert not np.array_equal(a, c)


def test_scene_truth_lists_five_camel_up_dice_inside_the_frame() -> None:
    img, truth = render_dice_scene(np.random.default_rng(1), size=(640, 480))
    assert img.shape == (480, 640, 3) and img.dtype == np.uint8
    assert sorted(d.colour for d in truth.dice) == sorted(CAMEL_UP_COLOURS)
    for d in truth.dice:
        x, y, w, h = d.box
        assert 0 <= x and 0 <= y and x + w <= 640 and y + h <= 480
        assert d.face in (1, 2, 3)
        assert 0.8 * d.size_px <= max(w, h) <= 2.0 * d.size_px


def test_draw_die_changes_only_the_die_area() -> None:
    img = np.full((200, 200, 3), 120, np.uint8)
    t = draw_die(img, (100, 100), 40, "yellow", 3, np.random.default_rng(0), angle=10)
    x, y, w, h = t.box
    assert abs(x + w / 2 - 100) < 12 and abs(y + h / 2 - 100) < 12
    assert (img[:40, :40] == 120).all()  # far corner untouched
    # the yellow body is there: red and green high, blue low
    b, g, r = img[y + h // 2 - 8, x + w // 2 + 4].astype(int)
    assert r > 180 and g > 150 and b < 110 or img[y : y + h, x : x + w, 1].max() > 180


@pytest.mark.parametrize("bad", [dict(face=7), dict(colour="mauve"), dict(size_px=3)])
def test_draw_die_rejects_bad_arguments(bad: dict) -> None:
    img = np.zeros((100, 100, 3), np.uint8)
    args = dict(center=(50, 50), size_px=30, colour="blue", face=2) | bad
    with pytest.raises(ValueError):
        draw_die(img, rng=np.random.default_rng(0), **args)


def test_warm_lamp_tints_and_dims() -> None:
    grey = np.full((10, 10, 3), 200, np.uint8)
    warm = effects.apply_lighting(grey, effects.kelvin_to_bgr(2700), 0.8)
    b, g, r = warm[5, 5].astype(int)
    assert r > g > b and r <= 160


def test_effects_keep_shape_and_reject_bad_values() -> None:
    rng = np.random.default_rng(0)
    img = np.full((60, 80, 3), 128, np.uint8)
    out = effects.apply_effects(img, effects.EffectParams.sample(rng, (80, 60)), rng)
    assert out.shape == img.shape and out.dtype == np.uint8
    with pytest.raises(ValueError):
        effects.jpeg(img, 0)
    with pytest.raises(ValueError):
        effects.kelvin_to_bgr(100)
