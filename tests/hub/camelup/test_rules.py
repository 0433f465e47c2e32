"""Every rule of the first edition on hand-worked positions."""

import pytest

from hub.games.camelup import (
    BetOverall,
    Game,
    IllegalAction,
    PlaceDesert,
    ReleaseDie,
    TakeLegTile,
    parse_action,
)

START = {1: ["blue"], 2: ["green", "orange"], 3: ["yellow", "white"]}


def game(players=("Ann", "Bob", "Cy"), track=START, **kw):
    return Game.new(list(players), track=track, **kw)


def refused(g, action, reason, player=None):
    before_log, before_state = g.log, g.state
    with pytest.raises(IllegalAction) as info:
        g.play(action, player)
    assert info.value.reason == reason
    assert str(info.value)  # a sentence for the player
    assert g.log == before_log and g.state == before_state  # nothing changed
    return info.value


# --- leg tiles -------------------------------------------------------------------------------


def test_leg_tiles_come_off_the_pile_5_3_2_then_refused():
    g = game(players=("Ann", "Bob"))
    values = [g.play("leg:blue")[0]["value"] for _ in range(3)]
    assert values == [5, 3, 2]
    assert g.state.players[0].leg_tiles == (("blue", 5), ("blue", 2))
    assert g.state.players[1].leg_tiles == (("blue", 3),)
    refused(g, "leg:blue", "no_leg_tile")


# --- turn order ------------------------------------------------------------------------------


def test_turns_go_round_and_out_of_turn_is_refused():
    g = game()
    assert g.current_player == "Ann"
    refused(g, "leg:blue", "not_your_turn", player="Bob")
    refused(g, "leg:blue", "unknown_player", player="Zed")
    g.play("leg:blue", player="Ann")
    assert g.current_player == "Bob"


# --- desert tiles ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "space,reason",
    [
        (1, "desert_space_one"),
        (2, "desert_on_camel"),
        (17, "desert_illegal_space"),
        (0, "desert_illegal_space"),
    ],
)
def test_desert_placement_refusals(space, reason):
    refused(game(), PlaceDesert(space, "oasis"), reason)


def test_desert_not_on_or_next_to_another_players_tile():
    g = game()
    g.play("desert:7:oasis")  # Ann
    refused(g, "desert:7:mirage", "desert_occupied")  # Bob
    refused(g, "desert:6:mirage", "desert_adjacent")
    refused(g, "desert:8:mirage", "desert_adjacent")
    g.play("desert:9:mirage")  # two spaces away is fine
    assert g.state.desert == {7: ("oasis", 0), 9: ("mirage", 1)}


def test_own_tile_may_move_and_its_old_place_does_not_block():
    g = game(players=("Ann", "Bob"))
    g.play("desert:7:oasis")
    g.play("leg:blue")
    events = g.play("desert:8:mirage")  # next to its own old place: legal
    assert events[0]["moved_from"] == 7
    assert g.state.desert == {8: ("mirage", 0)}
    g.play("leg:blue")
    g.play("desert:8:oasis")  # same space, other side up
    assert g.state.desert == {8: ("oasis", 0)}
    g.play("leg:blue")
    refused(g, "desert:8:oasis", "desert_no_change")


def test_desert_tile_pays_its_owner_at_once():
    g = game(players=("Ann", "Bob"))
    g.play("desert:5:oasis")  # Ann
    events = g.play("roll:blue:1")  # Bob: blue 1 -> 2, on top of green and orange; no tile
    assert events[1]["desert"] is None
    g.play("leg:green")  # Ann
    events = g.play("roll:yellow:2")  # Bob: yellow+white 3 -> 5 oasis -> 6
    assert events[1]["desert"] == {"space": 5, "side": "oasis", "owner": "Ann"}
    assert events[1]["to"] == 6
    assert g.state.players[0].money == 4
    assert g.state.track[6] == ("yellow", "white")


# --- dice ------------------------------------------------------------------------------------


def test_observed_die_rules():
    g = game()
    refused(g, ReleaseDie("blue", 4), "bad_face")
    refused(g, ReleaseDie("pink", 1), "bad_action")
    refused(g, ReleaseDie("blue", None), "bad_action")
    g.play("roll:blue:1")
    refused(g, "roll:blue:2", "colour_already_rolled")
    assert g.state.players[0].pyramid_tiles == 1


def test_engine_rolls_from_the_seed_reproducibly():
    a = game(seed=42)
    b = game(seed=42)
    assert [a.play("roll") for _ in range(4)] == [b.play("roll") for _ in range(4)]
    c = game(seed=43)
    assert [game(seed=42).play("roll") for _ in range(1)] != [] and c.log[0] != a.log[0]


def test_setup_roll_stacks_in_roll_order():
    g = Game.new(
        ["A", "B"], setup=[("blue", 2), ("white", 1), ("green", 2), ("orange", 3), ("yellow", 2)]
    )
    assert g.state.track == {2: ("blue", "green", "yellow"), 1: ("white",), 3: ("orange",)}
    with pytest.raises(IllegalAction) as info:
        Game.new(["A", "B"], setup=[("blue", 2)])
    assert info.value.reason == "bad_setup"


def test_player_count_limits():
    for n in (1, 9):
        with pytest.raises(IllegalAction):
            Game.new([f"p{i}" for i in range(n)])
    Game.new([f"p{i}" for i in range(8)], seed=1)
    with pytest.raises(IllegalAction):
        Game.new(["Ann", "Ann"])


# --- leg end ---------------------------------------------------------------------------------


def play_leg(g, rolls):
    """Each player in turn releases the next die of ``rolls``; returns the last events."""
    events = []
    for r in rolls:
        events = g.play(f"roll:{r}")
    return events


def test_leg_scoring_5_3_2_plus1_minus1_pyramid_tiles_and_the_marker():
    g = game(players=("Ann", "Bob", "Cy", "Di"))
    g.play("leg:green")  # Ann 5 on green
    g.play("leg:white")  # Bob 5 on white
    g.play("leg:green")  # Cy 3 on green
    g.play("leg:blue")  # Di 5 on blue
    # green+orange 2->3 onto yellow/white; orange 3->4; blue 1->2; yellow+white+green 3->4 onto
    # orange; white+green 4->7.  Ranking: green, white, yellow, orange, blue.
    events = play_leg(g, ["green:1", "orange:1", "blue:1", "yellow:1", "white:3"])
    scored = events[-1]
    assert scored["type"] == "leg_scored"
    assert (scored["first"], scored["second"]) == ("green", "white")
    # Ann: 5 (green first) + 2 pyramid tiles; Bob: 1 (white second) + 1; Cy: 3 + 1; Di: -1 + 1
    assert scored["money"] == {"Ann": 10, "Bob": 5, "Cy": 7, "Di": 3}
    assert scored["changes"] == {"Ann": 7, "Bob": 2, "Cy": 4, "Di": 0}
    s = g.state
    assert s.leg == 2 and s.dice_left == ("blue", "green", "orange", "yellow", "white")
    assert all(p.leg_tiles == () and p.pyramid_tiles == 0 for p in s.players)
    assert s.leg_piles["green"] == (5, 3, 2)
    # Ann released the fifth die: the marker passes to Bob, who starts the new leg
    assert s.starting == 1 and g.current_player == "Bob"


def test_leg_end_returns_desert_tiles():
    g = game(players=("Ann", "Bob"))
    g.play("desert:10:oasis")
    play_leg(g, ["blue:1", "green:1", "orange:1", "yellow:1", "white:1"])
    assert g.state.desert == {} and g.state.players[0].desert is None


def test_money_never_below_zero():
    g = game(players=("Ann", "Bob"))
    for ann, bob in [("blue", "green")] * 3 + [("orange", "yellow")] * 2:
        g.play(f"leg:{ann}")
        g.play(f"leg:{bob}")
    g.play("leg:orange")  # Ann holds six tiles, all on camels that will end 3rd to 5th
    # Bob, Ann, Bob, Ann, Bob: yellow+white 3->6; white 6->9; green+orange 2->3; orange 3->4;
    # blue 1->2.  Ranking: white, yellow, orange, green, blue.
    events = play_leg(g, ["yellow:3", "white:3", "green:1", "orange:1", "blue:1"])
    scored = events[-1]
    assert (scored["first"], scored["second"]) == ("white", "yellow")
    # Ann: 3 - 6 + 2 pyramid tiles = -1 -> 0, she pays only the 3 she has
    assert scored["money"] == {"Ann": 0, "Bob": 5}
    assert scored["changes"] == {"Ann": -3, "Bob": 2}


# --- overall bets and the end ----------------------------------------------------------------


def test_race_card_used_once_per_colour():
    g = game(players=("Ann", "Bob"))
    g.play("bet:winner:white")
    g.play("leg:blue")
    refused(g, "bet:loser:white", "no_race_card")
    refused(g, BetOverall("middle", "white"), "bad_action")


def test_final_bets_paid_in_placement_order_and_wrong_cards_cost_one():
    track = {14: ["white"], 1: ["blue"], 2: ["green"], 3: ["orange"], 4: ["yellow"]}
    g = game(players=("Ann", "Bob", "Cy", "Di", "Ed", "Flo"), track=track)
    for pile_colour in [
        "winner:white",
        "winner:blue",
        "winner:white",
        "winner:white",
        "winner:white",
        "loser:blue",
    ]:
        g.play(f"bet:{pile_colour}")
    # Ann..Flo each bet once; now Ann, Bob take turns: Ann takes a tile, Bob ends the race
    g.play("leg:white")  # Ann: 5 on white
    events = g.play("roll:white:3")  # Bob: white 14 -> 17, crosses the line
    types = [e["type"] for e in events]
    assert types == ["die_read", "camel_moved", "leg_scored", "game_over"]
    over = events[-1]
    assert over["winner"] == "white" and over["loser"] == "blue"
    pays = [(o["player"], o["payout"]) for o in over["overall"]]
    # winner pile in order: Ann white 8, Bob blue -1, Cy white 5, Di white 3, Ed white 2
    assert pays == [("Ann", 8), ("Bob", -1), ("Cy", 5), ("Di", 3), ("Ed", 2), ("Flo", 8)]
    # leg scoring first: Ann +5 (white first), Bob +1 pyramid tile
    assert over["money"] == {
        "Ann": 3 + 5 + 8,
        "Bob": 3 + 1 - 1,
        "Cy": 8,
        "Di": 6,
        "Ed": 5,
        "Flo": 11,
    }
    assert over["winners"] == ["Ann"]
    assert g.finished and g.current_player is None
    refused(g, "leg:blue", "game_over")


def test_fifth_and_further_correct_cards_pay_one():
    track = {15: ["white"], 1: ["blue"], 2: ["green"], 3: ["orange"], 4: ["yellow"]}
    g = game(players=[f"p{i}" for i in range(7)], track=track)
    for _ in range(7):
        g.play("bet:winner:white")
    g.play("roll:white:2")
    over = g.log[-1]
    assert [o["payout"] for o in over["overall"]] == [8, 5, 3, 2, 1, 1, 1]


def test_shared_victory():
    track = {15: ["white"], 1: ["blue"], 2: ["green"], 3: ["orange"], 4: ["yellow"]}
    g = game(players=("Ann", "Bob"), track=track)
    g.play("leg:green")  # Ann: green... becomes neither first nor second: -1 -> 2 EP
    events = g.play("roll:white:3")  # Bob: +1 pyramid tile -> 4; Ann 2
    over = events[-1]
    assert over["money"] == {"Ann": 2, "Bob": 4} and over["winners"] == ["Bob"]
    g = game(players=("Ann", "Bob"), track=track)
    g.play("leg:white")  # Ann +5 -> 8
    g.play("leg:white")  # Bob +3 -> 6
    g.play("bet:loser:green")  # Ann: wrong, -1 -> 7
    events = g.play("roll:white:2")  # Bob +1 pyramid -> 7
    assert events[-1]["money"] == {"Ann": 7, "Bob": 7}
    assert events[-1]["winners"] == ["Ann", "Bob"]


def test_a_wrong_card_costs_nothing_to_a_player_with_nothing():
    track = {15: ["white"], 1: ["blue"], 2: ["green"], 3: ["orange"], 4: ["yellow"]}
    g = game(players=("Ann", "Bob"), track=track)
    for c in ("blue", "green", "orange"):
        g.play(f"leg:{c}")  # Ann: three losing tiles
        g.play(f"bet:winner:{c}")  # Bob: three wrong winner cards
    g.play("bet:winner:yellow")  # Ann: wrong card too
    events = g.play("roll:white:2")  # Bob ends the race
    over = events[-1]
    # Ann: 3 - 3 = 0 after the leg, then her wrong card costs nothing
    ann = [o for o in over["overall"] if o["player"] == "Ann"]
    assert ann[0]["payout"] == 0 and over["money"]["Ann"] == 0
    # Bob: 3 + 1 pyramid tile = 4, then -1 -1 -1 = 1
    assert over["money"]["Bob"] == 1


def test_notation_round_trips():
    for text in (
        "leg:orange",
        "desert:7:mirage",
        "roll",
        "roll:blue:3",
        "bet:winner:white",
        "bet:loser:blue",
    ):
        assert str(parse_action(text)) == text
    assert parse_action("leg:orange") == TakeLegTile("orange")
    for bad in (
        "",
        "leg",
        "leg:pink",
        "desert:x:oasis",
        "desert:3:sand",
        "bet:top:blue",
        "roll:blue:9",
        "fly:away",
    ):
        with pytest.raises(IllegalAction):
            parse_action(bad)


def test_legal_desert_placements_are_exactly_those_the_refusals_allow():
    """legal_actions lists placements by a fast path; it must agree with desert_refusal, the
    check play() applies, on every space and side of states along random games."""
    import random

    from hub.games.camelup.bots import random_bot
    from hub.games.camelup.model import SIDES
    from hub.games.camelup.rules import desert_refusal, legal_actions

    checked = 0
    for g in range(4):
        game = Game.new(["Ann", "Bob", "Cy", "Dee"][: 2 + g % 3], seed=f"legal/{g}")
        bot = random_bot(g)
        rng = random.Random(g)
        while not game.finished and checked < 400:
            state = game.state
            listed = {a for a in legal_actions(state) if isinstance(a, PlaceDesert)}
            allowed = {
                PlaceDesert(s, side)
                for s in range(2, 17)
                for side in SIDES
                if desert_refusal(state, state.current, s, side) is None
            }
            assert listed == allowed
            checked += 1
            game.play(bot(state) if rng.random() < 0.9 else "roll")
    assert checked >= 100
