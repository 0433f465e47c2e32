"""An embedded MQTT broker for a table without one: mosquitto with a temporary config, bound to
127.0.0.1, or amqtt when mosquitto is not installed, or a clear error.

Why a subprocess and not an in-process broker: mosquitto is what runs on the Pi and in a café, is
fast, and a separate process survives (and can be restarted without) the hub. The temp config
binds loopback only, allows anonymous clients (nothing leaves the machine) and keeps no
persistence, so a restart is a clean broker: the hub republishes its retained topics on connect.
The same class serves the tests' broker fixture.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["EmbeddedBroker", "BrokerUnavailable", "find_mosquitto", "free_port"]


class BrokerUnavailable(RuntimeError):
    """No broker can be started here (neither mosquitto nor amqtt is installed), or it died."""


def _die_with_parent() -> None:
    """In the broker child, before exec: ask Linux to SIGTERM it when the hub dies.

    The broker runs in its own session so that Ctrl-C in a terminal reaches the hub first and the
    hub can publish `offline` before the broker goes; but then a hub killed with SIGKILL (or by the
    OOM killer) would leave an orphaned broker holding the port. PR_SET_PDEATHSIG closes that gap.
    Elsewhere than Linux it does nothing.
    """
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _user() -> str:
    import getpass

    return getpass.getuser()


def find_mosquitto() -> str | None:
    """The mosquitto binary: on PATH, or Debian's /usr/sbin (often not on a user's PATH)."""
    found = shutil.which("mosquitto")
    if found:
        return found
    for candidate in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def find_amqtt() -> list[str] | None:
    try:
        import amqtt  # noqa: F401
    except ImportError:
        return None
    script = shutil.which("amqtt")
    if script:
        return [script]
    return [sys.executable, "-m", "amqtt.scripts.broker_script"]


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


MOSQUITTO_CONF = """\
# written by camel-pyramid for an embedded broker; deleted when it stops
listener {port} {host}
allow_anonymous true
persistence false
set_tcp_nodelay true
# one league-view subscriber may receive hundreds of tables' events at QoS 1: do not drop them
max_queued_messages 1000000
max_inflight_messages 100
log_dest file {log}
# run as whoever runs the hub: mosquitto started as root would otherwise switch to its own user,
# and that credential change would clear the "die with the hub" signal set before exec
user {user}
log_type error
log_type warning
"""

# "plugins" is how amqtt 0.12 configures anonymous access; "auth" is 0.11's (ignored by 0.12)
AMQTT_CONF = """\
listeners:
  default:
    type: tcp
    bind: {host}:{port}
plugins:
  amqtt.plugins.authentication.AnonymousAuthPlugin:
    allow_anonymous: true
auth:
  allow-anonymous: true
topic-check:
  enabled: false
"""


class EmbeddedBroker:
    """Start, stop and restart a local broker on one fixed port.

    >>> with EmbeddedBroker() as broker:            # doctest: +SKIP
    ...     print(broker.url)                       # mqtt://127.0.0.1:PORT
    """

    def __init__(
        self, port: int | None = None, host: str = "127.0.0.1", kind: str = "auto"
    ) -> None:
        self.host = host
        self.port = port or free_port(host)
        self._dir = Path(tempfile.mkdtemp(prefix="camel-broker-"))
        self._proc: subprocess.Popen[bytes] | None = None
        self.kind = self._choose(kind)

    @staticmethod
    def _choose(kind: str) -> str:
        if kind in ("auto", "mosquitto") and find_mosquitto():
            return "mosquitto"
        if kind in ("auto", "amqtt") and find_amqtt():
            return "amqtt"
        raise BrokerUnavailable(
            "no MQTT broker to start: install mosquitto (`sudo apt-get install mosquitto`) or "
            "amqtt (`pip install 'camel-pyramid[broker]'`), or give --broker mqtt://host:port")

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def log_path(self) -> Path:
        return self._dir / "broker.log"

    def start(self, timeout: float = 10.0) -> EmbeddedBroker:
        if self.running:
            return self
        if self.kind == "mosquitto":
            conf = self._dir / "mosquitto.conf"
            conf.write_text(MOSQUITTO_CONF.format(port=self.port, host=self.host,
                                                  log=self.log_path, user=_user()))
            cmd = [find_mosquitto() or "mosquitto", "-c", str(conf)]
        else:
            conf = self._dir / "amqtt.yaml"
            conf.write_text(AMQTT_CONF.format(port=self.port, host=self.host))
            cmd = [*(find_amqtt() or []), "-c", str(conf)]
        with open(self._dir / "stdout.log", "ab") as out:
            self._proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                          stdin=subprocess.DEVNULL, start_new_session=True,
                                          preexec_fn=_die_with_parent)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise BrokerUnavailable(f"the {self.kind} broker exited at start: "
                                        f"{self._tail()}")
            try:
                with socket.create_connection((self.host, self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.02)
        self.stop()
        raise BrokerUnavailable(f"the {self.kind} broker did not listen on port {self.port} "
                                f"within {timeout:.0f} s: {self._tail()}")

    def stop(self, timeout: float = 5.0) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)

    def kill(self) -> None:
        """Die like a crashed broker (SIGKILL): no goodbye to clients."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(5)

    def restart(self) -> EmbeddedBroker:
        """Stop and start again on the same port: retained messages are gone (no persistence)."""
        self.stop()
        return self.start()

    def _tail(self) -> str:
        texts = []
        for name in ("stdout.log", "broker.log"):
            p = self._dir / name
            if p.exists():
                texts.append(p.read_text(errors="replace")[-500:])
        return " | ".join(t.strip() for t in texts if t.strip()) or "(no output)"

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> EmbeddedBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
