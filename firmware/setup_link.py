"""Set-up while the watch service runs: its frames and its ring light, asked over a Unix socket.

Why: the watch service owns the camera (libcamera lets one process hold it: a second one gets
"device busy"), and the set-up (`pyramid calibrate`, `pyramid camera snapshot`, the dashboard's
table set-up) needs frames taken as the service takes them: the same locked exposure, the same
colour decoding, under the ring light. So the service serves them, and nothing else opens the
camera while it runs.

Why a Unix socket and not loopback HTTP: who may ask is decided by the file system and the
kernel, with no password to keep. The socket lives in a directory only the service's user can
enter (systemd's ``RuntimeDirectory``, mode 0700) and is itself mode 0600; on each connection
the server reads the peer's uid (``SO_PEERCRED``) and answers only its own user and root. A TCP
port on 127.0.0.1 would be open to every local user and to any web page a browser on the Pi
loads (DNS rebinding), so it would need a token; a socket path needs none, and it costs no port.

The protocol, one request per connection: the client sends one JSON line (at most 4 KiB); the
server answers one JSON line and, when it says ``"bytes": n``, n bytes of payload (an image).

* ``{"op": "status"}`` -> camera name, fault, frame size, light, lens position.
* ``{"op": "frame", "light": true, "encoding": "png"}`` -> the newest frame taken after the ring
  was on (``light`` false: as it is), PNG (lossless, the default) or JPEG.
* ``{"op": "light", "on": true, "seconds": 300}`` -> hold the ring on (a lease that ends by
  itself) / ``"on": false`` ends the leases.
* ``{"op": "focus", "lens_position": 1.6}`` -> manual focus in dioptres (Camera Module 3).
* ``{"op": "setup"}`` -> the loop reads the starting roll next (as ``pyramid watch --setup``).

An error is ``{"ok": false, "code": ..., "error": sentence}`` and changes nothing.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import struct
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from firmware.frames import FrameSource

log = logging.getLogger(__name__)

SOCKET_ENV = "PYRAMID_WATCH_SOCKET"
MAX_REQUEST = 4096
LIGHT_SETTLE_S = 0.25  # after the ring comes on: frames exposed before it are not taken
MAX_LEASE_S = 3600.0
ENCODINGS = ("png", "jpeg")


def default_socket_path() -> Path:
    """Where the service listens and the set-up asks: ``$PYRAMID_WATCH_SOCKET``; else systemd's
    ``$RUNTIME_DIRECTORY`` (the unit's /run/camel-pyramid); else /run/camel-pyramid when it
    exists (the installed service, asked by its user); else ``$XDG_RUNTIME_DIR/camel-pyramid``;
    else a folder of this user's under the temporary directory."""
    if os.environ.get(SOCKET_ENV):
        return Path(os.environ[SOCKET_ENV])
    runtime = os.environ.get("RUNTIME_DIRECTORY")
    if runtime:
        return Path(runtime.split(":")[0]) / "watch.sock"
    if Path("/run/camel-pyramid").is_dir():
        return Path("/run/camel-pyramid/watch.sock")
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg:
        return Path(xdg) / "camel-pyramid" / "watch.sock"
    import tempfile

    return Path(tempfile.gettempdir()) / f"camel-pyramid-{os.getuid()}" / "watch.sock"


class SetupLinkError(RuntimeError):
    """The watch service could not be asked, or refused; ``code`` says which."""

    def __init__(self, message: str, code: str = "failed") -> None:
        super().__init__(message)
        self.code = code


def _peer_uid(conn: socket.socket) -> int:
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return int(uid)


def _read_line(conn: socket.socket, limit: int) -> bytes:
    data = b""
    while b"\n" not in data:
        chunk = conn.recv(1024)
        if not chunk:
            break
        data += chunk
        if len(data) > limit:
            raise SetupLinkError(f"request longer than {limit} bytes", "bad_request")
    return data.split(b"\n", 1)[0]


class SetupServer:
    """The watch service's side: answers set-up requests from ``camera`` (a CameraSupervisor)
    and ``light`` (firmware.devices.LightRing, or None without one) on a Unix socket."""

    def __init__(
        self,
        camera: Any,
        light: Any = None,
        path: str | Path | None = None,
        *,
        loop: Any = None,
        allowed_uids: set[int] | None = None,
    ) -> None:
        self.camera = camera
        self.light = light
        self.loop = loop  # firmware.watch.WatchLoop: for "setup", and its state in "status"
        self.path = Path(path) if path else default_socket_path()
        self.allowed_uids = allowed_uids if allowed_uids is not None else {os.getuid(), 0}
        self.requests = 0
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def start(self) -> SetupServer:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if self.path.exists() or self.path.is_symlink():
            self._refuse_if_live()
            self.path.unlink()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)  # the socket is created 0600: its user only
        try:
            sock.bind(str(self.path))
        finally:
            os.umask(old)
        sock.listen(4)
        sock.settimeout(0.2)
        self._sock = sock
        self._thread = threading.Thread(target=self._serve, name="setup-link", daemon=True)
        self._thread.start()
        log.info("set-up link: listening on %s", self.path)
        return self

    def _refuse_if_live(self) -> None:
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        probe.settimeout(0.5)
        try:
            probe.connect(str(self.path))
        except OSError:
            return  # a stale socket from a process that died: replace it
        finally:
            probe.close()
        raise SetupLinkError(f"{self.path}: another watch service already listens there", "busy")

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        if self._sock is not None:
            self._sock.close()
            self._sock = None
            try:
                self.path.unlink()
            except OSError:
                pass

    def __enter__(self) -> SetupServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _serve(self) -> None:
        assert self._sock is not None
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                if self._stop.is_set():
                    return
                continue
            threading.Thread(
                target=self._handle, args=(conn,), name="setup-link-conn", daemon=True
            ).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5.0)
            payload = b""
            try:
                uid = _peer_uid(conn)
                line = _read_line(conn, MAX_REQUEST)  # read first: the asker sees the answer
                if uid not in self.allowed_uids:
                    raise SetupLinkError(f"uid {uid} may not use the watch service", "forbidden")
                request = json.loads(line or b"null")
                if not isinstance(request, dict):
                    raise SetupLinkError(
                        "the request must be one JSON object on a line", "bad_request"
                    )
                self.requests += 1
                header, payload = self.answer(request)
            except SetupLinkError as exc:
                header = {"ok": False, "code": exc.code, "error": str(exc)}
            except (json.JSONDecodeError, UnicodeDecodeError):
                header = {"ok": False, "code": "bad_request", "error": "not JSON"}
            except Exception as exc:  # one bad request must not stop the service
                log.exception("set-up request failed")
                header = {"ok": False, "code": "failed", "error": f"{type(exc).__name__}: {exc}"}
            try:
                conn.sendall(json.dumps(header).encode() + b"\n" + payload)
            except OSError:
                pass

    # --- the requests -------------------------------------------------------------------------
    def answer(self, request: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
        op = request.get("op")
        if op == "status":
            return self._status(), b""
        if op == "frame":
            return self._frame(request)
        if op == "light":
            return self._light(request), b""
        if op == "focus":
            return self._focus(request), b""
        if op == "setup":
            if self.loop is None:
                raise SetupLinkError("no watch loop here to read a starting roll", "no_loop")
            self.loop.request_setup()
            return {"ok": True, "setup": True}, b""
        raise SetupLinkError(
            f"unknown op {op!r} (status, frame, light, focus, setup)", "bad_request"
        )

    def _status(self) -> dict[str, Any]:
        source = getattr(self.camera, "_source", None)
        return {
            "ok": True,
            "camera": getattr(self.camera, "source_name", None),
            "fault": getattr(self.camera, "last_fault", None),
            "light": bool(self.light.is_on) if self.light is not None else None,
            "lens_position": getattr(source, "lens_position", None),
            "state": getattr(self.loop, "state", None),
        }

    def _frame(self, request: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
        import cv2

        encoding = request.get("encoding", "png")
        if encoding not in ENCODINGS:
            raise SetupLinkError(f"encoding {encoding!r}: png or jpeg", "bad_request")
        lit = bool(request.get("light", True))
        timeout = 5.0
        if lit and self.light is not None:
            with self.light.hold():
                after = time.monotonic() + LIGHT_SETTLE_S
                frame = self.camera.peek(after=after, timeout=timeout + LIGHT_SETTLE_S)
        else:
            frame = self.camera.peek(after=time.monotonic(), timeout=timeout)
        if frame is None:
            fault = getattr(self.camera, "last_fault", None)
            raise SetupLinkError(
                f"no frame from the camera within {timeout:g} s"
                + (f" (camera {fault}: {self.camera.last_error})" if fault else ""),
                "no_frame",
            )
        ok, data = cv2.imencode(".png" if encoding == "png" else ".jpg", frame.image)
        if not ok:
            raise SetupLinkError("the frame could not be encoded", "failed")
        h, w = frame.image.shape[:2]
        return (
            {
                "ok": True,
                "width": w,
                "height": h,
                "encoding": encoding,
                "seq": frame.seq,
                "light": lit and self.light is not None,
                "bytes": len(data),
            },
            data.tobytes(),
        )

    def _light(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.light is None:
            raise SetupLinkError("this service has no ring light (no pins)", "no_light")
        on = request.get("on")
        if not isinstance(on, bool):
            raise SetupLinkError('"on" must be true or false', "bad_request")
        if on:
            seconds = request.get("seconds", 300)
            if (
                isinstance(seconds, bool)
                or not isinstance(seconds, (int, float))
                or not 0 < seconds <= MAX_LEASE_S
            ):
                raise SetupLinkError(
                    f'"seconds" must be above 0 and at most {MAX_LEASE_S:g}', "bad_request"
                )
            self.light.lease(float(seconds))
            return {"ok": True, "light": True, "seconds": float(seconds)}
        ended = self.light.end_leases()
        return {"ok": True, "light": bool(self.light.is_on), "leases_ended": ended}

    def _focus(self, request: dict[str, Any]) -> dict[str, Any]:
        value = request.get("lens_position")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 15:
            raise SetupLinkError('"lens_position" must be 0..15 dioptres', "bad_request")
        source = getattr(self.camera, "_source", None)
        focus = getattr(source, "focus", None)
        if focus is None:
            raise SetupLinkError("this camera has no focus to set (not a Pi camera)", "no_focus")
        got = focus(float(value))
        if not got:
            raise SetupLinkError("this camera is fixed-focus (no AfMode control)", "no_focus")
        return {"ok": True, "lens_position": got["LensPosition"]}


class WatchServiceSource(FrameSource):
    """Frames from the running watch service: the set-up's frame source (``read()`` asks for the
    newest frame taken with the ring on). Raises SetupLinkError, saying what to do, when the
    service does not answer."""

    name = "watch-service"

    def __init__(
        self, path: str | Path | None = None, *, light: bool = True, timeout: float = 15.0
    ) -> None:
        self.path = Path(path) if path else default_socket_path()
        self.light = light
        self.timeout = timeout

    def request(self, req: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            try:
                sock.connect(str(self.path))
            except (FileNotFoundError, ConnectionRefusedError) as exc:
                raise SetupLinkError(
                    f"the watch service is not running (nothing listens on {self.path}): "
                    "sudo systemctl start camel-pyramid-watch",
                    "not_running",
                ) from exc
            except PermissionError as exc:
                raise SetupLinkError(
                    f"{self.path}: not allowed; run this as the service's user", "forbidden"
                ) from exc
            try:
                sock.sendall(json.dumps(req).encode() + b"\n")
            except (BrokenPipeError, ConnectionResetError):
                pass  # refused before it read all of it: its answer still says why
            data = b""
            while b"\n" not in data:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
            line, _, rest = data.partition(b"\n")
            header = json.loads(line or b"{}")
            want = int(header.get("bytes", 0))
            chunks = [rest]
            got = len(rest)
            while got < want:
                chunk = sock.recv(min(1 << 20, want - got))
                if not chunk:
                    raise SetupLinkError("the watch service closed the connection mid-frame")
                chunks.append(chunk)
                got += len(chunk)
        except TimeoutError as exc:
            raise SetupLinkError(
                f"the watch service did not answer within {self.timeout:g} s", "timeout"
            ) from exc
        finally:
            sock.close()
        if not header.get("ok"):
            raise SetupLinkError(
                str(header.get("error", "refused")), str(header.get("code", "failed"))
            )
        return header, b"".join(chunks)

    def read(self) -> np.ndarray | None:
        import cv2

        header, data = self.request({"op": "frame", "light": self.light, "encoding": "png"})
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        if image is None or image.shape[:2] != (header["height"], header["width"]):
            raise SetupLinkError("the watch service sent a frame that does not decode")
        return image

    def status(self) -> dict[str, Any]:
        return self.request({"op": "status"})[0]

    def set_light(self, on: bool, seconds: float = 300.0) -> dict[str, Any]:
        req: dict[str, Any] = {"op": "light", "on": on}
        if on:
            req["seconds"] = seconds
        return self.request(req)[0]

    def focus(self, dioptres: float) -> dict[str, Any]:
        return self.request({"op": "focus", "lens_position": dioptres})[0]

    def setup(self) -> dict[str, Any]:
        return self.request({"op": "setup"})[0]


class WatchSnapshots:
    """vision.cli.frames' frame source for the set-up steps (``--frame watch:``, ``pyramid
    calibrate watch:``): each ``snapshot()`` is a frame from the running watch service with the
    ring light on. ``watch:PATH`` names another socket."""

    def __init__(self, rest: str = "") -> None:
        self._link = WatchServiceSource(rest or None)

    def snapshot(self) -> np.ndarray:
        from vision.cli.frames import FrameSourceError

        try:
            image = self._link.read()
        except SetupLinkError as exc:
            raise FrameSourceError(str(exc)) from exc
        assert image is not None
        return image

    def close(self) -> None:
        return None


def register_frame_sources() -> None:
    """Make ``watch:`` a frame source of the set-up (vision.cli.frames.open_source)."""
    from vision.cli.frames import register_source

    register_source("watch", WatchSnapshots)
