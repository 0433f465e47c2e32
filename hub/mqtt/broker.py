"""An embedded MQTT broker for a table without one: mosquitto with a temporary config, bound to
127.0.0.1, with the same users and ACL as the Pi's broker (:mod:`hub.mqtt.access`), or a clear
error.

Why a subprocess and not an in-process broker: mosquitto is what runs on the Pi and in a café, is
fast, and a separate process survives (and can be restarted without) the hub. The temp config
binds loopback only, refuses anonymous clients, and lets each party do only what the ACL grants it.
``supervise=True`` restarts a broker that died on its own (the hub's ``pyramid hub`` and
``pyramid demo`` use it). The same class serves the tests' broker fixture.

Persistence: the hub keeps a persistent session (fixed client id, clean start off, a session
expiry) so that QoS 1 requests sent while it is away wait for it; those queued messages, the
sessions and the retained topics live in the broker's memory, and a broker without persistence
lost them on every restart. So mosquitto keeps them in its own data directory (``data/`` in the
broker's private folder, or ``data_dir``): it writes them on a clean stop (SIGTERM) and every
:data:`AUTOSAVE_S` seconds, so a restart by :meth:`EmbeddedBroker.restart` loses nothing and a
crash (SIGKILL, then the supervisor's restart) at most the last second. ``restart(clean=True)``
is a brand-new broker (the tests' worst case).

amqtt (``kind="amqtt"``) is only started when asked for by name: it has no ACL here, so it is an
open broker and says so in the log.
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from hub.mqtt.access import (
    BrokerCredentials,
    Role,
    acl_text,
    password_file_text,
    security_conf,
    write_private,
)

log = logging.getLogger(__name__)

__all__ = ["EmbeddedBroker", "BrokerUnavailable", "die_with_parent", "find_mosquitto", "free_port"]


class BrokerUnavailable(RuntimeError):
    """No broker can be started here (neither mosquitto nor amqtt is installed), or it died."""


def die_with_parent(parent: int | None = None) -> None:
    """In a child of the hub (the broker before exec, the odds worker at its start): ask Linux to
    SIGTERM it when the hub dies.

    The broker runs in its own session so that Ctrl-C in a terminal reaches the hub first and the
    hub can publish `offline` before the broker goes; but then a hub killed with SIGKILL (or by the
    OOM killer) would leave an orphaned broker holding the port. PR_SET_PDEATHSIG closes that gap.
    ``parent`` (the hub's pid) closes the last one: a hub killed before the child got here has
    already gone, so the signal would never come; the child then exits at once. The signal is sent
    when the *thread* that started the child ends, so children are started from long-lived
    threads (the main thread, the broker's supervisor). Elsewhere than Linux it does nothing.
    """
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if parent is not None and os.getppid() != parent:
        os._exit(1)


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
{security}{persistence}
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

#: Seconds between mosquitto's saves of its in-memory state (sessions, queued QoS 1 messages,
#: retained topics) to the data directory; it also saves on a clean stop. A crash loses at most
#: this much. The state of one table is small (kilobytes), so saving it this often is cheap.
AUTOSAVE_S = 1

PERSISTENCE_CONF = """\
persistence true
persistence_location {data}/
autosave_interval {autosave}
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
    ...     print(broker.url)                       # mqtt://hub:PASSWORD@127.0.0.1:PORT
    ...     print(broker.url_for(Role.READER))      # the read-only user's

    ``credentials`` are the table's users (:meth:`BrokerCredentials.load_or_create` keeps them
    beside the event log); without them, fresh random ones are made for this broker only.
    """

    def __init__(
        self,
        port: int | None = None,
        host: str = "127.0.0.1",
        kind: str = "auto",
        *,
        credentials: BrokerCredentials | None = None,
        supervise: bool = False,
        prefix: str = "camelup",
        persistence: bool = True,
        data_dir: Path | None = None,
    ) -> None:
        self.host = host
        self.port = port or free_port(host)
        self._dir = Path(tempfile.mkdtemp(prefix="camel-broker-"))
        os.chmod(self._dir, 0o700)
        self.persistence = persistence
        self.data_dir = Path(data_dir) if data_dir is not None else self._dir / "data"
        self._proc: subprocess.Popen[bytes] | None = None
        self.kind = self._choose(kind)
        self.credentials = credentials or BrokerCredentials.generate()
        self.prefix = prefix
        self.supervise = supervise
        self.restarts = 0  # times the supervisor brought a dead broker back
        self._wanted = False  # start() called and no stop()/kill() since: keep it running
        self._guard = threading.Lock()
        self._watch: threading.Thread | None = None
        self._watch_stop = threading.Event()

    @staticmethod
    def _choose(kind: str) -> str:
        if kind in ("auto", "mosquitto") and find_mosquitto():
            return "mosquitto"
        if kind == "amqtt" and find_amqtt():
            return "amqtt"
        raise BrokerUnavailable(
            "no MQTT broker to start: install mosquitto (`sudo apt-get install mosquitto`), "
            "or give --broker mqtt://user:password@host:port"
        )

    @property
    def url(self) -> str:
        """The hub's URL, with the hub user's credentials."""
        return self.url_for(Role.HUB)

    def url_for(self, role: Role) -> str:
        """The URL a client of ``role`` connects with (its username and password in it)."""
        if self.kind == "amqtt":
            return f"mqtt://{self.host}:{self.port}"
        return self.credentials.url(role, self.host, self.port)

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def log_path(self) -> Path:
        return self._dir / "broker.log"

    def start(self, timeout: float = 10.0) -> EmbeddedBroker:
        with self._guard:
            self._start(timeout)
            self._wanted = True
        if self.supervise and self._watch is None:
            self._watch_stop.clear()
            self._watch = threading.Thread(
                target=self._supervise, name="broker-supervisor", daemon=True
            )
            self._watch.start()
        return self

    def _supervise(self) -> None:
        """Bring the broker back when it dies on its own (not after stop() or kill())."""
        delay = 0.2
        while not self._watch_stop.wait(0.2):
            with self._guard:
                proc, wanted = self._proc, self._wanted
                if not wanted or proc is None or proc.poll() is None:
                    delay = 0.2
                    continue
                log.warning(
                    "the embedded broker exited (code %s): starting it again", proc.returncode
                )
                try:
                    self._proc = None
                    self._start(10.0)
                    self.restarts += 1
                    delay = 0.2
                except BrokerUnavailable as exc:
                    log.error("cannot restart the embedded broker: %s", exc)
                    delay = min(delay * 2, 10.0)
            self._watch_stop.wait(delay)

    def _start(self, timeout: float) -> None:
        if self.running:
            return
        if self.kind == "mosquitto":
            passwd = self._dir / "passwd"
            acl = self._dir / "acl"
            write_private(passwd, password_file_text(self.credentials))
            write_private(acl, acl_text(self.credentials, self.prefix))
            conf = self._dir / "mosquitto.conf"
            write_private(
                conf,
                MOSQUITTO_CONF.format(
                    port=self.port,
                    host=self.host,
                    log=self.log_path,
                    user=_user(),
                    security=security_conf(passwd, acl),
                    persistence=self._persistence_conf(),
                ),
            )
            cmd = [find_mosquitto() or "mosquitto", "-c", str(conf)]
        else:
            log.warning(
                "amqtt is an open broker here (no users, no ACL): use mosquitto for a "
                "table others can reach"
            )
            conf = self._dir / "amqtt.yaml"
            conf.write_text(AMQTT_CONF.format(port=self.port, host=self.host))
            cmd = [*(find_amqtt() or []), "-c", str(conf)]
        die = functools.partial(die_with_parent, os.getpid())
        with open(self._dir / "stdout.log", "ab") as out:
            self._proc = subprocess.Popen(
                cmd,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                preexec_fn=die,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise BrokerUnavailable(f"the {self.kind} broker exited at start: {self._tail()}")
            try:
                with socket.create_connection((self.host, self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.02)
        self._terminate()
        raise BrokerUnavailable(
            f"the {self.kind} broker did not listen on port {self.port} "
            f"within {timeout:.0f} s: {self._tail()}"
        )

    def _persistence_conf(self) -> str:
        if not self.persistence:
            return "persistence false\n"
        self.data_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.data_dir, 0o700)  # it holds every queued request
        return PERSISTENCE_CONF.format(data=self.data_dir, autosave=AUTOSAVE_S)

    def stop(self, timeout: float = 5.0) -> None:
        with self._guard:
            self._wanted = False
            self._terminate(timeout)

    def _terminate(self, timeout: float = 5.0) -> None:
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
        """Die like a crashed broker (SIGKILL): no goodbye to clients. A supervised broker is
        started again by its supervisor; ``stop()`` is how to keep it down."""
        with self._guard:
            proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(5)
        if not self.supervise:
            with self._guard:
                self._wanted = False
                self._proc = None

    def restart(self, *, clean: bool = False) -> EmbeddedBroker:
        """Stop (mosquitto saves its state) and start again on the same port: sessions, queued
        QoS 1 messages and retained topics are back. ``clean=True`` forgets them all first, as
        a brand-new broker would."""
        self.stop()
        if clean and self.data_dir.exists():
            shutil.rmtree(self.data_dir, ignore_errors=True)
        return self.start()

    def _tail(self) -> str:
        texts = []
        for name in ("stdout.log", "broker.log"):
            p = self._dir / name
            if p.exists():
                texts.append(p.read_text(errors="replace")[-500:])
        return " | ".join(t.strip() for t in texts if t.strip()) or "(no output)"

    def close(self) -> None:
        self._watch_stop.set()
        self.stop()
        if self._watch is not None:
            self._watch.join(5)
            self._watch = None
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> EmbeddedBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
