"""What the set-up saw on the empty board, weighed where a stack begins and between camels.

- No colour at a space's front that looks just as the empty board did there (the pyramid's
  edge over a far space's front line) is the board, not something standing on the space
  (``track.BASE_SEEN_SHARE``).
- A camel colour the set-up saw there is the board or table behind a stack only above the
  stack's top: with another camel, unexplained, standing right on it, it is a camel (a white
  camel in front of the white pebble lines; ``track._camel_over``).
- The back of a camel in front ends where its colour's last pieces end, not where its run
  does: the board as the set-up saw it above there clears the space behind it
  (``track._fragment_end``).

The scenes are tuning scenes of ``vision.eval.table`` (seeds 2,193,000..2,194,999) where each
rule fires; before it, each space abstained."""

from __future__ import annotations

import numpy as np

from tests.vision._trackkit import assert_space_read
from vision import track
from vision.eval import table as et


def test_the_empty_boards_own_look_at_a_spaces_front_is_not_something_standing_there():
    # the pyramid's edge covers the front line of space 3, far behind it, as it did at set-up
    assert_space_read(2_193_746, 3, [])


def test_a_white_camel_between_two_camels_is_a_camel_though_the_set_up_saw_white_there():
    # a five-camel stack on an edge space: its white camel stands before the white pebbles
    assert_space_read(2_193_929, 11, ["green", "yellow", "white", "orange", "blue"])


GREEN, YELLOW, WHITE, ORANGE, UNKNOWN = 1, 4, 3, 2, 8
NAMES = ["blue", "green", "orange", "white", "yellow", "board", "mirage", "oasis"]
BAND = 21.0


def _runs(orange_from: int) -> list[list[int]]:
    return [
        [GREEN, 34, 53],
        [UNKNOWN, 53, 57],
        [YELLOW, 57, 78],
        [UNKNOWN, 78, 82],
        [WHITE, 82, 94],
        [ORANGE, orange_from, orange_from + 21],
    ]


def _explained(*spans: tuple[int, int]) -> np.ndarray:
    out = np.zeros(200, bool)
    for a, b in spans:
        out[a:b] = True
    return out


def test_a_camel_standing_on_an_explained_run_makes_it_a_camel():
    seen = _explained((82, 92))
    assert track._camel_over(_runs(98), 4, NAMES, ["green", "yellow"], BAND, 5, seen)


def test_an_explained_run_with_nothing_right_on_it_stays_in_doubt():
    seen = _explained((82, 92))
    # the next camel colour starts more than half a band above: the board behind may show
    assert not track._camel_over(_runs(110), 4, NAMES, ["green", "yellow"], BAND, 5, seen)
    # the camel over it is as the set-up saw it too: no evidence
    both = _explained((82, 92), (98, 119))
    assert not track._camel_over(_runs(98), 4, NAMES, ["green", "yellow"], BAND, 5, both)
    # a colour already in the stack over it is not another camel
    assert not track._camel_over(_runs(98), 4, NAMES, ["green", "orange"], BAND, 5, seen)


def test_an_empty_space_behind_a_camel_whose_back_ends_in_pieces_is_read_empty():
    # the yellow camel in front ends in a piece of its colour too short for a run; the board
    # above that piece is as the set-up saw it: read empty from the space's own column
    scene = et.render_scene(2_194_961)
    reading = scene.read()
    assert 13 not in scene.truth.track
    assert 13 not in reading.uncertain, reading.spaces[13].why
    assert reading.spaces[13].camels == [] and not reading.spaces[13].inferred


def test_a_colours_pieces_past_its_run_extend_it_across_short_gaps():
    y, b, u = YELLOW, 5, UNKNOWN
    label = np.array([y] * 32 + [u] + [y] * 7 + [b] * 20)
    assert track._fragment_end(label, y, 32, BAND) == 40
    # a gap of three samples or more ends it, and so does half a band
    gapped = np.array([y] * 32 + [b, b, b] + [y] * 5 + [b] * 20)
    assert track._fragment_end(gapped, y, 32, BAND) == 32
    far = np.array([y] * 32 + [y, u] * 10 + [b] * 10)
    assert track._fragment_end(far, y, 32, BAND) <= 32 + 0.5 * BAND
