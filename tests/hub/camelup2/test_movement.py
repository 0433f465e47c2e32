"""Hand-worked positions for every crazy-camel rule, played through the engine."""

from __future__ import annotations

import pytest

from hub.games.camelup2 import Game, IllegalAction, crazy_to_move, setup_track
from hub.games.camelup2.model import CrazyChoice, move_camel, ranking

PLAYERS = ["Ann", "Bob", "Cy"]
# racing camels parked far from the action unless a test places them
BASE = {1: ("blue",), 2: ("green",), 3: ("yellow",)}


def game(track, spectators=None):
    """A game on ``track``; spectators {space: side} are placed by Ann/Bob/Cy in turn."""
    g = Game.new(PLAYERS, track=track)
    for space, side in (spectators or {}).items():
        g.play(f"spectator:{space}:{side}")
    return g


def moved(g, action):
    events = g.play(action)
    return events[0], events[1]


# -- which crazy camel the grey die moves --------------------------------------------------------
def test_grey_die_moves_the_camel_its_numeral_names():
    g = game({**BASE, 4: ("red", "purple"), 14: ("white",), 16: ("black",)})
    read, move = moved(g, "roll:grey:white:2")
    assert (read["camel"], read["why"]) == ("white", "colour")
    assert (move["from"], move["to"]) == (14, 12)
    read, move = moved(g, "roll:red:1")
    assert g.state.track[5] == ("red", "purple")


def test_only_carrier_moves_whatever_the_numeral_says():
    g = game({**BASE, 5: ("black", "red"), 10: ("white",), 12: ("purple",)})
    read, move = moved(g, "roll:grey:white:1")
    assert (read["camel"], read["why"]) == ("black", CrazyChoice.ONLY_CARRIER.value)
    assert g.state.track[4] == ("black", "red")
    assert g.state.track[10] == ("white",)


def test_carrying_means_anywhere_above_not_only_directly_on_its_back():
    g = game({**BASE, 7: ("white", "red", "black"), 12: ("purple",)})
    read, _ = moved(g, "roll:grey:black:2")
    assert (read["camel"], read["why"]) == ("white", "only_carrier")
    assert g.state.track[5] == ("white", "red", "black")


def test_crazy_camel_directly_on_the_other_moves_when_neither_carries():
    g = game({**BASE, 9: ("white", "black"), 6: ("red",), 12: ("purple",)})
    read, _ = moved(g, "roll:grey:white:3")
    assert (read["camel"], read["why"]) == ("black", "on_top")
    assert g.state.track[6] == ("red", "black")
    assert g.state.track[9] == ("white",)


def test_both_carry_and_one_sits_on_the_other_the_top_one_moves():
    g = game({**BASE, 9: ("black", "white", "red"), 12: ("purple",)})
    read, _ = moved(g, "roll:grey:black:1")
    assert (read["camel"], read["why"]) == ("white", "on_top")
    assert g.state.track[8] == ("white", "red")
    assert g.state.track[9] == ("black",)


def test_both_carry_apart_the_numeral_decides():
    track = {
        1: ("green",),
        2: ("yellow",),
        4: ("black", "red"),
        9: ("white", "blue"),
        12: ("purple",),
    }
    assert crazy_to_move(track, "white") == ("white", CrazyChoice.COLOUR)
    assert crazy_to_move(track, "black") == ("black", CrazyChoice.COLOUR)


def test_a_gap_between_the_crazy_camels_is_not_sitting_on():
    track = {**BASE, 9: ("white", "red", "black"), 12: ("purple",)}
    # white carries red, black carries nothing: white is the only carrier
    assert crazy_to_move(track, "black") == ("white", CrazyChoice.ONLY_CARRIER)
    track = {**BASE, 4: ("red",), 9: ("white", "purple"), 10: ("black",)}
    assert crazy_to_move(track, "black") == ("white", CrazyChoice.ONLY_CARRIER)


# -- spectator tiles relative to the unit's own direction ----------------------------------------
def test_cheering_sends_a_racing_unit_on_and_booing_back_and_under():
    g = game(
        {**BASE, 8: ("red",), 6: ("purple",), 14: ("white", "black")}, {5: "cheering", 10: "booing"}
    )
    _, move = moved(g, "roll:yellow:2")  # 3 -> 5, cheered on to 6, on top of purple
    assert move["spectator"] == {"space": 5, "side": "cheering", "owner": "Ann"}
    assert g.state.track[6] == ("purple", "yellow")
    _, move = moved(g, "roll:red:2")  # 8 -> 10, booed back to 9 (empty)
    assert (move["to"], move["under"]) == (9, True)
    assert g.state.players[0].money == 4 and g.state.players[1].money == 4


def test_cheering_and_booing_are_reversed_for_a_crazy_unit():
    g = game(
        {**BASE, 7: ("red",), 10: ("white",), 14: ("black",), 15: ("purple",)},
        {8: "cheering", 12: "booing"},
    )
    _, move = moved(g, "roll:grey:white:2")  # 10 -> 8, cheering: one more BACKWARD to 7
    assert move["to"] == 7 and not move["under"]
    assert g.state.track[7] == ("red", "white")
    g = game(
        {**BASE, 7: ("red",), 10: ("white",), 14: ("black",), 13: ("purple",)},
        {8: "cheering", 12: "booing"},
    )
    _, move = moved(g, "roll:grey:black:2")  # 14 -> 12, booing: one FORWARD to 13, under
    assert (move["to"], move["under"]) == (13, True)
    assert g.state.track[13] == ("black", "purple")


def test_booing_back_onto_its_own_start_goes_under_the_camels_left_there():
    g = game({**BASE, 6: ("red", "purple"), 14: ("white", "black")}, {7: "booing"})
    moved(g, "roll:purple:1")
    assert g.state.track[6] == ("purple", "red")
    g2 = game({**BASE, 6: ("red",), 8: ("purple",), 12: ("white", "black")}, {11: "booing"})
    read, move = moved(g2, "roll:grey:white:1")  # black on top moves (on_top) 12 -> 11 -> 12
    assert read["camel"] == "black" and move["under"]
    assert g2.state.track[12] == ("black", "white")


def test_a_racing_unit_carrying_a_crazy_camel_moves_forward_and_is_cheered_forward():
    g = game({**BASE, 5: ("red", "white"), 9: ("purple",), 14: ("black",)}, {7: "cheering"})
    _, move = moved(g, "roll:red:2")
    assert move["unit"] == ["red", "white"] and move["to"] == 8
    assert g.state.track[8] == ("red", "white")


def test_a_crazy_unit_carrying_racing_camels_moves_back_and_is_cheered_backward():
    g = game({**BASE, 6: ("black", "red", "purple"), 14: ("white",)}, {4: "cheering"})
    _, move = moved(g, "roll:grey:white:2")  # black is the only carrier
    assert move["camel"] == "black" and move["unit"] == ["black", "red", "purple"]
    assert move["to"] == 3
    assert g.state.track[3] == ("yellow", "black", "red", "purple")
    assert ranking(g.state.track)[:2] == ["purple", "red"]


# -- crossing the line ---------------------------------------------------------------------------
def test_a_crazy_camel_alone_crossing_backward_ends_the_race():
    g = game(
        {
            1: ("white",),
            3: ("blue",),
            4: ("green",),
            5: ("yellow",),
            6: ("red",),
            7: ("purple",),
            14: ("black",),
        }
    )
    g.play("bet:winner:purple")
    g.play("bet:loser:blue")
    events = g.play("roll:grey:white:1")
    move = events[1]
    assert move["crossed"] == "backward" and move["to"] == 0
    assert [e["type"] for e in events][-2:] == ["leg_scored", "game_over"]
    assert g.finished
    assert events[-1]["winner"] == "purple" and events[-1]["loser"] == "blue"
    with pytest.raises(IllegalAction) as exc:
        g.play("leg:blue")
    assert exc.value.reason == "game_over"


def test_racing_camels_carried_backward_over_the_line_rank_last():
    g = game(
        {1: ("green",), 2: ("black", "red", "blue"), 3: ("yellow",), 5: ("purple",), 14: ("white",)}
    )
    events = g.play("roll:grey:white:3")  # black is the only carrier: 2 -> -1
    assert events[1]["crossed"] == "backward" and events[1]["to"] == -1
    over = events[-1]
    assert over["ranking"] == ["purple", "yellow", "green", "blue", "red"]
    assert over["loser"] == "red"
    assert events[-2]["first"] == "purple" and events[-2]["second"] == "yellow"


def test_a_cheering_tile_on_16_carries_a_unit_over_the_line_and_still_pays():
    g = game({**BASE, 14: ("red", "black"), 10: ("purple",), 12: ("white",)}, {16: "cheering"})
    events = g.play("roll:red:2")
    assert events[1]["crossed"] == "forward" and events[1]["to"] == 17
    assert events[1]["spectator"]["owner"] == "Ann"
    assert events[-1]["winner"] == "red"
    assert g.state.track[17] == ("red", "black")


def test_no_tile_acts_beyond_the_line_and_the_overshoot_is_kept():
    g = game({**BASE, 15: ("red",), 10: ("purple",), 12: ("white", "black")})
    events = g.play("roll:red:3")
    assert events[1]["to"] == 18 and events[1]["spectator"] is None


def test_move_camel_never_stops_a_crazy_camel_at_space_one_or_wraps_it():
    track = {
        1: ("black",),
        2: ("blue",),
        3: ("green",),
        4: ("yellow",),
        5: ("red",),
        6: ("purple",),
        14: ("white",),
    }
    new, move = move_camel(track, {}, "black", 3)
    assert move.crossed is not None and move.crossed.value == "backward"
    assert new[-2] == ("black",) and 16 not in new and 1 not in new


# -- setup ---------------------------------------------------------------------------------------
def test_setup_puts_crazy_camels_on_16_15_14_the_second_on_top():
    racing = [("blue", 1), ("green", 1), ("yellow", 2), ("red", 3), ("purple", 3)]
    track = setup_track(racing, [("black", 1), ("white", 1)])
    assert track[16] == ("black", "white")
    assert track[1] == ("blue", "green")
    track = setup_track(racing, [("white", 3), ("black", 2)])
    assert track[14] == ("white",) and track[15] == ("black",)
    with pytest.raises(IllegalAction) as exc:
        setup_track(racing, [("black", 4), ("white", 1)])
    assert exc.value.reason == "bad_face"
    with pytest.raises(IllegalAction) as exc:
        setup_track(racing, [("black", 1)])
    assert exc.value.reason == "bad_setup"


def test_random_setup_places_racing_camels_on_1_to_3_and_crazy_on_14_to_16():
    for seed in range(30):
        g = Game.new(PLAYERS, seed=seed)
        for space, stack in g.state.track.items():
            for camel in stack:
                assert space in ((1, 2, 3) if camel not in ("black", "white") else (14, 15, 16))
