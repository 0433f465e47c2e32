"""A player's link in real browsers: the player's phone, which opened it first, shows their
secret bet; the PIN holder's tablet opening the same link sees the table as everyone does, and
is told why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.browser import wait_js
from tests.hub.dashboard.conftest import PIN, serve_table
from tests.hub.dashboard.test_browser import TABLET, close, open_page, synced, tap

pytestmark = [pytest.mark.security, pytest.mark.browser]


def test_a_players_link_shows_secrets_only_on_the_phone_that_opened_it(
    browser: Any, tmp_path: Path, screenshot_dir: Path
) -> None:
    with serve_table(tmp_path, retry_ms=1500) as t:
        session = t.session
        bettor = session.game.current_player
        link = f"{t.url}/p/{session.player_token(bettor)}"
        phone = open_page(browser, link)  # the player scans the QR code first
        synced(phone, t)
        phone.click("#bet-winner")
        phone.wait_for_selector("#bet-pick button[data-action='bet:winner:orange']")
        tap(phone, t, "#bet-pick button[data-action='bet:winner:orange']")
        mine = f"tr[data-player='{bettor}'] [data-pile='winner'] .chip.c-orange"
        assert phone.locator(mine).count() == 1

        tablet = open_page(browser, link, viewport=TABLET, pin=PIN)  # the PIN holder peeks
        synced(tablet, t)
        tablet.wait_for_selector("#message:not([hidden])")
        said = tablet.locator("#message").inner_text()
        assert f"{bettor}'s link is open on another device" in said
        wait_js(tablet, "document.querySelectorAll('[data-pile] .chip').length === 0")
        assert tablet.locator(mine).count() == 0
        assert "orange" not in tablet.locator("#players").inner_text().lower()
        tablet.screenshot(path=str(screenshot_dir / "link-claimed-elsewhere.png"))
        assert phone.locator(mine).count() == 1  # still on the player's own phone
        close(phone, tablet)


def test_a_double_tap_on_the_shared_screen_plays_once(browser: Any, tmp_path: Path) -> None:
    with serve_table(tmp_path, retry_ms=1500) as t:
        session = t.session
        mover = session.game.current_player
        page = open_page(browser, t.url, viewport=TABLET, pin=PIN)
        synced(page, t)
        page.locator("#actions button[data-action='leg:blue']").dblclick()
        page.wait_for_selector("#message.error:not([hidden])")
        said = page.locator("#message").inner_text()
        assert said.startswith(f"{mover} has already moved"), said
        taken = [e for e in session.engine_log() if e["type"] == "leg_tile_taken"]
        assert taken == [{"type": "leg_tile_taken", "player": mover, "colour": "blue", "value": 5}]
        assert session.game.current_player != mover
        close(page)


def test_a_released_link_goes_to_the_phone_the_table_hands_it_to(
    browser: Any, tmp_path: Path, screenshot_dir: Path
) -> None:
    """A lost phone: the table releases the player's link and shows a new one with a one-time
    claim code. The new phone that opens it sees the player's secret bet; someone who kept the
    old link, on another phone, sees the table as everyone does."""
    import json
    import urllib.request
    from urllib.parse import urlsplit

    with serve_table(tmp_path, retry_ms=1500) as t:
        session = t.session
        bettor = session.game.current_player
        link = f"{t.url}/p/{session.player_token(bettor)}"
        lost = open_page(browser, link)  # the phone that will be lost
        synced(lost, t)
        lost.click("#bet-winner")
        lost.wait_for_selector("#bet-pick button[data-action='bet:winner:orange']")
        tap(lost, t, "#bet-pick button[data-action='bet:winner:orange']")
        mine = f"tr[data-player='{bettor}'] [data-pile='winner'] .chip.c-orange"
        close(lost)

        req = urllib.request.Request(
            f"{t.url}/api/players/{bettor}/release",
            data=b"{}",
            headers={"Content-Type": "application/json", "X-Pyramid-Pin": PIN},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            handed = json.loads(r.read())
        parts = urlsplit(handed["url"])
        assert "claim=" in parts.query
        finder = open_page(browser, link)  # the old link, on another phone
        synced(finder, t)
        wait_js(finder, "document.querySelectorAll('[data-pile] .chip').length === 0")
        assert finder.locator(mine).count() == 0
        new_phone = open_page(browser, f"{t.url}{parts.path}?{parts.query}")
        synced(new_phone, t)
        new_phone.wait_for_selector(mine)
        assert new_phone.locator(mine).count() == 1
        new_phone.screenshot(path=str(screenshot_dir / "link-handed-over.png"))
        finder.reload()
        wait_js(finder, "document.body.dataset.conn === 'live'")
        synced(finder, t)
        assert finder.locator(mine).count() == 0  # still the public table
        close(finder, new_phone)
