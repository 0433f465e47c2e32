"""The demo table beyond one Camel Up game: the other games started from the page, a seat a
person plays, the options that choose them. Each test runs the real demo (watch loop, vision,
hub, dashboard) in this process and talks to it over HTTP as the page does."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from firmware.demo import DemoOptions, run_demo
from firmware.demo_games import demo_players
from hub.mqtt.broker import free_port

PIN = "2468"


class Demo:
    """A running demo: its printed lines, its address and a few HTTP helpers."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.url = ""
        self.result: Any = None
        self.error: BaseException | None = None

    def out(self, text: str) -> None:
        self.lines.append(text)

    def get(self, path: str, token: str | None = None) -> Any:
        headers = self._headers(token)
        headers.pop("Content-Type")
        req = urllib.request.Request(self.url + path, headers=headers)
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def post(self, path: str, payload: dict[str, Any], token: str | None = None) -> Any:
        req = urllib.request.Request(self.url + path, data=json.dumps(payload).encode(),
                                     headers=self._headers(token), method="POST")
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as exc:
            return json.loads(exc.read())

    @staticmethod
    def _headers(token: str | None) -> dict[str, str]:
        h = {"Content-Type": "application/json", "X-Pyramid-Pin": PIN}
        if token:
            h = {"Content-Type": "application/json", "X-Pyramid-Token": token}
        return h


def wait_for(pred: Callable[[], Any], timeout: float, what: str) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = pred()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@contextmanager
def demo(**options: Any) -> Iterator[Demo]:
    d = Demo()
    stop = threading.Event()
    port = free_port()
    opts = DemoOptions(players=3, seed=11, pace_s=0.0, pin=PIN, **options)

    def run() -> None:
        try:
            d.result = run_demo(opts, mqtt=False, http_host="127.0.0.1", http_port=port,
                                stop=stop, out=d.out, odds=False)
        except BaseException as exc:  # the test reports it
            d.error = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: any(x.startswith("dashboard: ") for x in d.lines) or d.error, 60,
                 "the dashboard's address")
        assert d.error is None, d.error
        d.url = f"http://127.0.0.1:{port}"
        yield d
    finally:
        stop.set()
        thread.join(60)
    assert d.error is None, d.error


def _games(d: Demo) -> dict[str, dict[str, Any]]:
    return {g["game_id"]: g for g in d.get("/api/games")["games"]}


@pytest.mark.slow
def test_every_game_started_from_the_page_is_played_to_its_end() -> None:
    """"+ New game" with the horse race, then Marco Polo II, in the middle of the demo's Camel Up
    game: the demo used to crash on the first; now it plays each to its game_over."""
    with demo() as d:
        wait_for(lambda: _games(d).get("g1"), 30, "the demo's first game")
        for game_id, kind in (("g2", "horserace"), ("g3", "marcopolo2")):
            players = demo_players(["Ada", "Bo", "Cy"], kind)
            answer = d.post("/api/games", {"game": kind, "players": players, "abandon": True})
            assert answer.get("ok"), answer
            assert answer["game_id"] == game_id
            done = wait_for(lambda gid=game_id: _games(d)[gid]["status"] == "finished"
                            and _games(d)[gid], 120, f"{kind} to finish")
            assert done["kind"] == kind
            assert done.get("winners"), done
        assert any("game over" in line for line in d.lines)


@pytest.mark.slow
def test_a_person_plays_a_seat_and_the_bots_wait_for_them() -> None:
    """--seat Ann: the bots never move for Ann; a whole game is played with Ann's moves sent
    from her own printed link, and the dice the camera doubts are left to the table's page."""
    with demo(seat="Ann", games=1) as d:
        link = wait_for(lambda: next((x for x in d.lines if x.startswith("your seat, Ann: ")),
                                     None), 30, "Ann's own link")
        token = link.split("/p/")[1].split()[0]
        mine = 0
        end = time.monotonic() + 240
        while time.monotonic() < end:
            state = d.get("/api/state", token)["state"]
            view = state.get("view") or {}
            if view.get("finished"):
                break
            for p in state.get("pending") or []:  # a die the camera doubted: left to us
                if p.get("kind") == "die_reading":
                    colour = (p.get("reading") or {}).get("colour")
                    left = view.get("dice_left") or []
                    answer = {"prompt": p["id"], "colour": colour if colour in left else left[0],
                              "face": 2}
                    d.post("/api/confirm", answer)
            for p in state.get("pending") or []:  # Ann's secret bet colour (not played here)
                assert p.get("kind") != "bet_colour" or p.get("player") != "Ann", p
            if view.get("current_player") == "Ann" and state.get("legal"):
                before = d.get("/api/state", token)["seq"]
                time.sleep(0.3)  # the bots must not move for Ann, however long she thinks
                assert d.get("/api/state", token)["seq"] == before, "a bot moved for Ann"
                legal = state["legal"]
                action = next((a for a in legal if a.startswith("leg:")), None) or \
                    ("roll" if "roll" in legal else legal[0])
                answer = d.post("/api/action", {"action": action}, token)
                assert answer.get("ok"), answer
                mine += 1
            time.sleep(0.1)
        final = d.get("/api/state", token)["state"]["view"]
        assert final["finished"], "the game with a person in a seat did not end"
        assert mine >= 3
        log = d.get("/api/games/g1")["log"]
        ann = [e for e in log if e.get("player") == "Ann" and e["type"] in
               ("leg_tile_taken", "die_rolled", "die_read", "desert_placed", "bet_placed")]
        assert ann, "Ann's moves are not in the log"
