"""firmware.no_openssl: `pyramid watch` on a plain broker loads no OpenSSL, and still works.

Each case runs in its own Python process: what it checks is which modules and libraries a fresh
process loads, which the test process (that imported ssl long ago) cannot show.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hub.mqtt.access import Role
from hub.mqtt.broker import EmbeddedBroker

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/maps").exists(), reason="needs Linux's /proc/<pid>/maps"
)


def _run(code: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert out.returncode == 0, out.stderr
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


_OPENSSL_MAPPED = """
def openssl_mapped():
    with open("/proc/self/maps") as f:
        return sorted({l.split()[-1] for l in f if "libssl" in l or "libcrypto" in l})
"""


def test_a_plain_broker_watch_loads_no_openssl_and_talks_to_the_broker(
    broker: EmbeddedBroker,
) -> None:
    # the watch command's order: the module (numpy comes with firmware.config), then the
    # broker's config, then the sink (paho-mqtt); a real mosquitto answers
    url = broker.url_for(Role.FIRMWARE)
    got = _run(
        _OPENSSL_MAPPED
        + f"""
import json, sys
import firmware.cli.watch
from firmware.no_openssl import plain_mqtt_ssl
from hub.wire import BrokerConfig
cfg = BrokerConfig(url={url!r})
stand_in = plain_mqtt_ssl(cfg.use_tls)
import numpy.random  # numpy 1.x imports it with numpy (the Pi's); it imports secrets, hmac
from firmware.sinks import MqttSink
import hashlib, hmac
sink = MqttSink("nossl", cfg)
connected = sink.wait_connected(10.0)
sink.close()
print(json.dumps({{
    "stand_in": stand_in,
    "connected": connected,
    "hashlib_openssl": "_hashlib" in sys.modules and sys.modules["_hashlib"] is not None,
    "sha256": hashlib.sha256(b"abc").hexdigest(),
    "hmac": hmac.new(b"key", b"message", "sha256").hexdigest(),
    "mapped": openssl_mapped(),
}}))
"""
    )
    assert got["stand_in"] is True
    assert got["connected"] is True, "paho could not connect through the stand-in ssl"
    assert got["hashlib_openssl"] is False
    assert got["mapped"] == [], "OpenSSL is still loaded into a plain broker's watch"
    # CPython's own hashes give the same digests as OpenSSL's
    assert got["sha256"] == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert got["hmac"] == "6e9ef29b75fffc5b7abae527d58fdadb2fe42e7219011976917343065f58ed4a"


def test_the_stand_in_keeps_pahos_socket_errors_and_refuses_tls_clearly() -> None:
    got = _run(
        """
import json
from firmware.no_openssl import plain_mqtt_ssl
plain_mqtt_ssl(False)
import ssl
import paho.mqtt.client as mqtt

class WouldBlock:
    def recv(self, n):
        raise BlockingIOError()
    def send(self, buf):
        raise BlockingIOError()

c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
c._sock = WouldBlock()
raised = []
for call in (lambda: c._sock_recv(1), lambda: c._sock_send(b"x")):
    try:
        call()
    except Exception as exc:
        raised.append(type(exc).__name__)
try:
    ssl.create_default_context()
    refused = ""
except AttributeError as exc:
    refused = str(exc)
print(json.dumps({"raised": raised, "refused": refused, "has_context": hasattr(ssl, "SSLContext")}))
"""
    )
    # with ``ssl = None`` (what paho allows) both became AttributeError in paho's except clauses
    assert got["raised"] == ["BlockingIOError", "BlockingIOError"]
    assert "plain MQTT" in str(got["refused"]) and "mqtts://" in str(got["refused"])
    assert got["has_context"] is False


def test_a_tls_broker_keeps_the_real_ssl() -> None:
    got = _run(
        """
import json
from firmware.no_openssl import plain_mqtt_ssl
installed = plain_mqtt_ssl(True)
import ssl
print(json.dumps({"installed": installed, "context": type(ssl.create_default_context()).__name__}))
"""
    )
    assert got == {"installed": False, "context": "SSLContext"}


def test_nothing_changes_once_the_real_modules_are_loaded() -> None:
    got = _run(
        """
import hashlib, json, ssl, sys
from firmware.no_openssl import hashlib_without_openssl, plain_mqtt_ssl
print(json.dumps({
    "hashlib": hashlib_without_openssl(),
    "ssl": plain_mqtt_ssl(False),
    "real_ssl": sys.modules["ssl"] is ssl and hasattr(ssl, "SSLContext"),
}))
"""
    )
    assert got == {"hashlib": False, "ssl": False, "real_ssl": True}
