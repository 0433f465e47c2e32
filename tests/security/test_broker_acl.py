"""Red team, the broker: a real mosquitto with the shipped users and ACL (hub.mqtt.access).

Each attack of issue 12 on the broker is tried and must be refused: anonymous clients, a
read-only user or the firmware writing the hub's topics, a reader sending requests or reading
answers, a client reading another client's replies, an oversized message. The hub's retained
state must be unchanged afterwards.
"""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from hub.mqtt.access import MAX_PACKET_SIZE, BrokerCredentials, Role, mosquitto_hash
from hub.mqtt.bridge import parse_broker_url

pytestmark = [pytest.mark.security, pytest.mark.broker]


class Client:
    """A test MQTT client logged in as ``role`` (or anonymous, or with a wrong password)."""

    def __init__(
        self,
        broker: Any,
        role: Role | None,
        *,
        client_id: str = "",
        password: str | None = None,
        v5: bool = False,
    ) -> None:
        self.messages: list[tuple[str, bytes]] = []
        self.refused: int | None = None
        self.connected = threading.Event()
        self.done = threading.Event()
        self._cond = threading.Condition()
        proto = mqtt.MQTTv5 if v5 else mqtt.MQTTv311
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=proto)
        if role is not None:
            cfg = parse_broker_url(broker.url_for(role))
            self.client.username_pw_set(cfg.username, password or cfg.password)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.connect_async("127.0.0.1", broker.port, 30)
        self.client.loop_start()

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            self.refused = int(reason.value)
        else:
            self.connected.set()
        self.done.set()

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        with self._cond:
            self.messages.append((msg.topic, bytes(msg.payload)))
            self._cond.notify_all()

    def subscribe(self, topic: str) -> None:
        got = threading.Event()
        self.client.on_subscribe = lambda *a: got.set()
        self.client.subscribe(topic, qos=1)
        assert got.wait(5)

    def publish(self, topic: str, payload: Any, retain: bool = False) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.client.publish(topic, data, qos=1, retain=retain).wait_for_publish(5)

    def on(self, topic: str) -> list[bytes]:
        with self._cond:
            return [p for t, p in self.messages if t == topic]

    def wait_for(self, topic: str, timeout: float = 5.0) -> list[bytes]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not any(t == topic for t, _ in self.messages):
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
        return self.on(topic)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def table(request: Any) -> str:
    return "rt" + str(abs(hash(request.node.name)) % 10**8)


def test_the_password_hash_is_mosquittos_pbkdf2_format() -> None:
    # the same salt and password give the same hash; the format is $7$iterations$salt$hash
    h = mosquitto_hash("s3cret", salt=b"0123456789ab")
    assert h == mosquitto_hash("s3cret", salt=b"0123456789ab")
    kind, iterations, salt, digest = h.split("$")[1:]
    assert (kind, iterations, salt) == ("7", "101", "MDEyMzQ1Njc4OWFi")
    assert len(digest) == 88  # 64 bytes of SHA-512, base64


def test_credentials_are_kept_owner_only_and_reused(tmp_path) -> None:
    path = tmp_path / "var" / "broker-users.json"
    first = BrokerCredentials.load_or_create(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert BrokerCredentials.load_or_create(path) == first  # the next start keeps them
    assert len({first.password(r) for r in Role}) == len(Role)  # one password per user
    os.chmod(path, 0o644)
    BrokerCredentials.load_or_create(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600  # a loosened file is tightened


def test_anonymous_and_wrong_passwords_are_refused(broker) -> None:
    anon = Client(broker, None)
    wrong = Client(broker, Role.HUB, password="guess")
    try:
        assert anon.done.wait(5) and wrong.done.wait(5)
        assert not anon.connected.is_set() and anon.refused is not None
        assert not wrong.connected.is_set() and wrong.refused is not None
    finally:
        anon.close()
        wrong.close()


def test_only_the_hub_writes_the_hubs_topics(hub_on_broker, broker) -> None:
    session, bridge, base = hub_on_broker
    watcher = Client(broker, Role.READER)
    assert watcher.connected.wait(5)
    watcher.subscribe(f"{base}/#")
    watcher.subscribe("homeassistant/#")
    state = json.loads(watcher.wait_for(f"{base}/state")[-1])
    assert watcher.wait_for(f"{base}/available")[-1] == b"online"
    attackers = [Client(broker, role) for role in (Role.READER, Role.FIRMWARE, Role.CONTROL)]
    try:
        for a in attackers:
            assert a.connected.wait(5)
            for name, payload in (
                ("state", {"seq": 999, "game": None}),
                ("available", b"offline"),
                ("event", {"event_type": "game_over", "seq": 999}),
                ("score/Ann", b"1000"),
                ("leg/1/tally", {"leg": 1}),
            ):
                a.publish(f"{base}/{name}", payload, retain=name != "event")
            a.publish(
                f"homeassistant/device/camel_pyramid_{session.table_id}/config",
                {"x": 1},
                retain=True,
            )
        time.sleep(0.5)
        assert json.loads(watcher.on(f"{base}/state")[-1])["seq"] == state["seq"]
        assert watcher.on(f"{base}/available")[-1] == b"online"
        assert not watcher.on(f"{base}/event") or all(
            json.loads(p)["seq"] != 999 for p in watcher.on(f"{base}/event")
        )
        assert b"1000" not in watcher.on(f"{base}/score/Ann")
        assert not watcher.on(f"{base}/leg/1/tally")
        assert all(
            json.loads(p).get("x") != 1
            for t, p in watcher.messages
            if t.startswith("homeassistant/")
        )
        # and nothing of theirs stayed retained for the next subscriber
        late = Client(broker, Role.READER)
        assert late.connected.wait(5)
        late.subscribe(f"{base}/#")
        assert json.loads(late.wait_for(f"{base}/state")[-1])["seq"] == state["seq"]
        time.sleep(0.3)
        assert late.on(f"{base}/available") == [b"online"]
        assert not late.on(f"{base}/leg/1/tally")
        late.close()
    finally:
        for a in attackers:
            a.close()
        watcher.close()


def test_a_reader_can_neither_send_requests_nor_read_answers(hub_on_broker, broker) -> None:
    session, bridge, base = hub_on_broker
    seq = session.seq
    reader = Client(broker, Role.READER)
    control = Client(broker, Role.CONTROL)
    try:
        assert reader.connected.wait(5) and control.connected.wait(5)
        reader.subscribe(f"{base}/#")
        control.subscribe(f"{base}/response/#")
        reader.publish(f"{base}/request/undo", {"transaction": "r1"})
        reader.publish(
            f"{base}/request/observe_die", {"colour": "blue", "face": 3, "confidence": 0.99}
        )
        control.publish(f"{base}/request/games", {"transaction": "c1"})
        assert control.wait_for(f"{base}/response/games")
        time.sleep(0.3)
        assert bridge.requests_handled == 1  # only the controller's request reached the hub
        assert session.seq == seq
        assert not [t for t, _ in reader.messages if "/request/" in t or "/response/" in t]
    finally:
        reader.close()
        control.close()


def test_the_firmware_sends_only_observations(hub_on_broker, broker) -> None:
    session, bridge, base = hub_on_broker
    seq = session.seq
    fw = Client(broker, Role.FIRMWARE)
    try:
        assert fw.connected.wait(5)
        fw.subscribe(f"{base}/response/#")
        for cmd in ("undo", "start_game", "action", "tokens", "confirm"):
            fw.publish(f"{base}/request/{cmd}", {"transaction": cmd})
        fw.publish(f"{base}/request/observe_release", {"transaction": "ok", "ts": 1.0})
        assert fw.wait_for(f"{base}/response/observe_release")
        time.sleep(0.3)
        assert bridge.requests_handled == 1
        assert [t for t, _ in fw.messages] == [f"{base}/response/observe_release"]
        assert session.seq >= seq  # a release is logged; nothing else was applied
        assert [e.type for e in session.events_since(seq)] == ["die_released"]
    finally:
        fw.close()


def test_replies_reach_only_the_client_they_are_addressed_to(broker, table) -> None:
    hub = Client(broker, Role.HUB)
    asker = Client(broker, Role.CONTROL, client_id="asker1")
    other = Client(broker, Role.CONTROL, client_id="other1")
    reader = Client(broker, Role.READER, client_id="reader1")
    try:
        for c in (hub, asker, other, reader):
            assert c.connected.wait(5)
        for c in (asker, other, reader):
            c.subscribe(f"camelup/{table}/reply/#")
        hub.publish(f"camelup/{table}/reply/asker1/start_game", {"tokens": {"Ann": "x"}})
        assert asker.wait_for(f"camelup/{table}/reply/asker1/start_game")
        time.sleep(0.3)
        assert not other.messages and not reader.messages
    finally:
        for c in (hub, asker, other, reader):
            c.close()


def test_an_oversized_message_never_reaches_the_hub(hub_on_broker, broker) -> None:
    session, bridge, base = hub_on_broker
    seq = session.seq
    fw = Client(broker, Role.FIRMWARE)
    try:
        assert fw.connected.wait(5)
        crop = "A" * (MAX_PACKET_SIZE + 10)
        fw.client.publish(
            f"{base}/request/observe_die",
            json.dumps({"colour": "blue", "face": 2, "crop_b64": crop}),
            qos=1,
        )
        time.sleep(1.0)
        assert bridge.requests_handled == 0 and session.seq == seq
    finally:
        fw.close()
