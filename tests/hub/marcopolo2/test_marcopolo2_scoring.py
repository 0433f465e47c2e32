"""The final scoring calculator on hand-worked examples: every entry, contract majority with
ties and the two-player exception, jade counted where the player chooses, camel tie-break."""

from __future__ import annotations

import pytest

from hub.games.marcopolo2 import (
    IllegalAction,
    ScoreSheet,
    best_jade_split,
    contract_majority,
    final_scoring,
    trading_post_points,
)

ANN = {
    "seal_points": 6,
    "banner_points": 10,
    "pepper": 3,
    "silk": 2,
    "gold": 1,
    "jade": 2,
    "coins": 27,
    "camels": 3,
    "contracts": 5,
    "trading_posts": 10,
    "contract_points": 30,
    "other_points": 4,
}
BOB = {
    "seal_points": 9,
    "banner_points": 6,
    "pepper": 1,
    "gold": 2,
    "coins": 40,
    "camels": 5,
    "contracts": 5,
    "trading_posts": 11,
    "contract_points": 22,
    "other_points": 4,
}
CY = {
    "banner_points": 3,
    "silk": 5,
    "coins": 9,
    "contracts": 3,
    "trading_posts": 8,
    "contract_points": 15,
}
DEE = {"contracts": 1, "coins": 10}


def test_four_player_worked_example() -> None:
    """By hand:
    Ann 6 seals + 10 banners + 8 goods/2=4 + 27 coins/10=2 + majority 8 (5, tied first)
        + posts 9 and 10 = 10 + 30 contract points + 4 = 74
    Bob 9 + 6 + 3/2=1 + 40/10=4 + 8 (tied first) + posts 9,10,11 = 20 + 22 + 4 = 74
    Cy  0 + 3 + 5/2=2 + 0 + 4 (3 is the second-highest number) + 0 + 15 = 24
    Dee 10 coins = 1; 1 contract is third: nothing = 1
    Ann and Bob tie at 74; Bob has more camels (5 against 3) and wins."""
    r = final_scoring({"Ann": ANN, "Bob": BOB, "Cy": CY, "Dee": DEE})
    assert r["breakdown"]["Ann"] == {
        "seals": 6,
        "banners": 10,
        "goods": 4,
        "coins": 2,
        "contract_majority": 8,
        "trading_posts": 10,
        "contract_points": 30,
        "other": 4,
        "total": 74,
    }
    assert r["points"] == {"Ann": 74, "Bob": 74, "Cy": 24, "Dee": 1}
    assert r["money"] == r["points"] and r["type"] == "game_over"
    assert r["winners"] == ["Bob"] and r["winner"] == "Bob" and r["tie_break"] == "camels"


def test_jade_counted_as_camels_changes_the_tie_break() -> None:
    """Ann moves her 2 jade to camels: goods 6 -> 3 points (one less, 73), camels 5. She now
    trails Bob by a point: counting jade is the player's choice, with its cost shown."""
    r = final_scoring({"Ann": {**ANN, "jade_as_camels": 2}, "Bob": BOB})
    assert r["points"]["Ann"] == 73 and r["camels"]["Ann"] == 5
    assert r["winners"] == ["Bob"]


def test_shared_victory_when_points_and_camels_tie() -> None:
    r = final_scoring(
        {
            "Ann": {"coins": 20, "camels": 2},
            "Bob": {"coins": 20, "camels": 2},
            "Cy": {"coins": 10, "camels": 9},
        }
    )
    assert r["winners"] == ["Ann", "Bob"] and r["winner"] is None and r["tie_break"] == "shared"


@pytest.mark.parametrize(
    "contracts,expected",
    [
        ({"A": 3, "B": 1}, {"A": 8, "B": 0}),  # two players: no second place
        ({"A": 2, "B": 2}, {"A": 8, "B": 8}),
        ({"A": 5, "B": 5, "C": 3}, {"A": 8, "B": 8, "C": 4}),  # second-highest number
        ({"A": 4, "B": 2, "C": 2, "D": 0}, {"A": 8, "B": 4, "C": 4, "D": 0}),
        ({"A": 0, "B": 0, "C": 0}, {"A": 0, "B": 0, "C": 0}),  # nobody fulfilled one
        ({"A": 1, "B": 0, "C": 0}, {"A": 8, "B": 0, "C": 0}),
    ],
)
def test_contract_majority(contracts: dict[str, int], expected: dict[str, int]) -> None:
    assert contract_majority(contracts) == expected


def test_trading_posts_and_goods_and_coins_round_down() -> None:
    assert [trading_post_points(n) for n in (8, 9, 10, 11)] == [0, 5, 10, 20]
    r = final_scoring({"A": {"pepper": 1, "jade": 2, "coins": 19}, "B": {}})
    assert r["breakdown"]["A"]["goods"] == 1 and r["breakdown"]["A"]["coins"] == 1


def test_best_jade_split() -> None:
    # 2 pepper + 1 jade (3 goods: 1 point) and 19 coins (1 point): the jade as a coin gives 3
    assert best_jade_split(ScoreSheet(pepper=2, jade=1, coins=19)) == {
        "jade_as_coins": 1,
        "points": 3,
    }
    # moving jade gains nothing here: keep it as goods
    assert best_jade_split(ScoreSheet(pepper=1, jade=1, coins=5))["jade_as_coins"] == 0


def test_banner_count_needs_the_table() -> None:
    r = final_scoring({"A": {"banners": 3}, "B": {"banners": 1}}, banner_table=(0, 1, 3, 6, 10))
    assert r["breakdown"]["A"]["banners"] == 6 and r["breakdown"]["B"]["banners"] == 1
    with pytest.raises(IllegalAction) as exc:
        final_scoring({"A": {"banners": 3}, "B": {}})
    assert exc.value.reason == "no_banner_table"


@pytest.mark.parametrize(
    "sheet,fragment",
    [
        ({"coins": -1}, "coins"),
        ({"gems": 2}, "unknown"),
        ({"jade": 1, "jade_as_coins": 2}, "jade"),
        ({"coins": 2.5}, "coins"),
        ({"trading_posts": 12}, "trading posts"),
    ],
)
def test_bad_sheets_are_refused(sheet: dict, fragment: str) -> None:
    with pytest.raises(IllegalAction) as exc:
        final_scoring({"A": sheet, "B": {}})
    assert exc.value.reason == "bad_sheet" and fragment in str(exc.value)
    with pytest.raises(IllegalAction):
        final_scoring({"A": {}})
