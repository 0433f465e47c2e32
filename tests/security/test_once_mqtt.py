"""Applied once across a crash, on a real mosquitto with the shipped ACL and a real `pyramid hub`
process: the hub is killed with SIGKILL right after it logged a request's events and before it
answered and acknowledged it (the fault-injection point of hub.mqtt.bridge, active only with
PYRAMID_TEST_KILL_BEFORE_ACK set). The broker gives the request to the restarted hub again; the
log shows the action once and the asker gets the first answer, on its own reply topic."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from hub.mqtt.access import Role
from hub.mqtt.bridge import KILL_BEFORE_ACK_ENV
from tests.hub._hubkit import PIN, open_tables, start
from tests.hub._mqttkit import Collector

pytestmark = [pytest.mark.security, pytest.mark.broker]

REPO = Path(__file__).resolve().parents[2]


def _hub(tmp_path: Path, broker: Any, table: str, kill_on: str | None = None) -> subprocess.Popen:
    users = tmp_path / "broker-users.json"
    broker.credentials.save(users)
    env = {k: v for k, v in os.environ.items() if k != KILL_BEFORE_ACK_ENV}
    if kill_on:
        env[KILL_BEFORE_ACK_ENV] = kill_on
    cmd = [
        sys.executable,
        "-m",
        "hub.cli",
        "hub",
        "--table",
        table,
        "--db",
        str(tmp_path / "hub.db"),
        "--broker",
        broker.url_for(Role.HUB),
        "--broker-users",
        str(users),
        "--pin",
        PIN,
        "--http-port",
        "0",
        "--no-odds",
    ]
    proc = subprocess.Popen(
        cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("hub ready"):
            return proc
    raise AssertionError(f"the hub did not start (exit {proc.wait(5)})")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def test_a_request_applied_before_a_sigkill_is_applied_once(tmp_path: Path, broker) -> None:
    table = "once" + secrets.token_hex(3)
    tables = next(open_tables(tmp_path))
    start(tables.session(table=table))  # Ann to play
    tables.close()
    me = "ctl-" + secrets.token_hex(4)
    asker = Collector(broker, [f"camelup/{table}/reply/{me}/#"], client_id=me)
    online = Collector(broker, [f"camelup/{table}/available"])
    hub = _hub(tmp_path, broker, table, kill_on="action")
    try:
        assert online.wait_for(lambda m: any(p == b"online" for _, p, _ in m), 20)
        # the hub's persistent session is at the broker now: the request waits for it
        asker.publish(
            f"camelup/{table}/request/action",
            {
                "player": "Ann",
                "action": "leg:blue",
                "request_id": "tap-1",
                "reply_to": me,
                "transaction": "t1",
            },
        )
        assert hub.wait(20) == -signal.SIGKILL  # applied, then killed before answering
        assert not asker.messages
        hub = _hub(tmp_path, broker, table)  # the broker delivers the request again
        assert asker.wait_for(lambda m: len(m) >= 1, 20), "no answer after the restart"
        time.sleep(0.3)  # a second answer would come now
        answers = [json.loads(p) for _, p, _ in asker.messages]
        assert len(answers) == 1
        answer = answers[0]
        assert answer["ok"] and answer["replayed"] and answer["transaction"] == "t1"
        assert answer["request_id"] == "tap-1"
        # the same request sent again by the asker (it never saw an answer): changes nothing
        asker.publish(
            f"camelup/{table}/request/action",
            {
                "player": "Ann",
                "action": "leg:blue",
                "request_id": "tap-1",
                "reply_to": me,
                "transaction": "t2",
            },
        )
        assert asker.wait_for(lambda m: len(m) >= 2, 10)
        again = json.loads(asker.messages[1][1])
        assert again["replayed"] and again["seq"] == answer["seq"]
    finally:
        _stop(hub)
        asker.close()
        online.close()
    tables = next(open_tables(tmp_path))
    try:
        events = tables.session(table=table).store.events(table)
        taken = [e.event for e in events if e.type == "leg_tile_taken"]
        assert taken == [
            {"type": "leg_tile_taken", "player": "Ann", "colour": "blue", "value": 5}
        ], f"applied {len(taken)} times"
    finally:
        tables.close()
