"""Game night in real headless Chromium: the feed in plain words, undo that names what it takes
back, the your-turn cue on a player's own link, the podium and the piles at game over, the board's
ring, an axe-core scan, and no sideways scrolling at 360 px on any game's page.

Screenshots of every page go to var/screenshots/ (gitignored; PYRAMID_SCREENSHOTS=DIR elsewhere)
so a person can look at them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from hub.dashboard.guard import CSP
from tests.fixtures.browser import csp_violations, wait_js

from .conftest import PIN, Table, serve_table
from .test_browser import PHONE, TABLET, close, open_page, synced, tap, wait_until

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[3]
NARROW = {"width": 360, "height": 780}
AXE = REPO / ".venv" / "node" / "node_modules" / "axe-core" / "axe.min.js"


def shots() -> Path:
    path = Path(os.environ.get("PYRAMID_SCREENSHOTS") or REPO / "var" / "screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def no_sideways_scroll(page: Any) -> None:
    width = page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"the page is {width} px wide"
    # wide tables scroll inside their own box (.grid-table): that is neither clipped nor spilt
    spill = page.evaluate("""() => [...document.querySelectorAll('main *')]
        .filter(e => e.offsetParent !== null && e.getClientRects().length)
        .filter(e => { const r = e.getBoundingClientRect();
                       return r.right > innerWidth + 1 || r.left < -1; })
        .filter(e => !e.closest('.feed, .dicelog, .grid-table, .scroll-x'))
        .map(e => e.tagName + '#' + e.id + '.' + e.className).slice(0, 5)""")
    assert spill == [], f"these spill out of the screen: {spill}"


#: Where the scan's page finds axe-core: a same-origin address the test answers itself
#: (page.route), so the page loads axe as a script file from its own origin under its real CSP.
AXE_PATH = "/__test__/axe.min.js"


def open_for_scan(browser: Any, url: str, viewport: dict[str, int], pin: str | None) -> Any:
    """A page as open_page opens it (its own CSP in force), which also checks the CSP header the
    hub sent and answers AXE_PATH with axe-core for axe_scan.

    Why this way: Playwright's add_script_tag(content=...) or (path=...) writes an inline
    script, which the page's CSP (script-src 'self') refuses, and bypass_csp would scan a page
    under other rules than a guest's. A <script src> of the page's own origin is what the CSP
    allows; page.route answers that one address from the test, so nothing is added to the hub."""
    context = browser.new_context(viewport=viewport)
    if pin is not None:
        context.add_init_script(f"localStorage.setItem('pyramid.pin', {pin!r})")
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.csp = csp_violations(page)
    origin = url.split("/p/")[0].rstrip("/")
    if AXE.exists():
        page.route(
            origin + AXE_PATH,
            lambda route: route.fulfill(
                path=str(AXE), content_type="text/javascript; charset=utf-8"
            ),
        )
    response = page.goto(url)
    assert response is not None and response.ok
    assert response.headers["content-security-policy"] == CSP
    wait_js(page, "document.body.dataset.conn === 'live'")
    return page


def axe_scan(page: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is now, run in the page
    under its own CSP (see open_for_scan)."""
    if not AXE.exists():
        pytest.skip(f"axe-core is not installed at {AXE.relative_to(REPO)} (make test installs it)")
    origin = page.evaluate("location.origin")
    page.add_script_tag(url=origin + AXE_PATH)
    assert page.evaluate("typeof axe === 'object' && typeof axe.run === 'function'")
    # the CSP is in force while axe runs: an inline script is still refused (and said so)
    assert page.evaluate("""() => { const s = document.createElement('script');
        s.textContent = 'window.__inline = 1'; document.head.append(s);
        return window.__inline === undefined; }""")
    wait_until(lambda: page.csp, timeout=5, what="the CSP refusing an inline script")
    assert any("inline script" in m or "script-src" in m for m in page.csp), page.csp
    page.csp.clear()  # that refusal was the probe's; anything later is the page's own
    result: list[dict[str, Any]] = page.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ['violations']});
        return r.violations.filter(v => ['serious', 'critical'].includes(v.impact))
          .map(v => ({id: v.id, impact: v.impact, help: v.help,
                      nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
    }""")
    return result


def feed(page: Any) -> list[str]:
    return page.locator("#feed li[data-type] .what").all_inner_texts()


def test_the_feed_tells_every_action_in_words_and_undo_names_what_it_takes_back(
    browser: Any, served: Table
) -> None:
    session = served.session
    page = open_page(browser, served.url, viewport=TABLET, pin=PIN)
    served.play("leg:blue")  # Ann
    served.play("desert:7:mirage")  # Bob
    cy = session.game.current_player
    token = session.player_token(cy)
    answer = session.request(
        "action", {"player": cy, "action": "bet:winner:white"}, {"token": token}
    )
    assert answer["ok"], answer
    served.play("roll:green:2")
    synced(page, served)
    words = feed(page)
    assert "Ann took the blue 5 tile" in words
    assert "Bob put their mirage on 7" in words
    assert f"{cy} bet on the overall winner" in words  # never the colour before game over
    assert not any("white" in w for w in words if "bet" in w)
    rolled = next(w for w in words if w.startswith("Green rolled 2"))
    assert "moves to" in rolled or "move to" in rolled
    # every logged action has its line
    actions = [
        e
        for e in session.engine_log()
        if e["type"] in ("leg_tile_taken", "desert_placed", "overall_bet_placed", "die_read")
    ]
    assert len(words) >= len(actions) + 1  # + the game's start
    assert "EP" not in page.locator("body").inner_text()
    # undo names the move, asks once more, then the feed says what was taken back
    undo = page.locator("#undo")
    assert undo.inner_text().startswith("↶ Undo: Green rolled 2")
    before = session.seq
    undo.click()
    assert page.locator("#undo-row .confirm-text").inner_text().startswith("Take back “Green")
    assert session.seq == before  # nothing happens before the confirmation
    tap(page, served, "#undo-yes")
    assert feed(page)[0].startswith("Taken back: Green rolled 2"), feed(page)[0]
    assert page.locator("#feed li.undone").count() >= 1
    page.screenshot(path=str(shots() / "feed-tablet-1024.png"), full_page=True)
    close(page)


def test_a_players_own_link_gets_the_your_turn_cue(browser: Any, served: Table) -> None:
    session = served.session
    players = session.record.params["players"]
    waiting = next(p for p in players if p != session.game.current_player)
    context = browser.new_context(viewport=PHONE)
    context.add_init_script(
        "window.__buzz = []; navigator.vibrate = (p) => (window.__buzz.push(p), true);"
    )
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.csp = csp_violations(page)
    page.goto(f"{served.url}/p/{session.player_token(waiting)}")
    wait_js(page, "document.body.dataset.conn === 'live'")
    synced(page, served)
    assert page.evaluate("document.body.dataset.yourTurn") == ""
    assert "Your turn" not in page.title()
    assert page.evaluate("window.__buzz.length") == 0
    while session.game.current_player != waiting:
        served.play(
            "leg:yellow"
            if "leg:yellow" in [str(a) for a in session.game.legal_actions()]
            else "roll"
        )
    synced(page, served)
    wait_js(page, "document.body.dataset.yourTurn === '1'")
    assert page.title().startswith("▶ Your turn")
    assert page.locator("#turn-name").inner_text() == "Your turn!"
    assert page.evaluate("window.__buzz.length") == 1
    # the advice in words, on the player's own link, on their own turn
    page.locator("#sound-toggle").click()
    assert page.evaluate("localStorage.getItem('pyramid.sound')") == "on"
    page.screenshot(path=str(shots() / "your-turn-phone-390.png"), full_page=True)
    close(page)


def test_game_over_shows_a_podium_and_turns_the_piles_over(browser: Any, served: Table) -> None:
    session = served.session
    bets = 0
    while not session.game.finished:
        mover = session.game.current_player
        legal = [str(a) for a in session.game.legal_actions()]
        bet = next((a for a in legal if a.startswith("bet:")), None)
        if bets < 12 and bet:
            answer = session.request(
                "action", {"player": mover, "action": bet}, {"token": session.player_token(mover)}
            )
            assert answer["ok"], answer
            bets += 1
        else:
            served.play("roll")
    page = open_page(browser, served.url, viewport=NARROW, pin=PIN)
    synced(page, served)
    result = session.full_state()["result"]
    page.wait_for_selector("#podium [data-place='1']")
    first = [p for p, m in result["money"].items() if m == max(result["money"].values())]
    assert page.locator("#podium [data-place='1'] .who").inner_text() == " & ".join(first)
    assert page.locator(".overall li.reveal").count() == len(result["overall"]) == bets
    # turned over one after another, and all of them within five seconds: at 0.6 s a card,
    # twelve bets used to take 6.6 s, and a table with more waited over ten
    delays = page.eval_on_selector_all(
        ".overall li.reveal", "els => els.map((e) => parseFloat(e.style.animationDelay))"
    )
    assert delays == sorted(delays) and len(set(delays)) == len(delays), delays
    assert delays[-1] <= 5.0 + 1e-9, delays
    for bet in result["overall"]:
        assert (
            page.locator(
                f".pile[data-pile='{bet['pile']}'] li[data-player='{bet['player']}']"
            ).count()
            >= 1
        )
    assert page.locator("#next-game").is_visible()
    page.wait_for_timeout(2200)  # the cards are turned over one by one
    no_sideways_scroll(page)
    page.screenshot(path=str(shots() / "game-over-phone-360.png"), full_page=True)
    before = session.game_id
    page.click("#next-game")
    wait_until(lambda: session.game_id != before, what="the next game")
    assert session.record.params["players"] == ["Ann", "Bob", "Cy"]
    close(page)


def test_the_board_is_a_ring_with_camel_pieces_and_the_top_one_marked(
    browser: Any, served: Table
) -> None:
    session = served.session
    page = open_page(browser, served.url, viewport=NARROW, pin=PIN)
    synced(page, served)
    boxes = page.evaluate("""[...document.querySelectorAll('.space[data-space]')]
        .filter(e => e.dataset.space !== 'finish')
        .map(e => { const r = e.getBoundingClientRect();
                    return [+e.dataset.space, Math.round(r.left), Math.round(r.top)]; })""")
    pos = {s: (x, y) for s, x, y in boxes}
    assert len(pos) == 16
    # clockwise round the pyramid: 1-5 along the bottom leftwards, 5-9 up, 9-13 right, 13-16 down
    assert pos[1][1] == pos[5][1] and pos[1][0] > pos[5][0]
    assert pos[5][0] == pos[9][0] and pos[5][1] > pos[9][1]
    assert pos[9][1] == pos[13][1] and pos[13][0] > pos[9][0]
    assert pos[16][0] == pos[13][0] and pos[16][1] < pos[1][1]
    track = session.snapshot(log=False)["game"]["track"]
    for space, stack in track.items():
        pieces = page.locator(f".space[data-space='{space}'] .camel")
        assert pieces.evaluate_all("cs => cs.map(c => c.title)") == stack
        letters = pieces.evaluate_all("cs => cs.map(c => c.querySelector('text').textContent)")
        assert letters == [c[0].upper() for c in stack]  # a letter as well as a colour
        if len(stack) > 1:
            assert pieces.last.get_attribute("class").split().count("top") == 1
    no_sideways_scroll(page)
    page.screenshot(path=str(shots() / "table-phone-360.png"), full_page=True)
    close(page)


@pytest.mark.parametrize("viewport", [NARROW, TABLET], ids=["phone-360", "tablet-1024"])
def test_accessibility_scan_finds_nothing_serious(
    browser: Any, tmp_path: Path, viewport: dict[str, int]
) -> None:
    with serve_table(tmp_path, odds=False) as t:
        t.play("leg:blue")
        t.play("desert:7:oasis")
        t.play("roll:blue:2")
        for url, name in (
            (t.url, "table"),
            (f"{t.url}/p/{t.session.player_token('Ann')}", "player"),
        ):
            page = open_for_scan(browser, url, viewport, PIN if name == "table" else None)
            synced(page, t)
            violations = axe_scan(page)
            assert violations == [], json.dumps(violations, indent=1)
            no_sideways_scroll(page)
            page.screenshot(path=str(shots() / f"{name}-{viewport['width']}.png"), full_page=True)
            close(page)


@pytest.mark.parametrize("game", ["horserace", "marcopolo2"])
def test_the_other_games_fit_a_360_px_phone(browser: Any, tmp_path: Path, game: str) -> None:
    with serve_table(tmp_path, start=False) as t:
        t.session.start_game(["Ann", "Bob", "Cy"], game=game, seed=3)
        if game == "horserace":
            t.play("bet:blue", "Ann")
        else:
            t.play("dice:Ann:1,2,3,4,5")
        for viewport in (NARROW, TABLET):
            page = open_for_scan(browser, t.url, viewport, PIN)
            synced(page, t)
            page.screenshot(path=str(shots() / f"{game}-{viewport['width']}.png"), full_page=True)
            no_sideways_scroll(page)
            violations = axe_scan(page)
            assert violations == [], json.dumps(violations, indent=1)
            close(page)


def finish_horse_race(t: Table) -> None:
    """Play a seeded horse race to its end in-process: tokens on two horses, then every roll."""
    session = t.session
    bets = 0
    while not session.game.finished:
        legal = [str(a) for a in session.game.legal_actions()]
        options = [a for a in legal if a.startswith("bet:")]
        bet = options[(3 * bets) % len(options)] if options else None  # on different horses
        if bet and bets < 4:
            t.play(bet)
            bets += 1
        elif "pass" in legal:
            t.play("pass")
        elif "roll" in legal:
            t.play("roll")
        else:
            t.play(next(a for a in legal if a.startswith("assign:")))


def finish_marco_polo(t: Table) -> None:
    """Five rounds of dice totalling 15 (nothing owed), then three score sheets and finish."""
    for name in ("Ann", "Bob", "Cy"):
        t.play(f"dice:{name}:5,5,5", name)
    for _ in range(4):
        t.play("round", "Ann")
        for name in ("Ann", "Bob", "Cy"):
            t.play(f"dice:{name}:5,5,5", name)
    t.play("score:Ann:coins=23,contracts=5,pepper=2,camels=2", "Ann")
    t.play("score:Bob:contracts=5,seal_points=3,camels=5", "Bob")
    t.play("score:Cy:contracts=3,coins=10,camels=9", "Cy")
    t.play("finish", "Ann")


@pytest.mark.parametrize("game", ["horserace", "marcopolo2"])
def test_the_other_games_end_on_a_podium_with_results_turned_over_and_a_next_game(
    browser: Any, tmp_path: Path, game: str
) -> None:
    with serve_table(tmp_path, start=False) as t:
        session = t.session
        session.start_game(
            ["Ann", "Bob", "Cy"],
            game=game,
            seed=3,
            settings={"track_length": 8} if game == "horserace" else None,
        )
        (finish_horse_race if game == "horserace" else finish_marco_polo)(t)
        over = next(e for e in session.engine_log() if e["type"] == "game_over")
        points = over["points"]
        for viewport in (NARROW, TABLET):
            page = open_page(browser, t.url, viewport=viewport, pin=PIN)
            synced(page, t)
            first = page.locator("#podium [data-place='1'] .who").inner_text()
            if game == "horserace":
                best = max(points.values())
                assert first == " & ".join(p for p in points if points[p] == best)
                race = session.snapshot(log=False)["game"]["races_scored"][-1]
                cards = page.locator("#hr-result .awards li.reveal")
                tokens = sum(
                    len(c) for c in session.snapshot(log=False)["game"]["columns"].values()
                )
                assert cards.count() == tokens == 4
                scored = page.locator("#hr-result .awards li.right")
                assert scored.count() == len(race["awards"])
                assert [
                    f"+{a['points']}" in scored.nth(i).inner_text()
                    for i, a in enumerate(race["awards"])
                ] == [True] * len(race["awards"])
            else:  # Ann and Bob tie on 11 points: Bob has more camels and stands alone on top
                assert first == "Bob" and over["winners"] == ["Bob"]
                assert page.locator("#podium [data-place='2'] .who").inner_text() == "Ann"
                assert page.locator("#mp-result tr.reveal").count() == 10  # 8 entries + 2
            assert page.locator("#result-card").is_hidden()  # Camel Up's own card stays away
            assert page.locator("#next-game").count() == 1
            assert page.locator("#next-game").is_visible()
            page.wait_for_timeout(3600 if game == "marcopolo2" else 2600)  # turned over
            no_sideways_scroll(page)
            page.screenshot(
                path=str(shots() / f"{game}-game-over-{viewport['width']}.png"), full_page=True
            )
            if viewport is TABLET:
                before = session.game_id
                page.click("#next-game")
                wait_until(lambda b=before: session.game_id != b, what="the next game")
                assert session.kind == game
                assert session.record.params["players"] == ["Ann", "Bob", "Cy"]
                if game == "horserace":
                    assert session.record.params["settings"]["track_length"] == 8
            close(page)


def test_the_dice_log_shows_the_die_itself_big_and_a_tap_enlarges_it(
    browser: Any, served: Table
) -> None:
    """The photo of a die read through the real reader on a rendered table: cut round the
    reading's box (firmware.readers.die_crop_box), shown at 96 px in the log, enlarged on a tap."""
    pytest.importorskip("vision.render.board")
    from firmware.readers import vision_read_die
    from tests.firmware.test_die_crop import decode, scene

    session = served.session
    empty, zone = scene(None)
    image, _ = scene(("yellow", 2))
    x, y, w, h = zone
    reading, jpeg = vision_read_die(image, zone, background=empty[y : y + h, x : x + w].copy())
    assert (reading["colour"], reading["face"]) == ("yellow", 2), reading
    assert session.observe("release", {})["ok"]
    answer = session.observe("die", {**reading, "crop_jpeg": jpeg})
    assert answer["ok"] and not answer.get("uncertain"), answer
    page = open_page(browser, served.url, viewport=NARROW)
    synced(page, served)
    row = page.locator(".dicelog li[data-type='die_read']").first
    assert "Yellow 2" in row.inner_text()
    img = row.locator("img")
    wait_js(page, "document.querySelector('.dicelog img')?.complete")
    assert img.evaluate("i => i.naturalWidth") == decode(jpeg).shape[1] < w / 3
    box = img.bounding_box()
    assert box is not None and box["width"] >= 96 and box["height"] >= 96
    row.locator(".crop-btn").click()
    page.wait_for_selector("#photo-dialog[open] #photo-image")
    big = page.locator("#photo-image").bounding_box()
    assert big is not None and big["width"] >= 250  # enlarged to the dialog's width
    page.screenshot(path=str(shots() / "die-photo-enlarged-360.png"))
    page.click("#photo-dialog button")
    page.locator(".dicelog").screenshot(path=str(shots() / "dice-log-360.png"))
    no_sideways_scroll(page)
    close(page)
