"""install-pi.sh: shellcheck-clean, a dry run that prints every step, units systemd accepts."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "firmware" / "install" / "install-pi.sh"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(SCRIPT), *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_shellcheck_clean() -> None:
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck is not installed (apt-get install shellcheck)")
    out = subprocess.run(["shellcheck", str(SCRIPT)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout


def test_dry_run_prints_the_steps_and_changes_nothing(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    out = run("--dry-run", "--table", "kitchen", "--venv", str(venv))
    assert out.returncode == 0, out.stderr
    text = out.stdout
    for expected in (
        "apt-get install -y -qq python3-picamera2",
        "mosquitto",
        f"python3 -m venv --system-site-packages {venv}",
        f"{venv}/bin/python -m pip install --quiet -c {REPO}/firmware/install/"
        f"constraints-bookworm.txt --only-binary=numpy,opencv-python-headless -e {REPO}",
        f"{venv}/bin/python -m compileall -q {REPO}/firmware {REPO}/hub {REPO}/vision "
        f"{REPO}/hardware",
        f"{venv}/bin/python -m firmware.pi_env --expect-debian-numpy --need-picamera2",
        "write /etc/camel-pyramid/table.toml",
        'id = "kitchen"',
        "write /etc/systemd/system/camel-pyramid-watch.service",
        "systemctl enable --now camel-pyramid-hub.service camel-pyramid-watch.service",
        ":8080/ on a phone",
    ):
        assert expected in text, expected
    assert "Restart=on-failure" in text and "StandardOutput=journal" in text
    assert "▄" in text or "█" in text  # the QR code, in the terminal
    assert not venv.exists()


def test_python_only_makes_the_venv_and_nothing_else(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    out = run("--dry-run", "--python-only", "--without-picamera2", "--venv", str(venv))
    assert out.returncode == 0, out.stderr
    assert "constraints-bookworm.txt" in out.stdout
    assert "firmware.pi_env --expect-debian-numpy" in out.stdout
    assert "--need-picamera2" not in out.stdout
    for absent in ("apt-get", "/etc/camel-pyramid", "systemctl", "usermod"):
        assert absent not in out.stdout, absent
    assert "--python-only: nothing else was done" in out.stdout


def test_bad_options_are_refused() -> None:
    out = run("--table", "a/b", "--dry-run")
    assert out.returncode == 2 and "table id 'a/b'" in out.stderr
    out = run("--frobnicate")
    assert out.returncode == 2 and "unknown option --frobnicate" in out.stderr


def test_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    venv = Path(sys.prefix)  # a venv that has bin/pyramid, so ExecStart points at a real file
    if not (venv / "bin" / "pyramid").exists():
        pytest.skip("the project is not installed in this Python's prefix")
    out = run("--units-only", str(tmp_path), "--venv", str(venv))
    assert out.returncode == 0, out.stderr
    units = sorted(tmp_path.glob("*.service"))
    assert [u.name for u in units] == ["camel-pyramid-hub.service", "camel-pyramid-watch.service"]
    watch = (tmp_path / "camel-pyramid-watch.service").read_text()
    assert f"ExecStart={venv}/bin/pyramid watch --config /etc/camel-pyramid/table.toml" in watch
    res = subprocess.run(
        ["systemd-analyze", "verify", *map(str, units)], capture_output=True, text=True, timeout=60
    )
    assert res.returncode == 0, res.stdout + res.stderr
