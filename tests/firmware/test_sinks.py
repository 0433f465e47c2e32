"""Sinks: payloads the hub reads, the MQTT sink against a real mosquitto, the in-process sink."""

from __future__ import annotations

import base64
import json
import queue
import time

import paho.mqtt.client as mqtt
import pytest

from firmware.config import BrokerConfig
from firmware.sinks import InProcessSink, MqttSink, PrintSink, payload
from hub.mqtt.access import Role


def test_die_payload_is_flat_with_a_base64_crop() -> None:
    p = payload(
        "die",
        ts=12.5,
        reading={"colour": "blue", "face": 3, "confidence": 0.9},
        crop_jpeg=b"\xff\xd8abc",
    )
    assert p["colour"] == "blue" and p["face"] == 3 and p["ts"] == 12.5
    assert base64.b64decode(p["crop_jpeg"]) == b"\xff\xd8abc"
    json.dumps(p)  # JSON-ready
    with pytest.raises(ValueError, match="unknown observation kind"):
        payload("sneeze")


class FakeSession:
    def __init__(self, answer=None, error: Exception | None = None) -> None:
        self.calls: list[tuple[str, dict]] = []
        self.answer = answer if answer is not None else {"ok": True}
        self.error = error

    def observe(self, kind: str, data: dict) -> dict:
        self.calls.append((kind, data))
        if self.error:
            raise self.error
        return self.answer


def test_in_process_sink_calls_the_session_and_survives_its_errors() -> None:
    s = FakeSession()
    sink = InProcessSink(s)
    sink.pyramid_released(1.0)
    sink.die_read({"colour": "white", "face": 1, "confidence": 0.99}, None)
    sink.track_read({"track": {"2": ["white"]}})
    sink.status({"state": "ready"})
    assert [k for k, _ in s.calls] == ["release", "die", "track", "status"]
    assert s.calls[1][1]["colour"] == "white" and s.calls[1][1]["crop_jpeg"] is None
    refusing = InProcessSink(FakeSession(answer={"ok": False, "error": "no game"}))
    refusing.pyramid_released(1.0)
    broken = InProcessSink(FakeSession(error=RuntimeError("db locked")))
    broken.pyramid_released(1.0)  # must not raise
    assert refusing.failures == 1 and "no game" in refusing.last_error
    assert broken.failures == 1 and "db locked" in broken.last_error


def test_in_process_sink_with_the_real_hub_session(tmp_path) -> None:
    session_mod = pytest.importorskip("hub.session")
    store_mod = pytest.importorskip("hub.store")
    bus_mod = pytest.importorskip("hub.bus")
    bus = bus_mod.EventBus()
    try:
        session = session_mod.TableSession("t1", store_mod.Store(tmp_path / "hub.db"), bus)
        session.start_game(["Ann", "Bob"], seed=1)
        sink = InProcessSink(session)
        sink.pyramid_released(time.time())
        left = session.snapshot(log=False, derived=False)["game"]["dice_left"]
        sink.die_read(
            {
                "colour": left[0],
                "face": 2,
                "confidence": 0.99,
                "face_confidence": 0.99,
                "colour_confidence": 0.99,
            },
            b"\xff\xd8jpg",
        )
        assert sink.failures == 0, sink.last_error
        kinds = [e.event.get("type") or e.event.get("event_type") for e in session.events_since(0)]
        assert "die_released" in kinds and "die_read" in kinds
        # the colours still in the pyramid, for the die reader: the one just read is out
        assert sink.dice_left() == [c for c in left if c != left[0]]
    finally:
        bus.close()


def test_print_sink(capsys) -> None:
    PrintSink().die_read({"colour": "blue", "face": 1}, b"x" * 30)
    line = json.loads(capsys.readouterr().out)
    assert line["kind"] == "die" and line["crop_jpeg"].startswith("<")


class Listener:
    def __init__(self, url: str, topic: str) -> None:
        self.messages: queue.Queue[mqtt.MQTTMessage] = queue.Queue()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.client.on_message = lambda c, u, m: self.messages.put(m)
        self.client.on_connect = lambda c, u, f, r, p: c.subscribe(topic, qos=1)
        b = BrokerConfig(url=url)
        self.client.username_pw_set(b.username, b.secret)
        self.client.connect(b.host, b.port)
        self.client.loop_start()

    def get(self, timeout: float = 5.0) -> mqtt.MQTTMessage:
        return self.messages.get(timeout=timeout)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.mark.broker
def test_mqtt_sink_publishes_requests_and_a_retained_status(broker) -> None:
    table = f"fw{int(time.time() * 1000) % 100000}"
    listen = Listener(broker.url, f"camelup/{table}/#")
    sink = MqttSink(table, BrokerConfig(url=broker.url_for(Role.FIRMWARE)))
    try:
        assert sink.wait_connected(5.0)
        time.sleep(0.2)
        sink.pyramid_released(100.0)
        sink.die_read({"colour": "green", "face": 3, "confidence": 0.95}, b"\xff\xd8x")
        sink.track_read({"track": {"4": ["green"]}, "uncertain": []})
        sink.status({"table": table, "state": "ready", "fps": 30.0})
        got = {}
        for _ in range(4):
            m = listen.get()
            got[m.topic] = (json.loads(m.payload), m.retain)
        release = got[f"camelup/{table}/request/observe_release"][0]
        die = got[f"camelup/{table}/request/observe_die"][0]
        assert release["ts"] == 100.0 and release["transaction"].startswith("fw-")
        assert die["colour"] == "green" and base64.b64decode(die["crop_jpeg"]) == b"\xff\xd8x"
        assert die["transaction"] != release["transaction"]
        assert got[f"camelup/{table}/request/observe_track"][0]["track"] == {"4": ["green"]}
        assert got[f"camelup/{table}/firmware/status"][0]["state"] == "ready"
        late = Listener(broker.url, f"camelup/{table}/firmware/status")  # connects later
        m = late.get()
        assert m.retain and json.loads(m.payload)["fps"] == 30.0
        late.close()
    finally:
        sink.close()
        listen.close()
    late = Listener(broker.url, f"camelup/{table}/firmware/status")
    assert json.loads(late.get().payload)["state"] == "offline"  # a clean stop says so
    late.close()


@pytest.mark.broker
def test_mqtt_sink_knows_the_dice_left_from_a_state_newer_than_its_last_die(broker) -> None:
    table = f"fwleft{int(time.time() * 1000) % 100000}"
    hub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    b = BrokerConfig(url=broker.url)
    hub.username_pw_set(b.username, b.secret)
    hub.connect(b.host, b.port)
    hub.loop_start()
    topic = f"camelup/{table}/state"

    def state(left) -> None:
        hub.publish(
            topic, json.dumps({"seq": 1, "game": {"dice_left": left}}), qos=1, retain=True
        ).wait_for_publish(5.0)

    def wait_left(want, timeout: float = 5.0):
        deadline = time.monotonic() + timeout
        while sink.dice_left() != want and time.monotonic() < deadline:
            time.sleep(0.02)
        return sink.dice_left()

    state(["blue", "green", "white"])  # retained before the firmware connects
    sink = MqttSink(table, BrokerConfig(url=broker.url_for(Role.FIRMWARE)))
    try:
        assert sink.wait_connected(5.0)
        assert wait_left(["blue", "green", "white"]) == ["blue", "green", "white"]
        sink.die_read({"colour": "green", "face": 1, "confidence": 0.9}, None)
        assert sink.dice_left() is None  # that state does not know the die just sent
        state(["blue", "white"])
        assert wait_left(["blue", "white"]) == ["blue", "white"]
        hub.publish(
            topic, json.dumps({"seq": 2, "game": None}), qos=1, retain=True
        ).wait_for_publish(5.0)  # no game
        time.sleep(0.3)
        assert sink.dice_left() is None
    finally:
        sink.close()
        hub.publish(topic, b"", retain=True).wait_for_publish(5.0)
        hub.disconnect()
        hub.loop_stop()


@pytest.mark.broker
def test_mqtt_sink_reconnects_after_a_broker_restart(broker, mqtt_broker_restart) -> None:
    table = f"fr{int(time.time() * 1000) % 100000}"
    sink = MqttSink(table, BrokerConfig(url=broker.url_for(Role.FIRMWARE)))
    try:
        assert sink.wait_connected(5.0)
        sink.status({"table": table, "state": "ready"})
        time.sleep(0.2)
        mqtt_broker_restart()  # retained messages are gone with it
        deadline = time.monotonic() + 15
        while sink.connected.is_set() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert sink.wait_connected(15.0), "the sink did not reconnect by itself"
        listen = Listener(broker.url, f"camelup/{table}/#")
        try:
            m = listen.get(5.0)  # the retained status was published again on connect
            assert m.topic.endswith("firmware/status") and json.loads(m.payload)["state"] == "ready"
            sink.pyramid_released(5.0)
            m = listen.get(5.0)
            assert m.topic.endswith("request/observe_release")
        finally:
            listen.close()
    finally:
        sink.close()
