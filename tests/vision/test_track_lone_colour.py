"""A camel seen only in pieces, between two camels or under the lowest one read, is read from
its colour's pieces when they are the one camel colour there not in the stack.

A camel squeezed between two others shows part of its side (the one above, set askew, covers
the rest), and its shade breaks what is left into runs a little under the third of a band the
run cleaner keeps: its averaged colour is a mix, and the space abstained ("an unreadable band
between two camels", "below the lowest camel"). The scene tests read tuning scenes (seeds
1,400,000..1,599,999) that abstained before; the column tests build label sequences by hand
for the guards."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision._trackkit import assert_space_read
from vision.eval import table as et
from vision.track import _lone_free_colour, _Palette

BAND = 20.0


@pytest.mark.parametrize(
    ("seed", "space", "stack", "edition"),
    [
        # a white camel between yellow and orange: four samples of white, then unknown
        (1_400_461, 3, ["yellow", "white", "orange"], 1),
        # the black crazy camel between purple and yellow, in runs of six, one and two samples
        (1_500_266, 14, ["blue", "white", "purple", "black", "yellow", "red"], 2),
        # a green camel between blue and black: a run of seven samples, 0.34 band
        (1_500_290, 14, ["blue", "green", "black", "red", "yellow", "purple"], 2),
    ],
)
def test_a_camel_seen_in_pieces_between_two_is_read(seed, space, stack, edition):
    assert_space_read(seed, space, stack, edition=edition)


def _palette() -> _Palette:
    """Seven camel colours (black and white the neutral pair), the board: chromaticities only
    matter for the blend test, not used here."""
    names = ["blue", "green", "yellow", "red", "purple", "black", "white", "board"]
    chroma = np.full((len(names), 3), 1.0 / 3.0, np.float32)
    return _Palette(names, chroma, np.full(len(names), 0.1, np.float32), (5, 6))


def _label(*parts: tuple[int, int]) -> np.ndarray:
    return np.concatenate([np.full(n, c, dtype=np.int64) for c, n in parts])


UNKNOWN = 8


def test_two_free_colours_in_a_gap_name_no_camel():
    # green and red pieces both long enough: which one is the camel is not known
    label = _label((UNKNOWN, 3), (1, 6), (UNKNOWN, 2), (3, 6), (UNKNOWN, 3))
    assert _lone_free_colour(_palette(), label, None, 0, len(label), BAND, 7, ["blue"]) is None


def test_a_colour_in_the_stack_is_no_camel_in_its_gap():
    # blue's own shaded pieces under its band: blue is in the stack already
    label = _label((UNKNOWN, 3), (0, 8), (UNKNOWN, 9))
    assert _lone_free_colour(_palette(), label, None, 0, len(label), BAND, 7, ["blue"]) is None


def test_pieces_of_one_free_colour_name_it():
    label = _label((UNKNOWN, 3), (1, 2), (UNKNOWN, 1), (1, 5), (UNKNOWN, 2), (2, 1), (UNKNOWN, 3))
    found = _lone_free_colour(_palette(), label, None, 0, len(label), BAND, 7, ["blue"])
    assert found == (1, 6, 11)


def test_a_shaded_white_labelled_black_is_no_black_camel():
    # grey paint darker than the black/white split is labelled black sample by sample; black
    # paint is darker still (too dark for a hue): without such samples the pieces are no camel
    label = _label((UNKNOWN, 3), (5, 6), (UNKNOWN, 2), (5, 4), (UNKNOWN, 3))
    grey = np.full((len(label), 3), 0.08, np.float32)  # lightness 0.08: a white in shade
    assert _lone_free_colour(_palette(), label, grey, 0, len(label), BAND, 7, ["blue"]) is None
    pitch = np.full((len(label), 3), 0.002, np.float32)  # black paint in the stack's shade
    found = _lone_free_colour(_palette(), label, pitch, 0, len(label), BAND, 7, ["blue"])
    assert found is not None and found[0] == 5


@pytest.mark.parametrize(
    ("seed", "space", "stack", "edition"),
    [
        # a green camel under yellow: a run of five green samples between unknown ones
        (1_400_861, 16, ["green", "yellow", "white"], 1),
        # the black crazy camel under yellow: runs of one, three and seven samples
        (1_500_316, 11, ["black", "yellow"], 2),
        (1_500_177, 14, ["black", "yellow", "green", "red", "blue"], 2),
    ],
)
def test_a_camel_seen_in_pieces_under_the_lowest_band_is_read(seed, space, stack, edition):
    assert_space_read(seed, space, stack, edition=edition)


def test_a_white_camel_in_deep_shade_is_no_black_camel_under_its_neighbour():
    # a white camel under blue, in the shade of blue: grey darker than the black/white split,
    # labelled black sample by sample but never too dark for a hue; read as black, the stack
    # was [black, blue] (the black camel stands on space 12)
    scene = et.render_scene(1_500_238, "same", edition=2)
    reading = scene.read()
    assert scene.truth.track[10] == ["white", "blue"]
    assert "black" not in reading.track.get(10, [])
    assert reading.track.get(12) == ["black", "yellow"]


def test_the_shaded_lower_edge_of_a_camel_is_no_camel_under_it():
    # a lone green camel whose lower edge blends through yellow into the sand: four yellow
    # samples under it are that blend, not a yellow camel (yellow stands on space 9)
    scene = et.render_scene(1_500_131, "same", edition=2)
    reading = scene.read()
    assert scene.truth.track[16] == ["green"]
    assert reading.track.get(16) in (None, ["green"])
    # read as yellow and green, the yellow camel's own space lost its reading too
    assert reading.track.get(9) == scene.truth.track[9] == ["yellow"]
