"""A lamp's sheen the set-up did not see: the sand there is brighter and paler, still empty.

A glossy board shows the lamp's mirror image, a bright spot that moves with the camera. With the
camera re-mounted since set-up, the spot falls on sand the set-up saw without it; that sand read
0.05-0.07 towards grey from its set-up look, beyond the 0.045 that tells "as at set-up", and the
empty space abstained ("something not on the empty board covers it"). ``vision.track`` lets the
look pale by the share of white light the brightness gain adds, where the space's front line
shows (``_sheen_paleness``, ``vision.background.paled_distance``). Tuning scenes of
``vision.eval.table`` (camera re-mounted): 2,234,033 (a sheen), 2,237,718 (a pale hand over a
camel, brighter than the sand it covers).
"""

from __future__ import annotations

import numpy as np
import pytest

from vision.background import PALE_SATURATION, paled_distance
from vision.eval import table as et

SAND = np.array([0.11, 0.34, 0.55], np.float32)  # a board's sand, white-balanced
GREY = np.full(3, 1.0 / 3.0, np.float32)


def _with_white(look: np.ndarray, share: float) -> np.ndarray:
    """The chromaticity of ``look`` with white light making up ``share`` of the light."""
    return np.asarray((1.0 - share) * look + share * GREY, np.float32)


def test_white_light_added_to_a_look_is_near_it_up_to_the_share_allowed():
    seen = _with_white(SAND, 0.3)
    assert float(np.linalg.norm(seen - SAND)) > 0.045  # as a point, unlike the look
    assert paled_distance(seen, SAND, np.float32(0.4)) == pytest.approx(0.0, abs=1e-6)
    # paler than the light allows: only as near as the allowed end
    d = paled_distance(seen, SAND, np.float32(0.1))
    assert d == pytest.approx(0.2 * float(np.linalg.norm(GREY - SAND)), rel=1e-4)
    # no allowance: the plain distance
    assert paled_distance(seen, SAND, np.float32(0.0)) == pytest.approx(
        float(np.linalg.norm(seen - SAND)), rel=1e-5
    )


def test_paling_never_changes_the_hue_nor_makes_a_look_purer():
    to_grey = GREY - SAND
    turn = np.array([0.05, -0.05, 0.0], np.float32)
    turn -= (turn @ to_grey) / (to_grey @ to_grey) * to_grey  # no nearer grey, no farther
    other_hue = SAND + turn
    assert paled_distance(other_hue, SAND, np.float32(0.5)) == pytest.approx(
        float(np.linalg.norm(turn)), rel=1e-4
    )
    purer = SAND + 0.2 * (SAND - GREY)  # away from grey: a shade, not white light
    assert paled_distance(purer, SAND, np.float32(0.5)) == pytest.approx(
        float(np.linalg.norm(purer - SAND)), rel=1e-5
    )


def test_a_look_near_grey_is_not_stretched_towards_a_grey_piece():
    table = GREY + np.array([0.04, 0.0, -0.04], np.float32)  # a grey cloth
    assert float(np.linalg.norm(table - GREY)) < PALE_SATURATION
    white_camel = GREY.copy()
    assert paled_distance(white_camel, table, np.float32(0.5)) == pytest.approx(
        float(np.linalg.norm(white_camel - table)), rel=1e-5
    )


def test_per_point_allowances_apply_point_by_point():
    looks = np.stack([SAND, SAND])
    seen = np.stack([_with_white(SAND, 0.3), _with_white(SAND, 0.3)])
    d = paled_distance(seen, looks, np.array([0.5, 0.0], np.float32))
    assert d[0] == pytest.approx(0.0, abs=1e-6) and d[1] > 0.045


@pytest.mark.parametrize("space", [14, 15])
def test_empty_sand_under_a_sheen_the_set_up_did_not_see_is_read_empty(space: int):
    scene = et.render_scene(2_234_033, "other")
    assert space not in scene.truth.track
    assert space not in scene.truth.covered and space not in scene.truth.grazed
    reading = scene.read()
    assert space not in reading.uncertain, reading.spaces[space].why
    assert reading.track.get(space, []) == []


def test_a_pale_hand_brighter_than_the_sand_over_a_camel_stays_in_doubt():
    scene = et.render_scene(2_237_718, "other")
    assert scene.truth.track[6] == ["blue"] and 6 in scene.truth.covered
    reading = scene.read()
    assert 6 in reading.uncertain, reading.track.get(6)
