"""The empty board's look under the set-up's specular spot: kept, as evidence of a match only.

A lamp's spot on the board washes the sand out at set-up. That look was dropped (a frame
without the spot showed the sand "unlike the empty board" there, and empty spaces abstained).
With the same camera and lamp the spot is still there in play, and the sand in it read as
"something neither camel nor board". The look is now kept apart (``Background.glare``): a
sample that matches it is the board; one that does not is judged as if nothing were known.
Tuning scene 2,197,347: its empty space 15 lies in the spot, and with it read the game's rules
settle the two stacks that hung on it."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from tests.vision._trackkit import assert_space_read
from vision.background import GLARE_ALPHA, Background
from vision.eval import table as et
from vision.table import TableProfile
from vision.track import read_track

SEED = 2_197_347


@pytest.fixture(scope="module")
def scene() -> et.Scene:
    s = et.render_scene(SEED, "same")
    assert s.profile is not None and s.profile.background is not None
    glare = s.profile.background.glare
    assert glare is not None and glare.any()
    return s


@pytest.mark.parametrize(("space", "stack"), [(15, []), (6, ["blue"]), (13, ["white"])])
def test_spaces_in_and_beside_the_spot_are_read(space, stack):
    assert_space_read(SEED, space, stack)


def test_without_the_spot_s_look_the_empty_space_in_it_abstains(scene):
    prof = scene.profile
    assert prof is not None and prof.background is not None
    old = replace(prof, background=replace(prof.background, glare=None))
    reading = read_track(scene.image, scene.geometry, table=old)
    assert reading.ok, reading.reason
    assert 15 in reading.uncertain


def test_the_spot_s_look_is_never_known_as_the_board_s():
    """A cell under the spot is not ``valid``: a sample unlike it proves nothing, and the
    share of sand that must look as at set-up (``_sand_unlike_setup``) leaves it out."""
    chroma = np.full((4, 4, 3), 1 / 3, np.float32)
    valid = np.zeros((4, 4), bool)
    glare = np.zeros((4, 4), bool)
    valid[:, :2] = True
    glare[:, 2:] = True
    bg = Background((0.0, 0.0), 2.0, chroma, valid, None, glare)
    pts = np.array([[6.0, 2.0]])  # a cell under the spot
    far = np.array([[0.6, 0.2, 0.2]], np.float32)
    d, known = bg.distance(pts, far, reach=0)
    assert not known[0] and np.isinf(d[0])
    d, known = bg.distance(pts, far, reach=0, glare=True)
    assert known[0] and d[0] > 0.3  # known for a match: this one is far from it
    near = np.array([[1 / 3, 1 / 3, 1 / 3]], np.float32)
    d, _ = bg.distance(pts, near, reach=0, glare=True)
    assert d[0] < 1e-6


def test_the_spot_survives_the_profile_file(scene):
    prof = scene.profile
    assert prof is not None and prof.background is not None
    doc = prof.to_json()
    back = TableProfile.from_json(json.loads(json.dumps(doc)))
    assert back.background is not None and back.background.glare is not None
    assert np.array_equal(back.background.glare, prof.background.glare)
    assert np.array_equal(back.background.valid, prof.background.valid)
    # a reader from before the spot was kept reads its cells as unknown (alpha <= 127)
    assert 0 < GLARE_ALPHA <= 127
