"""The board's light helpers: ``sample`` gives one 3 x 3 mean whichever way it computes it,
and the track reader's label runs are what a plain loop over the samples finds."""

from __future__ import annotations

import numpy as np

from vision import board_light
from vision.board_light import sample
from vision.track import _runs


def _loop_mean(image: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """The 3 x 3 mean about each point, one point at a time (points clamped as ``sample``)."""
    h, w = image.shape[:2]
    out = []
    for x, y in pts:
        xi = min(max(round(float(x)), 1), w - 2)
        yi = min(max(round(float(y)), 1), h - 2)
        patch = image[yi - 1 : yi + 2, xi - 1 : xi + 2].reshape(9, -1)
        out.append(patch.astype(np.float64).mean(0))
    return np.array(out)


def test_a_few_points_and_many_get_the_same_three_by_three_mean() -> None:
    rng = np.random.default_rng(3)
    image = rng.integers(0, 256, (120, 160, 3), dtype=np.uint8)
    few = rng.uniform([-3, -3], [163, 123], (50, 2))  # some outside: clamped, not inside
    many = rng.uniform([0, 0], [160, 120], (board_light.NINE_LOOKUPS_MAX + 1, 2))
    for pts in (few, many):
        vals, inside = sample(image, pts, box=True)
        assert vals.dtype == np.float32 and vals.shape == (len(pts), 3)
        np.testing.assert_allclose(vals, _loop_mean(image, pts), atol=1e-4)
    _, inside = sample(image, few, box=True)
    assert not inside.all() and inside.any()


def test_a_grey_frame_is_sampled_as_grey_values() -> None:
    image = np.arange(30 * 40, dtype=np.uint8).reshape(30, 40)
    pts = np.array([[5.0, 5.0], [20.2, 10.7]])
    vals, _ = sample(image, pts, box=True)
    np.testing.assert_allclose(vals, _loop_mean(image[..., None], pts)[:, 0], atol=1e-4)


def test_runs_of_a_label_sequence() -> None:
    assert _runs(np.array([], np.int64)) == []
    assert _runs(np.array([4])) == [(4, 0, 1)]
    label = np.array([2, 2, 0, 0, 0, 2, 5, 5])
    assert _runs(label) == [(2, 0, 2), (0, 2, 3), (2, 5, 1), (5, 6, 2)]
    assert all(type(v) is int for run in _runs(label) for v in run)
