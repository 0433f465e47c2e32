"""A test MQTT subscriber that re-subscribes after a broker restart; asking the hub over MQTT;
every message checked against its schema and read back through its type in hub.wire."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "schemas"


class Collector:
    """Subscribes to ``topics`` and keeps every message (topic, payload bytes, retain flag).

    It connects to the test broker as ``role`` (hub.mqtt.access.Role): by default the trusted
    controller, which may send requests and read their answers and the public topics.
    """

    def __init__(
        self, broker: Any, topics: list[str], role: Any = None, client_id: str | None = None
    ) -> None:
        from hub.mqtt.access import Role
        from hub.mqtt.bridge import parse_broker_url

        cfg = parse_broker_url(broker.url_for(role or Role.CONTROL))
        self.messages: list[tuple[str, bytes, bool]] = []
        self._cond = threading.Condition()
        self.topics = topics
        self.subscribed = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id or "")
        self.client.username_pw_set(cfg.username, cfg.password)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_subscribe = lambda *a: self.subscribed.set()
        self.client.reconnect_delay_set(1, 2)
        self.client.connect_async(cfg.host, cfg.port, 30)
        self.client.loop_start()
        assert self.subscribed.wait(10), "the test subscriber could not subscribe"

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        client.subscribe([(t, 1) for t in self.topics])

    def _on_message(self, client: Any, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        with self._cond:
            self.messages.append((msg.topic, bytes(msg.payload), bool(msg.retain)))
            self._cond.notify_all()

    def wait_for(
        self, pred: Callable[[list[tuple[str, bytes, bool]]], bool], timeout: float = 10.0
    ) -> bool:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not pred(self.messages):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def on(self, topic: str) -> list[bytes]:
        with self._cond:
            return [p for t, p, _ in self.messages if t == topic]

    def events(self, base: str) -> list[dict[str, Any]]:
        return [json.loads(p) for p in self.on(f"{base}/event")]

    def publish(self, topic: str, payload: Any) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.client.publish(topic, data, qos=1).wait_for_publish(5)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def validator(name: str) -> Any:
    import jsonschema

    schema = json.loads((SCHEMAS / f"{name}.json").read_text())
    return jsonschema.Draft202012Validator(schema)


def schema_for(topic: str) -> str | None:
    parts = topic.split("/")
    if parts[0] == "homeassistant":
        return "ha-discovery" if parts[-1] == "config" else None
    tail = parts[2:]
    if tail == ["event"]:
        return "event"
    if tail == ["state"]:
        return "state"
    if tail[:1] == ["leg"] and tail[-1:] == ["tally"]:
        return "leg-tally"
    if tail[:1] == ["response"]:
        return "response"
    if tail[:1] == ["request"]:
        return "request"
    return None


def ask(sub: Collector, base: str, cmd: str, payload: dict[str, Any], transaction: str) -> Any:
    """Send ``request/<cmd>`` with ``transaction`` and wait for its answer on
    ``response/<cmd>``: the answer's payload (a dict), which must read as a hub.wire.Answer."""
    from hub.wire import Answer

    sub.publish(f"{base}/request/{cmd}", {"transaction": transaction, **payload})
    assert sub.wait_for(
        lambda m: any(
            t == f"{base}/response/{cmd}" and json.loads(p).get("transaction") == transaction
            for t, p, _ in m
        )
    ), f"no answer to {cmd} {transaction}"
    (answer,) = [
        a
        for a in (json.loads(p) for p in sub.on(f"{base}/response/{cmd}"))
        if a.get("transaction") == transaction
    ]
    typed = Answer.from_payload(answer)
    assert typed.cmd == cmd and typed.to_mqtt(transaction) == answer
    return answer


def check_all(sub: Collector, session: Any, base: str) -> set[str]:
    """Every message received against its schema; every event and answer read back through
    its type (hub.wire.EventMessage, Answer) is the same payload; the events, in order and
    deduplicated, are the log's public envelopes. The names of the schemas used."""
    from hub.wire import Answer, EventMessage

    checked = set()
    for topic, payload, _ in list(sub.messages):
        name = schema_for(topic)
        if name is None or not payload:
            continue
        data = json.loads(payload)
        errors = list(validator(name).iter_errors(data))
        assert not errors, (topic, errors[0].message, payload[:300])
        if name == "event":
            assert EventMessage.from_payload(data).to_payload() == data
        elif name == "response":
            answer = Answer.from_payload(data)
            assert answer.to_mqtt(data["transaction"]) == data
        checked.add(name)
    got = dedupe(sub.events(base))
    assert got == [e.to_dict() for e in session.events_since(0)]
    return checked


def wait_for_the_end(sub: Collector, session: Any, bridge: Any, base: str) -> dict[str, Any]:
    """After a game played to its end: the retained state says finished and every player's
    result is on ``score/<player>``. The engine's game_over event."""
    assert bridge.flush(10)
    assert sub.wait_for(
        lambda m: any(
            t == f"{base}/state" and json.loads(p)["status"] == "finished" for t, p, _ in m
        )
    )
    over: dict[str, Any] = [e for e in session.engine_log() if e["type"] == "game_over"][0]
    for name, points in over["money"].items():
        assert sub.wait_for(
            lambda m, name=name, points=points: any(
                t == f"{base}/score/{name}" and p == str(points).encode() for t, p, _ in m
            )
        ), f"no score/{name} of {points}"
    return over


def dedupe(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a receiver keeps: the first copy of each seq."""
    seen: set[int] = set()
    out = []
    for e in events:
        if e["seq"] not in seen:
            seen.add(e["seq"])
            out.append(e)
    return out


def bridged(
    tables: Any, broker: Any, request: Any, prefix: str, **session_kw: Any
) -> Iterator[tuple[Any, Any]]:
    """A session named after the test (retained topics do not mix), bridged to the broker;
    yields (session, bridge) and stops the bridge after the test. For a ``hub`` fixture."""
    from hub.mqtt.bridge import MqttBridge

    table = prefix + str(abs(hash(request.node.name)) % 10**8)
    session = tables.session(table=table, **session_kw)
    bridge = MqttBridge(session, broker.url).start()
    assert bridge.wait_connected(10)
    yield session, bridge
    bridge.stop()
