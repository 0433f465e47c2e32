"""The pin map (hardware/pinmap.yaml) as typed, checked dataclasses.

Why a checked loader: the same file drives the wiring diagram and the firmware, so that the drawing
and the code cannot disagree; a typo or a pin used twice must stop the firmware with a message that
names the part and the key, before any pin is claimed. Numbers are BCM, as gpiozero uses them.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from firmware.config import ConfigError, build_section

# BCM pins on the 40-pin header that a part may use (0/1 are the HAT EEPROM's I2C).
USABLE_PINS = range(2, 28)


@dataclass(frozen=True)
class SwitchPins:
    """A switch wired from a GPIO to GND, read with the Pi's internal pull-up."""

    pin: int
    pull_up: bool = True
    debounce_ms: int = 40


@dataclass(frozen=True)
class RgbLedPins:
    """A common-cathode RGB LED (active_high) or common-anode (active_high: false)."""

    red: int
    green: int
    blue: int
    active_high: bool = True


@dataclass(frozen=True)
class PwmPin:
    """The LED ring behind a logic-level MOSFET, dimmed by PWM."""

    pin: int
    frequency: int = 1000
    brightness: float = 0.8


@dataclass(frozen=True)
class BuzzerPin:
    """A passive piezo: it sounds the PWM frequency it is given."""

    pin: int


@dataclass(frozen=True)
class PinMap:
    slider: SwitchPins
    confirm: SwitchPins
    status_led: RgbLedPins
    light_ring: PwmPin
    buzzer: BuzzerPin
    source: str = "(defaults)"

    def used_pins(self) -> dict[int, str]:
        """BCM pin -> the part using it."""
        return {
            self.slider.pin: "slider",
            self.confirm.pin: "confirm",
            self.status_led.red: "status_led.red",
            self.status_led.green: "status_led.green",
            self.status_led.blue: "status_led.blue",
            self.light_ring.pin: "light_ring",
            self.buzzer.pin: "buzzer",
        }


def default_pinmap_path() -> Path:
    """The pin map shipped with the project (hardware/ is a data package)."""
    return Path(str(resources.files("hardware") / "pinmap.yaml"))


def parse_pinmap(data: Any, source: str = "(pin map)") -> PinMap:
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping of parts to pins, got {data!r}")
    hints = typing.get_type_hints(PinMap)
    parts = [f.name for f in dataclasses.fields(PinMap) if f.name != "source"]
    unknown = sorted(set(data) - set(parts))
    if unknown:
        raise ConfigError(f"{source}: unknown part {unknown[0]!r} (known: {', '.join(parts)})")
    missing = [p for p in parts if p not in data]
    if missing:
        raise ConfigError(f"{source}: no entry for {missing[0]!r}")
    built = {}
    for part in parts:
        cls = hints[part]
        required = [f.name for f in dataclasses.fields(cls)
                    if f.default is dataclasses.MISSING]
        entry = data[part]
        if isinstance(entry, dict):
            for key in required:
                if key not in entry:
                    raise ConfigError(f"{source}: {part}: missing {key!r}")
        built[part] = build_section(cls, entry, f"{source}: {part}")
    pm = PinMap(**built, source=source)
    seen: dict[int, str] = {}
    for name, pin in [
        ("slider.pin", pm.slider.pin),
        ("confirm.pin", pm.confirm.pin),
        ("status_led.red", pm.status_led.red),
        ("status_led.green", pm.status_led.green),
        ("status_led.blue", pm.status_led.blue),
        ("light_ring.pin", pm.light_ring.pin),
        ("buzzer.pin", pm.buzzer.pin),
    ]:
        if pin not in USABLE_PINS:
            raise ConfigError(f"{source}: {name}: BCM {pin} is not a usable GPIO (2..27)")
        if pin in seen:
            raise ConfigError(f"{source}: {name}: BCM {pin} is already used by {seen[pin]}")
        seen[pin] = name
    for name, sw in (("slider", pm.slider), ("confirm", pm.confirm)):
        if not 0 <= sw.debounce_ms <= 1000:
            raise ConfigError(f"{source}: {name}.debounce_ms: must be 0..1000")
    if not 0.0 < pm.light_ring.brightness <= 1.0:
        raise ConfigError(f"{source}: light_ring.brightness: must be above 0 and at most 1")
    if not 50 <= pm.light_ring.frequency <= 40000:
        raise ConfigError(f"{source}: light_ring.frequency: must be 50..40000 Hz")
    return pm


def load_pinmap(path: str | Path | None = None) -> PinMap:
    """Load and check a pin map; ``None`` = the shipped hardware/pinmap.yaml."""
    p = Path(path) if path else default_pinmap_path()
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such pin map") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{p}: not valid YAML: {exc}") from None
    return parse_pinmap(data, source=str(p))
