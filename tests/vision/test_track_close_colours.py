"""Two learnt colours close together: each keeps its own reach where a sample is clearly its.

A table whose green camel and oasis tile came out 0.05 apart under its lamp had both acceptance
radii cut to 0.028 (never half-way to another class), so its oasis tiles' middles and its green
camel read as no colour, and every space holding them abstained. ``vision.track._classify`` now
takes a sample beyond the cut radius as its nearest class when it lies within that class's own
reach (its spread alone) and at most ``CLEAR_NEARER`` as far from it as from any other class.
Tuning table 223,915 of ``vision.eval.table`` (camera re-mounted).
"""

from __future__ import annotations

import numpy as np

from vision.eval import table as et
from vision.track import CLEAR_NEARER, _classify, _Palette

NAMES = ["green", "oasis"]
CHROMA = np.array([[0.164, 0.545, 0.293], [0.122, 0.571, 0.303]], np.float32)
CUT = np.array([0.028, 0.028], np.float32)
OWN = np.array([0.08, 0.08], np.float32)


def _lin(ch: np.ndarray, y: float = 0.3) -> np.ndarray:
    """Linear light of chromaticity ``ch`` at brightness ``y`` (bright: no widening to speak of)."""
    return np.asarray(ch * 3.0 * y, np.float32)


def _away(i: int, dist: float) -> np.ndarray:
    """A point ``dist`` beyond colour ``i``, straight away from the other one."""
    away = CHROMA[i] - CHROMA[1 - i]
    return np.asarray(CHROMA[i] + dist * away / np.linalg.norm(away), np.float32)


def _samples() -> np.ndarray:
    between = CHROMA[1] - CHROMA[0]
    off = np.cross(between, np.ones(3, np.float32))
    off /= np.linalg.norm(off)
    return np.stack(
        [
            _away(1, 0.035),  # beyond the cut radius, far nearer the oasis than the camel
            _away(0, 0.035),  # the same for the green camel
            0.5 * (CHROMA[0] + CHROMA[1]) + 0.03 * off,  # half-way, off the line: neither
            _away(1, 0.1),  # beyond the oasis's own reach
        ]
    ).astype(np.float32)


def test_a_sample_clearly_nearer_one_of_two_close_colours_is_that_colour():
    pal = _Palette(NAMES, CHROMA, CUT, reach=OWN)
    labels, _ = _classify(pal, _lin(_samples()), dark=0.004)
    unknown = len(NAMES)
    assert labels.tolist() == [1, 0, unknown, unknown]


def test_without_a_reach_the_cut_radius_alone_decides():
    pal = _Palette(NAMES, CHROMA, CUT)
    labels, _ = _classify(pal, _lin(_samples()), dark=0.004)
    assert labels.tolist() == [len(NAMES)] * 4


def test_the_margin_is_a_share_of_the_distance_to_the_other_colour():
    pal = _Palette(NAMES, CHROMA, CUT, reach=OWN)
    gap = float(np.linalg.norm(CHROMA[1] - CHROMA[0]))
    # straight away from the camel, ``a`` beyond the oasis: a / (a + gap) <= CLEAR_NEARER
    edge = CLEAR_NEARER * gap / (1.0 - CLEAR_NEARER)
    assert CUT[1] < edge - 0.005 and edge + 0.005 < OWN[1]
    pts = np.stack([_away(1, edge - 0.005), _away(1, edge + 0.005)])
    labels, _ = _classify(pal, _lin(pts), dark=0.004)
    assert labels.tolist() == [1, len(NAMES)]


def test_oasis_tiles_close_to_the_green_camel_are_read():
    scene = et.render_scene(2_239_154, "other")
    assert scene.truth.desert[3] == "oasis" and scene.truth.desert[11] == "oasis"
    reading = scene.read()
    for space in (3, 11):
        assert space not in reading.uncertain, reading.spaces[space].why
        assert reading.desert.get(space) == "oasis"


def test_a_tile_side_keeps_its_reach_only_where_a_tile_lies_flat():
    # in a column a tile's colour is a blend of camels: only the camels keep their reach there
    pal = _Palette(NAMES, CHROMA, CUT, reach=np.array([0.08, 0.028], np.float32), flat_reach=OWN)
    pts = _lin(np.stack([_away(1, 0.035)]))
    column, _ = _classify(pal, pts, dark=0.004)
    middle, _ = _classify(pal, pts, dark=0.004, flat=True)
    assert column.tolist() == [len(NAMES)] and middle.tolist() == [1]
