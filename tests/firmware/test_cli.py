"""`pyramid watch`: config errors exit 2 with a clear message; a replayed table runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

from hub.cli import main


def test_bad_config_exits_2_and_says_where(tmp_path: Path, capsys) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text("[camera]\nfsp = 30\n")
    assert main(["watch", "--config", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert "unknown key 'fsp' (did you mean 'fps'?)" in err and str(cfg) in err


def test_bad_pin_map_exits_2_and_names_every_problem(tmp_path: Path, capsys) -> None:
    pins = tmp_path / "pinmap.yaml"
    text = (Path(__file__).resolve().parents[2] / "hardware" / "pinmap.yaml").read_text()
    pins.write_text(
        text.replace("buzzer:     {pin: 12,", "buzzer:     {pin: 17,").replace(
            "ground: 6,", "ground: 1,"
        )
    )
    assert main(["watch", "--pins", str(pins), "--check"]) == 2
    err = capsys.readouterr().err
    assert str(pins) in err and "already used by slider.pin" in err
    assert "light_ring.ground: pin 1 carries 3V3, not GND" in err


def test_check_prints_config_and_pins(tmp_path: Path, capsys) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text('[table]\nid = "kitchen"\n[broker]\npassword = "secret"\n')
    assert main(["watch", "--config", str(cfg), "--check", "--broker", "mqtt://hub.local"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["config"]["table"]["id"] == "kitchen"
    assert shown["config"]["broker"]["url"] == "mqtt://hub.local"
    assert shown["config"]["broker"]["password"] == "***"
    assert shown["pins"]["slider"]["pin"] == 17


def test_replayed_table_with_keys_reads_a_die(tmp_path: Path) -> None:
    # a looped film: the table for half a second, then a die lands on it for half a second
    table = np.random.default_rng(0).integers(50, 200, (120, 160, 3), np.uint8)
    die = table.copy()
    die[50:70, 70:90] = (200, 80, 20)
    for i in range(30):
        cv2.imwrite(str(tmp_path / f"{i:03d}.png"), die if i >= 15 else table)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "hub.cli",
            "watch",
            "--replay",
            str(tmp_path),
            "--sink",
            "print",
            "--mock-pins",
            "--keys",
            "--duration",
            "3",
            "--log-level",
            "WARNING",
        ],
        input="\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    kinds = [line["kind"] for line in lines]
    assert kinds[:2] == ["release", "die"], out.stdout + out.stderr
    assert kinds.count("die") == 1
