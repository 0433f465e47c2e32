"""The realistic table renderer: deterministic, honest truth, real-looking paint and sizes."""

from __future__ import annotations

import numpy as np
import pytest

from vision.board import load_geometry
from vision.render.table import (
    NOMINAL_CELL_MM,
    REAL_CAMEL_RGB,
    lamp_spot,
    make_table,
    render_table_scene,
    sample_table_pose,
)


def _chroma(rgb):
    lin = (np.asarray(rgb, np.float64) / 255.0) ** 2.2
    return lin / lin.sum()


def test_same_seed_same_frame():
    t = make_table(4)
    a, ta = render_table_scene(t, np.random.default_rng(1), hands=1, dice=[("green", 3)])
    b, tb = render_table_scene(
        make_table(4), np.random.default_rng(1), hands=1, dice=[("green", 3)]
    )
    c, _ = render_table_scene(t, np.random.default_rng(2))
    assert a.shape == (720, 1280, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b) and ta.to_json() == tb.to_json()
    assert not np.array_equal(a, c)


def test_tables_vary_board_size_within_15_percent_and_keep_cards_off_the_board():
    cells = [make_table(s).cell for s in range(40)]
    assert min(cells) >= 0.85 * NOMINAL_CELL_MM and max(cells) <= 1.15 * NOMINAL_CELL_MM
    assert max(cells) - min(cells) > 0.15 * NOMINAL_CELL_MM
    t = make_table(7)
    side = 5 * t.cell
    for x, y, _ in t.markers.values():
        assert x < 0 or y < 0 or x > side or y > side


def test_paint_sits_where_the_issue_measured_real_camels():
    """Blue, green and orange 0.16-0.23 from board.yaml's nominal colour (the issue's report)."""
    nominal = load_geometry().colours
    for name in ("blue", "green", "orange"):
        d = np.linalg.norm(_chroma(REAL_CAMEL_RGB[name]) - _chroma(nominal[name]))
        assert 0.15 <= d <= 0.23, (name, d)
    # and each table's paint spreads round it, never onto another colour
    for s in range(10):
        paint = make_table(s).camel_rgb
        for name, rgb in paint.items():
            own = np.linalg.norm(_chroma(rgb) - _chroma(REAL_CAMEL_RGB[name]))
            others = [
                np.linalg.norm(_chroma(rgb) - _chroma(REAL_CAMEL_RGB[o]))
                for o in paint
                if o != name
            ]
            assert own < min(others) / 2, (s, name)


def test_truth_marks_hands_and_rejects_impossible_positions():
    t = make_table(2)
    _, truth = render_table_scene(t, np.random.default_rng(3), {4: ["blue"]}, {}, hands=2)
    assert truth.covered or truth.grazed
    with pytest.raises(ValueError, match="both camels and a desert tile"):
        render_table_scene(t, np.random.default_rng(3), {4: ["blue"]}, {4: "oasis"})
    with pytest.raises(ValueError, match="hands"):
        render_table_scene(t, np.random.default_rng(3), hands=9)


def test_a_tables_lamp_shows_its_spot_in_the_same_place_in_every_frame():
    # the lamp is part of the table: with the camera and the lamp fixed, every frame shows
    # its bright spot (on a glossy board) in one place; a camera re-mounted sees it elsewhere
    glossy = [s for s in range(100_000, 100_060) if make_table(s).gloss is not None]
    assert glossy and len(glossy) < 30  # about 15 % of tables
    seen = 0
    for seed in glossy:
        table = make_table(seed)
        pose = sample_table_pose(np.random.default_rng(seed), table)
        spot = lamp_spot(table, pose, (1280, 720))
        if spot is None:
            continue  # the lamp's mirror image falls off this frame
        seen += 1
        glares = [
            render_table_scene(table, np.random.default_rng(k), pose=pose)[1].effects["glare"]
            for k in (1, 2)
        ]
        assert glares[0] is not None and list(glares[0]) == list(glares[1])
        assert list(glares[0]) == pytest.approx(list(spot))
        other = sample_table_pose(np.random.default_rng(seed + 1), table)
        moved = lamp_spot(table, other, (1280, 720))
        assert moved is None or np.hypot(moved[0] - spot[0], moved[1] - spot[1]) > 5.0
    assert seen >= 2
    matte = next(s for s in range(100_000, 100_060) if make_table(s).gloss is None)
    _, truth = render_table_scene(make_table(matte), np.random.default_rng(1))
    assert truth.effects["glare"] is None
