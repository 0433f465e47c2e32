"""A camera that cannot be used names its cause (import, busy, absent, out of memory) in the
status payload, rather than "cannot open the camera" retried in silence."""

from __future__ import annotations

import errno
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from firmware.camera import CameraSupervisor
from firmware.camera_fault import CameraFault, classify
from firmware.frames import CameraError, PiCamera2Source
from firmware.health import Health

FAKE = Path(__file__).with_name("fake_picamera2")


@pytest.mark.parametrize(
    ("exc", "stage", "fault"),
    [
        # picamera2's own words (raspberrypi/picamera2 issues 399, 1048, 1081, 951)
        (
            RuntimeError("Failed to acquire camera: Device or resource busy"),
            "open",
            CameraFault.BUSY,
        ),
        (RuntimeError("camera.acquire() returned unexpected code: -16"), "open", CameraFault.BUSY),
        (IndexError("list index out of range"), "open", CameraFault.ABSENT),
        (RuntimeError("Camera __init__ sequence did not complete."), "open", CameraFault.FAILED),
        (OSError(errno.ENOMEM, "Cannot allocate memory"), "start", CameraFault.OUT_OF_MEMORY),
        (RuntimeError("Failed to allocate buffers."), "start", CameraFault.OUT_OF_MEMORY),
        (
            ValueError("numpy.dtype size changed, may indicate binary incompatibility"),
            "import",
            CameraFault.IMPORT,
        ),
        (RuntimeError("lores stream must be YUV"), "start", CameraFault.FAILED),
    ],
)
def test_classify_reads_picamera2s_errors(
    exc: BaseException, stage: str, fault: CameraFault
) -> None:
    assert classify(exc, stage) is fault


def test_the_cause_is_found_through_a_wrapping_error() -> None:
    try:
        try:
            raise OSError(errno.EBUSY, "Device or resource busy")
        except OSError as inner:
            raise RuntimeError("Camera __init__ sequence did not complete.") from inner
    except RuntimeError as outer:
        assert classify(outer, "open") is CameraFault.BUSY


@pytest.fixture()
def fake(monkeypatch):
    monkeypatch.syspath_prepend(str(FAKE))
    sys.modules.pop("picamera2", None)
    import picamera2

    yield picamera2
    sys.modules.pop("picamera2", None)


@pytest.mark.parametrize(
    ("raised", "fault"),
    [
        (RuntimeError("Failed to acquire camera: Device or resource busy"), CameraFault.BUSY),
        (IndexError("list index out of range"), CameraFault.ABSENT),
    ],
)
def test_the_pi_camera_says_why_it_cannot_open(fake, monkeypatch, raised, fault) -> None:
    monkeypatch.setattr(fake.Picamera2, "fail_open", raised)
    with pytest.raises(CameraError) as info:
        PiCamera2Source(warmup_s=0)
    assert info.value.fault is fault
    assert f"camera {fault.value}:" in str(info.value)


def test_a_numpy_abi_break_at_import_is_an_import_fault(tmp_path, monkeypatch) -> None:
    """apt's picamera2 under a venv's numpy 2 fails with ValueError, not ImportError."""
    pkg = tmp_path / "picamera2"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        'raise ValueError("numpy.dtype size changed, may indicate binary incompatibility. '
        'Expected 96 from C header, got 88 from PyObject")\n'
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("picamera2", None)
    try:
        with pytest.raises(CameraError) as info:
            PiCamera2Source(warmup_s=0)
    finally:
        sys.modules.pop("picamera2", None)
    assert info.value.fault is CameraFault.IMPORT and "numpy.dtype size changed" in str(info.value)


def test_the_status_carries_the_fault_until_frames_come_back(fake, monkeypatch) -> None:
    import numpy as np

    monkeypatch.setattr(
        fake.Picamera2, "film", staticmethod(lambda: np.full((720, 1280, 3), 120, np.uint8))
    )
    monkeypatch.setattr(
        fake.Picamera2,
        "fail_open",
        RuntimeError("Failed to acquire camera: Device or resource busy"),
    )
    errors: list[str] = []
    failed = threading.Event()

    def on_error(message: str) -> None:
        errors.append(message)
        failed.set()

    cam = CameraSupervisor(
        lambda: PiCamera2Source(warmup_s=0), backoff_s=(0.01, 0.02), on_error=on_error
    )
    cam.start()
    try:
        assert failed.wait(5.0)
        snap = Health("t").snapshot(cam)
        assert snap["camera_fault"] == "busy"
        assert "another program holds the camera" in errors[0]
        monkeypatch.setattr(fake.Picamera2, "fail_open", None)  # the other program closed
        frame = cam.next_frame(5.0)
        assert frame is not None
        assert Health("t").snapshot(cam)["camera_fault"] is None
    finally:
        cam.stop()


def test_pi_env_names_a_missing_picamera2(tmp_path) -> None:
    """install-pi.sh's check, run here where no picamera2 is installed: it fails, naming it."""
    res = subprocess.run(
        [sys.executable, "-m", "firmware.pi_env", "--need-picamera2"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert res.returncode == 1
    assert "FAIL picamera2: camera import:" in res.stdout
    assert "ok   opencv:" in res.stdout and "ok   project:" in res.stdout


def test_pi_env_refuses_the_gpiozero_that_misses_a_pi5s_gpio_chip() -> None:
    from firmware.pi_env import check_gpiozero

    bad = check_gpiozero("Raspberry Pi 5 Model B Rev 1.0", "2.0.1")
    assert not bad.ok and "gpiochip4" in bad.detail
    assert check_gpiozero("Raspberry Pi 4 Model B Rev 1.5", "2.0.1").ok  # gpiochip0 only
    assert check_gpiozero("Raspberry Pi 5 Model B Rev 1.0", "2.0.1.post3").ok
    assert check_gpiozero().ok  # this machine: not a Pi 5
