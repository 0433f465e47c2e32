"""The embedded broker must not outlive a hub that is killed outright."""

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    shutil.which("mosquitto") is None and not Path("/usr/sbin/mosquitto").exists(),
    reason="mosquitto is not installed (make deps installs it)",
)

HUB = (
    "from hub.mqtt.broker import EmbeddedBroker\n"
    "b = EmbeddedBroker(kind='mosquitto').start()\n"
    "print(b._proc.pid, flush=True)\n"
    "import time; time.sleep(60)\n"
)


def _alive(pid: int) -> bool:
    try:
        state = next(
            line
            for line in Path(f"/proc/{pid}/status").read_text().splitlines()
            if line.startswith("State:")
        )
    except (FileNotFoundError, ProcessLookupError):
        return False
    return "Z" not in state.split()[1]  # a zombie has exited; only reaping is left


def test_broker_dies_with_a_hub_killed_by_sigkill():
    hub = subprocess.Popen(
        [sys.executable, "-c", HUB],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    broker = int(hub.stdout.readline())
    assert _alive(broker)
    os.kill(hub.pid, signal.SIGKILL)
    hub.wait()
    deadline = time.monotonic() + 5
    while _alive(broker) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = _alive(broker)
    if alive:
        os.kill(broker, signal.SIGKILL)
    assert not alive, "the embedded broker outlived its hub"
