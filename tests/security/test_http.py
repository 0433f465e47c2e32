"""Red team, the dashboard over real HTTP on loopback: PIN brute force, cross-site requests,
a foreign Host, deep and huge JSON, too many streams; the headers every page carries; a PIN by
default. Each attack is refused and the game is unchanged."""

from __future__ import annotations

import http.client
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hub.dashboard import create_app
from hub.dashboard.guard import PinThrottle
from hub.dashboard.server import ServerThread
from hub.mqtt.broker import free_port
from hub.session import TableSession
from hub.store import Store

pytestmark = pytest.mark.security

PIN = "482916"
REPO = Path(__file__).resolve().parents[2]


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class Served:
    def __init__(self, session: TableSession, server: ServerThread, clock: Clock) -> None:
        self.session, self.server, self.clock = session, server, clock

    def req(
        self,
        method: str,
        path: str,
        body: bytes | str | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], Any]:
        c = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=10)
        try:
            h = {"Content-Type": "application/json", **(headers or {})}
            h = {k: v for k, v in h.items() if v is not None}
            c.request(method, path, body=body, headers=h)
            r = c.getresponse()
            data = r.read()
            try:
                parsed: Any = json.loads(data)
            except ValueError:
                parsed = data
            return r.status, {k.lower(): v for k, v in r.getheaders()}, parsed
        finally:
            c.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    store = Store(tmp_path / "hub.db")
    session = TableSession("t1", store, pin=PIN, odds=False, advice=False)
    session.start_game(["Ann", "Bob", "Cy"], seed=5)
    clock = Clock()
    app = create_app(
        session,
        public_url="http://table.example.lan:8080",
        max_streams=3,
        heartbeat_s=0.3,
        throttle=PinThrottle(clock=clock),
    )
    with ServerThread(app) as server:
        yield Served(session, server, clock)
    session.bus.close()
    store.close()


def test_pin_brute_force_is_throttled_to_at_most_20_tries_a_minute(served: Served) -> None:
    """An attacker tries a new PIN whenever the hub lets them, for a (simulated) minute."""
    seq = served.session.seq
    checked = refused = 0
    guess = 0
    while served.clock.t < 1060.0:
        status, headers, body = served.req(
            "POST", "/api/undo", b"{}", {"X-Pyramid-Pin": f"{guess:06d}"}
        )
        if status == 429:
            refused += 1
            wait = int(headers["retry-after"])
            assert wait >= 1 and body["error"] == "too_many_tries"
            served.clock.t += wait  # the attacker waits exactly as told
        else:
            assert status == 403 and body["error"] == "wrong_pin"
            checked += 1
            guess += 1
    assert checked <= 20, checked
    assert refused >= 1
    assert served.session.seq == seq  # nothing was undone
    # locked out: even the right PIN is not looked at until the wait is over
    served.req("POST", "/api/undo", b"{}", {"X-Pyramid-Pin": "999999"})  # a new guess
    status, _, _ = served.req("POST", "/api/undo", b"{}", {"X-Pyramid-Pin": PIN})
    assert status == 429 and served.session.seq == seq


def test_cross_site_requests_change_nothing(served: Served) -> None:
    seq = served.session.seq
    evil = "http://attacker.example"
    attempts = [
        # a page elsewhere POSTing text/plain (no preflight), with and without the PIN it guessed
        ({"Origin": evil, "Content-Type": "text/plain"}, b'{"action":"roll"}'),
        ({"Origin": evil, "X-Pyramid-Pin": PIN}, b'{"action":"roll"}'),
        ({"Origin": "null", "X-Pyramid-Pin": PIN}, b'{"action":"roll"}'),
        ({"Referer": f"{evil}/page", "X-Pyramid-Pin": PIN}, b'{"action":"roll"}'),
        # an HTML form (no Origin sent by an old browser): not JSON, refused
        (
            {"Content-Type": "application/x-www-form-urlencoded", "X-Pyramid-Pin": PIN},
            b"action=roll",
        ),
    ]
    for headers, body in attempts:
        status, _, answer = served.req("POST", "/api/action", body, headers)
        assert status == 403 and answer["error"] == "cross_origin", (headers, answer)
    status, _, _ = served.req("POST", "/api/undo", b"{}", {"Origin": evil, "X-Pyramid-Pin": PIN})
    assert status == 403
    assert served.session.seq == seq
    # the dashboard itself (its configured address, or the loopback address it was opened on)
    ok_origin = f"http://127.0.0.1:{served.server.port}"
    status, _, answer = served.req(
        "POST", "/api/action", b'{"action":"roll"}', {"Origin": ok_origin, "X-Pyramid-Pin": PIN}
    )
    assert status == 200 and answer["ok"], answer
    status, _, answer = served.req(
        "POST",
        "/api/undo",
        b"{}",
        {"Origin": "http://table.example.lan:8080", "X-Pyramid-Pin": PIN},
    )
    assert status == 200, answer


def test_a_foreign_host_name_is_refused_and_links_never_use_it(served: Served) -> None:
    status, _, body = served.req("GET", "/api/state", headers={"Host": "attacker.example"})
    assert status == 421 and body["error"] == "unknown_host"  # DNS rebinding gets nothing
    status, _, body = served.req(
        "GET",
        "/api/players/Ann/link",
        headers={"X-Pyramid-Pin": PIN, "Host": "table.example.lan:8080"},
    )
    assert status == 200
    assert body["url"].startswith("http://table.example.lan:8080/p/")
    status, _, body = served.req(
        "GET",
        "/api/players/Ann/link",
        headers={"X-Pyramid-Pin": PIN, "Host": f"127.0.0.1:{served.server.port}"},
    )
    assert body["url"].startswith("http://table.example.lan:8080/p/")  # not from Host


def test_every_answer_carries_the_security_headers(served: Served) -> None:
    for path in ("/", "/api/state", "/p/not-a-token", "/api/nothing"):
        _, headers, _ = served.req("GET", path)
        csp = headers.get("content-security-policy", "")
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
        assert "unsafe-eval" not in csp
        assert headers.get("x-frame-options") == "DENY"
        assert headers.get("x-content-type-options") == "nosniff"
        assert headers.get("referrer-policy") == "no-referrer"


def test_deep_and_huge_json_get_a_clear_error(served: Served) -> None:
    seq = served.session.seq
    deep = "[" * 100_000 + "]" * 100_000
    status, _, body = served.req("POST", "/api/action", deep.encode(), {"X-Pyramid-Pin": PIN})
    assert status == 413 or (status == 400 and body["error"] in ("too_deep", "too_large"))
    nested = '{"action": ' + "[" * 200 + "]" * 200 + "}"
    status, _, body = served.req("POST", "/api/action", nested.encode(), {"X-Pyramid-Pin": PIN})
    assert status == 400 and body["error"] == "too_deep" and "nested" in body["message"]
    status, _, body = served.req(
        "POST", "/api/action", b'{"action": "' + b"x" * 200_000 + b'"}', {"X-Pyramid-Pin": PIN}
    )
    assert status == 413 and body["error"] == "too_large"
    assert served.session.seq == seq


def test_deep_json_over_mqtt_gets_a_clear_error(tmp_path: Path) -> None:
    from hub.mqtt.bridge import MqttBridge

    store = Store(tmp_path / "hub.db")
    session = TableSession("t1", store, pin=PIN, odds=False, advice=False)
    bridge = MqttBridge(session, "mqtt://127.0.0.1:1")  # not started: only its decoder is used
    answer = bridge.handle_request("action", b'{"player": ' + b"[" * 50_000 + b"]" * 50_000 + b"}")
    assert answer["ok"] is False and answer["reason"] == "too_deep"
    answer = bridge.handle_request("games", json.dumps({"transaction": "x" * 3_000_000}).encode())
    assert answer["ok"] is False and answer["transaction"] is None  # a 3 MB id is not echoed
    session.bus.close()
    store.close()


def test_open_streams_are_limited(served: Served) -> None:
    conns = []
    try:
        for _ in range(3):
            c = http.client.HTTPConnection("127.0.0.1", served.server.port, timeout=10)
            c.request("GET", "/api/stream")
            r = c.getresponse()
            assert r.status == 200
            conns.append((c, r))
        c = http.client.HTTPConnection("127.0.0.1", served.server.port, timeout=10)
        c.request("GET", "/api/stream")
        r = c.getresponse()
        assert r.status == 503 and r.getheader("Retry-After") == "5"
        c.close()
        conns[0][1].close()  # one viewer leaves: its slot is free again
        conns[0][0].close()
        deadline = time.monotonic() + 20
        while True:
            c = http.client.HTTPConnection("127.0.0.1", served.server.port, timeout=10)
            c.request("GET", "/api/stream")
            r = c.getresponse()
            if r.status == 200 or time.monotonic() > deadline:
                break
            c.close()
            time.sleep(0.2)
        assert r.status == 200
        conns.append((c, r))
    finally:
        for c, r in conns:
            r.close()
            c.close()


def test_the_hub_has_a_pin_by_default_and_serves_loopback_only(tmp_path: Path) -> None:
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "hub.cli",
        "hub",
        "--table",
        "dflt",
        "--db",
        str(tmp_path / "hub.db"),
        "--no-mqtt",
        "--no-odds",
        "--http-port",
        str(port),
    ]

    def first_lines() -> list[str]:
        proc = subprocess.Popen(
            cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        lines: list[str] = []
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.append(line)
                if line.startswith("dashboard:"):
                    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                    c.request(
                        "POST",
                        "/api/undo",
                        body=b"{}",
                        headers={"Content-Type": "application/json"},
                    )
                    lines.append(f"undo without PIN: {c.getresponse().status}")
                    break
        finally:
            proc.terminate()
            proc.wait(10)
        return lines

    lines = first_lines()
    shown = next(line for line in lines if line.startswith("dashboard:"))
    m = re.match(r"dashboard: http://127\.0\.0\.1:(\d+)/  PIN: (\d{6})$", shown.strip())
    assert m, shown
    assert "undo without PIN: 401" in lines
    again = next(line for line in first_lines() if line.startswith("dashboard:"))
    assert again.strip() == shown.strip()  # the same PIN at the next start
    import os
    import stat

    assert stat.S_IMODE(os.stat(tmp_path / "hub.db").st_mode) & 0o077 == 0  # nobody else reads it


def _act(
    served: Served, body: dict[str, Any], key: str | None = None, path: str = "/api/action"
) -> tuple[int, Any]:
    headers = {"X-Pyramid-Pin": PIN}
    if key is not None:
        headers["Idempotency-Key"] = key
    status, _, data = served.req("POST", path, json.dumps(body), headers)
    return status, data


def test_a_tap_sent_twice_with_its_idempotency_key_is_applied_once(served: Served) -> None:
    s = served.session
    mover = s.game.current_player
    status, first = _act(served, {"action": "leg:blue"}, key="tap-77")
    assert status == 200 and first["ok"] and not first.get("replayed")
    seq = s.seq
    status, again = _act(served, {"action": "leg:blue"}, key="tap-77")
    assert status == 200 and again["replayed"] and again["seq"] == first["seq"]
    assert s.seq == seq and s.game.current_player != mover


def test_a_replayed_undo_over_http_takes_back_one_action(served: Served) -> None:
    s = served.session
    for action in ("leg:blue", "leg:green"):
        assert _act(served, {"action": action})[0] == 200
    assert _act(served, {}, key="undo-1", path="/api/undo")[0] == 200
    status, again = _act(served, {}, key="undo-1", path="/api/undo")
    assert status == 200 and again["replayed"]
    assert [e.type for e in s.store.events("t1")].count("undo") == 1


def test_a_stale_double_tap_over_http_is_refused_with_a_sentence(served: Served) -> None:
    s = served.session
    mover, drawn = s.game.current_player, s.seq
    assert _act(served, {"action": "leg:blue", "expected_seq": drawn})[0] == 200
    seq, now = s.seq, s.game.current_player
    status, data = _act(served, {"action": "leg:blue", "expected_seq": drawn})
    assert status == 409 and data["error"] == "stale"
    assert data["message"].startswith(f"{mover} has already moved")
    assert s.seq == seq and s.game.current_player == now


# -- secrets stay secret, even to the PIN holder ------------------------------------------------

DEVICE_ANN = "ann-phone-0123456789abcdef"
DEVICE_PIN = "pin-holders-tablet-0123456789"
DEVICE_FINDER = "someone-who-found-the-phone-01"


def code_of(release: dict[str, Any]) -> str:
    """The claim code of a release's answer: in its new link (``?claim=``) and QR code."""
    url = release["url"]
    assert url.startswith("http://table.example.lan:8080/p/") and "<svg" in release["svg"]
    code = re.search(r"[?&]claim=([A-Za-z0-9_-]+)", url)
    assert code is not None, url
    return code.group(1)


def _as(
    served: Served,
    method: str,
    path: str,
    body: dict[str, Any] | None = None,
    *,
    token: str | None = None,
    device: str | None = None,
    pin: bool = False,
) -> tuple[int, Any]:
    headers: dict[str, str] = {}
    if token:
        headers["X-Pyramid-Token"] = token
    if device:
        headers["X-Pyramid-Device"] = device
    if pin:
        headers["X-Pyramid-Pin"] = PIN
    status, _, data = served.req(method, path, None if body is None else json.dumps(body), headers)
    return status, data


def _to_move(served: Served, name: str) -> None:
    """Leg tiles until it is ``name``'s turn."""
    s = served.session
    while s.game.current_player != name:
        colour = next(a for a in s.game.legal_actions() if str(a).startswith("leg:"))
        assert s.request(
            "action", {"player": s.game.current_player, "action": str(colour)}, {"pin": PIN}
        )["ok"]


def _ann_bets_on_orange_to_win(served: Served) -> str:
    """Ann, on her own device, bets that orange wins the race; her token."""
    ann = served.session.player_token("Ann")
    _to_move(served, "Ann")
    status, _ = _as(
        served, "POST", "/api/action", {"action": "bet:winner:orange"}, token=ann, device=DEVICE_ANN
    )
    assert status == 200
    return ann


def test_the_pin_holder_cannot_name_a_players_secret_bet(served: Served) -> None:
    s = served.session
    _to_move(served, "Ann")
    n = s.seq
    status, data = _as(
        served, "POST", "/api/action", {"player": "Ann", "action": "bet:winner:orange"}, pin=True
    )
    assert status == 403 and data["error"] == "secret_bet"
    assert "orange" not in data["message"] and s.seq == n


def test_a_refused_bet_names_no_colour_to_anyone_but_its_player(served: Served) -> None:
    s = served.session
    ann = _ann_bets_on_orange_to_win(served)
    _to_move(served, "Ann")
    status, mine = _as(
        served, "POST", "/api/action", {"action": "bet:loser:orange"}, token=ann, device=DEVICE_ANN
    )
    assert status != 200  # her own page may tell her which of her cards is gone
    refused = [e.event for e in s.events_since(0) if e.type == "action_refused"][-1]
    assert "orange" not in json.dumps(refused)  # what every other screen sees
    _, table = _as(served, "GET", "/api/state", pin=True)
    assert "orange" not in json.dumps(table["state"]["view"].get("overall", ""))


def test_the_pin_holder_cannot_read_bets_through_a_players_link(served: Served) -> None:
    s = served.session
    ann = _ann_bets_on_orange_to_win(served)
    _, own = _as(served, "GET", "/api/state", token=ann, device=DEVICE_ANN)
    assert own["state"]["view"]["my_bets"] == [{"pile": "winner", "colour": "orange"}]
    # the PIN holder fetches Ann's link (to show her the QR code) and opens it elsewhere
    status, link = _as(served, "GET", "/api/players/Ann/link", pin=True)
    assert status == 200 and link["url"].endswith(ann)
    for device in (DEVICE_PIN, None):
        status, theirs = _as(served, "GET", "/api/state", token=ann, device=device, pin=True)
        assert status == 200 and "my_bets" not in theirs["state"]["view"]
        assert "orange" not in json.dumps(theirs["state"]["view"].get("race_cards", ""))
        _, who = _as(served, "GET", "/api/whoami", token=ann, device=device)
        assert who["auth"]["role"] == "guest" and who["claimed_elsewhere"] == "Ann"
    # ...nor act as Ann with it
    _to_move(served, "Ann")
    n = s.seq
    status, _ = _as(
        served, "POST", "/api/action", {"action": "bet:loser:blue"}, token=ann, device=DEVICE_PIN
    )
    assert status in (401, 403) and s.seq == n


def test_releasing_a_link_is_done_in_the_open(served: Served) -> None:
    s = served.session
    ann = s.player_token("Ann")
    assert _as(served, "GET", "/api/state", token=ann, device=DEVICE_ANN)[0] == 200  # claimed
    assert _as(served, "POST", "/api/players/Ann/release", {}, token=ann, device=DEVICE_ANN)[0] in (
        401,
        403,
    )  # not by the player's link
    status, data = _as(served, "POST", "/api/players/Ann/release", {}, pin=True)
    assert status == 200
    released = [e.event for e in s.events_since(0) if e.type == "link_released"]
    assert released == [{"type": "link_released", "player": "Ann"}]  # every screen sees it
    assert code_of(data) not in json.dumps(released)  # the code is on the table's screen only
    _, script = _as(served, "GET", "/api/whoami", token=ann)  # no device: no link after a release
    assert script["auth"]["role"] == "guest"
    # whoever kept the old link (the lost phone's finder) cannot take it: the code is needed
    _, finder = _as(served, "GET", "/api/whoami", token=ann, device=DEVICE_FINDER)
    assert finder["auth"]["role"] == "guest"
    _, guess = _as(served, "GET", f"/api/whoami?claim={'x' * 24}", token=ann, device=DEVICE_FINDER)
    assert guess["auth"]["role"] == "guest"
    new_link = f"/api/whoami?claim={code_of(data)}"
    _, mine = _as(served, "GET", new_link, token=ann, device=DEVICE_PIN)  # the new phone
    assert mine["auth"] == {"role": "player", "player": "Ann"}
    _, again = _as(served, "GET", new_link, token=ann, device=DEVICE_FINDER)  # the code is spent
    assert again["auth"]["role"] == "guest" and again["claimed_elsewhere"] == "Ann"
    _, old = _as(served, "GET", "/api/whoami", token=ann, device=DEVICE_ANN)
    assert old["auth"]["role"] == "guest" and old["claimed_elsewhere"] == "Ann"


def test_undoing_a_bet_reveals_nothing(served: Served) -> None:
    s = served.session
    _ann_bets_on_orange_to_win(served)
    status, undone = _as(served, "POST", "/api/undo", {}, pin=True)
    assert status == 200 and undone["action"] == "bet:winner"
    seen = json.dumps(
        [
            e.to_dict()
            for e in s.events_since(0)
            if e.type in ("undo", "overall_bet_placed", "action_refused")
        ]
    )
    assert "orange" not in seen and "orange" not in json.dumps(undone)


class _SlowReads(Store):
    """A log whose reads take a while (a busy SD card): it widens the window between a claim's
    read and its write, where a check-then-set claim lets two devices in."""

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        value = super().get_meta(key, default)
        time.sleep(0.1)
        return value


def test_two_devices_racing_for_a_released_link_one_gets_it(tmp_path: Path) -> None:
    """Two dashboards (two workers, two connections to the same log file) serve two devices
    that open a released link at the same moment: exactly one claims it, every round."""
    import threading

    from hub.dashboard.guard import LinkClaims

    path = tmp_path / "hub.db"
    stores = [_SlowReads(path), _SlowReads(path)]
    claims = [LinkClaims(st, "t1") for st in stores]
    devices = [f"device-{i}-{'x' * 16}" for i in range(2)]
    try:
        for _round in range(4):
            code = claims[0].release("g1", "Ann")
            assert not claims[1].allows("g1", "Ann", devices[1])  # without the code: no
            barrier = threading.Barrier(2)
            won = [False, False]

            def open_link(
                i: int, won: list[bool] = won, barrier: threading.Barrier = barrier, code=code
            ):
                barrier.wait()
                won[i] = claims[i].allows("g1", "Ann", devices[i], code)

            threads = [threading.Thread(target=open_link, args=(i,)) for i in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(10)
            assert sum(won) == 1, f"round {_round}: {won}"
            winner = won.index(True)
            assert claims[1 - winner].allows("g1", "Ann", devices[winner])  # kept, in the file
            assert not claims[winner].allows("g1", "Ann", devices[1 - winner])
    finally:
        for st in stores:
            st.close()


def test_two_phones_opening_a_released_link_over_http_one_gets_it(served: Served) -> None:
    import threading

    s = served.session
    ann = s.player_token("Ann")
    assert _as(served, "GET", "/api/whoami", token=ann, device=DEVICE_ANN)[0] == 200
    status, release = _as(served, "POST", "/api/players/Ann/release", {}, pin=True)
    assert status == 200
    link = f"/api/whoami?claim={code_of(release)}"
    phones = [f"phone-{i}-{'y' * 16}" for i in range(2)]
    roles: list[str] = ["", ""]
    barrier = threading.Barrier(2)

    def open_link(i: int) -> None:
        barrier.wait()
        roles[i] = _as(served, "GET", link, token=ann, device=phones[i])[1]["auth"]["role"]

    threads = [threading.Thread(target=open_link, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert sorted(roles) == ["guest", "player"]
    winner = phones[roles.index("player")]
    assert (
        _as(served, "GET", "/api/whoami", token=ann, device=winner)[1]["auth"]["role"] == "player"
    )
    assert (
        _as(served, "GET", "/api/whoami", token=ann, device=DEVICE_ANN)[1]["auth"]["role"]
        == "guest"
    )
