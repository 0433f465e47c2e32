"""The horse race and Marco Polo II on the dashboard, in real headless Chromium against a real
hub: a horse race started from the new-game dialog and played through the page to its podium, a
Marco Polo round's dice with compensation, and the final scoring calculator's result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import PIN, serve_table
from .test_browser import TABLET, close, open_page, synced, tap, wait_until

pytestmark = pytest.mark.browser


def test_a_horse_race_from_the_dialog_to_the_podium(browser: Any, tmp_path: Path) -> None:
    with serve_table(tmp_path, start=False, odds=True) as table:
        session = table.session
        page = open_page(browser, table.url, viewport=TABLET, pin=PIN)
        guest = open_page(browser, table.url)
        page.click("#new-game-top")
        page.fill("#ng-players", "Ann, Bob")
        page.select_option("#ng-game", "horserace")
        assert page.locator("#ng-setup").is_hidden()  # Camel Up's setup roll is not asked
        page.fill("#ng-track-length", "8")
        page.click("#ng-start")
        wait_until(lambda: session.game is not None, what="the race to start")
        synced(page, table)
        assert session.kind == "horserace" and session.record.params["settings"] == {
            "races": 1,
            "track_length": 8,
            "next_starter": "leader",
        }
        assert page.locator("#track-card").is_hidden() and page.locator("#game-card").is_visible()
        page.wait_for_selector("#games li[data-game='g1']:has-text('horse race')")
        assert page.locator("#hr-track .lane").count() == 5
        # the value of a token now, from the hub's advice, with its error
        page.wait_for_selector("#hr-betting tr[data-bet='blue'] td.ev:has-text('±')")
        tap(page, table, "#hr-betting button[data-action='bet:blue']")
        assert page.locator("#hr-columns tr[data-column='blue'] td.token").count() == 1
        tap(page, table, "#hr-betting button[data-action='pass']")
        # the roll entered by the page, then the advice for it: every player's expected points
        tap(page, table, "#hr-running button[data-action='roll:6']")
        assert page.locator("#hr-roll-face").inner_text() == "6"
        assert "null" not in page.locator("#game-card").inner_text()
        page.wait_for_selector("#hr-roll tr[data-choice] td.ev")
        first = page.locator("#hr-roll tr[data-choice]").first
        ev = first.locator("td.ev")
        assert ev.count() == 2 and "±" in ev.first.inner_text()
        roll = session.snapshot(log=False)["advice"]["roll"]
        best = roll["choices"][0]
        assert first.get_attribute("data-choice") == best["horse"]
        assert ev.first.inner_text().startswith(f"{best['expected']['Ann']:.1f}")
        tap(page, table, f"#hr-roll tr[data-choice='{best['horse']}'] button[data-action]")
        assert session.game.state.positions[session.game.state.horses.index(best["horse"])] == 6
        # the rest of the race through the page: pass, roll 6, give it to a horse
        taps = 0
        while not session.game.finished:
            taps += 1
            assert taps < 60
            state = session.game.state
            if state.phase == "betting":
                tap(page, table, "#hr-betting button[data-action='pass']")
            elif state.roll is None:
                tap(page, table, "#hr-running button[data-action='roll:6']")
            else:
                tap(page, table, "#hr-roll button[data-action^='assign:']")
        podium = session.snapshot(log=False)["game"]["podium"]
        for p in (page, guest):
            synced(p, table)
            assert [
                p.locator(f"#hr-podium [data-place='{i}']").inner_text().split()[-1]
                for i in (1, 2, 3)
            ] == podium
            assert p.locator("#status-text").inner_text().startswith("Game over")
        over = [e for e in session.engine_log() if e["type"] == "game_over"][0]
        assert " & ".join(over["winners"]) in page.locator("#hr-result .winners").inner_text()
        assert page.locator("#hr-players tr[data-player='Ann'] td.points").inner_text() == str(
            over["points"]["Ann"]
        )
        close(page, guest)


def test_a_marco_polo_round_and_the_final_scoring(browser: Any, tmp_path: Path) -> None:
    with serve_table(tmp_path, start=False) as table:
        session = table.session
        players = ["Ann", "Bob", "Cy"]
        boards = {"Ann": [0, 0, 10, 10], "Bob": [10, 0, 10, 10], "Cy": [20, 0, 10, 10]}
        answer = session.request(
            "start_game", {"game": "marcopolo2", "players": players, "boards": boards}, {"pin": PIN}
        )
        assert answer["ok"], answer
        page = open_page(browser, table.url, viewport=TABLET, pin=PIN)
        bob = open_page(browser, f"{table.url}/p/{session.player_token('Bob')}")
        # the 3-player setup
        setup = page.locator("#mp-setup")
        assert "Black dice in play: 5" in setup.inner_text()
        assert "neutral die showing 1 on Khan's favour" in setup.inner_text()
        # the camera reads the round's dice: Ann and Bob completely, one of Cy's not
        frame = [
            {"colour": c, "face": f, "confidence": 0.9, "box": [x, 1, 1, 1]}
            for c, f, x in [
                ("blue", 6, 1),
                ("blue", 5, 2),
                ("yellow", 1, 11),
                ("black", 2, 12),
                ("green", 4, 21),
                ("green", None, 22),
            ]
        ]
        assert session.request("observe_dice", {"readings": frame}, {"pin": PIN})["ok"]
        synced(page, table)
        assert page.locator("#mp-round tr[data-player='Ann'] td.total").inner_text() == "11"
        assert page.locator("#mp-round tr[data-player='Bob'] td.black").inner_text() == "2"
        assert page.locator("#mp-round tr[data-player='Bob']").get_attribute("data-owed") == "12"
        assert "Enter the dice of Cy" in page.locator("#prompt-card").inner_text()
        assert "null" not in page.locator("#game-card").inner_text()
        # a person enters Cy's dice on the page
        page.fill("#mp-round tr[data-player='Cy'] .dice-own", "4, 3")
        tap(page, table, "#mp-round tr[data-player='Cy'] .enter-dice")
        assert session.pending == {} and page.locator("#prompt-card").is_hidden()
        assert page.locator("#mp-round tr[data-player='Cy'] td.total").inner_text() == "7"
        # Bob chooses his compensation on his own phone; the table does Ann's and Cy's
        assert bob.locator("#mp-round tr[data-player='Ann'] .take").count() == 0
        bob.locator("#mp-round tr[data-player='Bob'] .comp-coins").evaluate(
            "(e) => { e.value = 5; e.dispatchEvent(new Event('input')); }"
        )
        assert bob.locator("#mp-round tr[data-player='Bob'] .comp-split").inner_text() == (
            "5 coins · 7 camels"
        )
        tap(bob, table, "#mp-round tr[data-player='Bob'] .take")
        assert session.game.state.compensation["Bob"] == {"coins": 5, "camels": 7}
        synced(page, table)
        assert page.locator("#mp-next-round").is_disabled()
        tap(page, table, "#mp-round tr[data-player='Ann'] .take")
        tap(page, table, "#mp-round tr[data-player='Cy'] .take")
        assert page.locator("#mp-round tr[data-player='Cy'] td.taken").inner_text() == (
            "8 coins, 0 camels"
        )
        for n in range(2, 6):
            tap(page, table, "#mp-next-round")
            assert session.game.state.round == n
        # the calculator, a worked example: contracts 5, 5, 3 -> majorities 8, 8, 4; Ann and
        # Bob tie on 11 points and Bob, with more camels, wins
        sheets = {
            "Ann": {"coins": 23, "contracts": 5, "pepper": 2, "silk": 1, "camels": 2},
            "Bob": {"contracts": 5, "seal_points": 3, "camels": 5},
            "Cy": {"contracts": 3, "coins": 10, "camels": 9},
        }
        for name, sheet in sheets.items():
            form = page.locator(f"#mp-calculator form[data-player='{name}']")
            for key, value in sheet.items():
                form.locator(f"input[name='{key}']").fill(str(value))
            tap(page, table, f"#mp-calculator form[data-player='{name}'] .enter-sheet")
        assert session.game.state.sheets["Ann"] == sheets["Ann"]
        tap(page, table, "#mp-finish")
        result = page.locator("#mp-result")
        majority = result.locator("tr[data-entry='contract_majority'] td").all_inner_texts()
        totals = result.locator("tr[data-entry='total'] th").all_inner_texts()
        heads = result.locator("thead th").all_inner_texts()
        assert heads[1:] == ["Bob", "Ann", "Cy"]
        assert majority[1:] == ["8", "8", "4"] and totals[1:] == ["11", "11", "5"]
        assert result.locator(".winners").inner_text() == "Bob wins with 11 points"
        assert "most camels wins" in result.locator(".tie-break").inner_text()
        assert session.record.status == "finished"
        synced(bob, table)
        assert bob.locator("#mp-result .winners").inner_text() == "Bob wins with 11 points"
        close(page, bob)


def test_the_dialog_refuses_a_bad_setting_and_changes_nothing(browser: Any, tmp_path: Path) -> None:
    with serve_table(tmp_path, start=False) as table:
        page = open_page(browser, table.url, viewport=TABLET, pin=PIN)
        page.click("#new-game-top")
        page.fill("#ng-players", "Ann, Bob, Cy, Dee, Eve")
        page.select_option("#ng-game", "marcopolo2")
        assert page.locator("#ng-marcopolo2").is_visible()
        page.click("#ng-start")
        msg = page.locator("#newgame-dialog .dialog-message")
        msg.wait_for(state="visible")
        assert "2 to 4 players" in msg.inner_text()
        assert table.session.game is None and table.session.seq == 0
        close(page)


def test_marco_polo_on_a_phone_fits_without_scrolling_sideways(
    browser: Any, tmp_path: Path
) -> None:
    """Round 5 at 360 px: the round's table (read dice, a player's dice to enter by hand) and
    every player's score sheet stand inside the card. The sheets' number boxes ran past the
    card and made the whole page scroll sideways; the round's table cut its last columns."""
    with serve_table(tmp_path, start=False) as table:
        session = table.session
        players = ["Ann", "Bartholomew", "Cy", "Dee"]
        answer = session.request(
            "start_game", {"game": "marcopolo2", "players": players}, {"pin": PIN}
        )
        assert answer["ok"], answer
        for _ in range(4):
            answer = session.request("action", {"player": "Ann", "action": "round"}, {"pin": PIN})
            assert answer["ok"], answer
        assert session.game.state.round == 5
        colours = session.snapshot(log=False)["game"]["colours"]
        frame = [
            {"colour": colours[p], "face": f, "confidence": 0.9, "box": [x, 1, 1, 1]}
            for p, f, x in [("Ann", 2, 1), ("Ann", 3, 2), ("Bartholomew", 6, 11)]
        ]
        assert session.request("observe_dice", {"readings": frame}, {"pin": PIN})["ok"]
        for width in (360, 390):
            page = open_page(browser, table.url, viewport={"width": width, "height": 800}, pin=PIN)
            synced(page, table)
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            card = page.locator("#game-card").bounding_box()
            right = card["x"] + card["width"]
            rnd = page.locator("#mp-round")
            assert rnd.evaluate("t => t.scrollWidth <= t.clientWidth + 1"), width
            ann = rnd.locator("tr[data-player='Ann']")
            for label in ("dice", "black", "total", "compensation"):
                box = ann.locator(f"td[data-label='{label}']").bounding_box()
                assert box is not None and box["x"] + box["width"] <= right, (width, label, box)
            assert ann.locator("td.total").inner_text() == "5"
            enter = rnd.locator("tr[data-player='Cy'] .enter-dice").bounding_box()
            assert enter["x"] + enter["width"] <= right, (width, enter, card)
            inputs = page.locator("#mp-calculator form input")
            assert inputs.count() >= 4 * 14
            boxes = inputs.evaluate_all("is => is.map(i => i.getBoundingClientRect().right)")
            assert max(boxes) <= right, (width, max(boxes), right)
            page.screenshot(path=str(tmp_path / f"mp-{width}.png"), full_page=True)
            close(page)
