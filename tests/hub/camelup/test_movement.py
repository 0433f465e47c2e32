"""Movement by hand-worked positions: stacking, oasis, mirage, crossing the line."""

from hub.games.camelup import move_camel, ranking
from hub.games.camelup.model import race_over


def test_unit_carries_the_camels_above_and_lands_on_top():
    track = {2: ("blue", "green", "orange"), 4: ("white",), 1: ("yellow",)}
    new, move = move_camel(track, {}, "green", 2)
    assert new[2] == ("blue",)
    assert new[4] == ("white", "green", "orange")
    assert move.unit == ("green", "orange") and (move.start, move.end) == (2, 4)


def test_oasis_moves_one_more_and_goes_on_top():
    track = {3: ("blue",), 6: ("green",), 1: ("orange", "yellow", "white")}
    new, move = move_camel(track, {5: "oasis"}, "blue", 2)
    assert new[6] == ("green", "blue")
    assert move.desert_space == 5 and move.desert_side == "oasis" and not move.under


def test_mirage_moves_one_back_and_goes_under():
    track = {3: ("blue",), 4: ("green",), 1: ("orange", "yellow", "white")}
    new, move = move_camel(track, {5: "mirage"}, "blue", 2)
    assert new[4] == ("blue", "green")
    assert move.under and move.end == 4


def test_mirage_onto_the_square_it_left_goes_under_the_camels_that_stayed():
    # blue carries white; orange stays below on 5; the mirage on 6 bounces them back to 5
    track = {5: ("orange", "blue", "white"), 1: ("green", "yellow")}
    new, move = move_camel(track, {6: "mirage"}, "blue", 1)
    assert new[5] == ("blue", "white", "orange")
    assert move.start == move.end == 5 and move.under


def test_oasis_on_16_crosses_the_line():
    track = {14: ("blue",), 1: ("green", "orange", "yellow", "white")}
    new, move = move_camel(track, {16: "oasis"}, "blue", 2)
    assert move.end == 17 and race_over(new)
    assert ranking(new)[0] == "blue"


def test_stack_crossing_keeps_order_and_overshoot_ranks_ahead():
    track = {15: ("blue", "green"), 16: ("white",), 1: ("orange", "yellow")}
    new, _ = move_camel(track, {}, "blue", 3)  # blue+green reach 18
    new, _ = move_camel(new, {}, "white", 1)  # white reaches 17
    assert new[18] == ("blue", "green")
    assert ranking(new) == ["green", "blue", "white", "yellow", "orange"]


def test_ranking_puts_higher_in_a_stack_ahead():
    assert ranking({3: ("a", "b"), 5: ("c",), 1: ("d", "e")}) == ["c", "b", "a", "e", "d"]
