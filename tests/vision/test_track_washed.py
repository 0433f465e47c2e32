"""A learnt camel colour reaches back towards grey: a camel under the lamp's spot in play.

The other side of ``test_track_saturated``: a camel taught in the lamp's fall-off reads as pure
as its paint, and the same camel in play under the spot, or lit on its top face, reads washed
out towards grey, outside the learnt radius ("something neither camel nor board covers the
base of the space"). ``vision.track.washed_end`` lets each learnt camel colour reach back
along its line towards grey, kept clear of every other class and of skin; over the table
beyond the board the washed end is not taken. Tuning scenes of ``vision.eval.table``, camera
re-mounted: 2,256,000..2,257,999.
"""

from __future__ import annotations

import numpy as np
import pytest

from vision.board_light import segment_distance
from vision.eval import table as et
from vision.track import PALE_CLEAR, PALE_REACH, SKIN, _classify, _Palette, washed_end

GREY = np.full(3, 1.0 / 3.0, np.float32)
# the palette of tuning table 225,724 as its set-up learnt it (blue, green, red shares)
BLUE = np.array([0.913, 0.062, 0.024], np.float32)
ORANGE = np.array([0.010, 0.047, 0.944], np.float32)
YELLOW = np.array([0.005, 0.348, 0.644], np.float32)
SAND = np.array([0.185, 0.326, 0.490], np.float32)
MIRAGE = np.array([0.372, 0.249, 0.378], np.float32)
WHITE = np.array([0.307, 0.344, 0.352], np.float32)


def _end(colour: np.ndarray, others: list[np.ndarray]) -> np.ndarray:
    o = np.stack(others)
    return washed_end(colour, o, o)


def test_a_pure_blue_reaches_back_towards_grey_on_its_own_line():
    pale = _end(BLUE, [ORANGE, YELLOW, SAND, MIRAGE, WHITE])
    v, w = BLUE - GREY, pale - GREY
    assert np.linalg.norm(np.cross(v, w)) < 1e-5 and float(v @ w) > 0  # the same hue
    assert float(np.linalg.norm(w)) == pytest.approx(PALE_REACH * float(np.linalg.norm(v)))
    # the blue camel as it showed in play under the spot: on the stretch's reach now, and
    # twice the acceptance radius from the learnt point
    played = np.array([0.722, 0.160, 0.118], np.float32)
    assert segment_distance(played[None], pale[None], BLUE[None])[0, 0] < 0.05
    assert float(np.linalg.norm(played - BLUE)) > 0.2


def test_an_orange_stops_short_of_skin():
    """Skin is a washed-out orange: an orange that reached as far as the blue took in the
    hands over the track (tuning scenes 2,256,000..2,257,999: 27 spaces fewer abstained, 46
    more, a hand's empty space read as an orange camel among them)."""
    pale = _end(ORANGE, [BLUE, YELLOW, SAND, MIRAGE, WHITE])
    line = ORANGE + np.linspace(0.0, 1.0, 11)[:, None] * (pale - ORANGE)
    assert segment_distance(line, SKIN[:1], SKIN[1:]).min() >= PALE_CLEAR - 1e-5
    reach = float(np.linalg.norm(pale - GREY)) / float(np.linalg.norm(ORANGE - GREY))
    assert PALE_REACH + 0.05 < reach < 1.0  # it went back, but not as far as it may


def test_a_yellow_beside_the_sand_and_a_grey_stay_where_they_are():
    # yellow's grey side is the sand, already nearer than the clearance
    assert np.array_equal(_end(YELLOW, [BLUE, ORANGE, SAND]), YELLOW)
    assert np.array_equal(_end(WHITE, [BLUE, ORANGE, SAND]), WHITE)  # no hue to follow


def test_every_step_back_keeps_clear_of_the_other_classes():
    near = GREY + 0.65 * (BLUE - GREY) + np.array([0.0, 0.0, 0.15], np.float32)
    pale = _end(BLUE, [near])
    line = BLUE + np.linspace(0.0, 1.0, 21)[:, None] * (pale - BLUE)
    assert np.linalg.norm(line - near, axis=1).min() >= PALE_CLEAR - 1e-5
    free = _end(BLUE, [ORANGE])
    assert float(np.linalg.norm(pale - GREY)) > float(np.linalg.norm(free - GREY))


def test_the_washed_end_is_not_taken_over_the_table():
    names = ["blue", "board"]
    chroma = np.stack([BLUE, SAND])
    pale = np.stack([_end(BLUE, [SAND]), SAND])
    pal = _Palette(names, chroma, np.array([0.11, 0.075], np.float32), pale=pale)
    washed = np.array([0.700, 0.170, 0.130]) * 0.15  # linear light: a lit, washed blue
    lin = np.stack([washed, washed])
    assert list(_classify(pal, lin, dark=0.004)[0]) == [0, 0]
    plain = np.array([False, True])  # the second sample's ray meets the table
    assert list(_classify(pal, lin, dark=0.004, plain=plain)[0]) == [0, 2]


@pytest.mark.parametrize(
    ("seed", "space"),
    [
        # a blue camel in play under a 6,200 K lamp's spot, taught pure
        (2_257_248, 3),
        (2_257_746, 3),
        # a lone blue camel on a far space before a greyish-blue cloth under a 3,300 K lamp:
        # with the washed end taken over the table, its band ran on up the cloth
        (2_256_834, 8),
    ],
)
def test_a_blue_camel_washed_out_in_play_is_read(seed: int, space: int):
    scene = et.render_scene(seed, "other")
    assert scene.truth.track[space] == ["blue"]
    reading = scene.read()
    assert space not in reading.uncertain, reading.spaces[space].why
    assert reading.track[space] == ["blue"]
