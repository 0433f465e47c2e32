"""Set-up while the service runs: a real `pyramid watch` process (replay camera, mock pins) serves
frames and the ring light over its Unix socket; `pyramid camera` and `pyramid calibrate` ask it
and never open a camera themselves."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware.camera import CameraSupervisor
from firmware.frames import RenderedSource
from firmware.setup_link import SetupLinkError, SetupServer, WatchServiceSource
from vision.render.dice import render_dice_scene

REPO = Path(__file__).resolve().parents[2]


def _pyramid(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hub.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture(scope="module")
def watch_service(tmp_path_factory):
    """`pyramid watch` replaying a frame of the five dice, its set-up link on a socket."""
    folder = tmp_path_factory.mktemp("setup")
    frames = folder / "frames"
    frames.mkdir()
    img, _ = render_dice_scene(np.random.default_rng(12), effects=False)
    cv2.imwrite(str(frames / "dice.png"), img)
    sock = folder / "run" / "watch.sock"
    env = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hub.cli",
            "watch",
            "--replay",
            str(frames),
            "--mock-pins",
            "--sink",
            "print",
            "--socket",
            str(sock),
            "--fps",
            "10",
            "--duration",
            "120",
            "--log-level",
            "INFO",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not sock.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    if not sock.exists():
        proc.kill()
        pytest.fail(f"the watch service never opened its socket: {proc.stderr.read()[-2000:]}")
    yield sock, img, folder
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
    assert not sock.exists()  # the service removes its socket when it stops


def test_the_socket_is_its_users_only(watch_service) -> None:
    sock, _, _ = watch_service
    assert sock.stat().st_mode & 0o777 == 0o600
    assert sock.parent.stat().st_mode & 0o077 == 0


def test_pyramid_camera_talks_to_the_running_service(watch_service, tmp_path) -> None:
    sock, img, _ = watch_service
    out = _pyramid("camera", "--socket", str(sock), "status")
    assert out.returncode == 0, out.stderr
    status = json.loads(out.stdout)
    assert status["camera"].startswith("replay") and status["fault"] is None
    assert status["light"] is False  # idle: the loop keeps the ring off
    frame = tmp_path / "frame.png"
    out = _pyramid("camera", "--socket", str(sock), "snapshot", "--out", str(frame))
    assert out.returncode == 0, out.stderr
    assert "ring light on" in out.stdout
    assert np.array_equal(cv2.imread(str(frame)), img)  # the replayed frame, losslessly
    out = _pyramid("camera", "--socket", str(sock), "light", "on", "--for", "30")
    assert out.returncode == 0 and "ring light on for 30 s" in out.stdout
    assert json.loads(_pyramid("camera", "--socket", str(sock), "status").stdout)["light"]
    out = _pyramid("camera", "--socket", str(sock), "light", "off")
    assert out.returncode == 0 and "ring light off" in out.stdout
    out = _pyramid("camera", "--socket", str(sock), "focus", "1.5")
    assert out.returncode == 1 and "not a Pi camera" in out.stderr  # a replay has no lens
    assert status["state"] == "ready"
    out = _pyramid("camera", "--socket", str(sock), "setup")
    assert out.returncode == 0 and "setup mode" in out.stdout
    deadline = time.monotonic() + 10
    state = None
    while time.monotonic() < deadline and state != "setup":
        state = json.loads(_pyramid("camera", "--socket", str(sock), "status").stdout)["state"]
    assert state == "setup"  # waits for the confirm button (or the slider) to read the roll


def test_pyramid_calibrate_takes_its_frame_from_the_service(watch_service, tmp_path) -> None:
    sock, _, _ = watch_service
    palette = tmp_path / "palette.json"
    out = _pyramid("calibrate", f"watch:{sock}", "--out", str(palette))
    assert out.returncode == 0, out.stderr
    data = json.loads(palette.read_text())
    assert {"blue", "green", "orange", "yellow", "white"} <= set(data["colours"])


def test_a_set_up_step_takes_its_frame_from_the_service(watch_service, tmp_path) -> None:
    """vision.cli.frames' interface: --frame watch: for the table set-up's steps."""
    sock, img, _ = watch_service
    from firmware.setup_link import register_frame_sources
    from hub.cli import FRAME_SOURCES  # noqa: F401 - the dispatcher registers watch:
    from vision.cli.frames import open_source

    register_frame_sources()
    src = open_source(f"watch:{sock}")
    try:
        assert np.array_equal(src.snapshot(), img)
    finally:
        src.close()


def test_without_the_service_the_setup_says_how_to_start_it(tmp_path) -> None:
    missing = tmp_path / "nobody.sock"
    out = _pyramid("calibrate", f"watch:{missing}", "--out", str(tmp_path / "p.json"))
    assert out.returncode == 1
    assert "the watch service is not running" in out.stderr
    assert "systemctl start camel-pyramid-watch" in out.stderr
    assert not (tmp_path / "p.json").exists()


# --- the server in process: the ring light and bad requests ------------------------------------


class FakeLight:
    def __init__(self) -> None:
        self.holds = 0
        self.leases: list[float] = []
        self.lit_frames = 0

    @property
    def is_on(self) -> bool:
        return self.holds > 0 or bool(self.leases)

    def hold(self):
        import contextlib

        @contextlib.contextmanager
        def held():
            self.holds += 1
            try:
                yield
            finally:
                self.holds -= 1

        return held()

    def lease(self, seconds: float) -> None:
        self.leases.append(seconds)

    def end_leases(self) -> int:
        n, self.leases = len(self.leases), []
        return n


@pytest.fixture()
def served(tmp_path):
    light = FakeLight()
    # each frame says whether the ring was on when the camera took it
    cam = CameraSupervisor(
        lambda: RenderedSource(
            lambda: np.full((36, 64, 3), 200 if light.is_on else 60, np.uint8), fps=50
        )
    )
    cam.start()
    server = SetupServer(cam, light, tmp_path / "s" / "watch.sock").start()
    yield server, light, WatchServiceSource(server.path)
    server.close()
    cam.stop()


def test_a_frame_is_taken_with_the_ring_on_and_the_ring_given_back(served) -> None:
    server, light, link = served
    frame = link.read()
    assert frame is not None and int(frame[0, 0, 0]) == 200  # lit
    assert light.holds == 0  # given back
    link.light = False
    assert int(link.read()[0, 0, 0]) == 60  # as the table is


def test_bad_requests_are_refused_and_change_nothing(served) -> None:
    server, light, link = served
    for req, code in (
        ({"op": "explode"}, "bad_request"),
        ({"op": "light", "on": "yes"}, "bad_request"),
        ({"op": "light", "on": True, "seconds": 1e9}, "bad_request"),
        ({"op": "frame", "encoding": "gif"}, "bad_request"),
        ({"op": "focus", "lens_position": 99}, "bad_request"),
    ):
        with pytest.raises(SetupLinkError) as info:
            link.request(req)
        assert info.value.code == code, req
    assert light.leases == [] and light.holds == 0
    raw = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    raw.connect(str(server.path))
    raw.sendall(b"x" * 10000)  # no newline, too long: refused, the server goes on
    reply = json.loads(raw.recv(4096).split(b"\n")[0])
    raw.close()
    assert reply["ok"] is False and reply["code"] == "bad_request"
    assert link.status()["ok"] is True


def test_another_user_is_refused(served, monkeypatch) -> None:
    server, _, link = served
    server.allowed_uids = {os.getuid() + 12345}  # as if this process were another user
    with pytest.raises(SetupLinkError) as info:
        link.status()
    assert info.value.code == "forbidden"


def test_a_second_service_does_not_steal_a_live_socket(served) -> None:
    server, _, _ = served
    with pytest.raises(SetupLinkError, match="already listens"):
        SetupServer(server.camera, None, server.path).start()
    assert server.path.exists()


def test_concurrent_askers_all_get_frames(served) -> None:
    _, _, link = served
    got: list[bool] = []
    threads = [
        threading.Thread(target=lambda: got.append(link.read() is not None)) for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert got == [True] * 4
