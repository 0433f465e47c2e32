"""The committed wiring drawing is exactly what the generator makes from the committed pin map."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from argparse import Namespace
from pathlib import Path

import pytest
import yaml

from firmware.cli import wiring as cli
from firmware.wiring import wiring_svg
from hardware.pinmap import PHYSICAL, PinMapError, load_pinmap

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"
SVG_NS = "{http://www.w3.org/2000/svg}"


def test_committed_svg_matches_the_pinmap():
    fresh = wiring_svg(load_pinmap(HARDWARE / "pinmap.yaml"))
    committed = (HARDWARE / "wiring.svg").read_text(encoding="utf-8")
    assert committed == fresh, "run `pyramid wiring --out hardware/wiring.svg` and commit it"


def test_svg_is_well_formed_and_names_every_used_pin():
    pm = load_pinmap(HARDWARE / "pinmap.yaml")
    svg = wiring_svg(pm)
    root = ET.fromstring(svg.encode("utf-8"))
    assert root.tag == f"{SVG_NS}svg"
    texts = [t.text or "" for t in root.iter(f"{SVG_NS}text")]
    # all 40 header pins are numbered
    assert {str(n) for n in range(1, 41)} <= set(texts)
    for _, bcm in pm.uses():
        assert f"GPIO{bcm}" in texts
    for value in ("220 Ω", "100 Ω", "1 kΩ"):
        assert value in texts
    # one wire per part terminal: 2 + 2 + 4 + 3 + 2
    assert len(list(root.iter(f"{SVG_NS}polyline"))) == 13


def test_drawing_follows_a_moved_wire():
    raw = yaml.safe_load((HARDWARE / "pinmap.yaml").read_text(encoding="utf-8"))
    raw["confirm"]["pin"] = 22
    svg = wiring_svg(raw)
    assert "1 ← GPIO22" in svg and "1 ← GPIO27" not in svg
    # the wire starts at the row of physical pin 15 (BCM 22)
    row_y = 120 + (PHYSICAL[22] - 1) // 2 * 24
    assert re.search(rf'<polyline points="\d+,{row_y} ', svg)


def test_same_pinmap_same_bytes():
    pm = load_pinmap(HARDWARE / "pinmap.yaml")
    assert wiring_svg(pm) == wiring_svg(pm)


def test_invalid_pinmap_refused():
    raw = yaml.safe_load((HARDWARE / "pinmap.yaml").read_text(encoding="utf-8"))
    raw["buzzer"]["pin"] = 17
    with pytest.raises(PinMapError, match="already used"):
        wiring_svg(raw)


def _args(**kw) -> Namespace:
    return Namespace(**{"pinmap": None, "out": None, "check": False, **kw})


def test_cli_writes_and_checks(tmp_path, capsys):
    out = tmp_path / "w.svg"
    assert cli.run(_args(out=out)) == 0
    assert out.read_text(encoding="utf-8") == (HARDWARE / "wiring.svg").read_text("utf-8")
    assert cli.run(_args(out=out, check=True)) == 0
    out.write_text(out.read_text(encoding="utf-8").replace("GPIO17", "GPIO4"), "utf-8")
    assert cli.run(_args(out=out, check=True)) == 1
    assert "out of date" in capsys.readouterr().err


def test_cli_bad_pinmap_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "pinmap.yaml"
    raw = yaml.safe_load((HARDWARE / "pinmap.yaml").read_text(encoding="utf-8"))
    raw["light_ring"]["pin"] = 4
    bad.write_text(yaml.safe_dump(raw), encoding="utf-8")
    out = tmp_path / "w.svg"
    assert cli.run(_args(pinmap=bad, out=out)) == 2
    assert not out.exists()
    assert "light_ring.pin: BCM 4 has no hardware PWM" in capsys.readouterr().err
