"""Config: sane defaults, and clear errors that say where. (The pin map's checks:
tests/hardware/test_pinmap.py; how `pyramid watch` reports them: test_cli.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware.config import ConfigError, load_config, parse_config


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
        ("[camera]\nmains_hz = 55\n", r"\[camera\] mains_hz: must be 50 or 60"),
        ("[camera\n", r"not valid TOML"),
    ],
)
def test_mistakes_are_named_with_the_file_and_key(tmp_path: Path, text: str, expected: str) -> None:
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


def test_parse_config_rejects_a_non_table_section() -> None:
    with pytest.raises(ConfigError, match=r"\[camera\]: expected a table"):
        parse_config({"camera": 3})
