"""`pyramid hub`: run one table's hub — the event log, the MQTT bridge and the dashboard.

Without ``--broker`` an embedded broker is started on 127.0.0.1 (mosquitto when installed, else
amqtt), so a table works out of the box; with ``--broker mqtt://user:pass@host:1883`` (or
``mqtts://`` for TLS) the hub joins the café's shared broker. The dashboard is served when
``hub.dashboard.create_app`` is available. SIGTERM and Ctrl-C stop cleanly (``available`` goes
``offline``); a kill -9 or a power cut loses nothing: the log is replayed at the next start.
"""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hub.observations import DIE_CONFIDENCE_THRESHOLD

if TYPE_CHECKING:  # imported where used: `pyramid --help` loads none of them
    from hub.dashboard.server import ServerThread
    from hub.mqtt.bridge import MqttBridge
    from hub.mqtt.broker import EmbeddedBroker
    from hub.session import TableSession
    from hub.store import Store

log = logging.getLogger("pyramid.hub")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--table", default="t1", help="table id, used in topics (default t1)")
    parser.add_argument("--db", default="var/hub.db", help="SQLite event log (default var/hub.db)")
    parser.add_argument(
        "--broker",
        default=None,
        help="mqtt://[user:pass@]host[:port] or mqtts://...; default: start an "
        "embedded broker on 127.0.0.1",
    )
    parser.add_argument(
        "--broker-port",
        type=int,
        default=1883,
        help="port of the embedded broker (default 1883; 0 = any free port)",
    )
    parser.add_argument(
        "--broker-users",
        default=None,
        help="the table's broker users and passwords (JSON, 0600; default "
        "broker-users.json beside --db): the embedded broker's, made at the "
        "first start; with --broker and no user in its URL, the hub's user "
        "is taken from it (the Pi's install writes it)",
    )
    parser.add_argument("--no-mqtt", action="store_true", help="run without any MQTT")
    parser.add_argument(
        "--pin",
        default=None,
        help="table PIN needed to change the game "
        "(default: a 6-digit PIN made at the first start, kept in the event "
        "log's database and printed with the dashboard's address)",
    )
    parser.add_argument(
        "--open",
        action="store_true",
        help="a deliberately open table: no PIN, anyone who can reach the "
        "dashboard may play (warned about at start)",
    )
    parser.add_argument(
        "--http-host",
        default="127.0.0.1",
        help="dashboard address (default 127.0.0.1: this machine only; "
        "0.0.0.0 for phones on the Wi-Fi, as the Pi's install sets)",
    )
    parser.add_argument(
        "--public-url",
        default=None,
        help="the address players open (http://192.168.1.20:8080): the players' "
        "links and QR codes use it; default: this machine's LAN address "
        "when --http-host is 0.0.0.0",
    )
    parser.add_argument("--http-port", type=int, default=8080, help="dashboard port (0 = none)")
    parser.add_argument(
        "--threshold",
        type=float,
        default=DIE_CONFIDENCE_THRESHOLD,
        help="die readings below this confidence are asked about "
        f"(default {DIE_CONFIDENCE_THRESHOLD})",
    )
    parser.add_argument("--no-odds", action="store_true", help="skip odds and advice")
    parser.add_argument("-v", "--verbose", action="store_true")


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    from hub.bus import EventBus
    from hub.session import TableSession
    from hub.store import Store, StoreError

    if not 0.0 <= args.threshold <= 1.0:
        log.error("--threshold must be between 0 and 1")
        return 2
    worker = None
    if not args.no_odds:
        from hub.derived import DerivedWorker

        worker = DerivedWorker().start()  # odds in a second process: the event path never waits
    try:
        store = Store(Path(args.db))
        pin = table_pin(store, args.table, args.pin, open_table=args.open)
        session = TableSession(
            args.table,
            store,
            EventBus(args.table),
            pin=pin,
            threshold=args.threshold,
            odds=not args.no_odds,
            advice=not args.no_odds,
            derived=worker,
        )
    except (StoreError, ValueError) as exc:
        log.error("%s", exc)
        if worker is not None:
            worker.close()
        return 2
    except Exception as exc:  # the log's events do not fold into a game: say where, no traceback
        games = store.games(args.table)
        where = (
            f"game {games[-1].game_id} (up to seq {store.last_seq(args.table)})"
            if games
            else "no game"
        )
        log.error(
            "the event log %s cannot be replayed: table %s, %s: %s: %s",
            args.db,
            args.table,
            where,
            type(exc).__name__,
            exc,
        )
        if worker is not None:
            worker.close()
        return 2
    log.info("table %s: %s, game %s, seq %s", args.table, args.db, session.game_id, session.seq)

    users_file = Path(args.broker_users or Path(args.db).parent / "broker-users.json")
    if args.broker and users_file.exists():
        from hub.wire import parse_broker_url

        try:
            if not parse_broker_url(args.broker).username:
                args.broker = _with_hub_user(args.broker, users_file)
        except ValueError as exc:
            log.error("%s", exc)
            return 2
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    services: Services | None = None
    try:
        try:
            services = start_services(
                session,
                broker=args.broker,
                broker_port=args.broker_port,
                broker_users=users_file,
                mqtt=not args.no_mqtt,
                http_host=args.http_host,
                http_port=args.http_port,
                state_odds=not args.no_odds,
                public_url=args.public_url,
            )
        except ServiceError as exc:
            log.error("%s", exc)
            return 2
        if services.server is not None:
            shown = "none: an OPEN table, anyone on the network may play" if pin is None else pin
            print(f"dashboard: {services.public_url}/  PIN: {shown}", flush=True)
        print(f"hub ready: table {args.table} seq {session.seq}", flush=True)
        stop.wait()
    finally:
        if services is not None:
            services.close()
        session.close()
        store.close()
        if worker is not None:
            worker.close()
    return 0


def table_pin(
    store: Store, table: str, given: str | None, *, open_table: bool = False
) -> str | None:
    """The table's PIN: ``given``, else the one made at the first start (6 random digits, kept in
    the event log's database, which only its owner may read), else None for ``--open``."""
    import secrets

    key = f"table_pin/{table}"
    if open_table:
        log.warning(
            "table %s is OPEN (--open): anyone who can reach the dashboard may play, "
            "undo and start games",
            table,
        )
        return None
    if given is not None:
        return given
    pin = store.get_meta(key)
    if pin is None:
        pin = f"{secrets.randbelow(10**6):06d}"
        store.set_meta(key, pin)
        log.info("table %s: a new PIN was made (kept in the event log)", table)
    return str(pin)


def _with_hub_user(url: str, users_file: Path) -> str:
    """``url`` with the hub's user and password from the table's broker users file."""
    from hub.mqtt.access import BrokerCredentials, Role
    from hub.wire import parse_broker_url

    cfg = parse_broker_url(url)
    creds = BrokerCredentials.load_or_create(users_file)
    return creds.url(Role.HUB, cfg.host, cfg.port, tls=cfg.use_tls)


def lan_address() -> str:
    """This machine's address on the local network (what a phone would open), else loopback.

    A UDP socket "connected" to a private address sends nothing; it only makes the kernel pick
    the interface it would route through.
    """
    import socket

    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            addr = str(s.getsockname()[0])
            return addr if addr and not addr.startswith("0.") else "127.0.0.1"
    except OSError:
        return "127.0.0.1"


class ServiceError(RuntimeError):
    """A part of the hub could not start (no broker, a bad broker URL); nothing is left running."""


@dataclass
class Services:
    """What :func:`start_services` started around a session; ``close()`` stops them in order."""

    broker_url: str | None = None
    public_url: str | None = None  # the dashboard's address for players (links, QR codes)
    broker: EmbeddedBroker | None = None  # when one was started here
    bridge: MqttBridge | None = None
    server: ServerThread | None = None
    closers: list[Callable[[], None]] = field(default_factory=list)

    def close(self) -> None:
        for close in self.closers:
            try:
                close()
            except Exception:
                log.exception("while stopping")
        self.closers = []


def start_services(
    session: TableSession,
    *,
    broker: str | None = None,
    broker_port: int | None = 1883,
    mqtt: bool = True,
    http_host: str = "0.0.0.0",
    http_port: int = 8080,
    state_odds: bool = True,
    broker_users: Path | None = None,
    public_url: str | None = None,
) -> Services:
    """Start the MQTT side (an embedded broker unless ``broker`` is a URL, and the bridge) and the
    dashboard around ``session``. Shared by `pyramid hub` and `pyramid demo` so both tables are
    wired the same way. ``broker_port`` 0/None = any free port; ``http_port`` 0 = no dashboard.
    ``broker_users``: the file (0600) keeping the embedded broker's users and passwords, made at
    the first start; None = fresh ones for this run only. The embedded broker is supervised
    (started again if it dies). Raises :class:`ServiceError` after stopping whatever it had
    started.
    """
    services = Services()
    try:
        if mqtt:
            from hub.mqtt.bridge import MqttBridge

            url = broker
            if url is None:
                from hub.mqtt.access import BrokerCredentials
                from hub.mqtt.broker import BrokerUnavailable, EmbeddedBroker

                try:
                    creds = (
                        BrokerCredentials.load_or_create(broker_users)
                        if broker_users is not None
                        else None
                    )
                    services.broker = EmbeddedBroker(
                        port=broker_port or None, credentials=creds, supervise=True
                    ).start()
                except (BrokerUnavailable, ValueError, OSError) as exc:
                    raise ServiceError(str(exc)) from exc
                services.closers.append(services.broker.close)
                url = services.broker.url
                log.info(
                    "embedded %s broker on %s:%s (users and passwords: %s)",
                    services.broker.kind,
                    services.broker.host,
                    services.broker.port,
                    broker_users or "this run only",
                )
            try:
                # our own broker (embedded, or configured with the table's users file) has the
                # ACL of hub.mqtt.access: only trusted users can write requests
                trusted = services.broker is not None or (
                    broker_users is not None and broker_users.exists()
                )
                services.bridge = MqttBridge(
                    session, url, state_odds=state_odds, trusted_requests=trusted
                ).start()
            except ValueError as exc:
                raise ServiceError(str(exc)) from exc
            services.broker_url = url
            services.closers.insert(0, services.bridge.stop)
            log.info("MQTT: %s under %s/", services.bridge.config.display_url, services.bridge.base)
            # (display_url names the user, never the password)
        if http_port:
            try:
                from hub.dashboard import create_app
                from hub.dashboard.server import ServerThread
            except ImportError as exc:
                log.warning("no dashboard (%s)", exc)
            else:
                app = create_app(session, public_url=public_url)
                services.server = ServerThread(app, host=http_host, port=http_port).start()
                services.closers.insert(0, services.server.stop)
                if public_url is None:
                    host = http_host
                    if http_host in ("0.0.0.0", "", "::"):
                        host = lan_address()
                    public_url = f"http://{host}:{services.server.port}"
                    app.config["PUBLIC_URL"] = public_url
                services.public_url = public_url.rstrip("/")
                log.info(
                    "dashboard on http://%s:%s/ (players open %s/)",
                    http_host,
                    services.server.port,
                    services.public_url,
                )
    except BaseException:
        services.close()
        raise
    return services
