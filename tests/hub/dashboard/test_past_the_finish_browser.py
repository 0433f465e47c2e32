"""The first edition's board at game over, in real headless Chromium: the unit that crossed the
line stands in the board's centre as the stack it is, the winner on top."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import PIN, serve_table
from .test_browser import PHONE, TABLET, close, open_page, synced

pytestmark = pytest.mark.browser


def test_the_unit_past_the_finish_is_drawn_bottom_camel_lowest(
    browser: Any, tmp_path: Path
) -> None:
    """Orange carries blue and green over the line: green, on top, won. The camels past the
    finish were laid out as a wrapping row, which on a phone put green under the other two."""
    with serve_table(tmp_path, start=False) as table:
        session = table.session
        session.start_game(
            ["Ann", "Bo", "Cy"], {"16": ["orange", "blue", "green"], "1": ["yellow", "white"]}
        )
        answer = session.request(
            "action", {"player": "Ann", "action": "roll:orange:1"}, {"pin": PIN}
        )
        assert answer["ok"], answer
        assert session.game.state.finished
        for name, viewport in (("phone", PHONE), ("tablet", TABLET)):
            page = open_page(browser, table.url, viewport=viewport, pin=PIN)
            synced(page, table)
            past = page.locator(".space.finish[data-space='finish']")
            camels = past.locator(".camel")
            assert camels.evaluate_all("cs => cs.map(c => c.dataset.colour)") == [
                "orange",
                "blue",
                "green",
            ]
            box = past.bounding_box()
            tops = []
            for i in range(3):
                c = camels.nth(i).bounding_box()
                assert (
                    box["y"] - 0.5 <= c["y"]
                    and c["y"] + c["height"] <= box["y"] + box["height"] + 0.5
                )
                tops.append(c["y"])
            assert tops == sorted(tops, reverse=True) and len(set(tops)) == 3, f"{name}: {tops}"
            page.screenshot(path=str(tmp_path / f"finish-{name}.png"), full_page=True)
            close(page)


def test_the_board_says_the_race_is_over_and_who_won(browser: Any, tmp_path: Path) -> None:
    """Once green has won, the board's heading names the race over and the winning camel (it
    kept saying "Track leg 1", as if the leg were still being played)."""
    with serve_table(tmp_path, start=False) as table:
        session = table.session
        session.start_game(
            ["Ann", "Bo", "Cy"], {"16": ["orange", "blue", "green"], "1": ["yellow", "white"]}
        )
        page = open_page(browser, table.url, viewport=PHONE, pin=PIN)
        synced(page, table)
        heading = page.locator("#track-card h2")
        assert heading.inner_text() == "Track leg 1"  # while the leg is played
        answer = session.request(
            "action", {"player": "Ann", "action": "roll:orange:1"}, {"pin": PIN}
        )
        assert answer["ok"], answer
        synced(page, table)  # live, without a reload
        text = heading.inner_text()
        assert "leg" not in text, text
        assert text == "Track · race over · green camel won"
        page.screenshot(path=str(tmp_path / "over-heading.png"), full_page=True)
        close(page)


def test_at_game_over_the_scores_change_column_is_the_overall_bets(
    browser: Any, tmp_path: Path
) -> None:
    """Once the race is over the last leg is scored, and the scores' change column holds what
    the overall bets paid; it was still headed "this leg" (Ann +8 beside a feed that said
    the last leg gave her ±0)."""
    with serve_table(tmp_path, start=False) as table:
        session = table.session
        session.start_game(
            ["Ann", "Bo", "Cy"], {"16": ["orange", "blue", "green"], "1": ["yellow", "white"]}
        )
        for who, action in (("Ann", "bet:winner:green"), ("Bo", "roll:orange:1")):
            answer = session.request("action", {"player": who, "action": action}, {"pin": PIN})
            assert answer["ok"], answer
        assert session.game.state.finished
        page = open_page(browser, table.url, viewport=PHONE, pin=PIN)
        synced(page, table)
        heads = page.locator("#players thead th").all_inner_texts()
        assert heads[3] == "overall bets", heads
        change = {
            name: page.locator(f"#players tr[data-player='{name}'] td.delta").inner_text()
            for name in ("Ann", "Bo", "Cy")
        }
        assert change == {"Ann": "+8", "Bo": "±0", "Cy": "±0"}, change
        close(page)
