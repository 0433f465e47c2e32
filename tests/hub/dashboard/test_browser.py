"""The dashboard in real headless Chromium (Debian's), against a real hub on a free local port.

One browser for the session (tests/fixtures/browser.py); each test opens its own contexts, which
is what separate phones at the table are: separate storage (PIN, token), separate streams.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.browser import csp_violations, wait_js

from .conftest import PIN, PLAYERS, Table, serve_table

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
TABLET = {"width": 1024, "height": 768}


def wait_until(pred: Callable[[], Any], timeout: float = 10.0, what: str = "") -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = pred()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what or pred}")


def open_page(
    browser: Any, url: str, *, viewport: dict[str, int] = PHONE, pin: str | None = None
) -> Any:
    """A new phone (context) showing ``url``; with ``pin`` the PIN is already kept on it."""
    context = browser.new_context(viewport=viewport)
    if pin is not None:
        context.add_init_script(f"localStorage.setItem('pyramid.pin', {pin!r})")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors  # type: ignore[attr-defined]
    page.csp = csp_violations(page)  # type: ignore[attr-defined]  # the page's real CSP applies
    page.goto(url)
    wait_js(page, "document.body.dataset.conn === 'live'")
    return page


def synced(page: Any, table: Table) -> None:
    """Wait until the page has drawn everything the hub has logged (events and the view)."""
    table.session.bus.flush()
    seq = table.session.seq
    wait_js(
        page,
        f"+document.body.dataset.seq >= {seq} && +document.body.dataset.viewSeq >= {seq}",
        timeout=10_000,
    )


def tap(page: Any, table: Table, selector: str) -> None:
    """Tap a button and wait until the hub logged what it caused and the page drew it."""
    before = table.session.seq
    page.locator(selector).first.click()
    wait_until(lambda: table.session.seq > before, what=f"the hub to act on {selector}")
    synced(page, table)


def close(*pages: Any) -> None:
    for page in pages:
        assert page.errors == [], page.errors
        assert page.csp == [], page.csp  # nothing the page does is blocked by its CSP
        page.context.close()


def test_a_game_played_through_the_page_to_the_end(browser: Any, served: Table) -> None:
    """Taps with the PIN entered once in the dialog, a secret bet chosen on the player's own
    phone, every move arriving live on a guest's page, and the final result on all of them."""
    session = served.session
    shared = open_page(browser, served.url)
    guest = open_page(browser, served.url, viewport=TABLET)
    guest.evaluate("window.__loadedOnce = true")  # gone if the page reloads

    # the PIN, entered once
    assert shared.locator("#guest-note").is_visible()
    shared.click("#pin-button")
    shared.fill("#pin-input", PIN)
    shared.click("#pin-ok")
    shared.wait_for_selector("#actions button[data-action='roll']")
    assert shared.evaluate("localStorage.getItem('pyramid.pin')") == PIN

    # a leg tile, a desert tile
    first = session.game.current_player
    tap(shared, served, "#actions button[data-action='leg:blue']")
    assert session.engine_log()[-1] == {
        "type": "leg_tile_taken",
        "player": first,
        "colour": "blue",
        "value": 5,
    }
    assert shared.locator(".legpile[data-colour='blue'] .tile-v.top").inner_text() == "3"
    # undo gives it back, and the same player takes it again
    shared.click("#undo")  # undo names what it takes back, and asks once more
    tap(shared, served, "#undo-yes")
    assert shared.locator(".legpile[data-colour='blue'] .tile-v.top").inner_text() == "5"
    assert session.game.current_player == first
    tap(shared, served, "#actions button[data-action='leg:blue']")
    space = shared.locator("#desert-space option").nth(2).get_attribute("value")
    shared.select_option("#desert-space", space)
    shared.select_option("#desert-side", "mirage")
    tap(shared, served, "#desert-go")
    assert session.engine_log()[-1]["type"] == "desert_placed"
    assert shared.locator(f".space[data-space='{space}'].desert.mirage").count() == 1

    # a secret bet: tapped on the shared screen, the colour chosen on the bettor's own phone
    bettor = session.game.current_player
    shared.click(f"tr[data-player='{bettor}'] .qr-btn")
    shared.wait_for_selector("#qr-dialog[open] svg")
    link = shared.locator("#qr-link").get_attribute("href")
    assert link.endswith("/p/" + session.player_token(bettor))
    shared.click("#qr-dialog button")
    own = open_page(browser, link)
    tap(shared, served, "#bet-winner")
    own.wait_for_selector(".prompt button.secret[data-colour='white']")
    assert own.locator("#prompt-title").inner_text() == "Secret bet"
    assert shared.locator(".prompt button.secret").count() == 0  # the shared screen cannot pick
    own.click(".prompt button.secret[data-colour='white']")
    wait_until(lambda: session.engine_log()[-1]["type"] == "overall_bet_placed")
    synced(shared, served)
    synced(own, served)
    mine = own.locator(f"tr[data-player='{bettor}'] [data-pile='winner'] .chip.c-white")
    assert mine.count() == 1
    for page in (shared, guest):
        synced(page, served)
        assert page.locator("[data-pile='winner']").inner_text().startswith("winner bet")
        assert page.locator("[data-pile='winner'] .chip").count() == 0
        assert "white" not in page.locator("#players").inner_html().replace("c-white", "")

    # the slider is pushed: every page says a die is out until it is read
    assert session.observe("release", {})["ok"]
    synced(guest, served)
    assert "reading it" in guest.locator("#released").inner_text()
    # the camera is unsure of a die: the page shows its crop, a person says what it is
    colour = session.game.state.dice_left[0]
    out = session.observe(
        "die", {"colour": colour, "face": 1, "confidence": 0.35, "crop_jpeg": _crop_jpeg()}
    )
    assert out.get("uncertain"), out
    synced(shared, served)
    wait_js(shared, "document.querySelector('#prompt img.crop')?.naturalWidth === 64")
    assert shared.locator("#prompt-title").inner_text() == "Check this die"
    assert guest.locator("#released").is_hidden()
    assert guest.locator("#prompt-card").is_visible()  # a guest sees the question...
    assert guest.locator("#prompt button.act").count() == 0  # ...but cannot answer it
    guest.click("#prompt .crop-btn")  # the camera's photo, tapped: enlarged
    guest.wait_for_selector("#photo-dialog[open] #photo-image")
    assert guest.locator("#photo-image").evaluate("i => i.naturalWidth") == 64
    guest.click("#photo-dialog button")
    tap(shared, served, f"#prompt button[data-answer='{colour}:2']")
    read = [e for e in session.engine_log() if e["type"] == "die_read"][-1]
    assert (read["colour"], read["face"]) == (colour, 2)
    assert shared.locator("#prompt-card").is_hidden()
    entry = shared.locator(".dicelog li[data-type='die_read']").first
    assert entry.locator("img").count() == 1 and f"{colour} 2" in entry.inner_text().lower()
    assert "camera read" in entry.inner_text()  # one row per die, with what the camera had read

    # roll the pyramid until a camel crosses the line (the engine's dice are seeded)
    rolls = 1  # the read above
    while not session.game.finished:
        assert rolls < 200
        tap(shared, served, "#actions button[data-action='roll']")
        rolls += 1
        if rolls == 2:  # the guest's page follows without a reload
            synced(guest, served)
            assert guest.locator(".dicelog li[data-type='die_read']").count() == 2
    result = session.full_state()["result"]
    assert rolls >= 5 and result is not None
    for page in (shared, guest, own):
        synced(page, served)
        page.wait_for_selector("#result-card:not([hidden])")
        text = page.locator("#result").inner_text()
        assert " & ".join(result["winners"]) in text
        assert f"{result['winner']} won" in text
        # the bet's colour is revealed with the result, in pile order
        first = page.locator("#result .pile[data-pile='winner'] .overall li").first
        assert first.inner_text().startswith(f"{bettor} W white")
        assert page.locator("#actions-card").is_hidden()
    # the guest saw every die read exactly once, live, never reloading
    reads = [e for e in session.engine_log() if e["type"] == "die_read"]
    items = guest.locator(".dicelog li[data-type='die_read']")
    assert items.count() == len(reads) == rolls
    seqs = [items.nth(i).get_attribute("data-seq") for i in range(items.count())]
    assert len(set(seqs)) == len(seqs)
    assert guest.evaluate("window.__loadedOnce") is True
    legs = [e for e in session.engine_log() if e["type"] == "leg_scored"]
    assert guest.locator("#tallies .tally").count() == len(legs) >= 1
    # money over time: one line per player, one point per leg plus the start and the end
    assert guest.locator("#chart path.line").count() == len(PLAYERS)
    assert guest.locator("#chart circle").count() == len(PLAYERS) * (len(legs) + 2)
    close(shared, guest, own)


def test_reconnecting_page_catches_up_from_the_log(browser: Any, served: Table) -> None:
    page = open_page(browser, served.url)
    synced(page, served)
    before = served.session.seq
    opened = served.live.fanout.opened
    # the Wi-Fi drops: the stream ends and the page cannot get back for a while
    page.route("**/api/stream**", lambda route: route.abort())
    served.live.fanout.drop_all()
    wait_js(page, "document.body.dataset.conn !== 'live'")
    served.play("roll")
    served.play("leg:yellow")
    served.play("roll")
    assert page.locator(".dicelog li[data-type='die_read']").count() == 0  # not seen yet
    page.unroute("**/api/stream**")
    synced(page, served)
    start = served.live.fanout.history[-1]
    assert served.live.fanout.opened > opened
    assert start["last_id"] == before and start["snapshot"] is False
    assert start["replayed"] == served.session.seq - before
    assert page.locator(".dicelog li[data-type='die_read']").count() == 2
    assert page.evaluate("window.pyramid.S.stats.snapshots") == 1
    assert page.evaluate("window.pyramid.S.log.length") == len(served.session.events_since(0))
    close(page)


def test_guest_sees_but_cannot_change(browser: Any, served: Table) -> None:
    page = open_page(browser, served.url)
    synced(page, served)
    assert page.locator("#guest-note").is_visible()
    assert page.locator("#actions button").count() == 0
    assert page.locator(".qr-btn").count() == 0
    before = (served.session.seq, served.engine_log())
    status = page.evaluate("""async () => {
        const r = await fetch('/api/action', {method: 'POST',
            headers: {'Content-Type': 'application/json'}, body: JSON.stringify({action: 'roll'})});
        return [r.status, (await r.json()).message];
    }""")
    assert status[0] == 401 and "table PIN" in status[1]
    assert (served.session.seq, served.engine_log()) == before
    close(page)


def test_wrong_pin_and_illegal_taps_get_a_readable_message(browser: Any, served: Table) -> None:
    page = open_page(browser, served.url)
    before = (served.session.seq, served.engine_log())
    page.click("#pin-button")
    page.fill("#pin-input", "9999")
    page.click("#pin-ok")
    page.wait_for_selector("#pin-dialog .dialog-message:not([hidden])")
    assert page.locator("#pin-dialog .dialog-message").inner_text() == "Wrong PIN."
    assert page.locator("#pin-dialog").is_visible()  # open for another try
    page.click("#pin-cancel")
    assert page.locator("#actions button").count() == 0
    assert page.evaluate("localStorage.getItem('pyramid.pin')") is None
    assert (served.session.seq, served.engine_log()) == before
    close(page)

    # a PIN kept from another evening is dropped with a word, not silently
    stale = open_page(browser, served.url, pin="1357")
    stale.wait_for_selector("#message:not([hidden])")
    assert stale.locator("#message").inner_text().startswith("Wrong PIN.")
    close(stale)

    # a stale screen (its Wi-Fi dropped) taps a tile someone else took meanwhile
    page = open_page(browser, served.url, pin=PIN)
    synced(page, served)
    page.route("**/api/stream**", lambda route: route.abort())
    served.live.fanout.drop_all()
    wait_js(page, "document.body.dataset.conn !== 'live'")
    for _ in range(3):
        served.play("leg:green")
    log = served.engine_log()
    page.click("#actions button[data-action='leg:green']")
    page.wait_for_selector("#message.error:not([hidden])")
    # the tap carries the seq its screen was drawn at: refused as stale, naming who moved
    said = page.locator("#message").inner_text().lower()
    assert "has already moved" in said and "look at the table again" in said
    assert served.engine_log() == log
    page.unroute("**/api/stream**")
    synced(page, served)
    assert page.locator("#actions button[data-action='leg:green']").count() == 0
    close(page)


def _crop_jpeg() -> bytes:
    cv2 = pytest.importorskip("cv2")
    import numpy as np

    img = np.full((64, 64, 3), (40, 160, 240), np.uint8)  # an orange die face, BGR
    cv2.circle(img, (20, 20), 6, (20, 20, 20), -1)
    cv2.circle(img, (44, 44), 6, (20, 20, 20), -1)
    ok, buf = cv2.imencode(".jpg", img)
    assert ok
    return bytes(buf)


def _boxes_overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


@pytest.mark.parametrize("name,viewport", [("phone", PHONE), ("tablet", TABLET)])
def test_layout(
    browser: Any, tmp_path: Path, screenshot_dir: Path, name: str, viewport: dict[str, int]
) -> None:
    """A mid-game table with a die prompt: no sideways scrolling, every region on screen and
    none on top of another. The PNGs stay in the temp dir for a person to look at."""
    with serve_table(tmp_path, odds=True) as served:
        _check_layout(browser, served, screenshot_dir, name, viewport)


def _check_layout(
    browser: Any, served: Table, screenshot_dir: Path, name: str, viewport: dict[str, int]
) -> None:
    for action in [
        "leg:blue",
        "roll",
        "desert:9:oasis",
        "roll",
        "leg:white",
        "roll",
        "bet:loser",
        "roll",
        "roll",
        "roll",
        "leg:orange",
    ]:
        served.play(action)
    colour = served.session.game.state.dice_left[0]
    served.session.observe(
        "die", {"colour": colour, "face": 2, "confidence": 0.41, "crop_jpeg": _crop_jpeg()}
    )
    page = open_page(browser, served.url, viewport=viewport, pin=PIN)
    synced(page, served)
    page.wait_for_selector("#prompt-card:not([hidden]) img.crop")
    wait_js(page, "document.querySelector('#prompt img.crop').naturalWidth === 64")
    page.screenshot(path=str(screenshot_dir / f"{name}.png"), full_page=True)
    page.screenshot(path=str(screenshot_dir / f"{name}-first-screen.png"))
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
    regions = [
        "#status",
        "#track-card",
        "#dice-card",
        "#prompt-card",
        "#actions-card",
        "#players-card",
        "#odds-card",
        "#legbets-card",
        "#log-card",
        "#tally-card",
        "#chart-card",
        "#games-card",
    ]
    boxes = {}
    for sel in regions:
        loc = page.locator(sel)
        assert loc.is_visible(), sel
        box = loc.bounding_box()
        assert box and box["width"] > 100 and box["height"] > 20, (sel, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"] + 0.5, (sel, box)
        boxes[sel] = box
    cards = [s for s in regions if s != "#status"]  # the header is sticky: it floats over
    for i, a in enumerate(cards):
        for b in cards[i + 1 :]:
            assert not _boxes_overlap(boxes[a], boxes[b]), (a, b, boxes[a], boxes[b])
    # the first screen shows the track, and every one of its 16 spaces is wide enough to tap
    assert boxes["#track-card"]["y"] < viewport["height"]
    widths = page.evaluate(
        "[...document.querySelectorAll('.space[data-space]')]"
        ".filter(e => e.dataset.space !== 'finish')"
        ".map(e => e.getBoundingClientRect().width)"
    )
    assert len(widths) == 16 and min(widths) >= 38
    # the buttons are finger-sized
    heights = page.evaluate(
        "[...document.querySelectorAll('#actions button, #prompt button')]"
        ".filter(b => b.offsetParent !== null)"
        ".map(b => b.getBoundingClientRect().height)"
    )
    assert heights and min(heights) >= 36
    if name == "tablet":  # side by side on a tablet: the track above two columns
        assert boxes["#players-card"]["x"] > boxes["#actions-card"]["x"] + 200
        assert boxes["#track-card"]["y"] < boxes["#dice-card"]["y"]
    close(page)


def test_new_game_from_the_page_and_past_games_browsable(browser: Any, served: Table) -> None:
    session = served.session
    while not session.game.finished:
        served.play("roll")
    result = session.full_state()["result"]
    old_link = f"{served.url}/p/{session.player_token('Ann')}"
    page = open_page(browser, served.url, viewport=TABLET, pin=PIN)
    synced(page, served)
    page.click("#new-game")
    page.fill("#ng-players", "Dee\nEve, Fay")
    page.check("input[name=ng-mode][value=entered]")
    roll = [("green", 1), ("blue", 1), ("white", 2), ("orange", 3), ("yellow", 3)]
    for i, (colour, face) in enumerate(roll):
        page.select_option(f"#ng-roll .row:nth-child({i + 1}) .ng-colour", colour)
        page.select_option(f"#ng-roll .row:nth-child({i + 1}) .ng-face", str(face))
    page.click("#ng-start")
    wait_until(lambda: session.game_id == "g2", what="the new game")
    synced(page, served)
    page.wait_for_selector("#newgame-dialog", state="hidden")  # the answer may trail the stream
    assert page.locator(".space[data-space='1'] .camel").evaluate_all(
        "cs => cs.map(c => c.title)"
    ) == ["green", "blue"]  # bottom to top, in roll order
    assert page.locator("#status-text").inner_text() == "Leg 1 · Dee to move"
    assert page.locator("#dicelog li[data-type]").count() == 0  # the old game's log is gone
    # a game in play is not ended by accident: the hub's refusal is shown in the dialog
    page.click("#new-game")
    page.fill("#ng-players", "Gil, Hal")
    page.click("#ng-start")
    page.wait_for_selector("#newgame-dialog .dialog-message:not([hidden])")
    assert "already being played" in page.locator("#newgame-dialog .dialog-message").inner_text()
    assert session.game_id == "g2"
    page.click("#ng-cancel")
    # last game's player link: told so, and still watching the table as a guest
    stale = browser.new_context(viewport=PHONE).new_page()
    stale.goto(old_link)
    stale.wait_for_selector("#message:not([hidden])")
    assert "not valid" in stale.locator("#message").inner_text()
    wait_js(stale, "document.body.dataset.conn === 'live'")
    synced(stale, served)
    assert stale.locator("#status-text").inner_text() == "Leg 1 · Dee to move"
    stale.context.close()
    # the finished game, browsable from the list
    page.wait_for_selector("#games li[data-game='g1'] a")
    assert "won by" in page.locator("#games li[data-game='g1']").inner_text()
    page.click("#games li[data-game='g1'] a")
    page.wait_for_selector("#result-card:not([hidden])")
    assert page.url.endswith("/games/g1")
    assert " & ".join(result["winners"]) in page.locator("#result").inner_text()
    assert page.locator("#status-text").inner_text().startswith("Past game")
    assert page.locator(".dicelog li[data-type='die_read']").count() == len(
        [e for e in served.session.events_since(0) if e.game_id == "g1" and e.type == "die_read"]
    )
    assert page.locator("#actions-card").is_hidden()
    close(page)


def test_odds_bars_and_advice(browser: Any, tmp_path: Path) -> None:
    """Leg and race odds drawn as bars, the advisor's best actions for the player to move."""
    with serve_table(tmp_path, odds=True) as t:
        snap = t.session.snapshot(log=False, derived=True)
        odds, advice = snap.get("odds"), snap.get("advice")
        if odds is None and not advice:
            pytest.skip(
                "the session computes neither odds nor advice here (hub.games.camelup "
                "odds/advisor or the race table unavailable): nothing to draw"
            )
        page = open_page(browser, t.url, pin=PIN)
        wait_js(page, "+document.body.dataset.oddsSeq >= 1")
        if odds is not None:
            for colour in ("blue", "white"):
                want = f"{round(odds['leg'][colour]['first'] * 100)}%"
                row = page.locator(f"#odds .odds-row[data-colour='{colour}']")
                assert row.locator(".pbar").first.inner_text() == want
                assert row.locator(".pbar i").first.evaluate("i => i.style.width") == want
        if advice:
            # hidden on the shared screen until the table turns it on
            assert page.locator("#advice li").count() == 0
            page.click("#advice-toggle")
            best = page.locator("#advice li").first
            from hub.dashboard.live import redact_advice

            shown = redact_advice(advice)[0]  # the shared screen: bet colours hidden
            assert best.get_attribute("data-action") == shown["action"]
            words = best.inner_text()
            assert (
                f"worth about {'+' if shown['expected'] >= 0 else '−'}"
                f"{abs(shown['expected']):.1f} coin" in words
            )
            assert "EP" not in words  # coins, in words
            assert ":" not in best.locator(".advice-what").inner_text()  # no raw notation
            # "do it" plays the advised action for the player to move
            who = t.session.game.current_player
            best.locator("button").click()
            wait_until(lambda: len(t.session.engine_log()) == 2, what="the advised action")
            assert str(t.session.engine_log()[-1].get("player")) == who
            # the next position's odds arrive by themselves, computed once for every page
            synced(page, t)
            wait_js(page, f"+document.body.dataset.oddsSeq >= {t.session.seq}")
        close(page)


def test_undo_a_roll_and_a_secret_bet_from_the_own_phone(browser: Any, served: Table) -> None:
    """Undo takes a die back (the log keeps it, struck through); on their own turn a player bets
    from their own phone, choosing the colour there, and no other screen learns it."""
    session = served.session
    table = open_page(browser, served.url, pin=PIN)
    served.play("roll")
    synced(table, served)
    die = session.engine_log()[-2]
    assert die["type"] == "die_read"
    assert table.locator(f".die.rolled[data-colour='{die['colour']}']").count() == 1
    table.click("#undo")
    assert table.locator("#undo-row .confirm-text").inner_text().startswith("Take back")
    tap(table, served, "#undo-yes")
    entry = table.locator(".dicelog li[data-type='die_read']")
    assert entry.count() == 1 and "undone" in entry.get_attribute("class")
    assert table.locator(f".die[data-colour='{die['colour']}']:not(.rolled)").count() == 1
    assert [e["type"] for e in session.engine_log()] == ["game_started"]
    # no camera: the die is entered by hand
    table.click("#actions button:text('Enter the die')")
    colour = session.game.state.dice_left[-1]
    tap(table, served, f"#enter-die button[data-action='roll:{colour}:3']")
    assert session.engine_log()[-2] == {
        "type": "die_read",
        "player": die["player"],
        "colour": colour,
        "face": 3,
    }

    bettor = session.game.current_player
    own = open_page(browser, f"{served.url}/p/{session.player_token(bettor)}")
    synced(own, served)
    own.click("#bet-loser")
    own.wait_for_selector("#bet-pick:not([hidden]) button[data-action='bet:loser:orange']")
    assert table.locator("#bet-pick button").count() == 0
    tap(own, served, "#bet-pick button[data-action='bet:loser:orange']")
    assert session.engine_log()[-1] == {
        "type": "overall_bet_placed",
        "player": bettor,
        "pile": "loser",
        "colour": "orange",
    }
    synced(table, served)
    mine = own.locator(f"tr[data-player='{bettor}'] [data-pile='loser'] .chip.c-orange")
    assert mine.count() == 1
    assert table.locator("[data-pile='loser']").inner_text().startswith("loser bet")
    assert table.locator("[data-pile='loser'] .chip").count() == 0
    # and it is no longer the bettor's turn: their phone offers nothing to tap
    assert own.locator("#actions button").count() == 0
    close(table, own)


def test_a_table_without_a_pin_is_open_to_everyone(browser: Any, tmp_path: Path) -> None:
    with serve_table(tmp_path, pin=None) as t:
        page = open_page(browser, t.url)
        page.wait_for_selector("#actions button[data-action='roll']")
        assert page.locator("#pin-button").inner_text() == "Open table"
        assert page.locator("#odds-card").is_hidden()  # this table computes no odds
        tap(page, t, "#actions button[data-action='leg:yellow']")
        assert t.session.engine_log()[-1]["colour"] == "yellow"
        close(page)


def test_new_game_as_the_camera_read_the_setup(browser: Any, tmp_path: Path) -> None:
    """A setup track read fed through the session (as the firmware does) is offered in the
    new-game dialog, shown, and starts the game; an incomplete one is explained, not offered."""
    with serve_table(tmp_path, start=False) as table:
        session = table.session
        half = {"1": ["blue"], "2": ["orange", "green"]}
        assert session.observe("track", {"track": half, "uncertain": ["3"]})["ok"]
        page = open_page(browser, table.url, viewport=TABLET, pin=PIN)
        page.click("#new-game")
        page.wait_for_selector("#ng-camera[data-complete='false']")
        assert page.locator("#ng-camera-label").is_hidden()
        assert "not seen on the track: yellow, white" in page.locator("#ng-camera").inner_text()
        # the firmware reads the track again while the dialog is open: the page picks it up
        board = {"1": ["blue"], "2": ["orange", "green"], "3": ["white", "yellow"]}
        assert session.observe(
            "track", {"track": board, "uncertain": [], "note": "starting position"}
        )["ok"]
        page.wait_for_selector("#ng-camera-label:not([hidden])", timeout=5000)
        shown = page.locator("#ng-camera .ng-space[data-space='2'] .chip").evaluate_all(
            "cs => cs.map(c => c.title)"
        )
        assert shown == ["orange", "green"]  # bottom to top, as the players stacked them
        page.check("#ng-camera-mode")
        page.fill("#ng-players", "Ivy, Jo")
        page.click("#ng-start")
        wait_until(lambda: session.game_id == "g1", what="the game from the camera's reading")
        synced(page, table)
        page.wait_for_selector("#newgame-dialog", state="hidden")
        assert {str(k): list(v) for k, v in session.game.state.track.items()} == board
        assert session.record.params["setup_from"] == "camera:track"
        assert page.locator(".space[data-space='2'] .camel").evaluate_all(
            "cs => cs.map(c => c.title)"
        ) == ["orange", "green"]
        assert page.locator("#status-text").inner_text() == "Leg 1 · Ivy to move"
        assert session.snapshot(derived=False)["setup_reading"] is None  # used up
        close(page)
