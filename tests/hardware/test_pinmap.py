"""The pin map checker: the shipped map passes, and each kind of mistake is named."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from hardware.pinmap import (
    HEADER,
    PHYSICAL,
    PWM_CAPABLE,
    PinMapError,
    load_pinmap,
    validate_pinmap,
)

PINMAP = Path(__file__).resolve().parents[2] / "hardware" / "pinmap.yaml"


@pytest.fixture
def raw() -> dict:
    return yaml.safe_load(PINMAP.read_text(encoding="utf-8"))


def test_shipped_pinmap_is_valid_and_as_agreed():
    pm = load_pinmap(PINMAP)
    assert pm.slider.pin == 17 and pm.slider.pull_up and pm.slider.debounce_ms == 40
    assert pm.confirm.pin == 27
    assert (pm.status_led.red, pm.status_led.green, pm.status_led.blue) == (5, 6, 13)
    assert pm.light_ring.pin == 18 and pm.light_ring.frequency == 1000
    assert pm.buzzer.pin == 12
    assert pm.warnings() == []  # no default bus pin is taken


def test_header_table_is_the_real_40_pin_header():
    assert sorted(HEADER) == list(range(1, 41))
    assert sorted(PHYSICAL) == list(range(28))  # BCM 0..27, each once
    assert [p for p, w in HEADER.items() if w == "GND"] == [6, 9, 14, 20, 25, 30, 34, 39]
    assert PHYSICAL[17] == 11 and PHYSICAL[18] == 12 and PHYSICAL[12] == 32
    assert PWM_CAPABLE == {12, 13, 18, 19}


def test_physical_pins_in_the_yaml_comments_are_right():
    """The comments tell a builder where to solder: they must match the header table."""
    text = PINMAP.read_text(encoding="utf-8")
    import re

    pairs = re.findall(r"BCM(\d+) = pin (\d+)", text)
    assert len(pairs) == 7
    for bcm, pin in pairs:
        assert PHYSICAL[int(bcm)] == int(pin), f"comment says BCM{bcm} is pin {pin}"


def test_pin_used_twice_is_named(raw):
    raw["buzzer"]["pin"] = 17
    with pytest.raises(PinMapError) as err:
        validate_pinmap(raw)
    assert any("BCM 17" in p and "already used by slider.pin" in p for p in err.value.problems)


def test_pin_that_does_not_exist(raw):
    raw["confirm"]["pin"] = 40
    with pytest.raises(PinMapError, match=r"confirm.pin: BCM 40 is not on the 40-pin header"):
        validate_pinmap(raw)


def test_hat_eeprom_pins_refused(raw):
    raw["status_led"]["green"] = 0
    with pytest.raises(PinMapError, match="HAT EEPROM"):
        validate_pinmap(raw)


def test_pwm_part_on_a_pin_without_pwm(raw):
    raw["light_ring"]["pin"] = 23
    with pytest.raises(PinMapError, match=r"light_ring.pin: BCM 23 has no hardware PWM"):
        validate_pinmap(raw)


def test_every_problem_reported_at_once(raw):
    bad = copy.deepcopy(raw)
    bad["buzzer"]["pin"] = 22  # no PWM
    bad["slider"]["debounce_ms"] = 5000
    bad["lamp"] = {"pin": 4}
    del bad["confirm"]["pin"]
    with pytest.raises(PinMapError) as err:
        validate_pinmap(bad)
    text = str(err.value)
    assert "unknown part 'lamp'" in text and "confirm: missing key 'pin'" in text


@pytest.mark.parametrize(
    ("part", "key", "value", "message"),
    [
        ("slider", "pin", True, "expected a number"),
        ("slider", "pin", "17", "expected a number"),
        ("slider", "pull_up", "yes", "expected true/false"),
        ("slider", "debounce_ms", 5000, "outside 0..1000"),
        ("slider", "pull_up", False, "keep it true"),
        ("light_ring", "brightness", 1.5, "at most 1"),
        ("light_ring", "frequency", 0, "outside 50..40000"),
        ("buzzer", "volume", 3, "unknown key 'volume'"),
    ],
)
def test_bad_values_named(raw, part, key, value, message):
    raw[part][key] = value
    with pytest.raises(PinMapError, match=message) as err:
        validate_pinmap(raw)
    assert err.value.problems[0].startswith(part)


def test_not_a_mapping():
    with pytest.raises(PinMapError, match="expected a mapping of parts"):
        validate_pinmap(["slider"])


def test_unreadable_and_bad_yaml(tmp_path):
    with pytest.raises(PinMapError, match="cannot read"):
        load_pinmap(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("slider: {pin: 17\n", encoding="utf-8")
    with pytest.raises(PinMapError, match="not valid YAML"):
        load_pinmap(bad)


def test_bus_pin_gives_a_warning_not_an_error(raw):
    raw["confirm"]["pin"] = 2  # I2C1 SDA
    pm = validate_pinmap(raw)
    assert any("I2C1 SDA" in w for w in pm.warnings())
