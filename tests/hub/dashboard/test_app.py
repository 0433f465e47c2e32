"""The dashboard's HTTP side without a browser: pages, auth, refusals, secrets, the SSE stream."""

from __future__ import annotations

import http.client
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hub.dashboard.live import redact_legal
from hub.dashboard.sse import format_sse, parse_last_id

from .conftest import PIN, PLAYERS, Table, make_table

TABLE = {"X-Pyramid-Pin": PIN}


def test_page_and_assets_are_served_locally(table: Table) -> None:
    c = table.app.test_client()
    page = c.get("/")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "dashboard.js" in html and "dashboard.css" in html
    # nothing from the internet: every src/href is local or a data: URL
    assert "http://" not in html and "https://" not in html
    for asset in ("/static/dashboard.js", "/static/dashboard.css"):
        r = c.get(asset)
        assert r.status_code == 200 and len(r.data) > 1000
        assert b"https://" not in r.data and b"http://" not in r.data.replace(
            b"http://www.w3.org/2000/svg", b""
        )


def test_the_page_loads_each_games_script_its_driver_names(table: Table) -> None:
    """Which scripts draw which game is the drivers' (Driver.dashboard_script), not a list in
    the page: every driver's script is loaded, exists and is served, before dashboard.js."""
    import re

    from hub.games_glue import GAMES

    named = {k: GAMES[k].dashboard_script() for k in GAMES}
    assert named == {
        "camelup": None,
        "camelup2": "camelup2.js",
        "horserace": "horserace.js",
        "marcopolo2": "marcopolo2.js",
    }
    c = table.app.test_client()
    html = c.get("/").get_data(as_text=True)
    loaded = re.findall(r'<script src="[^"]*/static/([^"/]+)"', html)
    assert loaded == [s for s in named.values() if s] + ["dashboard.js"]
    for script in loaded:
        r = c.get(f"/static/{script}")
        assert r.status_code == 200 and b"pyramidGames" in r.data or script == "dashboard.js"


def test_guest_cannot_change_anything(table: Table) -> None:
    c = table.app.test_client()
    before = (table.session.seq, table.engine_log())
    for path, body in [
        ("/api/action", {"action": "leg:blue"}),
        ("/api/undo", {}),
        ("/api/confirm", {"prompt": "p1", "accept": True}),
        ("/api/games", {"players": ["X", "Y"], "abandon": True}),
    ]:
        r = c.post(path, json=body)
        assert r.status_code in (401, 403), (path, r.status_code)
        assert r.json["ok"] is False and r.json["message"][0].isupper()
    assert (table.session.seq, table.engine_log()) == before


def test_wrong_pin_is_refused_readably_and_changes_nothing(table: Table) -> None:
    c = table.app.test_client()
    before = (table.session.seq, table.engine_log())
    r = c.post("/api/action", json={"action": "leg:blue"}, headers={"X-Pyramid-Pin": "1111"})
    assert r.status_code == 403
    assert r.json["error"] == "wrong_pin" and r.json["message"] == "Wrong PIN."
    assert c.get("/api/whoami", headers={"X-Pyramid-Pin": "1111"}).status_code == 403
    assert (table.session.seq, table.engine_log()) == before


def test_table_pin_plays_for_the_player_to_move(table: Table) -> None:
    c = table.app.test_client()
    who = table.session.game.current_player
    r = c.post("/api/action", json={"action": "leg:blue"}, headers=TABLE)
    assert r.status_code == 200 and r.json["ok"]
    last = table.engine_log()[-1]
    assert last == {"type": "leg_tile_taken", "player": who, "colour": "blue", "value": 5}
    assert c.get("/api/whoami", headers=TABLE).json["auth"] == {"role": "table", "player": None}


def test_illegal_action_is_explained_and_the_game_unchanged(table: Table) -> None:
    c = table.app.test_client()
    log = table.engine_log()
    r = c.post("/api/action", json={"action": "desert:1:oasis"}, headers=TABLE)
    assert r.status_code == 400
    assert r.json["error"] == "desert_space_one"
    assert "space 1" in r.json["message"]
    assert table.engine_log() == log


FIXTURE_OK = [HealthCheck.function_scoped_fixture]  # the table is only read by refused requests


@settings(max_examples=60, deadline=None, suppress_health_check=FIXTURE_OK)
@given(
    path=st.sampled_from(["/api/action", "/api/confirm", "/api/undo", "/api/games"]),
    body=st.one_of(
        st.none(),
        st.integers(),
        st.text(max_size=30),
        st.lists(st.integers(), max_size=3),
        st.dictionaries(
            st.sampled_from(
                [
                    "action",
                    "player",
                    "prompt",
                    "colour",
                    "face",
                    "players",
                    "setup",
                    "seed",
                    "accept",
                    "dismiss",
                    "junk",
                ]
            ),
            st.one_of(
                st.none(),
                st.booleans(),
                st.integers(-5, 20),
                st.text(max_size=70),
                st.lists(st.text(max_size=5), max_size=9),
            ),
            max_size=4,
        ),
    ),
    pin=st.sampled_from([None, "0000"]),
)
def test_fuzzed_posts_answer_an_error_and_change_nothing(
    table: Table, path: str, body: Any, pin: str | None
) -> None:
    """Junk from a guest or a wrong PIN: a 4xx JSON answer with a sentence, never a change."""
    c = table.app.test_client()
    before = (table.session.seq, table.engine_log())
    headers = {"Content-Type": "application/json"}
    if pin:
        headers["X-Pyramid-Pin"] = pin
    r = c.post(path, data=json.dumps(body), headers=headers)
    assert 400 <= r.status_code < 500, (body, r.status_code, r.data)
    assert r.json["ok"] is False and isinstance(r.json["message"], str) and r.json["message"]
    assert (table.session.seq, table.engine_log()) == before


@settings(max_examples=40, deadline=None, suppress_health_check=FIXTURE_OK)
@given(action=st.text(max_size=40))
def test_fuzzed_actions_with_the_pin_never_break_the_hub(table: Table, action: str) -> None:
    """With the PIN, any text either plays a legal action or is refused; never a 500."""
    c = table.app.test_client()
    log = table.engine_log()
    r = c.post("/api/action", json={"action": action}, headers=TABLE)
    assert r.status_code in (200, 400), (action, r.status_code, r.data)
    if r.status_code == 400:
        assert table.engine_log() == log and r.json["message"]


def test_secret_bet_colour_never_reaches_the_shared_screen(table: Table) -> None:
    c = table.app.test_client()
    session = table.session
    bettor = session.game.current_player
    # the shared screen taps "bet on winner": the hub opens a prompt for the player's own phone
    r = c.post("/api/action", json={"action": "bet:winner"}, headers=TABLE)
    assert r.status_code == 200 and r.json.get("pending")
    token = session.player_token(bettor)
    other = session.player_token(next(p for p in PLAYERS if p != bettor))
    prompt = r.json["prompt"]
    # another player's link cannot choose the colour
    r = c.post(
        "/api/confirm",
        json={"prompt": prompt, "colour": "white"},
        headers={"X-Pyramid-Token": other},
    )
    assert r.status_code == 403
    r = c.post(
        "/api/confirm",
        json={"prompt": prompt, "colour": "white"},
        headers={"X-Pyramid-Token": token},
    )
    assert r.status_code == 200, r.json
    assert session.full_state()["overall"]["winner"] == [{"player": bettor, "colour": "white"}]
    public = json.dumps(c.get("/api/state").json)
    public += json.dumps(c.get("/api/state", headers=TABLE).json)
    assert '"overall_bet_placed"' in public
    assert "white" not in json.dumps(
        [e for e in c.get("/api/state").json["log"] if e["type"] == "overall_bet_placed"]
    )
    state = c.get("/api/state").json["state"]
    assert all(a in ("bet:winner", "bet:loser") for a in state["legal"] if a.startswith("bet"))
    # the bettor's own page sees the colour
    mine = c.get("/api/state", headers={"X-Pyramid-Token": token}).json["state"]["view"]
    assert mine["my_bets"] == [{"pile": "winner", "colour": "white"}]
    assert "white" not in mine["race_cards"]


def test_player_link_and_qr_need_the_pin(table: Table) -> None:
    c = table.app.test_client()
    assert c.get("/api/players/Ann/link").status_code == 401
    r = c.get("/api/players/Ann/link", headers=TABLE)
    assert r.status_code == 200
    assert r.json["url"].endswith("/p/" + table.session.player_token("Ann"))
    assert r.json["svg"].startswith("<svg") and "viewBox" in r.json["svg"]
    assert c.get("/api/players/Zed/link", headers=TABLE).status_code == 404
    page = c.get("/p/" + table.session.player_token("Ann"))
    assert page.status_code == 200 and table.session.player_token("Ann") in page.get_data(True)
    who = c.get("/api/whoami", headers={"X-Pyramid-Token": table.session.player_token("Ann")})
    assert who.json["auth"] == {"role": "player", "player": "Ann"}
    assert c.get("/api/whoami", headers={"X-Pyramid-Token": "forged"}).status_code == 403


def test_player_link_acts_only_for_its_player_on_their_turn(table: Table) -> None:
    c = table.app.test_client()
    current = table.session.game.current_player
    waiting = next(p for p in PLAYERS if p != current)
    log = table.engine_log()
    r = c.post(
        "/api/action",
        json={"action": "leg:blue"},
        headers={"X-Pyramid-Token": table.session.player_token(waiting)},
    )
    assert r.status_code == 400 and r.json["error"] == "not_your_turn"
    assert table.engine_log() == log
    r = c.post(
        "/api/action",
        json={"action": "leg:blue", "player": current},
        headers={"X-Pyramid-Token": table.session.player_token(waiting)},
    )
    assert r.status_code == 403
    r = c.post(
        "/api/action",
        json={"action": "leg:blue"},
        headers={"X-Pyramid-Token": table.session.player_token(current)},
    )
    assert r.status_code == 200
    assert table.engine_log()[-1]["player"] == current


def test_uncertain_reading_is_shown_with_its_crop_and_confirmed(table: Table) -> None:
    c = table.app.test_client()
    jpeg = b"\xff\xd8\xff\xe0fake-but-stored-jpeg\xff\xd9"
    colour = table.session.game.state.dice_left[0]
    out = table.session.observe(
        "die", {"colour": colour, "face": 2, "confidence": 0.3, "crop_jpeg": jpeg}
    )
    assert out["ok"] and out.get("uncertain"), out
    state = c.get("/api/state").json["state"]
    (prompt,) = state["pending"]
    assert prompt["kind"] == "die_reading" and prompt["crop"]
    img = c.get(f"/api/crops/{prompt['crop']}")
    assert img.status_code == 200 and img.mimetype == "image/jpeg" and img.data == jpeg
    assert c.get("/api/crops/nope").status_code == 404
    r = c.post(
        "/api/confirm", json={"prompt": prompt["id"], "colour": colour, "face": 3}, headers=TABLE
    )
    assert r.status_code == 200, r.json
    read = [e for e in c.get("/api/state").json["log"] if e["type"] == "die_read"][-1]
    assert (read["colour"], read["face"], read["crop"]) == (colour, 3, prompt["crop"])


def test_past_games_are_listed_and_browsable(table: Table) -> None:
    c = table.app.test_client()
    table.play("leg:green")
    r = c.post("/api/games", json={"players": ["Dee", "Eve"], "abandon": True}, headers=TABLE)
    assert r.status_code == 200 and "tokens" not in r.json
    games = c.get("/api/games").json["games"]
    assert [g["players"] for g in games] == [PLAYERS, ["Dee", "Eve"]]
    old = c.get(f"/api/games/{games[0]['game_id']}").json
    assert [e["type"] for e in old["log"]][:2] == ["game_started", "leg_tile_taken"]
    assert old["state"]["view"]["players"] == PLAYERS
    assert c.get("/games/" + games[0]["game_id"]).status_code == 200
    assert c.get("/api/games/zzz").status_code == 404


def test_new_game_from_an_entered_setup_roll(table: Table) -> None:
    c = table.app.test_client()
    roll = [["blue", 1], ["green", 1], ["orange", 2], ["yellow", 3], ["white", 3]]
    r = c.post(
        "/api/games",
        json={"players": ["Dee", "Eve"], "setup": roll, "abandon": True},
        headers=TABLE,
    )
    assert r.status_code == 200, r.json
    view = c.get("/api/state").json["state"]["view"]
    assert view["track"] == {"1": ["blue", "green"], "2": ["orange"], "3": ["yellow", "white"]}
    bad = c.post("/api/games", json={"players": ["Dee"], "abandon": True}, headers=TABLE)
    assert bad.status_code == 400 and "2 to 8" in bad.json["message"]


def test_redact_legal_and_sse_helpers() -> None:
    assert redact_legal(["roll", "bet:loser:blue", "bet:loser:green"]) == ["roll", "bet:loser"]
    assert format_sse([1], event="state") == "event: state\ndata: [1]\n\n"
    with pytest.raises(ValueError):
        format_sse({}, event="a\nb")
    assert parse_last_id(None, " 42 ") == 42 and parse_last_id("x", None) is None


# -- the stream over a real socket -------------------------------------------------------------


class SSEReader:
    """Reads SSE messages from a real HTTP connection (what EventSource does, minus the retry)."""

    def __init__(self, url: str, path: str = "/api/stream", headers: dict[str, str] | None = None):
        host, port = url.removeprefix("http://").split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=10)
        self.conn.request("GET", path, headers=headers or {})
        self.resp = self.conn.getresponse()
        assert self.resp.status == 200
        assert self.resp.getheader("Content-Type").startswith("text/event-stream")
        self.comments: list[str] = []

    def next(self) -> dict[str, Any]:
        msg: dict[str, Any] = {}
        while True:
            line = self.resp.readline().decode()
            if line == "":
                raise EOFError("the stream ended")
            line = line.rstrip("\n")
            if line == "":
                if msg:
                    return msg
                continue
            if line.startswith(":"):
                self.comments.append(line[1:].strip())
                continue
            key, _, value = line.partition(": ")
            msg[key] = json.loads(value) if key == "data" else value

    def until(self, pred: Any) -> dict[str, Any]:
        while True:
            m = self.next()
            if pred(m):
                return m

    def close(self) -> None:
        self.conn.close()


def test_stream_sends_snapshot_then_events_with_seq_then_state(served: Table) -> None:
    reader = SSEReader(served.url)
    try:
        first = reader.next()
        assert first == {"retry": "1500"}
        snap = reader.next()
        assert snap["event"] == "snapshot" and int(snap["id"]) == served.session.seq
        assert [e["type"] for e in snap["data"]["log"]] == ["game_started"]
        served.play("leg:orange")
        game = reader.next()
        assert game["event"] == "game" and int(game["id"]) == served.session.seq
        assert game["data"]["type"] == "leg_tile_taken" and game["data"]["colour"] == "orange"
        state = reader.next()
        assert state["event"] == "state" and "id" not in state
        assert state["data"]["view"]["leg_tiles"]["orange"] == [3, 2]
    finally:
        reader.close()


def test_reconnect_with_last_event_id_replays_only_what_was_missed(served: Table) -> None:
    served.play("leg:blue")
    seen = served.session.seq
    served.play("roll")
    served.play("leg:green")
    missed = [e.seq for e in served.session.events_since(seen)]
    assert len(missed) >= 3
    reader = SSEReader(served.url, headers={"Last-Event-ID": str(seen)})
    try:
        assert reader.next() == {"retry": "1500"}
        got = [reader.next() for _ in missed]
        assert [int(m["id"]) for m in got] == missed
        assert all(m["event"] == "game" for m in got)
        assert reader.next()["event"] == "state"
        assert served.live.fanout.history[-1]["replayed"] == len(missed)
        assert served.live.fanout.history[-1]["snapshot"] is False
    finally:
        reader.close()
    # the same through ?last= (what a page sends when it opens a fresh EventSource)
    reader = SSEReader(served.url, path=f"/api/stream?last={missed[-1]}")
    try:
        reader.next()
        assert reader.next()["event"] == "state"  # nothing missed: straight to the state
    finally:
        reader.close()


def test_heartbeat_comment_when_nothing_happens(tmp_path: Any) -> None:
    from hub.dashboard.server import ServerThread

    t = make_table(tmp_path, heartbeat_s=0.2)
    with ServerThread(t.app) as srv:
        reader = SSEReader(srv.url)
        try:
            reader.next(), reader.next()  # retry, snapshot
            t0 = time.monotonic()
            t.session.bus.flush()
            threading.Timer(0.7, lambda: t.play("leg:white")).start()
            msg = reader.next()
            assert msg["event"] == "game"
            assert len(reader.comments) >= 2 and reader.comments[0] == "heartbeat"
            assert time.monotonic() - t0 < 5
        finally:
            reader.close()
            t.live.close()
    t.session.bus.close()


def test_stream_for_a_player_link_carries_their_private_view(served: Table) -> None:
    token = served.session.player_token("Bob")
    reader = SSEReader(served.url, path=f"/api/stream?token={token}")
    try:
        reader.next()
        snap = reader.next()
        view = snap["data"]["state"]["view"]
        assert view["me"] == "Bob" and view["race_cards"] == [
            "blue",
            "green",
            "orange",
            "yellow",
            "white",
        ]
    finally:
        reader.close()
    host, port = served.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=5)
    conn.request("GET", "/api/stream?token=forged")
    assert conn.getresponse().status == 403
    conn.close()


def test_advice_on_the_shared_screen_hides_bet_colours(tmp_path: Any) -> None:
    """The advisor only ranks legal bets, so its colours would tell which race cards are left."""
    from hub.dashboard.live import redact_advice

    advice = [
        {"action": "bet:loser:green", "expected": 3.0, "why": "g"},
        {"action": "leg:blue", "expected": 1.0, "why": "b"},
        {"action": "bet:loser:white", "expected": 0.2, "why": "w"},
        {"action": "bet:winner:white", "expected": 0.1, "why": "w"},
    ]
    assert [a["action"] for a in redact_advice(advice)] == ["bet:loser", "leg:blue", "bet:winner"]
    t = make_table(tmp_path, odds=True)
    try:
        c = t.app.test_client()
        current = t.session.game.current_player
        full = t.session.snapshot(log=False, derived=True)["advice"]
        if not full:
            pytest.skip("the session gives no advice here")
        for headers in (
            {},
            TABLE,
            {"X-Pyramid-Token": t.session.player_token(next(p for p in PLAYERS if p != current))},
        ):
            got = c.get("/api/odds", headers=headers).json["advice"]
            assert got["player"] == current
            assert all(
                a["action"].count(":") == 1
                for a in got["actions"]
                if a["action"].startswith("bet:")
            )
        own = c.get("/api/odds", headers={"X-Pyramid-Token": t.session.player_token(current)})
        assert own.json["advice"]["actions"] == json.loads(json.dumps(full))
    finally:
        t.live.close()
        t.session.bus.close()
        t.session.store.close()


def test_a_table_without_a_game_yet(tmp_path: Any) -> None:
    t = make_table(tmp_path, start=False)
    try:
        c = t.app.test_client()
        snap = c.get("/api/state").json
        assert snap["game_id"] is None and snap["log"] == []
        assert snap["state"]["view"] is None and snap["state"]["legal"] == []
        assert c.get("/api/games").json["games"] == []
        r = c.post("/api/action", json={"action": "roll"}, headers=TABLE)
        assert r.status_code == 400 and "start one" in r.json["message"]
        r = c.post("/api/games", json={"players": ["Ann", "Bob"], "seed": 3}, headers=TABLE)
        assert r.status_code == 200 and r.json["game_id"] == "g1"
        assert c.get("/api/state").json["state"]["view"]["players"] == ["Ann", "Bob"]
    finally:
        t.live.close()
        t.session.bus.close()
        t.session.store.close()


def test_odds_are_pushed_once_per_position_to_every_page(tmp_path: Any) -> None:
    from .conftest import serve_table

    with serve_table(tmp_path, odds=True) as t:
        if not t.session.snapshot(log=False, derived=True).get("advice"):
            pytest.skip("the session gives no advice here")
        readers = [SSEReader(t.url) for _ in range(3)]
        try:
            for r in readers:
                r.until(lambda m: m.get("event") == "snapshot")
            end = time.monotonic() + 10  # the opening position's odds first
            while t.live.latest_odds() is None and time.monotonic() < end:
                time.sleep(0.02)
            computed = t.live.odds_computed
            t.play("leg:blue")
            seq = t.session.seq
            for r in readers:
                got = r.until(lambda m: m.get("event") == "odds" and m["data"]["seq"] == seq)
                actions = got["data"]["advice"]["actions"]
                assert actions and all(
                    a["action"].count(":") <= 1 or not a["action"].startswith("bet:")
                    for a in actions
                )
            assert t.live.odds_computed == computed + 1  # one computation for three pages
        finally:
            for r in readers:
                r.close()


def test_new_game_as_the_camera_read_it(tmp_path: Path) -> None:
    """GET /api/setup shows the camera's setup reading; POST /api/games with "setup": "camera"
    starts from it (and "random" still rolls)."""
    from .conftest import make_table

    table = make_table(tmp_path, start=False)
    try:
        c = table.app.test_client()
        assert c.get("/api/setup").json == {"setup_reading": None}
        r = c.post("/api/games", json={"players": ["Dee", "Eve"], "setup": "camera"}, headers=TABLE)
        assert r.status_code == 400 and r.json["error"] == "no_setup_reading"
        board = {"1": ["blue"], "2": ["orange", "green"], "3": ["white", "yellow"]}
        assert table.session.observe("track", {"track": board})["ok"]
        reading = c.get("/api/setup").json["setup_reading"]
        assert reading["complete"] and reading["track"] == board
        r = c.post(
            "/api/games",
            json={"players": ["Dee", "Eve"], "setup": "camera", "setup_id": reading["id"] + 1},
            headers=TABLE,
        )
        assert r.status_code == 400 and r.json["error"] == "setup_reading_changed"
        r = c.post(
            "/api/games",
            json={"players": ["Dee", "Eve"], "setup": "camera", "setup_id": reading["id"]},
            headers=TABLE,
        )
        assert r.status_code == 200, r.json
        assert c.get("/api/state").json["state"]["view"]["track"] == board
    finally:
        table.live.close()
        table.session.bus.close()
        table.session.store.close()
