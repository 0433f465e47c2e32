"""Run the dashboard's WSGI app on a thread: for tests, benchmarks and the demo.

Why werkzeug's threaded server: each open page holds one thread for its stream, which suits a
table (a dozen phones at most) and needs no extra dependency. ``pyramid hub`` on a Pi may run
the same app under any WSGI server with threads.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Any
from wsgiref.types import WSGIApplication

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

__all__ = ["ServerThread", "lan_address"]


def lan_address() -> str:
    """This machine's address on the local network (what a phone would open), else loopback.

    A UDP socket "connected" to a private address sends nothing; it only makes the kernel pick
    the interface it would route through. Printed instead of 0.0.0.0, which no phone can open.
    """
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            addr = str(s.getsockname()[0])
            return addr if addr and not addr.startswith("0.") else "127.0.0.1"
    except OSError:
        return "127.0.0.1"


class _QuietHandler(WSGIRequestHandler):
    """No access log line per request (tests make hundreds), and no Nagle delay.

    Without TCP_NODELAY a second small SSE write waits for the ACK of the first, and the
    browser's delayed ACK makes that up to 40 ms: measured as most of the page latency.
    """

    def setup(self) -> None:
        super().setup()
        with contextlib.suppress(OSError):
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_request(self, *args: object, **kwargs: object) -> None:
        pass


MAX_THREADS = 64  # request threads at once (open live streams included); more wait in the backlog


class ServerThread:
    """``with ServerThread(app) as srv: srv.url`` serves ``app`` on 127.0.0.1 on a free port.

    At most ``max_threads`` requests are served at once: a flood of connections (1,012 threads
    were seen) waits in the listen backlog instead of growing the process without bound.
    """

    def __init__(
        self,
        app: WSGIApplication,
        host: str = "127.0.0.1",
        port: int = 0,
        max_threads: int = MAX_THREADS,
    ) -> None:
        self.server: BaseWSGIServer = make_server(
            host, port, app, threaded=True, request_handler=_QuietHandler
        )
        # open streams must not keep the process alive (make_server(threaded=True) is a
        # ThreadingMixIn server, which has the attribute; the stub's BaseWSGIServer does not)
        self.server.daemon_threads = True  # type: ignore[attr-defined]
        self.slots = threading.BoundedSemaphore(max_threads)
        _limit_threads(self.server, self.slots)
        self.app = app
        self.host = host
        self.port = self.server.server_port
        self.url = f"http://{host}:{self.port}"
        self._thread = threading.Thread(
            target=self.server.serve_forever, name="dashboard", daemon=True
        )

    def start(self) -> ServerThread:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(5)

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _limit_threads(server: Any, slots: threading.BoundedSemaphore) -> None:
    """Make ``server`` (a ThreadingMixIn server) take a slot before each request thread and
    give it back when the thread ends; while none is free, the accept loop waits (the kernel's
    backlog holds the next connections)."""
    spawn = server.process_request
    finish = server.process_request_thread

    def process_request(request: Any, client_address: Any) -> None:
        while not slots.acquire(timeout=0.5):
            if getattr(server, "_BaseServer__shutdown_request", False):
                server.shutdown_request(request)
                return
        try:
            spawn(request, client_address)
        except BaseException:
            slots.release()
            raise

    def process_request_thread(request: Any, client_address: Any) -> None:
        try:
            finish(request, client_address)
        finally:
            slots.release()

    server.process_request = process_request
    server.process_request_thread = process_request_thread
