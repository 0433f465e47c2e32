"""The bill of materials is a well-formed CSV a spreadsheet and a shop list can use."""

from __future__ import annotations

import csv
from pathlib import Path

BOM = Path(__file__).resolve().parents[2] / "hardware" / "bom.csv"
COLUMNS = ["part", "model", "quantity", "unit_price_eur", "notes"]


def rows() -> list[dict[str, str]]:
    with BOM.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        assert reader.fieldnames == COLUMNS
        return list(reader)


def test_columns_and_values():
    items = rows()
    assert len(items) >= 15
    for row in items:
        assert None not in row, f"extra fields (an unquoted comma?) in {row['part']}"
        assert all(row[c] and row[c].strip() for c in COLUMNS), row
        assert int(row["quantity"]) > 0, row["part"]
        price = float(row["unit_price_eur"])
        assert 0 < price < 200, row["part"]


def test_parts_the_build_needs_are_listed():
    text = " ".join(f"{r['part']} {r['model']}".lower() for r in rows())
    for needed in (
        "raspberry pi 4",
        "camera module 3",
        "microswitch",
        "rgb led",
        "mosfet",
        "led ring",
        "piezo",
        "push button",
        "power supply",
        "microsd",
        "pole",
    ):
        assert needed in text, needed


def test_resistors_match_the_wiring_drawing():
    """The values drawn on wiring.svg are the values bought."""
    from firmware.wiring import RESISTORS

    bought = {
        r["part"].removeprefix("Resistor ").replace("kohm", "kΩ").replace("ohm", "Ω")
        for r in rows()
        if r["part"].startswith("Resistor")
    }
    assert set(RESISTORS.values()) <= bought
    assert "100 kΩ" in bought  # the gate pull-down written inside the light ring's box


def test_total_is_a_hobby_budget():
    total = sum(int(r["quantity"]) * float(r["unit_price_eur"]) for r in rows())
    assert 100 < total < 250
