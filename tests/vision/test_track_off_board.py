"""The dark seams of a tall stack on a far space lie over the table beyond the board: they are
seams, not the table behind the stack (``track._off_board``).

Before, every unknown sample whose ray met the ground beyond the board was labelled board, the
seams included: the stack ended at its first seam, and five camels on space 10 were read as the
bottom two (tuning scene 2,199,398 of ``vision.eval.table``)."""

from __future__ import annotations

import numpy as np

from tests.vision._trackkit import assert_space_read
from vision import track

NAMES = ["blue", "green", "orange", "white", "yellow", "board"]
PAL = track._Palette(NAMES, np.zeros((6, 3), np.float32), np.full(6, 0.1, np.float32))
UNKNOWN, BOARD, WHITE, BLUE = len(NAMES), NAMES.index("board"), 3, 0
BAND = 20.0


def _column(*runs: tuple[int, int]) -> np.ndarray:
    """One column of labels from (class, length) runs, bottom first."""
    return np.concatenate([np.full(n, c) for c, n in runs])[None, :]


def test_a_seam_between_two_camels_off_the_board_stays_a_seam():
    labels = _column((4, 20), (UNKNOWN, 6), (WHITE, 20), (UNKNOWN, 30))
    off = np.zeros(labels.shape, bool)
    off[:, 20:] = True  # the yellow stands on the board; from its top on the rays meet the table
    out = track._off_board(labels, off, PAL, 5, BAND, None)
    assert (out[0, 20:26] == UNKNOWN).all()
    # what lies beyond the stack's top is the table behind: background, as before
    assert (out[0, 46:] == BOARD).all()
    # a stretch longer than a seam between two camels is background too
    long = _column((4, 20), (UNKNOWN, 12), (WHITE, 20))
    off = np.ones(long.shape, bool)
    assert (track._off_board(long, off, PAL, 5, BAND, None)[0, 20:32] == BOARD).all()


def test_beside_a_camel_colour_the_set_up_saw_on_the_table_it_is_the_table():
    # a white card's border on the table, seen above a blue camel: as the set-up saw it
    labels = _column((BLUE, 20), (UNKNOWN, 5), (WHITE, 6), (UNKNOWN, 4), (WHITE, 6))
    off = np.ones(labels.shape, bool)
    explained = np.zeros(labels.shape, bool)
    out = track._off_board(labels, off, PAL, 5, BAND, explained)
    assert (out[0, 20:25] == UNKNOWN).all() and (out[0, 31:35] == UNKNOWN).all()
    explained[:, 25:] = True
    out = track._off_board(labels, off, PAL, 5, BAND, explained)
    assert (out[0, 20:25] == BOARD).all() and (out[0, 31:35] == BOARD).all()
    # on the board itself nothing is relabelled
    assert (track._off_board(labels, ~off, PAL, 5, BAND, None) == labels).all()


def test_five_camels_on_a_far_space_are_read_whole():
    # before: read as the orange and the yellow alone, confidently
    assert_space_read(2_199_398, 10, ["orange", "yellow", "white", "blue", "green"])
