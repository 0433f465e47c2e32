"""`pyramid hub` as a process against the real broker, and `pyramid games` on its log."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hub._mqttkit import Collector

pytestmark = pytest.mark.broker
REPO = Path(__file__).resolve().parents[2]


def test_pyramid_hub_serves_a_table_over_mqtt_and_lists_its_games(tmp_path: Path, broker) -> None:
    db = tmp_path / "hub.db"
    sub = Collector(broker, ["camelup/serve/#"])
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hub.cli",
            "hub",
            "--table",
            "serve",
            "--db",
            str(db),
            "--broker",
            broker.url,
            "--pin",
            "9999",
            "--http-port",
            "0",
            "--no-odds",
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        lines = []
        while not any("hub ready" in line for line in lines) and len(lines) < 10:
            lines.append(proc.stdout.readline())
        assert any("hub ready" in line for line in lines), lines
        assert sub.wait_for(lambda m: sub.on("camelup/serve/available")[-1:] == [b"online"])
        sub.publish(
            "camelup/serve/request/start_game",
            {"transaction": "s1", "pin": "9999", "players": ["Ann", "Bob"], "seed": 5},
        )
        assert sub.wait_for(
            lambda m: any(t == "camelup/serve/response/start_game" for t, _, _ in m)
        )
        answer = json.loads(sub.on("camelup/serve/response/start_game")[-1])
        assert answer["ok"] and answer["transaction"] == "s1" and answer["game_id"] == "g1"
        assert sub.wait_for(lambda m: any(t == "camelup/serve/event" for t, _, _ in m))
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0
        assert sub.wait_for(lambda m: sub.on("camelup/serve/available")[-1:] == [b"offline"])
    finally:
        if proc.poll() is None:
            proc.kill()
        sub.close()
    out = subprocess.run(
        [sys.executable, "-m", "hub.cli", "games", "--db", str(db), "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    (game,) = [json.loads(line) for line in out.stdout.splitlines()]
    assert game["table"] == "serve" and game["players"] == ["Ann", "Bob"]
    assert game["status"] == "playing"
    missing = subprocess.run(
        [sys.executable, "-m", "hub.cli", "games", "--db", str(tmp_path / "none.db")],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 2 and "no event log" in missing.stderr
