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
    return Namespace(**{"pinmap": None, "out": None, "check": False, "readme": None, **kw})


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
    raw["light_ring"]["ground"] = 1
    bad.write_text(yaml.safe_dump(raw), encoding="utf-8")
    out = tmp_path / "w.svg"
    assert cli.run(_args(pinmap=bad, out=out)) == 2
    assert not out.exists()
    assert "light_ring.ground: pin 1 carries 3V3, not GND" in capsys.readouterr().err


def test_the_build_guides_table_diagram_and_pinmap_agree():
    """One source: the README's wiring table and the drawing are what pinmap.yaml makes, and
    every ground pin the map names is drawn as that part's GND wire."""
    from firmware.wiring import TABLE_BEGIN, TABLE_END, _parts, wiring_table

    pm = load_pinmap(HARDWARE / "pinmap.yaml")
    readme = (HARDWARE / "README.md").read_text(encoding="utf-8")
    block = readme[readme.index(TABLE_BEGIN) + len(TABLE_BEGIN) : readme.index(TABLE_END)]
    assert block.strip() == wiring_table(pm).strip(), (
        "run `pyramid wiring --out hardware/wiring.svg --readme hardware/README.md`"
    )
    drawn = {p.title: {t.pin for t in p.terminals} for p in _parts(pm)}
    assert pm.slider.ground in drawn["Slider microswitch"]
    assert pm.confirm.ground in drawn["Confirm button"]
    assert pm.status_led.ground in drawn["Status LED"]
    assert {pm.light_ring.ground, pm.light_ring.supply} <= drawn["Light ring"]
    assert pm.buzzer.ground in drawn["Buzzer"]
    grounds = [pin for _, pin, kind in pm.power_pins() if kind == "GND"]
    assert len(grounds) == len(set(grounds)) == 5  # one ground wire per pin
    # the table's ground column is the map's, row by row
    rows = [r.split("|") for r in block.strip().splitlines()[2:]]
    table_grounds = {r[1].strip(): r[4].strip() for r in rows}
    assert table_grounds["status led"] == str(pm.status_led.ground)
    assert table_grounds["light ring"] == str(pm.light_ring.ground)


def test_cli_rewrites_and_checks_the_readme_table(tmp_path, capsys):
    readme = tmp_path / "README.md"
    text = (HARDWARE / "README.md").read_text(encoding="utf-8")
    readme.write_text(text.replace("| 34 |", "| 39 |"), encoding="utf-8")  # a stale ground
    assert cli.run(_args(readme=readme, check=True)) == 1
    assert "out of date" in capsys.readouterr().err
    assert cli.run(_args(readme=readme)) == 0
    assert readme.read_text(encoding="utf-8") == text
    assert cli.run(_args(readme=readme, check=True)) == 0
    (tmp_path / "bare.md").write_text("no table here", encoding="utf-8")
    assert cli.run(_args(readme=tmp_path / "bare.md")) == 1
