"""The advisor's expected values on positions small enough to work out by hand."""

import numpy as np
import pytest

from hub.games.camelup import Game, public_view
from hub.games.camelup.advisor import advise, expected_overall_payout, pct
from hub.games.camelup.model import COLOURS
from hub.games.camelup.simulate import play_one
from hub.games.camelup.views import state_from_view

# Blue alone on 5 with only its die left; the others far behind.
ONE_DIE = {5: ["blue"], 1: ["green", "orange"], 2: ["yellow"], 3: ["white"]}


def one_die_game(players=("Ann", "Bob")):
    g = Game.new(list(players), track=ONE_DIE)
    for c in ("green", "orange", "yellow", "white"):
        g.play(f"roll:{c}:1")  # green+orange 1->2 onto yellow; ... all stay behind blue
    return g


def by_action(advice):
    return {a["action"]: a["expected"] for a in advice}


def test_every_legal_action_once_best_first():
    g = Game.new(["Ann", "Bob", "Cy"], seed=4)
    g.play("roll")
    advice = advise(g.state)
    assert sorted(a["action"] for a in advice) == sorted(str(a) for a in g.legal_actions())
    values = [a["expected"] for a in advice]
    assert values == sorted(values, reverse=True)
    assert all(a["why"] for a in advice)


def test_leg_tile_and_pyramid_values_on_a_certain_leg():
    g = one_die_game()
    assert g.state.dice_left == ("blue",)
    ev = by_action(advise(g.state))
    assert ev["leg:blue"] == pytest.approx(5.0)  # blue is first whatever it rolls
    assert ev["roll"] == pytest.approx(1.0)
    # the runner-up: the top camel of the best stack behind blue, which does not move this leg
    behind = ("green", "orange", "yellow", "white")
    second = [c for c in behind if ev[f"leg:{c}"] == pytest.approx(1.0)]
    assert len(second) == 1
    assert all(
        ev[f"leg:{c}"] == pytest.approx(-1.0)
        for c in ("green", "orange", "yellow", "white")
        if c not in second
    )


def test_desert_income_is_the_chance_of_a_landing():
    g = one_die_game()
    ev = by_action(advise(g.state))
    # blue on 5 lands on 6, 7 or 8 with probability 1/3 each
    assert ev["desert:7:oasis"] == pytest.approx(1 / 3)
    assert ev["desert:7:mirage"] == pytest.approx(1 / 3)
    assert ev["desert:12:oasis"] == pytest.approx(0.0)


def test_desert_counts_its_effect_on_the_players_own_leg_tiles():
    # Blue on 5 is the only die left; white waits on 7; Ann holds the white 5 tile.
    # Without a tile: face 1 -> blue 6, white first; faces 2, 3 -> blue ahead, white second.
    #   white tile = 5 * 1/3 + 1 * 2/3 = 7/3
    # Mirage on 8: face 3 lands on it and falls back to 7 *under* white: white first 2/3.
    #   white tile = 5 * 2/3 + 1 * 1/3 = 11/3, so +4/3, plus 1/3 expected landing income.
    view = {
        "players": ["Ann", "Bob"],
        "current_player": "Ann",
        "track": {"5": ["blue"], "7": ["white"], "1": ["green", "orange", "yellow"]},
        "dice_left": ["blue"],
        "leg_tiles": {"white": [3, 2]},
        "holdings": {"Ann": {"leg_tiles": [{"colour": "white", "value": 5}]}},
    }
    state = state_from_view(view)
    ev = by_action(advise(state))
    assert ev["desert:8:mirage"] == pytest.approx(4 / 3 + 1 / 3)
    assert ev["desert:8:oasis"] == pytest.approx(1 / 3)  # oasis: blue to 9, still ahead
    assert ev["leg:white"] == pytest.approx(3 * 1 / 3 + 2 / 3)  # the next white tile is worth 3


def test_overall_payout_expectation():
    assert expected_overall_payout(0.3, 0) == pytest.approx(8)
    assert expected_overall_payout(1.0, 1) == pytest.approx(5)
    assert expected_overall_payout(0.5, 1) == pytest.approx(0.5 * 8 + 0.5 * 5)
    assert expected_overall_payout(1.0, 6) == pytest.approx(1)


def test_the_advisor_uses_only_what_the_player_may_see():
    g = Game.new(["Ann", "Bob", "Cy"], seed=9)
    for a in ["bet:winner:blue", "bet:winner:green", "roll", "leg:white", "desert:12:mirage"]:
        g.play(a)
    me = g.state.players[g.state.current]
    rebuilt = state_from_view(public_view(g.state), sorted(me.race_cards))
    assert advise(rebuilt) == advise(g.state)


def test_advisor_bot_beats_random_bots_in_a_small_seeded_slice():
    """A small real slice of the 1,000-game benchmark (bench/camelup_advisor.py)."""
    wins = 0
    games = 12
    for seed in range(games):
        over = play_one(["advisor", "random", "random", "random"], seed)
        wins += "advisor-0" in over["winners"]
    assert wins >= 10


def test_moving_the_own_tile_counts_the_income_given_up():
    g = one_die_game()  # only blue's die left; blue on 5 lands on 6, 7 or 8
    g.play("desert:7:oasis")  # Ann's tile earns 1/3 where it lies
    g.play("leg:green")  # Bob; Ann to move again
    ev = by_action(advise(g.state))
    assert ev["desert:7:mirage"] == pytest.approx(0.0)  # flipping it earns the same 1/3
    assert ev["desert:8:oasis"] == pytest.approx(0.0)  # as good a place, no gain
    assert ev["desert:12:oasis"] == pytest.approx(-1 / 3)  # a worse place loses its income
    assert max(ev.values()) > 0.9  # so the advisor does something useful instead


def test_desert_values_count_the_players_own_overall_bets():
    """A tile that makes the player's overall winner card likelier to win is worth that too.

    Ann's white card is the first on the winner pile (8 if right, -1 if not: worth 9p - 1).
    The exact race odds with and without each tile come from the plain Fraction enumerator."""
    from tests.hub.camelup.reference_odds import reference_odds

    track = {"12": ["green", "orange", "yellow"], "14": ["blue"], "15": ["white"]}
    view = {
        "players": ["Ann", "Bob"],
        "current_player": "Ann",
        "me": "Ann",
        "track": track,
        "dice_left": ["blue", "white"],
        "overall": {"winner": [{"player": "Ann"}], "loser": []},
        "my_bets": [{"pile": "winner", "colour": "white"}],
    }
    state = state_from_view(view)
    assert state.overall["winner"] == ((0, "white"),)  # the player view's own colour restored
    ev = by_action(advise(state))
    spaces = {int(s): st for s, st in track.items()}
    p0 = float(
        reference_odds(spaces, ["blue", "white"], {}, with_race=True)["race"]["white"]["win"]
    )
    moved = 0
    for space, side in ((16, "mirage"), (16, "oasis"), (13, "mirage")):
        ref = reference_odds(spaces, ["blue", "white"], {space: side}, with_race=True)
        p = float(ref["race"]["white"]["win"])
        income = float(ref["desert_landings"][str(space)])
        want = income + 9 * (p - p0)
        assert ev[f"desert:{space}:{side}"] == pytest.approx(want, abs=1e-12), (space, side)
        moved += abs(p - p0) > 0.02
    assert moved >= 1  # some tile does move the card's chances: the test has teeth
    # without the card the same tiles are worth their landings alone
    plain = by_action(advise(state_from_view({**view, "overall": {}, "my_bets": []})))
    ref = reference_odds(spaces, ["blue", "white"], {16: "mirage"})
    assert plain["desert:16:mirage"] == pytest.approx(float(ref["desert_landings"]["16"]))


def test_a_public_view_with_hidden_bet_colours_is_still_advised():
    view = {
        "players": ["Ann", "Bob"],
        "current_player": "Ann",
        "track": {"3": ["blue", "green"], "1": ["orange", "yellow", "white"]},
        "overall": {"winner": [{"player": "Ann"}, {"player": "Bob"}], "loser": []},
    }
    state = state_from_view(view)
    assert state.overall["winner"] == ((0, "?"), (1, "?"))
    advice = advise(state)
    assert advice and all(np.isfinite(a["expected"]) for a in advice)


def test_an_overall_bet_names_the_chance_both_of_the_players_cards_are_right():
    view = {
        "players": ["Ann", "Bob"],
        "current_player": "Ann",
        "me": "Ann",
        "track": {"14": ["blue"], "15": ["white"], "12": ["green", "orange", "yellow"]},
        "dice_left": ["blue", "white"],
        "overall": {"winner": [{"player": "Ann"}], "loser": []},
        "my_bets": [{"pile": "winner", "colour": "white"}],
    }
    state = state_from_view(view, race_cards=["blue", "green", "orange", "yellow"])
    from hub.games.camelup.advisor import state_odds

    pairs = state_odds(state, pairs=True).pairs
    why = {a["action"]: a["why"] for a in advise(state)}
    both = pairs[COLOURS.index("white"), COLOURS.index("green")]  # white wins, green last
    assert (
        f"your white winner card are both right in {pct(both)} of games" in why["bet:loser:green"]
    )
    assert "both right" not in why["bet:winner:blue"]  # same pile: nothing to pair with
    # from the joint too: the camel most often at the other end when this card is right
    column = pairs[:, COLOURS.index("green")]  # green last, each winner
    top = int(np.argmax(column))
    assert (
        f"When green comes last, {COLOURS[top]} most often wins "
        f"({pct(column[top] / column.sum())} of those games)" in why["bet:loser:green"]
    )
    p_green_last = state_odds(state).lose[COLOURS.index("green")]
    assert f"Green comes last in the race in {pct(p_green_last)} of games" in why["bet:loser:green"]
    # the bots skip the words, and with them the joint table: same figures, same order
    assert [a["expected"] for a in advise(state, words=False)] == pytest.approx(
        [a["expected"] for a in advise(state)], abs=1e-12
    )


def test_chances_in_words_never_say_never_or_always_when_they_are_not():
    assert [pct(p) for p in (0.0, 0.004, 0.23, 0.996, 1.0)] == [
        "0%",
        "under 1%",
        "23%",
        "over 99%",
        "100%",
    ]
