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
from pathlib import Path
from typing import Any

log = logging.getLogger("pyramid.hub")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--table", default="t1", help="table id, used in topics (default t1)")
    parser.add_argument("--db", default="var/hub.db", help="SQLite event log (default var/hub.db)")
    parser.add_argument("--broker", default=None,
                        help="mqtt://[user:pass@]host[:port] or mqtts://...; default: start an "
                             "embedded broker on 127.0.0.1")
    parser.add_argument("--broker-port", type=int, default=1883,
                        help="port of the embedded broker (default 1883; 0 = any free port)")
    parser.add_argument("--no-mqtt", action="store_true", help="run without any MQTT")
    parser.add_argument("--pin", default=None, help="table PIN needed to change the game "
                        "(default: none, an open table)")
    parser.add_argument("--http-host", default="0.0.0.0",
                        help="dashboard address (default 0.0.0.0: phones on the Wi-Fi)")
    parser.add_argument("--http-port", type=int, default=8080, help="dashboard port (0 = none)")
    parser.add_argument("--threshold", type=float, default=0.8,
                        help="die readings below this confidence are asked about (default 0.8)")
    parser.add_argument("--no-odds", action="store_true", help="skip odds and advice")
    parser.add_argument("-v", "--verbose", action="store_true")


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    from hub.bus import EventBus
    from hub.session import TableSession
    from hub.store import Store, StoreError

    if not 0.0 <= args.threshold <= 1.0:
        log.error("--threshold must be between 0 and 1")
        return 2
    try:
        store = Store(Path(args.db))
        session = TableSession(args.table, store, EventBus(args.table), pin=args.pin,
                               threshold=args.threshold, odds=not args.no_odds,
                               advice=not args.no_odds)
    except (StoreError, ValueError) as exc:
        log.error("%s", exc)
        return 2
    log.info("table %s: %s, game %s, seq %s", args.table, args.db, session.game_id, session.seq)

    stop = threading.Event()
    closers: list[Any] = []
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        if not args.no_mqtt:
            from hub.mqtt.bridge import MqttBridge

            url = args.broker
            if url is None:
                from hub.mqtt.broker import BrokerUnavailable, EmbeddedBroker

                try:
                    broker = EmbeddedBroker(port=args.broker_port or None).start()
                except BrokerUnavailable as exc:
                    log.error("%s", exc)
                    return 2
                closers.append(broker.close)
                url = broker.url
                log.info("embedded %s broker on %s", broker.kind, url)
            try:
                bridge = MqttBridge(session, url, state_odds=not args.no_odds).start()
            except ValueError as exc:
                log.error("%s", exc)
                return 2
            closers.insert(0, bridge.stop)
            log.info("MQTT: %s under %s/", bridge.config.url, bridge.base)
        if args.http_port:
            try:
                from hub.dashboard import create_app
                from hub.dashboard.server import ServerThread
            except ImportError as exc:
                log.warning("no dashboard (%s)", exc)
            else:
                srv = ServerThread(create_app(session), host=args.http_host,
                                   port=args.http_port).start()
                closers.insert(0, srv.stop)
                log.info("dashboard on http://%s:%s/", args.http_host, srv.port)
        print(f"hub ready: table {args.table} seq {session.seq}", flush=True)
        stop.wait()
    finally:
        for close in closers:
            try:
                close()
            except Exception:
                log.exception("while stopping")
        session.close()
        store.close()
    return 0
