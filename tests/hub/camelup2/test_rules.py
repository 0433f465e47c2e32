"""Turns, legs, scoring, partnerships and every refusal of the second edition."""

from __future__ import annotations

from dataclasses import replace

import pytest

from hub.games.camelup2 import (
    Game,
    IllegalAction,
    PlaceSpectator,
    apply,
    parse_action,
    player_view,
    public_view,
)
from hub.games.camelup2.model import DICE

TRACK = {
    1: ("blue",),
    2: ("green",),
    3: ("yellow", "red"),
    5: ("purple",),
    14: ("white",),
    16: ("black",),
}


def refused(g, action, reason, player=None):
    before, before_state = g.log, g.state
    with pytest.raises(IllegalAction) as exc:
        g.play(action, player)
    assert exc.value.reason == reason, str(exc.value)
    assert str(exc.value)  # a sentence for the player
    assert g.log == before and g.state == before_state  # nothing changed
    return str(exc.value)


@pytest.mark.parametrize(
    "text",
    [
        "leg:red",
        "spectator:7:booing",
        "spectator:12:cheering",
        "roll",
        "roll:purple:3",
        "roll:grey:black:1",
        "roll:grey:white:3",
        "bet:winner:blue",
        "bet:loser:purple",
        "partner:Bob",
    ],
)
def test_notation_round_trips(text):
    assert str(parse_action(text)) == text


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("leg:black", "not_racing_camel"),
        ("bet:winner:white", "not_racing_camel"),
        ("roll:black:2", "bad_action"),
        ("roll:grey:2", "bad_action"),
        ("roll:grey:red:2", "bad_action"),
        ("roll:red:4", "bad_face"),
        ("leg:orange", "bad_action"),
        ("spectator:5:oasis", "bad_action"),
        ("dance", "bad_action"),
    ],
)
def test_bad_notation_is_refused_with_a_reason(text, reason):
    with pytest.raises(IllegalAction) as exc:
        parse_action(text)
    assert exc.value.reason == reason


def test_two_players_are_refused_and_three_to_eight_accepted():
    with pytest.raises(IllegalAction) as exc:
        Game.new(["a", "b"], seed=1)
    assert exc.value.reason == "bad_players"
    for n in range(3, 9):
        assert len(Game.new([f"p{i}" for i in range(n)], seed=1).state.players) == n


def test_leg_tickets_pay_5_3_2_2_then_run_out():
    g = Game.new(["a", "b", "c"], track=TRACK)
    values = [g.play("leg:red")[0]["value"] for _ in range(4)]
    assert values == [5, 3, 2, 2]
    refused(g, "leg:red", "no_leg_ticket")


def test_a_leg_is_five_of_the_six_dice_and_a_die_out_is_a_misread():
    g = Game.new(["a", "b", "c"], track=TRACK)
    g.play("roll:blue:1")
    refused(g, "roll:blue:2", "die_already_out")
    for action in ["roll:green:1", "roll:yellow:1", "roll:grey:white:1"]:
        events = g.play(action)
        assert "leg_scored" not in [e["type"] for e in events]
    events = g.play("roll:purple:1")
    assert events[-1]["type"] == "leg_scored"
    assert g.state.leg == 2 and g.state.dice_left == DICE and g.state.rolled == ()
    # the player after the one who released the fifth die starts the next leg
    assert g.state.starting == g.state.current == 2


def test_leg_scoring_nets_tickets_and_pyramid_tickets_then_floors_at_zero():
    g = Game.new(["a", "b", "c"], track=TRACK)
    for action in [
        "leg:purple",
        "leg:blue",
        "leg:green",
        "leg:blue",
        "leg:green",
        "leg:green",
        "leg:yellow",
        "leg:yellow",
        "leg:yellow",
        "roll:purple:3",
        "roll:blue:1",
        "roll:green:1",
        "roll:yellow:1",
    ]:
        g.play(action)
    # c has lost everything by now (a test of the floor): the fifth die scores the leg
    broke = replace(
        g.state, players=tuple(replace(p, money=0) if p.name == "c" else p for p in g.state.players)
    )
    scored = g.play("roll:red:1")[-1]
    assert (scored["first"], scored["second"]) == ("purple", "blue")
    # a: purple 5 (+5), blue 3 second (+1), yellow 5 (-1), two pyramid tickets (+2)
    assert scored["money"]["a"] == 3 + 7
    # b: blue 5 second (+1), green 3 (-1), yellow 3 (-1), two pyramid tickets (+2)
    assert scored["money"]["b"] == 3 + 1
    # c: green 5, green 2, yellow 2 (-3), one pyramid ticket (+1)
    assert scored["money"]["c"] == 3 - 2
    events = apply(broke, parse_action("roll:red:1"))
    assert events[-1]["money"]["c"] == 0 and events[-1]["changes"]["c"] == 0


def test_spectator_tile_refusals_name_the_reason():
    g = Game.new(["a", "b", "c"], track=TRACK)
    refused(g, "spectator:1:cheering", "spectator_space_one")
    refused(g, "spectator:3:cheering", "spectator_on_camel")
    refused(g, "spectator:14:booing", "spectator_on_camel")  # crazy camels block too
    refused(g, "spectator:17:booing", "spectator_off_track")
    g.play("spectator:8:booing")  # a
    refused(g, "spectator:8:cheering", "spectator_occupied")
    refused(g, "spectator:9:cheering", "spectator_adjacent")
    refused(g, "spectator:7:cheering", "spectator_adjacent")
    g.play("spectator:10:cheering")  # b
    g.play("leg:red")  # c
    # a moves its own tile: the old square blocks nothing, but it must be a different space
    refused(g, "spectator:8:cheering", "spectator_same_space")
    g.play("spectator:7:cheering")
    assert g.state.spectators == {7: ("cheering", 0), 10: ("cheering", 1)}


def test_finish_cards_once_per_colour_and_secret_until_the_end():
    g = Game.new(["a", "b", "c"], track=TRACK)
    g.play("bet:winner:red")
    g.play("bet:loser:red")
    g.play("leg:red")
    refused(g, "bet:loser:red", "no_finish_card")
    view = public_view(g.state)
    assert "red" not in str(view["overall"])
    assert view["holdings"]["a"]["finish_cards_left"] == 4
    assert player_view(g.state, "a")["my_bets"] == [{"pile": "winner", "colour": "red"}]
    assert "red" not in player_view(g.state, "b")["overall"].__repr__()


def test_turn_order_and_unknown_players_are_refused():
    g = Game.new(["a", "b", "c"], track=TRACK)
    refused(g, "leg:red", "not_your_turn", player="b")
    refused(g, "leg:red", "unknown_player", player="zed")


def test_partnerships_only_from_six_players():
    g = Game.new(["a", "b", "c", "d", "e"], track=TRACK)
    refused(g, "partner:b", "no_partner_play")
    assert not any(str(a).startswith("partner") for a in g.legal_actions())


def test_partnership_rules_and_the_partner_bonus_at_leg_scoring():
    names = ["a", "b", "c", "d", "e", "f"]
    g = Game.new(names, track=TRACK)
    refused(g, "partner:a", "partner_self")
    refused(g, "partner:zed", "unknown_player")
    g.play("partner:b")  # a and b
    assert public_view(g.state)["holdings"]["b"]["partner"] == "a"
    refused(g, "partner:c", "already_partnered")  # b's turn
    g.play("leg:purple")  # b takes purple 5
    refused(g, "partner:a", "partner_taken")  # c
    g.play("leg:blue")  # c
    g.play("roll:purple:3")  # d
    g.play("roll:blue:1")  # e
    g.play("roll:green:1")  # f
    g.play("roll:yellow:1")  # a: pyramid ticket
    events = g.play("roll:red:1")  # b: fifth die
    scored = events[-1]
    assert (scored["first"], scored["second"]) == ("purple", "blue")
    assert scored["money"]["c"] == 3 + 1
    # b: purple 5 (+5) and a pyramid ticket (+1); partner a's best ticket is a pyramid (+1)
    assert scored["money"]["b"] == 3 + 6 + 1
    # a: own pyramid ticket (+1) plus partner b's best single reward (purple 5)
    assert scored["money"]["a"] == 3 + 1 + 5
    assert scored["partner_gain"] == {"a": 5, "b": 1}
    assert all(p.partner is None for p in g.state.players)  # cards back to available


def test_undo_takes_back_a_whole_action_and_replay_rebuilds_the_state():
    g = Game.new(["a", "b", "c"], seed=4)
    g.play("roll")
    g.play("spectator:9:booing")
    state = g.state
    g.play("roll")
    g.undo()
    assert g.state == state
    assert Game.replay(g.log).state == state
    g.undo()
    g.undo()
    refused(g, "partner:b", "no_partner_play")
    with pytest.raises(IllegalAction) as exc:
        g.undo()
    assert exc.value.reason == "nothing_to_undo"


def test_legal_spectator_placements_are_exactly_those_the_refusals_allow():
    """legal_actions lists placements by the fast path both editions share; it must agree with
    spectator_refusal, the check play() applies, on every space and side of states along random
    games (own tiles on the track included: they may only move to a different space)."""
    import random

    from hub.games.camelup2.bots import random_bot
    from hub.games.camelup2.model import SIDES
    from hub.games.camelup2.rules import legal_actions, spectator_refusal

    checked = own_on_track = 0
    for g in range(4):
        game = Game.new(["Ann", "Bob", "Cy", "Dee", "Eve", "Flo"][: 3 + g % 4], seed=f"legal/{g}")
        bot = random_bot(g)
        rng = random.Random(g)
        while not game.finished and checked < 400:
            state = game.state
            listed = {a for a in legal_actions(state) if isinstance(a, PlaceSpectator)}
            allowed = {
                PlaceSpectator(s, side)
                for s in range(2, 17)
                for side in SIDES
                if spectator_refusal(state, state.current, s, side) is None
            }
            assert listed == allowed
            checked += 1
            own_on_track += state.players[state.current].spectator is not None
            game.play(bot(state) if rng.random() < 0.9 else "roll")
    assert checked >= 100 and own_on_track >= 20
