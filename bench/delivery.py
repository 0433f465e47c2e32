"""Delivery benchmarks (issue 12): nothing lost, nothing applied twice, through a real mosquitto
with the shipped users and ACL, the hub's MQTT bridge and the firmware's MQTT sink.

    python -m bench.run delivery        # -> bench/results.json
    python -m bench.delivery            # printed only

Figures:
- ``broker_restarts``: the broker is restarted as a brand-new one (``restart(clean=True)``: its
  saved state dropped, so it forgets every session and subscription) and 0.3 s later the
  firmware sends readings; repeated. Readings lost (never in the event log) and applied twice
  (logged more than once).
- ``hub_restarts``: the hub's bridge stops, the firmware sends readings while it is away, the
  bridge starts again; repeated. Lost and applied twice.
- ``hub_kills``: a `pyramid hub` process killed with SIGKILL at 10 random moments while the
  firmware sends 20 readings a second, started again each time (a kill may fall between a
  reading's commit and its acknowledgement). Lost and applied twice.
- ``send_twice``: every reading published twice with the same request id (a resend whose first
  copy did arrive). Applied twice.
- ``answer_s``: the time from a reading's first send to its answer at the firmware (p50, max):
  how long a restart holds a reading up.
- ``broker_restarts_without_resend``: the same broker restarts with the firmware's resend off
  (what happened before it): the readings lost show what the resend is for.
- ``broker_restarts_kept_without_resend``: the broker restarts as the embedded one does, keeping
  its saved state (the hub's persistent session and what is queued for it), resend still off:
  what the broker's persistence alone keeps.

The reading is ``observe_release`` with a unique ``ts``: the hub logs one ``die_released`` event
per reading applied, so counting events by ``at`` counts applications.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


class Rig:
    """A table's hub (session + bridge) and its firmware sink on one broker."""

    def __init__(self, broker: Any, folder: Path, table: str, resend_first_s: float = 0.5) -> None:
        from firmware.sinks import MqttSink
        from hub.bus import EventBus
        from hub.mqtt.access import Role
        from hub.mqtt.bridge import MqttBridge
        from hub.session import TableSession
        from hub.store import Store
        from hub.wire import parse_broker_url

        self.broker, self.table = broker, table
        self.store = Store(folder / f"{table}.db")
        self.session = TableSession(
            table, self.store, EventBus(table), pin="4321", odds=False, advice=False
        )
        self.session.start_game(["Ann", "Bob"], seed=1)
        self._bridge_cls = MqttBridge
        self.bridge: Any = None
        self.start_hub()
        self.sink = MqttSink(
            table, parse_broker_url(broker.url_for(Role.FIRMWARE)), resend_first_s=resend_first_s
        )
        assert self.sink.wait_connected(10), "the firmware could not connect"
        self.sent: dict[float, float] = {}  # ts -> when it was sent
        self._ts = 1.0

    def start_hub(self) -> None:
        self.bridge = self._bridge_cls(
            self.session, self.broker.url, trusted_requests=True, discovery_prefix=None
        ).start()
        assert self.bridge.wait_connected(10), "the hub could not connect"

    def stop_hub(self) -> None:
        self.bridge.stop()

    def send(self, n: int) -> None:
        for _ in range(n):
            ts, self._ts = self._ts, self._ts + 1.0
            self.sent[ts] = time.monotonic()
            self.sink.pyramid_released(ts)

    def counts(self, timeout: float = 60.0) -> dict[str, Any]:
        """Wait for every reading to be answered; then lost and applied twice, from the log."""
        answered = self.sink.wait_answered(timeout)
        applied: dict[float, int] = {}
        for e in self.store.events(self.table):
            if e.type == "die_released":
                at = float(e.event["at"])
                applied[at] = applied.get(at, 0) + 1
        waits = sorted(self.sink.latencies)
        return {
            "readings": len(self.sent),
            "answer_s": {
                "p50": round(waits[len(waits) // 2], 3) if waits else None,
                "max": round(waits[-1], 3) if waits else None,
            },
            "lost": sum(1 for ts in self.sent if ts not in applied),
            "applied_twice": sum(1 for c in applied.values() if c > 1),
            "all_answered": answered,
            "resends": self.sink.resends,
        }

    def close(self) -> None:
        self.sink.close()
        self.bridge.stop()
        self.session.bus.close()
        self.store.close()


def broker_restarts(
    broker: Any,
    folder: Path,
    restarts: int = 10,
    per: int = 3,
    resend: bool = True,
    clean: bool = True,
) -> dict[str, Any]:
    """Readings sent 0.3 s after each broker restart (``clean``: as a brand-new broker, its
    saved sessions dropped; else as the embedded broker restarts, its state kept)."""
    name = ("dlb" if resend else "dln") if clean else "dlp"
    rig = Rig(broker, folder, name, resend_first_s=0.5 if resend else 1e9)
    try:
        t0 = time.monotonic()
        for _ in range(restarts):
            broker.restart(clean=clean)
            time.sleep(0.3)
            rig.send(per)
        out = rig.counts(60.0 if resend else 10.0)
        out["restarts"] = restarts
        out["seconds"] = round(time.monotonic() - t0, 1)
        return out
    finally:
        rig.close()


def hub_restarts(broker: Any, folder: Path, restarts: int = 10, per: int = 3) -> dict[str, Any]:
    """Readings sent while the hub is away (its bridge stopped), then the hub back."""
    rig = Rig(broker, folder, "dlh")
    try:
        for _ in range(restarts):
            rig.stop_hub()
            rig.send(per)
            time.sleep(0.2)
            rig.start_hub()
        out = rig.counts()
        out["restarts"] = restarts
        return out
    finally:
        rig.close()


def _hub_process(broker: Any, folder: Path, table: str) -> Any:
    """`pyramid hub` on the broker with the table's users (its own process, to be killed)."""
    import os
    import subprocess

    from hub.mqtt.access import Role

    users = folder / "broker-users.json"
    broker.credentials.save(users)
    cmd = [
        sys.executable,
        "-m",
        "hub.cli",
        "hub",
        "--table",
        table,
        "--db",
        str(folder / f"{table}.db"),
        "--broker",
        broker.url_for(Role.HUB),
        "--broker-users",
        str(users),
        "--pin",
        "4321",
        "--http-port",
        "0",
        "--no-odds",
    ]
    proc = subprocess.Popen(
        cmd,
        cwd=REPO,
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("hub ready"):
            return proc
    raise RuntimeError(f"the hub did not start (exit {proc.wait(5)})")


def hub_kills(
    broker: Any, folder: Path, kills: int = 10, rate_hz: float = 20.0, seed: int = 12
) -> dict[str, Any]:
    """A `pyramid hub` process killed with SIGKILL at random moments while the firmware sends
    readings at ``rate_hz``, started again each time: the crash may fall between a reading's
    commit and its acknowledgement, which the request id makes harmless."""
    import random
    import signal
    import threading

    from firmware.sinks import MqttSink
    from hub.bus import EventBus
    from hub.mqtt.access import Role
    from hub.session import TableSession
    from hub.store import Store
    from hub.wire import parse_broker_url

    table, rng = "dlk", random.Random(seed)
    store = Store(folder / f"{table}.db")
    session = TableSession(table, store, EventBus(table), pin="4321", odds=False, advice=False)
    session.start_game(["Ann", "Bob"], seed=1)
    session.bus.close()
    store.close()
    sink = MqttSink(table, parse_broker_url(broker.url_for(Role.FIRMWARE)), resend_first_s=0.5)
    assert sink.wait_connected(10), "the firmware could not connect"
    sent: list[float] = []
    stop = threading.Event()

    def firmware() -> None:
        ts = 1.0
        while not stop.wait(1.0 / rate_hz):
            sent.append(ts)
            sink.pyramid_released(ts)
            ts += 1.0

    hub = _hub_process(broker, folder, table)
    time.sleep(1.0)  # its persistent session is at the broker from now on
    sender = threading.Thread(target=firmware, daemon=True)
    sender.start()
    try:
        for _ in range(kills):
            time.sleep(rng.uniform(0.3, 1.5))
            hub.send_signal(signal.SIGKILL)
            hub.wait(10)
            hub = _hub_process(broker, folder, table)
        time.sleep(1.0)
        stop.set()
        sender.join(5)
        answered = sink.wait_answered(60)
    finally:
        stop.set()
        sink.close()
        hub.send_signal(signal.SIGTERM)
        hub.wait(20)
    store = Store(folder / f"{table}.db")
    try:
        applied: dict[float, int] = {}
        for e in store.events(table):
            if e.type == "die_released":
                at = float(e.event["at"])
                applied[at] = applied.get(at, 0) + 1
    finally:
        store.close()
    waits = sorted(sink.latencies)
    return {
        "kills": kills,
        "readings": len(sent),
        "lost": sum(1 for ts in sent if ts not in applied),
        "applied_twice": sum(1 for c in applied.values() if c > 1),
        "all_answered": answered,
        "resends": sink.resends,
        "answered_as_already_applied": sink.replayed,
        "answer_s": {
            "p50": round(waits[len(waits) // 2], 3) if waits else None,
            "max": round(waits[-1], 3) if waits else None,
        },
    }


def send_twice(broker: Any, folder: Path, n: int = 50) -> dict[str, Any]:
    """Each reading published twice with the same request id."""
    from tests.hub._mqttkit import Collector

    rig = Rig(broker, folder, "dl2")
    me = "bench-twice"
    asker = Collector(broker, [f"camelup/dl2/reply/{me}/#"], client_id=me)
    try:
        topic = "camelup/dl2/request/observe_release"
        for i in range(n):
            ts = 10_000.0 + i
            rig.sent[ts] = time.monotonic()
            msg = {"ts": ts, "request_id": f"twice-{i}", "reply_to": me}
            asker.publish(topic, msg)
            asker.publish(topic, msg)
        asker.wait_for(lambda m: len(m) >= 2 * n, 30)
        out = rig.counts()
        answers = [json.loads(p) for _, p, _ in asker.messages]
        out["sent"] = 2 * n
        out["answers"] = len(answers)
        out["replayed_answers"] = sum(1 for a in answers if a.get("replayed"))
        return out
    finally:
        asker.close()
        rig.close()


def run() -> dict[str, Any]:
    from hub.mqtt.broker import EmbeddedBroker

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp, EmbeddedBroker(kind="mosquitto") as broker:
        folder = Path(tmp)
        out["broker_restarts"] = broker_restarts(broker, folder)
        out["hub_restarts"] = hub_restarts(broker, folder)
        out["send_twice"] = send_twice(broker, folder)
        out["hub_kills"] = hub_kills(broker, folder)
        out["broker_restarts_without_resend"] = broker_restarts(broker, folder, resend=False)
        out["broker_restarts_kept_without_resend"] = broker_restarts(
            broker, folder, resend=False, clean=False
        )
    return out


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
