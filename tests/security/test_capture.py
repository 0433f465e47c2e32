"""Red team, the eavesdropper: the read-only user subscribes to ``#`` through a whole game played
over MQTT by the table's controller and the firmware, with overall bets, refusals, undo and a
PIN someone put in a payload. Before game over it must see 0 PINs, 0 tokens, 0 bet colours."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest

from hub import simtable
from hub.games.camelup import COLOURS
from hub.mqtt.access import Role
from hub.mqtt.bridge import MqttBridge
from tests.hub._hubkit import Tables, open_tables
from tests.hub._mqttkit import Collector

pytestmark = [pytest.mark.security, pytest.mark.broker]

SECRET_PIN = "Zq7Kp2"
BET = re.compile(r"bet:(winner|loser):(" + "|".join(COLOURS) + ")")


class OverMqtt:
    """A session stand-in for simtable: table requests go over MQTT as the controller (no PIN:
    the broker's user is the authority), observations as the firmware; a player's own secret
    (a token) goes the way a phone sends it, over HTTP, never over MQTT."""

    def __init__(self, session: Any, base: str, control: Collector, firmware: Collector) -> None:
        self._s, self._base = session, base
        self._control, self._firmware = control, firmware
        self._ids = itertools.count(1)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._s, name)

    def _ask(self, who: Collector, cmd: str, payload: dict[str, Any]) -> dict[str, Any]:
        txn = f"x{next(self._ids)}"
        who.publish(f"{self._base}/request/{cmd}", {"transaction": txn, **payload})
        topic = f"{self._base}/response/{cmd}"

        def answered(msgs: list[tuple[str, bytes, bool]]) -> bool:
            return any(t == topic and json.loads(p).get("transaction") == txn for t, p, _ in msgs)

        assert who.wait_for(answered, 10), (cmd, payload)
        return next(
            json.loads(p)
            for t, p, _ in who.messages
            if t == topic and json.loads(p).get("transaction") == txn
        )

    def request(
        self, cmd: str, payload: dict[str, Any], auth: Any = None, **kw: Any
    ) -> dict[str, Any]:
        if auth and "token" in auth:
            return self._s.request(cmd, payload, auth, channel="http")
        return self._ask(self._control, cmd, payload)

    def observe(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return self._ask(self._firmware, f"observe_{kind}", payload)


def _bet_colours(obj: Any) -> list[str]:
    """Every overall bet colour shown in ``obj`` (a decoded payload)."""
    found: list[str] = []
    if isinstance(obj, dict):
        kind = obj.get("type") or obj.get("event_type")
        if "colour" in obj and ("pile" in obj or kind == "overall_bet_placed"):
            found.append(str(obj["colour"]))
        for v in obj.values():
            found += _bet_colours(v)
    elif isinstance(obj, list):
        for v in obj:
            found += _bet_colours(v)
    elif isinstance(obj, str):
        found += [m.group(2) for m in BET.finditer(obj)]
    return found


def test_the_read_only_user_sees_no_secret_before_game_over(
    tmp_path: Path, broker, request
) -> None:
    tables: Tables = next(open_tables(tmp_path))
    table = "cap" + str(abs(hash(request.node.name)) % 10**6)
    session = tables.session(table=table, pin=SECRET_PIN)
    bridge = MqttBridge(session, broker.url, trusted_requests=True).start()
    assert bridge.wait_connected(10)
    base = bridge.base
    spy = Collector(broker, ["#"], role=Role.READER)
    control = Collector(broker, [f"{base}/response/#"], role=Role.CONTROL)
    firmware = Collector(broker, [f"{base}/response/#"], role=Role.FIRMWARE)
    try:
        table_ = OverMqtt(session, base, control, firmware)
        answer = table_.request("start_game", {"players": ["Ann", "Bob", "Cy"], "seed": 11})
        assert answer["ok"] and "tokens" not in answer
        # a PIN put in a payload is refused (and the reader could not have read it anyway)
        bad = table_._ask(control, "undo", {"pin": SECRET_PIN})
        assert bad["reason"] == "secret_on_mqtt"
        assert table_._ask(control, "tokens", {})["ok"] is False
        tokens = [session.player_token(n) for n in ("Ann", "Bob", "Cy")]
        game = session.game
        me = game.current_player
        colour = next(
            c for c in COLOURS if c in game.state.players[game.state.index(me)].race_cards
        )
        assert table_.request("action", {"player": me, "action": f"bet:winner:{colour}"})["ok"]
        assert table_.request("undo", {})["ok"]  # undoing a bet
        assert table_.request("action", {"player": me, "action": f"bet:winner:{colour}"})["ok"]
        me2 = session.game.current_player
        table_.request("action", {"player": me2, "action": "roll"})
        me3 = session.game.current_player
        if me3 == me:  # a refused bet: that card is already on the pile
            refused = table_.request("action", {"player": me, "action": f"bet:loser:{colour}"})
            assert refused["ok"] is False
        steps = 0
        while session.active and steps < 3000:
            simtable.step(table_, "capture")
            steps += 1
        assert session.game is not None and session.game.finished
        assert bridge.flush(10)
        last = session.seq
        assert spy.wait_for(
            lambda m: any(t == f"{base}/event" and json.loads(p)["seq"] == last for t, p, _ in m),
            15,
        )
        # everything the reader saw of this table from before game over: events and states
        # carry their seq (the final state may arrive before the game_over event: two topics)
        over = next(e.seq for e in session.events_since(0) if e.type == "game_over")
        ours = (f"{base}/", f"homeassistant/device/camel_pyramid_{table}/")
        seen: list[tuple[str, bytes]] = []
        for t, p, _ in spy.messages:
            if not t.startswith(ours):  # the session broker also holds other tests' tables
                continue
            data = _decode(p) if p else None
            if (
                isinstance(data, dict)
                and isinstance(data.get("seq"), int)
                and (t in (f"{base}/event", f"{base}/state"))
                and data["seq"] >= over
            ):
                continue
            seen.append((t, p))
        text = b"\n".join(p for _, p in seen)
        pins = text.count(SECRET_PIN.encode())
        toks = sum(text.count(tok.encode()) for tok in tokens)
        colours = [c for _, p in seen if p for c in _bet_colours(_decode(p))]
        leaks = [(t, p[:300]) for t, p in seen if p and _bet_colours(_decode(p))]
        assert (pins, toks, colours) == (0, 0, []), leaks[:3]
        assert len(seen) > 50  # the reader did follow the game
        assert not [t for t, _ in seen if "/request/" in t or "/response/" in t or "/reply/" in t]
        bets = [e for e in session.events_since(0) if e.type == "overall_bet_placed"]
        assert len(bets) >= 1  # there were secrets to keep
    finally:
        for c in (spy, control, firmware):
            c.close()
        bridge.stop()
        tables.close()


def _decode(payload: bytes) -> Any:
    try:
        return json.loads(payload)
    except ValueError:
        return payload.decode(errors="replace")
