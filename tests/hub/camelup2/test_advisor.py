"""The second-edition advisor's figures against the exact odds, and its bot against random."""

from __future__ import annotations

import pytest

from hub.games.camelup2 import Game, legal_actions
from hub.games.camelup2.advisor import advise
from hub.games.camelup2.model import RACING
from hub.games.camelup2.odds import position_odds
from hub.games.camelup2.simulate import play_one, simulate

TRACK = {
    1: ("blue",),
    2: ("green",),
    4: ("yellow", "red"),
    6: ("purple",),
    13: ("white",),
    15: ("black",),
}


def mid_leg(players=4):
    g = Game.new([f"p{i}" for i in range(players)], track=TRACK)
    g.play("roll:blue:2")
    g.play("roll:grey:white:1")
    g.play("spectator:9:booing")
    return g


def test_every_legal_action_is_rated_including_both_sides_of_every_space():
    g = mid_leg()
    ranked = advise(g.state)
    assert sorted(a["action"] for a in ranked) == sorted(str(a) for a in legal_actions(g.state))
    spaces = {a["action"] for a in ranked if a["action"].startswith("spectator:")}
    assert "spectator:10:cheering" not in spaces  # next to the tile on 9
    assert {"spectator:11:cheering", "spectator:11:booing"} <= spaces
    assert [a["expected"] for a in ranked] == sorted((a["expected"] for a in ranked), reverse=True)


def test_leg_ticket_and_spectator_values_are_the_exact_odds():
    g = mid_leg()
    s = g.state
    odds = position_odds(s.track, s.dice_left, s.spectator_sides(), race=False)
    ranked = {a["action"]: a["expected"] for a in advise(s)}
    for c in RACING:
        f, sec = odds["leg"][c]["first"], odds["leg"][c]["second"]
        assert ranked[f"leg:{c}"] == pytest.approx(5 * f + sec - (1 - f - sec))
    with_tile = position_odds(
        s.track, s.dice_left, {**s.spectator_sides(), 11: "cheering"}, race=False
    )
    assert ranked["spectator:11:cheering"] == pytest.approx(with_tile["spectator_landings"]["11"])
    assert ranked["roll"] == 1.0


def test_spectator_value_counts_the_change_to_the_players_own_tickets():
    g = Game.new(["a", "b", "c"], track=TRACK)
    g.play("leg:purple")  # a holds purple 5
    g.play("leg:green")
    g.play("leg:blue")
    s = g.state
    base = position_odds(s.track, s.dice_left, {}, race=False)["leg"]["purple"]
    tile = position_odds(s.track, s.dice_left, {8: "booing"}, race=False)
    moved = tile["leg"]["purple"]
    shift = (5 * moved["first"] + moved["second"] - (1 - moved["first"] - moved["second"])) - (
        5 * base["first"] + base["second"] - (1 - base["first"] - base["second"])
    )
    ranked = {a["action"]: a["expected"] for a in advise(s)}
    assert shift != 0
    assert ranked["spectator:8:booing"] == pytest.approx(tile["spectator_landings"]["8"] + shift)


def test_a_partnership_is_worth_the_partners_best_ticket():
    g = Game.new([f"p{i}" for i in range(6)], track=TRACK)
    g.play("leg:yellow")  # p0 takes yellow 5
    s = g.state  # p1 to move
    odds = position_odds(s.track, s.dice_left, {}, race=False)["leg"]["yellow"]
    ranked = {a["action"]: a["expected"] for a in advise(s)}
    assert ranked["partner:p0"] == pytest.approx(5 * odds["first"] + odds["second"])
    assert ranked["partner:p2"] == 0.0  # p2 holds nothing yet


def test_the_advisor_bot_beats_three_random_bots_in_seeded_games():
    result = simulate(["advisor", "random", "random", "random"], games=3, seed=5)
    assert result.firsts[0] == 3
    over = play_one(["random", "random", "random"], 11)
    assert over["type"] == "game_over"


def test_pyramid_simulate_plays_the_second_edition(capsys):
    from hub.cli import main

    assert (
        main(
            [
                "simulate",
                "--edition",
                "2",
                "--games",
                "1",
                "--players",
                "3",
                "--bots",
                "advisor,random",
                "--json",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert '"games": 1' in out and '"bot": "advisor"' in out
    assert main(["simulate", "--edition", "2", "--players", "2", "--games", "1"]) == 2


def test_a_spectator_tile_counts_the_players_own_overall_bets():
    """With a finish card of their own on a pile, a tile's value adds the change it makes to
    that card's value: race odds with the tile there and without it, from the same seed (here
    recomputed from the odds module, not through the advisor)."""
    from hub.games.camelup.advisor import overall_bet_value
    from hub.games.camelup2.advisor import RACE_GAMES_QUICK
    from hub.games.camelup2.odds import leg_odds_of, race_odds_of, validate_position

    g = Game.new(["a", "b", "c"], track=TRACK)
    g.play("bet:winner:purple")  # a
    g.play("roll:blue:2")  # b
    g.play("leg:red")  # c
    state = g.state  # a to move, holding a purple winner card and no leg ticket
    tiles = state.spectator_sides()
    ranked = {a["action"]: a for a in advise(state)}

    def card(layout: dict[int, str]) -> float:
        leg = leg_odds_of(validate_position(state.track, state.dice_left, layout), merge_last=True)
        race = race_odds_of(leg.outcome, games=RACE_GAMES_QUICK)
        return overall_bet_value(float(race.win[RACING.index("purple")]), 0)

    base = card(tiles)
    moved = 0
    for space, side in ((7, "cheering"), (8, "booing"), (12, "cheering")):
        layout = {**tiles, space: side}
        leg = leg_odds_of(validate_position(state.track, state.dice_left, layout))
        want = leg.landings.get(space, 0.0) + card(layout) - base
        got = ranked[f"spectator:{space}:{side}"]
        assert got["expected"] == pytest.approx(want, abs=1e-9)
        assert "overall bets" in got["why"]
        moved += abs(card(layout) - base) > 1e-6
    assert moved  # a tile there does move the card's value
    # the shared screen's advice (colours unknown) rates the tile by its landings alone
    from dataclasses import replace

    public = replace(
        state, overall={p: tuple((i, "?") for i, _ in c) for p, c in state.overall.items()}
    )
    shown = {a["action"]: a for a in advise(public)}
    leg = leg_odds_of(validate_position(state.track, state.dice_left, {**tiles, 7: "cheering"}))
    assert shown["spectator:7:cheering"]["expected"] == pytest.approx(leg.landings.get(7, 0.0))
    assert "overall bets" not in shown["spectator:7:cheering"]["why"]
