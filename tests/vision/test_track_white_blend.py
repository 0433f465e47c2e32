"""White is the one camel colour a blend passes through, and a stack in front is judged where
the column sampled the band behind it.

- A blue camel's shaded, blurred lower edge over the orange sand averages grey: the gap under
  its band was read as a white camel under it. One paint is evenly lit over a band's middle,
  a blend sweeps from the sand's brightness to the paint's (``track._white_evenly_lit``).
- The top camel of an unsure stack in front showed at the base of the space behind it and was
  read there under that space's own camel; ``track._overhung`` now looks for the stack where
  the column stood (``track._feet``), not over the space's centre.

The scenes are tuning scenes of ``vision.eval.table`` (2,198,000..2,201,999); before these
rules each was an abstention on two spaces, or a confident wrong read."""

from __future__ import annotations

import numpy as np

from tests.vision._trackkit import assert_space_read
from vision import track
from vision.board_light import chroma_brightness
from vision.eval import table as et

# a warm lamp's palette (chromaticity, as vision.board_light.chromaticity gives it) from the
# set-up of tuning table 219,845: blue camel, the white one, the board's sand
NAMES = ["blue", "green", "orange", "white", "yellow", "board"]
CHROMA = np.array(
    [
        [0.804, 0.151, 0.044],
        [0.026, 0.883, 0.091],
        [0.029, 0.224, 0.747],
        [0.302, 0.337, 0.361],
        [0.020, 0.404, 0.577],
        [0.136, 0.367, 0.497],
    ],
    np.float32,
)
PAL = track._Palette(NAMES, CHROMA, np.array([0.095, 0.093, 0.097, 0.059, 0.08, 0.075]))


def _lin(chroma: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Linear BGR samples of these chromaticities and brightnesses."""
    return (np.atleast_2d(chroma) * 3.0 * np.asarray(y)[:, None]).astype(np.float32)


# space 6's column in that scene from the board's surface up to its blue band (chromaticity
# and brightness per sample): the sand, then the blue camel's shaded legs blurred into it
BLUE_EDGE = [
    (0.125, 0.375, 0.5, 0.3913),
    (0.131, 0.374, 0.495, 0.4011),
    (0.128, 0.395, 0.477, 0.3658),
    (0.192, 0.375, 0.433, 0.3754),
    (0.155, 0.395, 0.45, 0.3152),
    (0.191, 0.375, 0.434, 0.2549),
    (0.222, 0.352, 0.426, 0.1841),
    (0.222, 0.352, 0.426, 0.1841),
    (0.348, 0.287, 0.366, 0.0445),
    (0.486, 0.234, 0.28, 0.0466),
    (0.448, 0.257, 0.295, 0.0483),
    (0.385, 0.284, 0.331, 0.0563),
    (0.33, 0.29, 0.38, 0.0592),
    (0.715, 0.127, 0.158, 0.0253),
    (0.616, 0.162, 0.222, 0.0230),
    (0.555, 0.195, 0.25, 0.0264),
    (0.469, 0.26, 0.272, 0.0323),
    (0.475, 0.269, 0.256, 0.0305),
    (0.559, 0.23, 0.211, 0.0259),
]


def test_a_blend_of_the_sand_and_a_blue_camel_is_no_white_camel():
    rows = np.array(BLUE_EDGE, np.float32)
    lin = _lin(rows[:, :3], rows[:, 3])
    # the band's middle half (as ``_band_colour`` takes it) averages white, inside the
    # distance it allows a mean: without the sample-by-sample check, a white camel
    middle = lin[4:15]
    ch, y = chroma_brightness(middle.mean(axis=0))
    assert np.linalg.norm(ch - CHROMA[3]) < 1.3 * 0.059 * (1 + 0.01 / y)
    assert not track._white_evenly_lit(middle)
    assert track._band_colour(PAL, lin, 0.0, 19.0, 5, ["blue"]) is None


def test_a_white_band_is_evenly_lit_though_its_shaded_part_takes_the_sands_hue():
    # a white camel's band, its lower samples tinted towards the sand, its brightness even
    t = np.array([0.9, 0.7, 0.55, 0.5, 0.3, 0.0, 0.0, 0.1, 0.0, 0.0, 0.1, 0.0])[:, None]
    ch = (1 - t) * CHROMA[3] + t * CHROMA[5]
    y = np.linspace(0.127, 0.152, 12)
    lin = _lin(ch, y)
    assert track._white_evenly_lit(lin[3:9])
    assert track._band_colour(PAL, lin, 0.0, 12.0, 5, ["blue"]) == "white"
    # the same hues over a sweep of brightness are a blend
    assert not track._white_evenly_lit(_lin(ch, np.geomspace(0.3, 0.03, 12))[3:9])


def test_a_blue_camels_shaded_edge_is_not_read_as_a_white_camel_under_it():
    # before: space 6 read white under blue, and with the white camel read on space 1 too, both
    # abstained ("white seen on spaces [1, 6]")
    assert_space_read(2_198_459, 6, ["blue"])
    assert_space_read(2_198_459, 1, ["white"])
    # (there four of seven samples were white one by one: the brightness, not the hue, tells)
    assert_space_read(2_199_928, 3, ["blue"])
    assert_space_read(2_199_928, 13, ["white"])


def test_a_white_camel_under_another_is_still_read_from_its_band():
    # the gap under the yellow is filled from its mean, and its samples are evenly lit
    assert_space_read(2_200_075, 15, ["white", "yellow"])


def test_the_top_of_an_unsure_stack_in_front_is_looked_for_where_the_column_stood():
    # space 14's blue, orange and white abstain; the white on top showed at space 13's base,
    # and 13 was read white under its green: a confident wrong read, before
    scene = et.render_scene(2_201_675, "lamp")
    reading = scene.read()
    assert scene.truth.track[13] == ["green"]
    assert scene.truth.track[14] == ["blue", "orange", "white"]
    assert 14 in reading.uncertain
    assert reading.spaces[13].why == track.OVERHUNG_WHY
    assert reading.track[11] == scene.truth.track[11] == ["yellow"]
