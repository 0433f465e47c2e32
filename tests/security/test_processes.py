"""Red team, the processes: no child outlives a hub killed by SIGKILL, and a dead embedded
broker is brought back (the bridge reconnects by itself)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hub.mqtt.broker import EmbeddedBroker, find_mosquitto, free_port

pytestmark = [
    pytest.mark.security,
    pytest.mark.broker,
    pytest.mark.skipif(find_mosquitto() is None, reason="mosquitto is not installed"),
]

REPO = Path(__file__).resolve().parents[2]


def _descendants(pid: int) -> set[int]:
    out: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            kids = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:
            continue
        for k in map(int, kids):
            out.add(k)
            todo.append(k)
    return out


def _alive(pid: int) -> bool:
    try:
        state = next(
            line
            for line in Path(f"/proc/{pid}/status").read_text().splitlines()
            if line.startswith("State:")
        )
    except (OSError, StopIteration):
        return False
    return "Z" not in state.split()[1]


def test_no_process_survives_a_hub_killed_with_sigkill(tmp_path: Path) -> None:
    """`pyramid hub` with odds (a worker process) and its embedded broker: kill -9 the hub."""
    cmd = [
        sys.executable,
        "-m",
        "hub.cli",
        "hub",
        "--table",
        "orph",
        "--db",
        str(tmp_path / "hub.db"),
        "--broker-port",
        "0",
        "--http-port",
        "0",
    ]
    hub = subprocess.Popen(
        cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    kids: set[int] = set()
    try:
        assert hub.stdout is not None
        for line in hub.stdout:
            if line.startswith("hub ready"):
                break
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # the broker and the odds worker (and its tracker)
            kids = _descendants(hub.pid)
            if len(kids) >= 3:
                break
            time.sleep(0.1)
        assert len(kids) >= 3, f"the hub should run a broker and an odds worker: {kids}"
        os.kill(hub.pid, signal.SIGKILL)
        hub.wait(5)
        deadline = time.monotonic() + 10
        while any(_alive(k) for k in kids) and time.monotonic() < deadline:
            time.sleep(0.05)
        orphans = [k for k in kids if _alive(k)]
        names = [
            Path(f"/proc/{k}/cmdline").read_bytes().replace(b"\0", b" ")[:120] for k in orphans
        ]
        assert not orphans, f"processes outlived their hub: {names}"
    finally:
        for k in kids:
            if _alive(k):
                os.kill(k, signal.SIGKILL)
        if hub.poll() is None:
            hub.kill()


def test_a_supervised_broker_that_dies_comes_back() -> None:
    from hub.mqtt.access import Role
    from tests.security.test_broker_acl import Client

    broker = EmbeddedBroker(port=free_port(), supervise=True).start()
    try:
        first = broker._proc
        assert first is not None
        os.kill(first.pid, signal.SIGKILL)  # a crash, not a stop()
        deadline = time.monotonic() + 10
        while (broker.restarts < 1 or not broker.running) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert broker.restarts == 1 and broker.running
        c = Client(broker, Role.READER)
        assert c.connected.wait(5)  # the same users and passwords as before
        c.close()
        broker.stop()  # a deliberate stop stays stopped
        time.sleep(0.6)
        assert not broker.running and broker.restarts == 1
    finally:
        broker.close()
