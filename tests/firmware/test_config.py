"""Config and pin map: sane defaults, and clear errors that say where."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware.config import ConfigError, load_config, parse_config
from firmware.pinmap import load_pinmap, parse_pinmap

GOOD_PINS = {
    "slider": {"pin": 17, "pull_up": True, "debounce_ms": 40},
    "confirm": {"pin": 27, "pull_up": True, "debounce_ms": 40},
    "status_led": {"red": 5, "green": 6, "blue": 13, "active_high": True},
    "light_ring": {"pin": 18, "frequency": 1000, "brightness": 0.8},
    "buzzer": {"pin": 12},
}


def test_no_file_and_an_empty_file_give_the_defaults(tmp_path: Path) -> None:
    empty = tmp_path / "table.toml"
    empty.write_text("")
    for cfg in (load_config(None), load_config(empty)):
        assert cfg.table.id == "table-1"
        assert cfg.camera.kind == "picamera2" and cfg.camera.fps == 30.0
        assert cfg.broker.host == "127.0.0.1" and cfg.broker.port == 1883


def test_a_full_file_is_read(tmp_path: Path) -> None:
    p = tmp_path / "table.toml"
    p.write_text(
        '[table]\nid = "kitchen"\n'
        '[broker]\nurl = "mqtts://fw:s3cret@broker.local"\n'
        '[camera]\nkind = "usb"\nindex = 1\nfps = 25\nreveal_zone = [10, 20, 100, 80]\n'
        '[players]\nnames = ["Ann", "Bob"]\n'
    )
    cfg = load_config(p)
    assert cfg.table.id == "kitchen"
    assert (cfg.broker.host, cfg.broker.port, cfg.broker.use_tls) == ("broker.local", 8883, True)
    assert (cfg.broker.username, cfg.broker.secret) == ("fw", "s3cret")
    assert cfg.camera.kind == "usb" and cfg.camera.index == 1 and cfg.camera.fps == 25.0
    assert cfg.camera.reveal_zone == [10, 20, 100, 80]
    assert cfg.players.names == ["Ann", "Bob"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[camera]\nfsp = 30\n", r"\[camera\]: unknown key 'fsp' \(did you mean 'fps'\?\)"),
        ("[camra]\nfps = 30\n", r"unknown section \[camra\] \(did you mean \[camera\]\?\)"),
        ('[camera]\nfps = "fast"\n', r"\[camera\]\.fps: expected a number, got 'fast'"),
        ("[camera]\nwidth = 12.5\n", r"\[camera\]\.width: expected a whole number"),
        ('[camera]\nkind = "gopro"\n', r"\[camera\] kind: 'gopro' must be one of"),
        ('[camera]\nkind = "replay"\n', r"replay needs a path"),
        ('[table]\nid = "a/b"\n', r"\[table\] id: 'a/b' must be"),
        ('[broker]\nurl = "http://x"\n', r"\[broker\] url: 'http://x' must look like"),
        ('[broker]\nurl = "mqtt://x:99999"\n', r"\[broker\] url: .*Port"),
        ("[players]\ncount = 12\n", r"\[players\] count: must be 2..8"),
        ("[camera]\nreveal_zone = [1, 2]\n", r"reveal_zone"),
        ("[camera\n", r"not valid TOML"),
    ],
)
def test_mistakes_are_named_with_the_file_and_key(tmp_path: Path, text: str,
                                                  expected: str) -> None:
    p = tmp_path / "table.toml"
    p.write_text(text)
    with pytest.raises(ConfigError, match=expected) as err:
        load_config(p)
    assert str(p) in str(err.value)


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(tmp_path / "nope.toml")


def test_overrides_are_validated_like_the_file() -> None:
    cfg = load_config(None).with_overrides(table={"id": "t2"}, camera={"kind": None})
    assert cfg.table.id == "t2" and cfg.camera.kind == "picamera2"
    with pytest.raises(ConfigError, match="fps"):
        cfg.with_overrides(camera={"fps": -1.0})


def test_the_shipped_pin_map_loads() -> None:
    pm = load_pinmap()
    assert pm.slider.pin == 17 and pm.slider.pull_up and pm.slider.debounce_ms == 40
    assert pm.light_ring.pin == 18 and pm.buzzer.pin == 12
    assert len(pm.used_pins()) == 7


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"buzzer": {"pin": 17}}, r"buzzer.pin: BCM 17 is already used by slider.pin"),
        ({"slider": {"pin": 40}}, r"slider.pin: BCM 40 is not a usable GPIO"),
        ({"slider": {"pull_up": True}}, r"slider: missing 'pin'"),
        ({"buzzer": {"pin": 12, "volume": 3}}, r"buzzer: unknown key 'volume'"),
        ({"fan": {"pin": 4}}, r"unknown part 'fan'"),
        ({"light_ring": {"pin": 18, "brightness": 2.0}}, r"brightness: must be above 0"),
    ],
)
def test_pin_map_mistakes_are_named(change: dict, expected: str) -> None:
    data = {**GOOD_PINS, **change}
    with pytest.raises(ConfigError, match=expected):
        parse_pinmap(data, source="pinmap.yaml")


def test_missing_part_and_bad_yaml(tmp_path: Path) -> None:
    data = dict(GOOD_PINS)
    del data["buzzer"]
    with pytest.raises(ConfigError, match="no entry for 'buzzer'"):
        parse_pinmap(data)
    bad = tmp_path / "pins.yaml"
    bad.write_text("slider: {pin: [\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_pinmap(bad)


def test_parse_config_rejects_a_non_table_section() -> None:
    with pytest.raises(ConfigError, match=r"\[camera\]: expected a table"):
        parse_config({"camera": 3})
