"""The demo played through the dashboard by clicks, in real headless Chromium: a person plays a
seat of a whole Camel Up game from their own link (the bots wait for them, the dice the camera
doubts are answered on the table's page), and every game is started from the page's "+ New
game" dialog and reaches its podium. The demo runs whole in this process (watch loop, rendered
frames, vision, hub, dashboard); the page is driven only by clicks, the hub is only looked at."""

from __future__ import annotations

import time
from typing import Any

import pytest

from firmware.demo_games import demo_players
from tests.fixtures.browser import wait_js
from tests.fixtures.demo import PIN, demo, games_of, wait_for

from .test_browser import PHONE, TABLET, close, open_page
from .test_gamenight_browser import feed, no_sideways_scroll, shots

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGE_STATE = """(() => { const S = window.pyramid.S; const v = S.view || {};
  return {game: S.liveGameId, finished: !!v.finished, turn: v.current_player || null,
          mine: document.body.dataset.yourTurn === '1', legal: S.legal.slice(),
          prompts: (S.pending || []).map((p) => ({id: p.id, kind: p.kind,
            colour: (p.reading || {}).colour || null})),
          left: v.dice_left || []}; })()"""


def answer_die_prompts(table: Any, state: dict[str, Any]) -> int:
    """The table's page answers each die the camera doubted: a tap on its colour and a face."""
    taps = 0
    for p in state["prompts"]:
        if p["kind"] != "die_reading":
            continue
        colour = p["colour"] if p["colour"] in state["left"] else state["left"][0]
        button = table.locator(f".prompt[data-prompt='{p['id']}'] button[data-answer='{colour}:2']")
        if button.count():
            button.click()
            taps += 1
    return taps


def test_a_person_plays_a_seat_of_a_whole_game_by_taps(browser: Any) -> None:
    with demo(seat="Ann") as d:  # with a seat, the demo starts no next game by itself
        link = wait_for(
            lambda: next((x for x in d.lines if x.startswith("your seat, Ann: ")), None),
            30,
            "Ann's own link",
        )
        token = link.split("/p/")[1].split()[0]
        context = browser.new_context(viewport=PHONE)
        context.add_init_script(
            "window.__buzz = []; navigator.vibrate = (p) => (window.__buzz.push(p), true);"
        )
        ann = context.new_page()
        ann.errors = []
        ann.on("pageerror", lambda exc: ann.errors.append(str(exc)))
        ann.csp = []
        ann.on(
            "console",
            lambda m: ann.csp.append(m.text) if "Content Security Policy" in m.text else None,
        )
        ann.goto(f"{d.url}/p/{token}")
        wait_js(ann, "document.body.dataset.conn === 'live'")
        table = open_page(browser, d.url, viewport=TABLET, pin=PIN)
        mine = answered = 0
        end = time.monotonic() + 300
        while time.monotonic() < end:
            state = table.evaluate(PAGE_STATE)
            if state["finished"]:
                break
            answered += answer_die_prompts(table, state)
            own = ann.evaluate(PAGE_STATE)
            if own["mine"] and own["legal"]:
                assert own["turn"] == "Ann"
                buttons = ann.locator("#actions button[data-action^='leg:']:not([disabled])")
                if not buttons.count():
                    buttons = ann.locator("#actions button[data-action='roll']")
                before = len(ann.evaluate("window.pyramid.S.log"))
                buttons.first.click()
                mine += 1
                wait_js(
                    ann,
                    f"window.pyramid.S.log.length > {before} || "
                    "document.body.dataset.yourTurn !== '1'",
                    timeout=20_000,
                )
            time.sleep(0.1)
        wait_js(ann, "!!(window.pyramid.S.view || {}).finished", timeout=20_000)
        assert mine >= 3, mine
        # the cue came on Ann's link, her taps are in the feed in words, and the game ends on
        # the podium on both pages
        assert ann.evaluate("window.__buzz.length") >= 1
        words = feed(ann)
        assert any(w.startswith("Ann took the ") or w.startswith("Ann rolled") for w in words), (
            words[:10]
        )
        for page in (ann, table):
            page.wait_for_selector("#podium [data-place='1']")
        over = games_of(d)["g1"]
        assert over["status"] == "finished"
        assert table.locator("#podium [data-place='1'] .who").inner_text() == " & ".join(
            p for p, m in over["money"].items() if m == max(over["money"].values())
        )
        no_sideways_scroll(ann)
        ann.screenshot(path=str(shots() / "seat-game-over-phone-390.png"), full_page=True)
        close(ann, table)


def start_from_the_dialog(page: Any, kind: str, players: list[str]) -> None:
    """ "+ New game", the players typed, the game chosen, the game in play ended, Start. The
    demo starts its own next Camel Up game 8 s after a podium: if it did so while the dialog
    was open, the hub refuses (a game is in play) and the dialog is opened once more."""
    for _ in range(2):
        page.click("#new-game")  # the Games card's "+ New game"
        page.fill("#ng-players", ", ".join(players))
        page.select_option("#ng-game", kind)
        if page.locator("#ng-abandon-label").is_visible():
            page.check("#ng-abandon")
        page.click("#ng-start")
        try:
            page.locator("#newgame-dialog").wait_for(state="hidden", timeout=10_000)
            return
        except Exception:
            page.click("#ng-cancel")
    raise AssertionError("the new-game dialog did not start the game")


def test_every_game_started_from_the_page_reaches_its_podium(browser: Any) -> None:
    with demo() as d:
        wait_for(lambda: games_of(d).get("g1"), 60, "the demo's first game")
        page = open_page(browser, d.url, viewport=TABLET, pin=PIN)
        for kind in ("camelup", "camelup2", "horserace", "marcopolo2"):
            start_from_the_dialog(page, kind, demo_players(["Ada", "Bo", "Cy"], kind))
            # the game started is the table's newest: not a number counted on, since the demo
            # may have started a game of its own after the last podium, abandoned by the dialog
            games = games_of(d)
            game_id = max(games, key=lambda g: int(g.lstrip("g")))
            assert games[game_id]["kind"] == kind, games[game_id]
            wait_js(page, f"window.pyramid.S.liveGameId === '{game_id}'", timeout=20_000)
            wait_js(page, "!!(window.pyramid.S.view || {}).finished", timeout=240_000)
            done = games_of(d)[game_id]
            assert done["kind"] == kind and done["status"] == "finished", done
            winners = " & ".join(done["winners"])
            page.wait_for_selector("#podium [data-place='1']")
            assert page.locator("#podium [data-place='1'] .who").inner_text() == winners
            assert page.locator("#podium").count() == 1  # one game's over, not two
            assert page.locator("#next-game").is_visible()
            # a full-page capture of a scrolled page draws the sticky header where the view
            # stood, mid-page: take it from the top, as a person arriving at the podium sees it
            page.evaluate("window.scrollTo(0, 0)")
            # and once every card is turned over (each fades in after the one before it)
            wait_js(
                page,
                "[...document.querySelectorAll('.reveal')]"
                ".every((e) => getComputedStyle(e).opacity === '1')",
                timeout=30_000,
            )
            page.screenshot(path=str(shots() / f"demo-{kind}-over-1024.png"), full_page=True)
        close(page)
