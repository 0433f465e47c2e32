"""What a player who cannot tell the camels' colours apart still reads, and the figures that say
their unit, in real headless Chromium against a real hub: every leg ticket, secret bet card and
die carries its camel's letter (the colour alone was the only clue: blue 5 and purple 5, orange
3 and yellow 3 look alike to many), and the places below the podium say what their number is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import PIN, serve_table
from .test_browser import PHONE, TABLET, close, open_page, synced

pytestmark = pytest.mark.browser

LETTERS = {
    "blue": "B",
    "green": "G",
    "orange": "O",
    "yellow": "Y",
    "white": "W",
    "red": "R",
    "purple": "P",
    "black": "K",
}
# each chip or die: its colour (from its class) and the text a person sees on it
SEEN = """els => els.map(e => [
    [...e.classList].find(c => c.startsWith('c-')).slice(2), e.innerText.replace(/\\s+/g, '')])"""


def _play(session: Any, *actions: str) -> None:
    for action in actions:
        who = session.game.current_player
        answer = session.request("action", {"player": who, "action": action}, {"pin": PIN})
        assert answer["ok"], answer


def test_first_edition_tickets_bet_cards_and_dice_carry_their_camels_letter(
    browser: Any, tmp_path: Path
) -> None:
    with serve_table(tmp_path, start=False) as table:
        session = table.session
        session.start_game(["Ann", "Bo", "Cy"], seed=7)
        _play(session, "leg:orange", "leg:yellow", "leg:blue", "bet:winner:white")
        bettor = session.engine_log()[-1]["player"]
        _play(session, "roll", "roll", "roll", "roll")
        assert len(session.game.state.dice_left) == 1 and not session.game.state.finished
        page = open_page(browser, table.url, viewport=PHONE, pin=PIN)
        own = open_page(browser, f"{table.url}/p/{session.player_token(bettor)}")
        for p in (page, own):
            synced(p, table)
        tickets = page.locator("#players .chip.ticket").evaluate_all(SEEN)
        tallies = page.locator("#tallies .chip.ticket").evaluate_all(SEEN)
        assert len(tickets) == 3, tickets
        for colour, text in tickets + tallies:
            assert text.startswith(LETTERS[colour]) and text[1:].isdigit(), (colour, text)
        dice = page.locator("#dice .die").evaluate_all(SEEN)
        assert len(dice) == 5
        for colour, text in dice:
            assert LETTERS[colour] in text, (colour, text)
        # the player's own secret bet card: the camel's letter, not a blank coloured square
        cards = own.locator(f"tr[data-player='{bettor}'] [data-pile='winner'] .chip")
        assert cards.evaluate_all(SEEN) == [["white", "W"]]
        # one die is left: said in the singular
        assert "1 die in the pyramid" in page.locator("#track .centre").inner_text()
        page.screenshot(path=str(tmp_path / "letters-phone.png"), full_page=True)
        close(page, own)


def test_second_edition_tickets_carry_their_camels_letter(browser: Any, tmp_path: Path) -> None:
    with serve_table(tmp_path, start=False) as table:
        session = table.session
        session.start_game(["Ann", "Bo", "Cy"], game="camelup2", seed=3)
        _play(session, "leg:blue", "leg:purple", "leg:red", "leg:green")
        page = open_page(browser, table.url, viewport=TABLET, pin=PIN)
        synced(page, table)
        tickets = page.locator("#c2-players .chip.ticket").evaluate_all(SEEN)
        assert sorted(c for c, _ in tickets) == ["blue", "green", "purple", "red"]
        for colour, text in tickets:
            assert text == f"{LETTERS[colour]}5", (colour, text)
        close(page)


def test_the_places_below_the_podium_say_their_unit(browser: Any, tmp_path: Path) -> None:
    """Four players, the fourth below the podium: "4th Cy, 2 coins", not "4. Cy 2"; the final
    table names its columns."""
    with serve_table(tmp_path, start=False) as table:
        session = table.session
        players = ["Ann", "Bo", "Cy", "Di"]
        session.start_game(players, {"16": ["orange", "blue", "green"], "1": ["yellow", "white"]})
        # green wins the leg (Ann +5), blue second (Bo +1), yellow neither (Cy −1), Di's die
        _play(session, "leg:green", "leg:blue", "leg:yellow", "roll:orange:1")
        assert session.game.state.finished
        money = {name: session.game.state.players[i].money for i, name in enumerate(players)}
        last = min(money, key=lambda name: money[name])
        assert sorted(money.values()).count(money[last]) == 1, money
        page = open_page(browser, table.url, viewport=PHONE, pin=PIN)
        synced(page, table)
        rest = page.locator("#result .podium-rest").inner_text()
        assert rest == f"4th {last}, {money[last]} coins", rest
        heads = page.locator("#result table.final thead th").all_inner_texts()
        assert heads == ["player", "coins"]
        close(page)
