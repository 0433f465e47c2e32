"""A lone camel set back on its space, whose legs and belly blend into the sand in its own
shadow, starts where that blend starts, not a band above the base.

The stretch under its side is a mix of its colour and the sand (a white camel's turns a grey
that is no class, partly labelled the board): the band seemed to start a band and more above
the base, the gap was no legs' gap (not all the board's colour), and the space abstained
("the lowest band starts too high: a camel unread below?"). The scene tests read tuning
scenes (seeds 1,400,000..1,599,999) that abstained before; the column tests build columns by
hand: a blend followed down, a camel of another colour not."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision._trackkit import assert_space_read
from vision.track import _blend_edge


@pytest.mark.parametrize(("seed", "space"), [(1_400_484, 9), (1_400_898, 8), (1_400_450, 13)])
def test_a_lone_white_camel_set_back_is_read(seed, space):
    assert_space_read(seed, space, ["white"])


BAND = 20.0
BASE = 20
N_CAMEL = 5
WHITE, BOARD, UNKNOWN, BLUE = 3, 5, 8, 0
SAND = np.array([0.15, 0.40, 0.45])  # linear BGR: a yellowish sand
GREY = np.array([0.33, 0.34, 0.33])  # a white camel's paint


def _column(lower: np.ndarray, label_lower: int) -> tuple[np.ndarray, np.ndarray]:
    """Sand up to the base and beyond, a stretch of ``lower`` colours from 0.2 to 1.0 band
    above the base, then the white band from 1.0 band up."""
    lin = np.tile(SAND, (BASE + 60, 1))
    label = np.full(len(lin), BOARD, np.int64)
    a, b = BASE + 4, BASE + 20
    lin[a:b] = lower
    label[a:b] = label_lower
    lin[b:] = GREY
    label[b:] = WHITE
    return lin, label


def test_the_blend_under_a_white_band_is_followed_down():
    # from the sand half-way to white: on the line between them
    lin, label = _column(0.5 * SAND + 0.5 * GREY, BOARD)
    assert _blend_edge(label, lin, N_CAMEL, BASE + 20, BASE, BAND) == BASE + 4


def test_a_camel_of_another_colour_under_white_stops_the_edge():
    # blue paint in shade, unread (labelled unknown): off the sand-white line
    lin, label = _column(np.array([0.05, 0.02, 0.015]), UNKNOWN)
    assert _blend_edge(label, lin, N_CAMEL, BASE + 20, BASE, BAND) == BASE + 20


def test_a_camel_colour_under_the_band_stops_the_edge():
    # blend-coloured samples labelled another camel's colour are that camel
    lin, label = _column(0.5 * SAND + 0.5 * GREY, BLUE)
    assert _blend_edge(label, lin, N_CAMEL, BASE + 20, BASE, BAND) == BASE + 20
