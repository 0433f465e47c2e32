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


def test_the_yaml_states_each_pin_once_as_data():
    """Where to solder is data (BCM keys, ground/supply header pins), drawn and tabled from it;
    a comment repeating a physical pin could drift from it (the grounds once did: 39/14 in the
    build guide against 34/6 in the comments), so no comment names one."""
    import re

    comments = [
        line.split("#", 1)[1]
        for line in PINMAP.read_text(encoding="utf-8").splitlines()
        if "#" in line
    ]
    assert not [c for c in comments if re.search(r"(GND|= ?pin) \d+|pin \d+/", c)]
    pm = load_pinmap(PINMAP)
    assert all(
        entry is not None
        for entry in (
            pm.slider.ground,
            pm.confirm.ground,
            pm.status_led.ground,
            pm.light_ring.ground,
            pm.light_ring.supply,
            pm.buzzer.ground,
        )
    )
    for name, bcm in pm.uses():
        assert PHYSICAL[bcm] in range(1, 41), name


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


def test_pwm_parts_may_use_any_gpio(raw):
    """gpiozero's default backend (lgpio) makes PWM in software on any GPIO: a ring or a
    piezo on a pin without hardware PWM is fine."""
    raw["light_ring"]["pin"] = 23
    raw["buzzer"]["pin"] = 22
    pm = validate_pinmap(raw)
    assert pm.light_ring.pin == 23 and pm.buzzer.pin == 22


@pytest.mark.parametrize(
    ("part", "key", "pin", "message"),
    [
        ("slider", "ground", 11, "slider.ground: pin 11 carries BCM 17, not GND"),
        ("status_led", "ground", 2, "status_led.ground: pin 2 carries 5V, not GND"),
        ("light_ring", "supply", 6, "light_ring.supply: pin 6 carries GND, not 5V"),
        ("buzzer", "ground", 41, "buzzer.ground: pin 41 is not on the 40-pin header"),
        ("confirm", "ground", 9, "confirm.ground: pin 9 already has the wire of slider.ground"),
    ],
)
def test_ground_and_supply_pins_are_checked(raw, part, key, pin, message):
    raw[part][key] = pin
    with pytest.raises(PinMapError) as err:
        validate_pinmap(raw)
    assert message in str(err.value)


def test_every_problem_reported_at_once(raw):
    bad = copy.deepcopy(raw)
    bad["buzzer"]["ground"] = 29  # a GPIO, not GND
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
        ("light_ring", "frequency", 0, "outside 50..10000"),
        ("light_ring", "frequency", 20000, "software, up to 10 kHz"),
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
