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


def _hub_session(broker, client_id: str, got: list):
    """A client like the hub's bridge: fixed id, clean start off, a session expiry, QoS 1."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    from hub.mqtt.access import Role
    from hub.wire import parse_broker_url

    cfg = parse_broker_url(broker.url_for(Role.HUB))
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    c.username_pw_set(cfg.username, cfg.secret)
    c.on_message = lambda _c, _u, m: got.append((m.topic, m.payload))
    props = Properties(PacketTypes.CONNECT)
    props.SessionExpiryInterval = 3600
    c.connect(broker.host, broker.port, clean_start=False, properties=props)
    c.loop_start()
    return c


def _queue_one_request(broker, table: str) -> None:
    """The hub's session subscribes, goes away; the firmware sends one QoS 1 reading."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    from hub.mqtt.access import Role
    from hub.wire import parse_broker_url

    got: list = []
    hub = _hub_session(broker, f"hub-{table}", got)
    r = hub.subscribe(f"camelup/{table}/request/+", qos=1)
    assert r[0] == mqtt.MQTT_ERR_SUCCESS
    time.sleep(0.3)
    hub.disconnect()
    hub.loop_stop()
    cfg = parse_broker_url(broker.url_for(Role.FIRMWARE))
    fw = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"fw-{table}")
    fw.username_pw_set(cfg.username, cfg.secret)
    fw.connect(broker.host, broker.port)
    fw.loop_start()
    info = fw.publish(f"camelup/{table}/request/observe_release", b'{"ts": 1.0}', qos=1)
    info.wait_for_publish(5)
    assert info.is_published()
    fw.disconnect()
    fw.loop_stop()


def _delivered_after(broker, table: str) -> list:
    got: list = []
    hub = _hub_session(broker, f"hub-{table}", got)
    deadline = time.monotonic() + 3
    while not got and time.monotonic() < deadline:
        time.sleep(0.05)
    hub.disconnect()
    hub.loop_stop()
    return got


@pytest.mark.broker
def test_a_queued_request_survives_a_broker_restart():
    """The hub's persistent session and the QoS 1 reading queued for it while it was away are
    saved by the embedded broker: a restart delivers the reading; a brand-new broker (its
    saved state dropped, as before persistence) has lost it."""
    from hub.mqtt.broker import EmbeddedBroker

    with EmbeddedBroker(kind="mosquitto") as broker:
        _queue_one_request(broker, "kept")
        broker.restart()
        got = _delivered_after(broker, "kept")
        assert got == [("camelup/kept/request/observe_release", b'{"ts": 1.0}')]
        assert list(broker.data_dir.iterdir()), "no saved state in the broker's data folder"

        _queue_one_request(broker, "lost")
        broker.restart(clean=True)
        assert _delivered_after(broker, "lost") == []


@pytest.mark.broker
def test_a_queued_request_survives_a_broker_crash_and_the_supervisors_restart():
    """Killed outright (no chance to save on the way out), the broker has saved within
    AUTOSAVE_S: the supervisor's restart still delivers the reading."""
    from hub.mqtt.broker import AUTOSAVE_S, EmbeddedBroker

    broker = EmbeddedBroker(kind="mosquitto", supervise=True).start()
    try:
        _queue_one_request(broker, "crash")
        time.sleep(AUTOSAVE_S + 1.0)
        broker.kill()
        deadline = time.monotonic() + 10
        while broker.restarts == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert broker.restarts == 1 and broker.running
        got = _delivered_after(broker, "crash")
        assert got == [("camelup/crash/request/observe_release", b'{"ts": 1.0}')]
    finally:
        broker.close()
