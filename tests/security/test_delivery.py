"""Nothing lost: QoS 1 requests sent while the hub is away wait for it at the broker (the hub's
fixed client id and persistent MQTT 5 session), across several hub restarts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hub.mqtt.access import Role
from hub.mqtt.bridge import MqttBridge
from tests.hub._hubkit import open_tables, start
from tests.hub._mqttkit import Collector

pytestmark = [pytest.mark.security, pytest.mark.broker]

RESTARTS = 10


def test_readings_sent_while_the_hub_restarts_are_not_lost(tmp_path: Path, broker, request) -> None:
    tables = next(open_tables(tmp_path))
    table = "dl" + str(abs(hash(request.node.name)) % 10**6)
    session = tables.session(table=table)
    start(session)
    firmware = Collector(broker, [f"camelup/{table}/response/#"], role=Role.FIRMWARE)
    sent = 0
    try:
        for _ in range(RESTARTS):
            bridge = MqttBridge(session, broker.url, trusted_requests=True).start()
            assert bridge.wait_connected(10)
            bridge.stop()  # the hub is away...
            for _ in range(2):  # ...while the firmware sends readings (QoS 1)
                firmware.publish(
                    f"camelup/{table}/request/observe_release",
                    {"transaction": f"r{sent}", "ts": float(sent)},
                )
                sent += 1
        bridge = MqttBridge(session, broker.url, trusted_requests=True).start()
        assert bridge.wait_connected(10)
        firmware.wait_for(lambda m: len(m) >= sent, 15)
        bridge.stop()
        answered = {json.loads(p)["transaction"] for _, p, _ in firmware.messages}
        assert len(answered) == sent, f"{sent - len(answered)} of {sent} readings lost"
    finally:
        firmware.close()
        tables.close()
