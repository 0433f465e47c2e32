"""The second edition's seven camels on rendered tables: set up, then read.

The crazy camels (black and white) face the other way round the track and share one hue;
the reader tells them apart by lightness (vision.palette.NEUTRAL_SPLIT_Y, BLACK_Y)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.eval.table import render_scene
from vision.palette import CAMEL_UP, CAMEL_UP2, CRAZY_CAMELS, camel_colours_rgb
from vision.render.table import (
    make_table,
    random_position_edition2,
    render_table_scene,
    sample_table_pose,
)
from vision.table import (
    Refusal,
    SetupRefused,
    TableProfile,
    capture_background,
    learn_camels,
    place_board,
    solve_markers,
)
from vision.track import read_track

FRAME = (1280, 720)
TABLE = 501  # a tuning table of the second edition (edition-2 tables were tuned on 500-507)


def _set_up(seed: int) -> tuple[object, TableProfile, object, float]:
    t = make_table(seed, edition=2)
    srng = np.random.default_rng([seed, 2])
    pose = sample_table_pose(srng, t, FRAME)
    kelvin = float(srng.uniform(2700, 6500))
    order = [str(c) for c in srng.permutation(list(t.geometry.colours))]
    empty, truth = render_table_scene(t, srng, {}, {}, kelvin=kelvin, pose=pose, size=FRAME)
    img, _ = render_table_scene(
        t, srng, {i + 1: [c] for i, c in enumerate(order)}, {}, kelvin=kelvin, pose=pose, size=FRAME
    )
    layout = solve_markers(empty, t.geometry)
    prof = place_board(TableProfile(), layout, np.asarray(truth.board_corners), FRAME, t.geometry)
    prof = learn_camels(prof, img, order)
    prof = replace(prof, background=capture_background(empty, prof.geometry, []))
    return t, prof, pose, kelvin


@pytest.fixture(scope="module")
def table2():
    return _set_up(TABLE)


def test_second_edition_table_has_the_seven_camels_of_the_palette():
    t = make_table(TABLE, edition=2)
    assert tuple(t.geometry.colours) == CAMEL_UP2
    assert t.geometry.max_stack == 7
    assert tuple(camel_colours_rgb(2)) == CAMEL_UP2
    with pytest.raises(ValueError):
        make_table(TABLE, edition=3)
    # the first edition's table of a seed is unchanged by the second edition's existence
    assert tuple(make_table(TABLE).geometry.colours) == CAMEL_UP


def test_set_up_learns_black_and_white_apart_and_refuses_a_missing_camel(table2):
    t, prof, pose, kelvin = table2
    assert set(prof.camels) == set(CAMEL_UP2)  # black and white both learnt, not refused alike
    # the seven camels told to stand on spaces 1-7, but the black one is not there
    srng = np.random.default_rng([TABLE, 9])
    order = list(CAMEL_UP2)
    track = {i + 1: [c] for i, c in enumerate(order) if c != "black"}
    img, _ = render_table_scene(t, srng, track, {}, kelvin=kelvin, pose=pose, size=FRAME)
    with pytest.raises(SetupRefused) as err:
        learn_camels(prof, img, order)
    assert err.value.code == Refusal.CAMEL_NOT_FOUND


def test_seven_camels_read_right_or_abstained_never_wrong(table2):
    t, prof, pose, kelvin = table2
    right = clear = 0
    crazy_read: set[str] = set()
    for k in range(3):
        rng = np.random.default_rng([TABLE, 100 + k])
        track = random_position_edition2(rng, t.geometry)
        img, truth = render_table_scene(t, rng, track, {}, kelvin=kelvin, pose=pose, size=FRAME)
        reading = read_track(img, prof.geometry, table=prof)
        assert reading.ok, reading.reason
        for s in range(1, 17):
            if s in truth.grazed or s in truth.covered:
                continue
            clear += 1
            if s in reading.uncertain:
                continue
            assert reading.track.get(s, []) == truth.track.get(s, []), (k, s)
            right += 1
            crazy_read |= set(reading.track.get(s, [])) & set(CRAZY_CAMELS)
    assert right >= 0.85 * clear
    assert crazy_read == set(CRAZY_CAMELS)


@pytest.mark.parametrize(
    ("seed", "space"),
    [
        (1_950_098, 10),  # black under blue: read "blue" by the band model
        (1_950_147, 14),  # black on white: read "white", black's band inside white's top face
        # red, green, white, black, purple: read "red, green, white", the black camel and
        # the purple one above it taken for the board behind the stack
        (1_950_214, 8),
    ],
)
def test_a_black_camel_is_not_lost_from_a_stack(seed, space):
    # tuning scenes of the second edition (python -m vision.eval.table --edition 2), each
    # read wrongly by the band model: black paint is too dark for a hue, so a black band
    # mixed into a window of another colour left its mean colour as it was. Now a window
    # with that much black paint is no other camel's colour, nor the board: they abstain
    scene = render_scene(seed, "same", edition=2)
    reading = scene.read()
    assert reading.ok, reading.reason
    assert "black" in scene.truth.track[space]
    assert space in reading.uncertain or reading.track.get(space) == scene.truth.track[space]


@pytest.mark.parametrize(
    ("seed", "space"),
    [
        (1_980_787, 8),  # yellow, white: read "white" by the band model, its base half a band up
        (1_980_833, 16),  # black, yellow: read "yellow", the black camel a strip under it
    ],
)
def test_a_camel_showing_only_a_strip_under_the_stack_is_not_dropped(seed, space):
    # tuning scenes of the second edition (python -m vision.eval.table --edition 2 --seed
    # 1980000), each read wrongly by the band model: the lower camel, covered by the one above
    # set askew towards the camera, shows only a strip a quarter of a band high, which fell in
    # the trimmed edges of the band model's windows (between the board's window below and the
    # lowest band's own). Now a lone stack found with such a strip under it is no read: they
    # abstain
    scene = render_scene(seed, "same", edition=2)
    reading = scene.read()
    assert reading.ok, reading.reason
    assert len(scene.truth.track[space]) == 2
    assert space in reading.uncertain or reading.track.get(space) == scene.truth.track[space]
