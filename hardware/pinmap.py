"""Load and check hardware/pinmap.yaml: which GPIO each part of the table is wired to.

The one pin-map loader: the firmware drives the pins from it (firmware.devices) and `pyramid
wiring` draws them from it, so the drawing and the code cannot disagree.

Why a checker: a pin map is edited by hand by people who moved a wire, and a mistake
there (two parts on one pin, a pin that does not exist, a ground wire on a pin that is not GND)
shows up on a Pi as a part that silently does nothing. Here every problem is found at once and
named with the part and the key, before a single pin is touched.

PWM: gpiozero's default backend on Raspberry Pi OS (lgpio) makes PWM in software on any GPIO
(up to 10 kHz), so the light ring and the buzzer may sit on any free GPIO; hardware PWM pins
(:data:`PWM_CAPABLE`) are not required.

The header facts below are the Raspberry Pi's 40-pin header, identical on the Pi 2 B to the Pi 5.
Numbers in the YAML are BCM (Broadcom GPIO) numbers, as gpiozero uses them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

# physical pin -> what it carries: "3V3", "5V", "GND" or a BCM number
HEADER: dict[int, str | int] = {
    1: "3V3",
    2: "5V",
    3: 2,
    4: "5V",
    5: 3,
    6: "GND",
    7: 4,
    8: 14,
    9: "GND",
    10: 15,
    11: 17,
    12: 18,
    13: 27,
    14: "GND",
    15: 22,
    16: 23,
    17: "3V3",
    18: 24,
    19: 10,
    20: "GND",
    21: 9,
    22: 25,
    23: 11,
    24: 8,
    25: "GND",
    26: 7,
    27: 0,
    28: 1,
    29: 5,
    30: "GND",
    31: 6,
    32: 12,
    33: 13,
    34: "GND",
    35: 19,
    36: 16,
    37: 26,
    38: 20,
    39: "GND",
    40: 21,
}
# BCM number -> physical pin
PHYSICAL: dict[int, int] = {bcm: pin for pin, bcm in HEADER.items() if isinstance(bcm, int)}

# BCM pins that can carry hardware PWM on the header (PWM0/PWM1 on a Pi 4; four channels on a
# Pi 5). 12 and 18 share channel PWM0 on a Pi 4, 13 and 19 share PWM1. For information: the
# default backend's PWM is software PWM, on any GPIO.
PWM_CAPABLE: frozenset[int] = frozenset({12, 13, 18, 19})
# lgpio's software PWM (gpiozero's default pin factory on Raspberry Pi OS Bookworm): 0.1..10000 Hz
SOFTWARE_PWM_MAX_HZ = 10_000

# BCM 0/1 talk to a HAT's ID EEPROM at boot: never wire a part there.
FORBIDDEN: dict[int, str] = {0: "ID_SD (HAT EEPROM)", 1: "ID_SC (HAT EEPROM)"}

# Pins of the default buses. Usable as GPIO when that bus is off, so only a warning.
BUS_DEFAULTS: dict[int, str] = {
    2: "I2C1 SDA",
    3: "I2C1 SCL",
    7: "SPI0 CE1",
    8: "SPI0 CE0",
    9: "SPI0 MISO",
    10: "SPI0 MOSI",
    11: "SPI0 SCLK",
    14: "UART TXD",
    15: "UART RXD",
}

# part -> {key: (type, required)}; the schema hardware/pinmap.yaml follows
_SCHEMA: dict[str, dict[str, tuple[type | tuple[type, ...], bool]]] = {
    "slider": {
        "pin": (int, True),
        "ground": (int, False),
        "pull_up": (bool, False),
        "debounce_ms": (int, False),
    },
    "confirm": {
        "pin": (int, True),
        "ground": (int, False),
        "pull_up": (bool, False),
        "debounce_ms": (int, False),
    },
    "status_led": {
        "red": (int, True),
        "green": (int, True),
        "blue": (int, True),
        "ground": (int, False),
        "active_high": (bool, False),
    },
    "light_ring": {
        "pin": (int, True),
        "ground": (int, False),
        "supply": (int, False),
        "frequency": ((int, float), False),
        "brightness": ((int, float), False),
    },
    "buzzer": {"pin": (int, True), "ground": (int, False)},
}


class PinMapError(ValueError):
    """A pin map that cannot be used; ``problems`` lists every problem found, not just the first."""

    def __init__(self, problems: list[str], source: str = "pin map") -> None:
        self.problems = list(problems)
        self.source = source
        super().__init__(f"{source}: " + "; ".join(self.problems))


@dataclass(frozen=True)
class ButtonPins:
    """A switch from a GPIO to GND, read with the Pi's internal pull-up."""

    pin: int
    pull_up: bool = True
    debounce_ms: int = 40
    ground: int | None = None  # physical GND pin of its other wire (None: the drawing picks)


@dataclass(frozen=True)
class RgbLedPins:
    """A common-cathode RGB LED: each anode through its resistor to a GPIO."""

    red: int
    green: int
    blue: int
    active_high: bool = True
    ground: int | None = None  # physical GND pin of the cathode


@dataclass(frozen=True)
class LightRingPins:
    """The gate of the MOSFET that switches the LED ring, driven with PWM."""

    pin: int
    frequency: float = 1000.0
    brightness: float = 0.8
    ground: int | None = None  # physical GND pin of the MOSFET's source
    supply: int | None = None  # physical 5 V pin of the ring's +


@dataclass(frozen=True)
class BuzzerPins:
    """A passive piezo, played with PWM tones."""

    pin: int
    ground: int | None = None  # physical GND pin of its other leg


@dataclass(frozen=True)
class PinMap:
    slider: ButtonPins
    confirm: ButtonPins
    status_led: RgbLedPins
    light_ring: LightRingPins
    buzzer: BuzzerPins

    def uses(self) -> list[tuple[str, int]]:
        """Every (part.key, BCM) this map drives, in the file's order."""
        return [
            ("slider.pin", self.slider.pin),
            ("confirm.pin", self.confirm.pin),
            ("status_led.red", self.status_led.red),
            ("status_led.green", self.status_led.green),
            ("status_led.blue", self.status_led.blue),
            ("light_ring.pin", self.light_ring.pin),
            ("buzzer.pin", self.buzzer.pin),
        ]

    def power_pins(self) -> list[tuple[str, int, str]]:
        """Every (part.key, physical pin, "GND" or "5V") the map names, in the file's order."""
        out: list[tuple[str, int, str]] = []
        for part in ("slider", "confirm", "status_led", "light_ring", "buzzer"):
            entry = getattr(self, part)
            if entry.ground is not None:
                out.append((f"{part}.ground", entry.ground, "GND"))
            if getattr(entry, "supply", None) is not None:
                out.append((f"{part}.supply", entry.supply, "5V"))
        return out

    def warnings(self) -> list[str]:
        """Usable but worth knowing: a part on a default bus pin (that bus must stay off)."""
        return [
            f"{name}: BCM {bcm} (pin {PHYSICAL[bcm]}) is {BUS_DEFAULTS[bcm]}; "
            "keep that bus disabled in /boot/firmware/config.txt"
            for name, bcm in self.uses()
            if bcm in BUS_DEFAULTS
        ]


def validate_pinmap(data: Any, source: str = "pin map") -> PinMap:
    """Check a parsed pin map and build a PinMap, or raise PinMapError naming every problem."""
    if not isinstance(data, Mapping):
        raise PinMapError([f"expected a mapping of parts, got {type(data).__name__}"], source)
    problems: list[str] = []
    for part in data:
        if part not in _SCHEMA:
            problems.append(f"unknown part {part!r} (known: {', '.join(_SCHEMA)})")
    for part, keys in _SCHEMA.items():
        if part not in data:
            problems.append(f"missing part {part!r}")
            continue
        entry = data[part]
        if not isinstance(entry, Mapping):
            problems.append(f"{part}: expected a mapping like {{pin: 17}}, got {entry!r}")
            continue
        for key in entry:
            if key not in keys:
                problems.append(f"{part}: unknown key {key!r} (known: {', '.join(keys)})")
        for key, (kind, required) in keys.items():
            if key not in entry:
                if required:
                    problems.append(f"{part}: missing key {key!r}")
                continue
            value = entry[key]
            # bool is an int in Python: a pin of `true` must not pass as pin 1
            if isinstance(value, bool) and kind is not bool:
                problems.append(f"{part}.{key}: expected a number, got {value!r}")
            elif not isinstance(value, kind):
                want = "true/false" if kind is bool else "a number"
                problems.append(f"{part}.{key}: expected {want}, got {value!r}")
    if problems:
        raise PinMapError(problems, source)

    pinmap = PinMap(
        slider=ButtonPins(**data["slider"]),
        confirm=ButtonPins(**data["confirm"]),
        status_led=RgbLedPins(**data["status_led"]),
        light_ring=LightRingPins(**data["light_ring"]),
        buzzer=BuzzerPins(**data["buzzer"]),
    )
    problems += _pin_problems(pinmap)
    problems += _value_problems(pinmap)
    if problems:
        raise PinMapError(problems, source)
    return pinmap


def _pin_problems(pinmap: PinMap) -> list[str]:
    problems: list[str] = []
    owner: dict[int, str] = {}
    for name, bcm in pinmap.uses():
        if bcm not in PHYSICAL:
            problems.append(f"{name}: BCM {bcm} is not on the 40-pin header (GPIO 0..27 are)")
            continue
        if bcm in FORBIDDEN:
            problems.append(f"{name}: BCM {bcm} is {FORBIDDEN[bcm]}, reserved for HATs")
        if bcm in owner:
            problems.append(
                f"{name}: BCM {bcm} (pin {PHYSICAL[bcm]}) is already used by {owner[bcm]}"
            )
        else:
            owner[bcm] = name
    used = {PHYSICAL[bcm]: name for name, bcm in pinmap.uses() if bcm in PHYSICAL}
    for name, pin, kind in pinmap.power_pins():
        carries = HEADER.get(pin)
        if carries is None:
            problems.append(f"{name}: pin {pin} is not on the 40-pin header (1..40)")
            continue
        if carries != kind:
            what = f"BCM {carries}" if isinstance(carries, int) else carries
            good = ", ".join(str(p) for p, c in HEADER.items() if c == kind)
            problems.append(
                f"{name}: pin {pin} carries {what}, not {kind} (the {kind} pins: {good})"
            )
            continue
        if pin in used:
            problems.append(f"{name}: pin {pin} already has the wire of {used[pin]}")
        else:
            used[pin] = name
    return problems


def _value_problems(pinmap: PinMap) -> list[str]:
    problems: list[str] = []
    for part in ("slider", "confirm"):
        button: ButtonPins = getattr(pinmap, part)
        if not 0 <= button.debounce_ms <= 1000:
            problems.append(f"{part}.debounce_ms: {button.debounce_ms} is outside 0..1000 ms")
        if not button.pull_up:
            problems.append(
                f"{part}.pull_up: false needs an external pull-down and a switch to 3.3 V; "
                "the build guide wires switches to GND, so keep it true"
            )
    ring = pinmap.light_ring
    # below 50 Hz the ring flickers; lgpio's software PWM goes up to 10 kHz
    if not 50 <= ring.frequency <= SOFTWARE_PWM_MAX_HZ:
        problems.append(
            f"light_ring.frequency: {ring.frequency} Hz is outside 50..{SOFTWARE_PWM_MAX_HZ} "
            "(gpiozero's default backend makes PWM in software, up to 10 kHz)"
        )
    if not 0 < ring.brightness <= 1:
        problems.append(f"light_ring.brightness: {ring.brightness} must be above 0, at most 1")
    return problems


def default_pinmap_path() -> Path:
    """hardware/pinmap.yaml of this checkout or installed package."""
    return Path(__file__).with_name("pinmap.yaml")


def load_pinmap(path: str | Path | None = None) -> PinMap:
    """Read and check a pin map file (the shipped one by default)."""
    path = Path(path) if path is not None else default_pinmap_path()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PinMapError([f"cannot read: {exc.strerror or exc}"], str(path)) from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise PinMapError([f"not valid YAML: {exc}"], str(path)) from exc
    return validate_pinmap(data, str(path))
