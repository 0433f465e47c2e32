"""The advisor's words on the dashboard and the second edition's board, in real headless Chromium
against a real hub.

- On a player's own link, on their turn, an overall bet says in words what it is worth and why:
  how often it is right, what it pays, and from the joint (winner, loser) odds the chance that
  it and the player's card on the other pile are both right; the figures are the engine's.
- The second edition's board at phone, tablet and desktop widths, mid-game and at game over: a
  spectator tile never covers its space's number, and the game's card stands beside the feed
  rather than above a blank column.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from hub.games.camelup.advisor import pct

from .conftest import PIN, Table, serve_table
from .test_browser import PHONE, TABLET, close, open_page, synced, wait_until
from .test_gamenight_browser import no_sideways_scroll, shots

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1440, "height": 900}


def play_as(table: Table, action: str) -> None:
    """Play ``action`` for the player to move from that player's own link (an overall bet's
    colour may only come from there)."""
    who = table.session.game.current_player
    client = table.app.test_client()
    r = client.post(
        "/api/action",
        json={"action": action},
        headers={"X-Pyramid-Token": table.session.player_token(who)},
    )
    assert r.status_code == 200, r.json
    table.session.bus.flush()


def coins(x: float) -> str:
    return f"worth about {'+' if x >= 0 else '−'}{abs(x):.1f} coin"


def own_turn_page(browser: Any, table: Table, player: str) -> Any:
    """``player``'s own link on their turn, once the advice for them has arrived."""
    page = open_page(browser, f"{table.url}/p/{table.session.player_token(player)}", viewport=PHONE)
    synced(page, table)
    page.wait_for_selector(".advice-list li", timeout=20_000)
    return page


def test_an_overall_bet_in_words_from_the_joint_odds_first_edition(
    browser: Any, tmp_path: Path
) -> None:
    from hub.games.camelup.advisor import state_odds
    from hub.games.camelup.model import COLOURS

    with serve_table(tmp_path, start=False, odds=True) as t:
        track = {
            "1": ["green"],
            "10": ["blue"],
            "11": ["orange"],
            "12": ["yellow"],
            "13": ["white"],
        }
        t.session.start_game(["Ann", "Bob"], setup=track, seed=1)
        play_as(t, "bet:winner:white")  # Ann's secret card
        t.play("roll")  # Bob
        state = t.session.game.state
        page = own_turn_page(browser, t, "Ann")
        item = page.locator("#advice .advice-list li[data-action='bet:loser:green']")
        item.wait_for()
        words = item.inner_text()
        odds = state_odds(state, pairs=True)
        assert odds.lose is not None and odds.pairs is not None
        green, white = COLOURS.index("green"), COLOURS.index("white")
        p = float(odds.lose[green])
        assert "Bet green as the overall loser" in words
        assert coins(p * 8 - (1 - p)) in words  # the first card on the loser pile pays 8
        assert f"Green comes last in the race in {pct(p)} of games" in words
        assert "Right, this card pays 8 coins" in words and "wrong, it costs 1 coin" in words
        both = float(odds.pairs[white, green])
        assert f"This card and your white winner card are both right in {pct(both)} of games" in (
            words
        )
        assert "EP" not in words and "P(" not in words  # words, not notation
        # the shared screen never learns the card's colour, nor the bets' words
        table_page = open_page(browser, t.url, viewport=TABLET, pin=PIN)
        synced(table_page, t)
        table_page.click("#advice-toggle")
        table_page.wait_for_selector("#advice .advice-list li")
        shared = table_page.locator("#advice").inner_text()
        assert "your white" not in shared and "bet:loser:green" not in table_page.content()
        page.screenshot(path=str(shots() / "advice-own-phone-390.png"), full_page=True)
        close(page, table_page)


def test_an_overall_bet_in_words_second_edition(browser: Any, tmp_path: Path) -> None:
    from hub.games.camelup2 import advisor
    from hub.games.camelup2.model import RACING

    with serve_table(tmp_path, start=False, odds=True) as t:
        track = {
            "1": ["green"],
            "10": ["blue"],
            "11": ["red"],
            "12": ["yellow"],
            "13": ["purple"],
            "15": ["white"],
            "16": ["black"],
        }
        t.session.start_game(["Ann", "Bo", "Cy"], game="camelup2", setup=track, seed=1)
        play_as(t, "bet:winner:purple")  # Ann
        t.play("roll")  # Bo
        t.play("roll")  # Cy
        state = t.session.game.state
        page = own_turn_page(browser, t, "Ann")
        item = page.locator("#c2-advice .advice-list li[data-action='bet:loser:green']")
        item.wait_for()
        words = item.inner_text()
        race = advisor._race(*advisor._keys(state, state.spectator_sides()), 10_000)
        green, purple = RACING.index("green"), RACING.index("purple")
        p = float(race.lose[green])
        assert "Bet green as the overall loser" in words
        assert coins(p * 8 - (1 - p)) in words
        assert f"Green comes last in the race in {pct(p)} of games (simulated" in words
        both = float(race.pairs[purple, green])
        assert f"your purple winner card are both right in {pct(both)} of games" in words
        # every advised move has its reason underneath, in words
        reasons = page.locator("#c2-advice .advice-list li .advice-why").all_inner_texts()
        assert len(reasons) == page.locator("#c2-advice .advice-list li").count() and all(reasons)
        close(page)


def _tiles_clear_of_numbers(page: Any) -> int:
    """How many spectator tiles the page draws; fails if one covers its space's number."""
    boxes = page.evaluate(
        """() => [...document.querySelectorAll('#c2-track .space')]
          .filter(s => s.querySelector('.tile'))
          .map(s => [s.dataset.space, s.querySelector('.num').getBoundingClientRect().toJSON(),
                     s.querySelector('.tile').getBoundingClientRect().toJSON()])"""
    )
    for space, num, tile in boxes:
        apart = (
            num["right"] <= tile["left"]
            or tile["right"] <= num["left"]
            or num["bottom"] <= tile["top"]
            or tile["bottom"] <= num["top"]
        )
        assert apart, f"space {space}: the tile {tile} covers the number {num}"
    return len(boxes)


def _card_beside_the_feed(page: Any) -> None:
    """From a tablet up: the game's card and the feed start at the same height, side by side."""
    game = page.locator("#game-card").bounding_box()
    feed = page.locator("#feed-card").bounding_box()
    assert feed["x"] >= game["x"] + game["width"], (game, feed)
    assert abs(feed["y"] - game["y"]) < 2, (game, feed)


def test_the_second_editions_board_at_three_widths(browser: Any, tmp_path: Path) -> None:
    with serve_table(tmp_path, start=False) as t:
        t.session.start_game(["Ann", "Bo", "Cy"], game="camelup2", seed=5)
        for action in ("leg:blue", "spectator:10:booing", "roll", "spectator:7:cheering", "roll"):
            t.play(action)
        for name, viewport in (("phone", PHONE), ("tablet", TABLET), ("desktop", DESKTOP)):
            page = open_page(browser, t.url, viewport=viewport, pin=PIN)
            synced(page, t)
            assert _tiles_clear_of_numbers(page) == 2
            no_sideways_scroll(page)
            if viewport is not PHONE:
                _card_beside_the_feed(page)
            page.screenshot(path=str(shots() / f"camelup2-mid-{name}.png"), full_page=True)
            close(page)
        plays = 0
        while not t.session.game.finished:
            t.play("roll")
            plays += 1
            assert plays < 200, "the race never ended"
        for name, viewport in (("phone", PHONE), ("tablet", TABLET), ("desktop", DESKTOP)):
            page = open_page(browser, t.url, viewport=viewport, pin=PIN)
            synced(page, t)
            page.wait_for_selector("#podium [data-place='1']")
            _tiles_clear_of_numbers(page)
            no_sideways_scroll(page)
            if viewport is not PHONE:
                _card_beside_the_feed(page)
            # the feed in the second edition's words: the last die took a unit over the line
            feed = page.locator("#feed").inner_text()
            assert "pyramid ticket" in feed and "pyramid tile" not in feed
            assert re.search(r"(crosses|\w+ and \w+.* cross) the finish line", feed), feed
            # past the line, only the spaces where camels stand, each saying which line
            past = page.locator("#c2-track .space.finish")
            assert past.count() >= 1
            assert all("past the" in x for x in past.all_inner_texts())
            wait_until(lambda p=page: p.evaluate("window.scrollY") == 0, what="the top")
            page.screenshot(path=str(shots() / f"camelup2-over-{name}.png"), full_page=True)
            close(page)
