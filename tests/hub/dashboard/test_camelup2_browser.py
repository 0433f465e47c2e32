"""Camel Up's second edition on the dashboard, in real headless Chromium against a real hub:
started from the new-game dialog, seven camels on the track, a grey die entered through the page
and shown with the camel it moved and why, odds with their standard error, a tile placed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import PIN, serve_table
from .test_browser import PHONE, TABLET, close, open_page, synced, tap, wait_until

DESKTOP = {"width": 1440, "height": 900}

pytestmark = pytest.mark.browser


def test_a_second_edition_game_from_the_dialog(browser: Any, tmp_path: Path) -> None:
    with serve_table(tmp_path, start=False, odds=True) as table:
        session = table.session
        page = open_page(browser, table.url, viewport=TABLET, pin=PIN)
        page.click("#new-game-top")
        page.fill("#ng-players", "Ann, Bob, Cy")
        page.select_option("#ng-game", "camelup2")
        assert page.locator("#ng-setup").is_hidden()
        page.click("#ng-start")
        wait_until(lambda: session.game is not None, what="the game to start")
        synced(page, table)
        assert session.kind == "camelup2"
        assert page.locator("#c2-track .camel").count() == 7
        assert page.locator("#c2-track .camel.crazy").count() == 2
        # a grey die entered through the page: which crazy camel moved, and why
        state = session.game.state
        page.select_option("#c2-die", "grey:white")
        page.select_option("#c2-face", "1")
        tap(page, table, "#c2-roll")
        moved = session.game.state.rolled[-1]
        assert moved.die == "grey" and len(session.game.state.dice_left) == 5
        line = page.locator("#c2-dice li.grey-die").inner_text()
        assert f"grey white 1 → {moved.camel}" in line
        assert state.track != session.game.state.track
        # the hub's odds arrive with the race's standard error
        page.wait_for_selector("#c2-odds:has-text('standard error')")
        assert page.locator("#c2-odds tbody tr").count() == 5
        space = page.locator("#c2-space option").first.get_attribute("value")
        page.select_option("#c2-side", "booing")
        tap(page, table, "#c2-tile")
        assert session.game.state.spectators[int(space)] == ("booing", 1)
        page.wait_for_selector(f"#c2-track [data-space='{space}'] .tile.booing")
        # the tap's news is in words, never the hub's action code
        assert "spectator:" not in (page.locator("#message").text_content() or "")
        page.screenshot(path=str(tmp_path / "camelup2.png"), full_page=True)
        assert "null" not in page.locator("#game-card").inner_text()
        close(page)


def test_a_stack_of_all_seven_camels_stands_inside_its_space(browser: Any, tmp_path: Path) -> None:
    """The second edition's tallest stack (every camel on one space) at phone, tablet and desktop
    widths: each camel inside its space's box, read bottom up as on the board, and each one
    drawn higher than the camel it sits on (a stack once hung out under its space)."""
    seven = ["blue", "black", "green", "yellow", "white", "red", "purple"]
    with serve_table(tmp_path, start=False) as table:
        table.session.start_game(["Ann", "Bo", "Cy"], {"3": seven, "1": []}, game="camelup2")
        for name, viewport in (("phone", PHONE), ("tablet", TABLET), ("desktop", DESKTOP)):
            page = open_page(browser, table.url, viewport=viewport, pin=PIN)
            synced(page, table)
            space = page.locator("#c2-track .space[data-space='3']")
            box = space.bounding_box()
            camels = space.locator(".camel")
            tops = []
            for i in range(camels.count()):
                c = camels.nth(i).bounding_box()
                inside = (
                    c["x"] >= box["x"] - 0.5
                    and c["x"] + c["width"] <= box["x"] + box["width"] + 0.5
                    and c["y"] >= box["y"] - 0.5
                    and c["y"] + c["height"] <= box["y"] + box["height"] + 0.5
                )
                assert inside, f"{name}: the {seven[i]} camel {c} leaves space 3 {box}"
                tops.append(c["y"])
            assert camels.evaluate_all("cs => cs.map(c => c.title)") == seven
            assert tops == sorted(tops, reverse=True), f"{name}: {tops}"  # each one higher
            page.screenshot(path=str(tmp_path / f"seven-{name}.png"), full_page=True)
            close(page)


def test_at_game_over_the_unit_past_the_line_stands_as_a_stack_and_the_players_fit(
    browser: Any, tmp_path: Path
) -> None:
    """The unit that crossed the line is drawn as the stack it is, bottom camel lowest and the
    winner on top, at phone and tablet widths (it was laid out as a wrapping row: the winner, on
    top, came out under the other two); and with three players, no partnership column pushes
    the players' table past a phone's width."""
    track = {"16": ["red", "blue", "green"], "1": ["yellow", "purple"], "8": ["black", "white"]}
    with serve_table(tmp_path, start=False) as table:
        session = table.session
        session.start_game(["Ann", "Bo", "Cy"], track, game="camelup2")
        answer = session.request("action", {"player": "Ann", "action": "roll:red:1"}, {"pin": PIN})
        assert answer["ok"], answer
        assert session.game.state.finished
        for name, viewport in (("phone", PHONE), ("tablet", TABLET)):
            page = open_page(browser, table.url, viewport=viewport, pin=PIN)
            synced(page, table)
            past = page.locator("#c2-track .space.finish")
            assert past.count() == 1
            assert "past the finish" in past.inner_text()
            camels = past.locator(".camel")
            assert camels.evaluate_all("cs => cs.map(c => c.title)") == ["red", "blue", "green"]
            boxes = [camels.nth(i).bounding_box() for i in range(3)]
            tops = [b["y"] for b in boxes]
            assert tops == sorted(tops, reverse=True) and len(set(tops)) == 3, f"{name}: {tops}"
            players = page.locator("#c2-players")
            headers = players.locator("th").all_inner_texts()
            assert "partner" not in headers
            fits = players.evaluate("t => t.scrollWidth <= t.clientWidth + 1")
            assert fits, f"{name}: the players' table is wider than its card"
            page.screenshot(path=str(tmp_path / f"over-{name}.png"), full_page=True)
            close(page)


def test_on_a_phone_every_players_column_is_seen_without_scrolling(
    browser: Any, tmp_path: Path
) -> None:
    """At 360 and 390 px, with leg tickets held, a spectator tile out and a long name, each
    player's every value stands inside the card under its own label: the six columns side by
    side scrolled sideways at 360 px and cut "finish cards" at first sight."""
    with serve_table(tmp_path, start=False) as table:
        session = table.session
        session.start_game(["Ann", "Bartholomew", "Cy", "Dee"], game="camelup2", seed=3)
        for action in ("leg:blue", "spectator:9:cheering", "leg:green", "leg:blue", "leg:red"):
            who = session.game.current_player
            answer = session.request("action", {"player": who, "action": action}, {"pin": PIN})
            assert answer["ok"], answer
        for width in (360, 390):
            page = open_page(browser, table.url, viewport={"width": width, "height": 800}, pin=PIN)
            synced(page, table)
            players = page.locator("#c2-players")
            assert players.evaluate("t => t.scrollWidth <= t.clientWidth + 1"), width
            card = page.locator("#game-card").bounding_box()
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            for name in ("Ann", "Bartholomew", "Cy", "Dee"):
                row = players.locator(f"tr[data-player='{name}']")
                for label in (
                    "coins",
                    "leg tickets",
                    "pyramid tickets",
                    "spectator tile",
                    "finish cards",
                ):
                    cell = row.locator(f"td[data-label='{label}']")
                    box = cell.bounding_box()
                    assert box is not None and box["width"] > 0, (width, name, label)
                    inside = (
                        card["x"] <= box["x"]
                        and box["x"] + box["width"] <= card["x"] + card["width"]
                    )
                    assert inside, f"{width} px: {name}'s {label} {box} leaves the card {card}"
                    # the label is seen beside the value (the header row is off screen)
                    shown = cell.evaluate("c => getComputedStyle(c, '::before').content")
                    assert label in shown, (width, label, shown)
            bart = players.locator("tr[data-player='Bartholomew'] td[data-label='spectator tile']")
            assert bart.inner_text() == "+1 cheering on 9"
            page.screenshot(path=str(tmp_path / f"players-{width}.png"), full_page=True)
            close(page)
