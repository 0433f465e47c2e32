"""The Pi's install, resolved by pip for Raspberry Pi OS Bookworm (aarch64, CPython 3.11) with
firmware/install/constraints-bookworm.txt: no numpy 2, an OpenCV built for numpy 1.x that has
ArucoDetector. Needs PyPI (CI reaches it); a network failure fails with a message saying so."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from firmware.pi_env import resolution_problems

REPO = Path(__file__).resolve().parents[2]
CONSTRAINTS = REPO / "firmware" / "install" / "constraints-bookworm.txt"
PI = [
    "--platform",
    "manylinux2014_aarch64",
    "--python-version",
    "3.11",
    "--implementation",
    "cp",
    "--abi",
    "cp311",
    "--only-binary=:all:",
]


def _report(name: str, version: str) -> dict:
    return {"metadata": {"name": name, "version": version}}


def test_resolution_problems_name_what_would_break_the_pi() -> None:
    good = {
        "install": [
            _report("numpy", "1.24.2"),
            _report("opencv-python-headless", "4.10.0.84"),
            _report("Flask", "3.1.3"),
        ]
    }
    assert resolution_problems(good) == []
    bad = {
        "install": [
            _report("numpy", "2.2.6"),
            _report("opencv-python-headless", "5.0.0.93"),
            _report("opencv-python", "4.10.0.84"),
        ]
    }
    problems = resolution_problems(bad)
    assert any("numpy 2.2.6" in p for p in problems)
    assert any("opencv-python-headless 5.0.0.93" in p for p in problems)
    assert any(p.startswith("opencv-python 4.10") for p in problems)
    old = {"install": [_report("opencv-python-headless", "4.6.0.66")]}
    assert resolution_problems(old) == [
        "opencv-python-headless 4.6.0.66 chosen: needs 4.7 <= "
        "version < 4.11 (ArucoDetector, built for numpy 1.x)"
    ]


def _dependencies() -> list[str]:
    data = tomllib.loads((REPO / "pyproject.toml").read_text())
    return list(data["project"]["dependencies"])


def _resolve(tmp_path: Path, *extra: str) -> dict:
    """pip's dry-run report for the project's dependencies on the Pi's platform."""
    out = tmp_path / f"report{len(extra)}.json"
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--dry-run",
        "--quiet",
        "--ignore-installed",
        "--no-input",
        "--timeout",
        "20",
        "--retries",
        "2",
        "--report",
        str(out),
        *PI,
        *extra,
        *_dependencies(),
    ]
    try:
        res = subprocess.run(
            cmd, capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        pytest.fail(
            "pip took over 240 s to resolve the Pi's install: is PyPI reachable? "
            "(this test needs the network)"
        )
    if res.returncode != 0:
        pytest.fail(
            "pip could not resolve the Pi's install (this test needs PyPI; a network "
            f"error shows here):\n{res.stderr[-2000:]}"
        )
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def pinned(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return _resolve(tmp_path_factory.mktemp("pip"), "-c", str(CONSTRAINTS))


def test_the_constraints_resolve_to_debian_numpy_and_a_numpy1_opencv(pinned: dict) -> None:
    report = pinned
    assert resolution_problems(report) == []
    chosen = {i["metadata"]["name"].lower(): i["metadata"]["version"] for i in report["install"]}
    assert chosen["numpy"] == "1.24.2"  # Debian Bookworm's python3-numpy: pip keeps the system's
    assert chosen["opencv-python-headless"].startswith("4.10.")
    for dep in ("flask", "paho-mqtt", "gpiozero", "pyyaml", "segno"):
        assert dep in chosen, dep


def test_every_constraint_is_pinned_and_used(pinned: dict) -> None:
    """Each line pins one version, and every pinned name is something the install resolves
    (a stale pin for a dropped dependency would hide a missing one)."""
    pins = {}
    for line in CONSTRAINTS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"{line!r} is not pinned with =="
            pins[name.lower()] = version
    chosen = {i["metadata"]["name"].lower(): i["metadata"]["version"] for i in pinned["install"]}
    for name, version in pins.items():
        assert chosen.get(name) == version, (name, version, chosen.get(name))


def test_without_the_constraints_pip_would_break_the_pi(tmp_path: Path) -> None:
    """Why the constraints exist, checked against today's PyPI: left alone, pip picks an OpenCV
    that needs numpy 2 (issue 14: 5.0 with numpy 2.2), which the check above refuses."""
    problems = resolution_problems(_resolve(tmp_path))
    assert any(p.startswith("numpy 2") for p in problems), problems
