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

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

__all__ = ["ServerThread"]


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


class ServerThread:
    """``with ServerThread(app) as srv: srv.url`` serves ``app`` on 127.0.0.1 on a free port."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0) -> None:
        self.server: BaseWSGIServer = make_server(host, port, app, threaded=True,
                                                   request_handler=_QuietHandler)
        self.server.daemon_threads = True  # open streams must not keep the process alive
        self.host = host
        self.port = self.server.server_port
        self.url = f"http://{host}:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, name="dashboard",
                                        daemon=True)

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
