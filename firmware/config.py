"""The table's configuration file (TOML), as typed dataclasses.

Why typed and strict: the config is edited by hand on a Pi over SSH, and a typo such as ``fsp = 30``
would otherwise be silently ignored and the default used. Every section is a frozen dataclass;
an unknown key, a wrong type or an out-of-range value raises :class:`ConfigError` naming the file,
the section and the key (and the nearest known key for a typo). Every setting has a default, so an
empty file — or no file at all — is a valid configuration for a table with the standard wiring.

Example (every key optional)::

    [table]
    id = "kitchen"
    game = "auto"   # auto (the game the hub plays) | camelup | horserace | marcopolo2

    [broker]
    url = "mqtt://192.168.1.20:1883"   # mqtts:// for TLS
    user = "pyramid"
    password = "secret"

    [camera]
    kind = "picamera2"   # picamera2 | usb | replay
    width = 1280
    height = 720
    fps = 30
    full_resolution = true   # picamera2: read the die from the sensor's full-resolution stream
    full_size = []           # its size; [] = the sensor's own (4608x2592 on a Camera Module 3)

    [players]
    names = ["Ann", "Bob", "Cy"]
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import tomllib
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from firmware.games import AUTO, GAMES
from hub.wire import BrokerConfig


class ConfigError(ValueError):
    """A configuration file (or pin map) that cannot be used; the message says where and why."""


TABLE_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
CAMERA_KINDS = ("picamera2", "usb", "replay")
TABLE_GAMES = (AUTO, *GAMES)  # [table] game


@dataclass(frozen=True)
class TableConfig:
    """Which table this is: the MQTT topic prefix is ``camelup/<id>``.

    ``game``: what the camera reads for (firmware.games): "auto" follows the game the hub's
    retained state names (Camel Up while it names none); a table that only plays one game may
    name it."""

    id: str = "table-1"
    game: str = "auto"


@dataclass(frozen=True)
class PinsConfig:
    """Which pin map to use and how to treat the switches."""

    file: str = ""  # empty = the pin map shipped in hardware/pinmap.yaml
    # "auto": real pins on a Raspberry Pi, gpiozero's mock pins elsewhere; "mock": always mock
    factory: str = "auto"
    # "lockout": a press counts at its first edge, then edges are ignored until the switch has
    # been quiet for debounce_ms (instant response). "hold": a level counts only once it has held
    # for debounce_ms (slower by debounce_ms, but a lone spike on a long wire never counts).
    debounce: str = "lockout"


@dataclass(frozen=True)
class CameraConfig:
    """The camera and how its failures are handled."""

    kind: str = "picamera2"
    index: int = 0  # USB camera index (/dev/videoN)
    path: str = ""  # replay: a folder of images, an image or a video
    width: int = 1280
    height: int = 720
    fps: float = 30.0
    warmup_s: float = 1.5  # picamera2: let exposure and white balance converge, then lock them
    # the mains frequency of the room's lights (50 in Europe, 60 in North America): picamera2's
    # locked exposure is a whole number of their flicker periods (10 ms / 8.33 ms), no banding
    mains_hz: int = 50
    # a frame whose mean brightness is below this (0..255) counts as black
    black_level: float = 8.0
    black_frames: int = 30  # this many black frames in a row -> reopen the camera
    freeze_timeout_s: float = 2.0  # no frame for this long -> reopen the camera
    # where the die lands, in image pixels [x, y, w, h]; empty = from the board's markers
    reveal_zone: list[int] = field(default_factory=list)
    # picamera2: the frames watched come from a small stream of width x height, and the die is
    # read from the reveal zone cut from a second, full-resolution stream of the same sensor
    # frame (a die is ~20 px in 1280x720 and only ~60 % read; ~70 px cut from 4608x2592). Only
    # the zone's rows of that stream are ever touched: memory stays that of the small frames.
    full_resolution: bool = True
    # [width, height] of that stream; [] = the sensor's full resolution, cut to the watched
    # frames' aspect ratio. It must have their aspect ratio (the two streams share one crop).
    full_size: list[int] = field(default_factory=list)
    # picamera2 on a camera with a lens motor (Camera Module 3): manual focus at this many
    # dioptres (1 / metres); 0 = from firmware.geometry for the build guide's arm (about 1.5,
    # 670 mm to the reveal zone). `python -m firmware.geometry --height H --setback S` prints it
    # for another placement; `pyramid camera focus D` tries a value on the running service.
    lens_position: float = 0.0


@dataclass(frozen=True)
class WatchConfig:
    """Timings of the watch loop."""

    still_frames: int = 3  # frames in a row without motion before a die is read
    track_still_frames: int = 8  # the same for the track, after hands have left it
    die_timeout_s: float = 15.0  # no settled die this long after a release -> ask a person
    track_timeout_s: float = 30.0
    status_interval_s: float = 5.0
    setup_dice: int = 5  # dice read in setup mode (the starting roll)
    chirps: bool = True
    # the die reader's taught colours (`pyramid calibrate IMAGE` writes them); empty = where
    # calibrate stores them ($PYRAMID_HOME/palette.json, else ~/.config/camel-pyramid/)
    palette: str = ""


@dataclass(frozen=True)
class PlayersConfig:
    """Defaults offered when a game is started at this table."""

    names: list[str] = field(default_factory=list)
    count: int = 4
    advisor: bool = True  # show the advisor's best actions on the dashboard


@dataclass(frozen=True)
class HubConfig:
    """The hub's own settings, for `pyramid hub` started from the same file."""

    http_port: int = 8080
    db: str = ""  # empty = the hub's default location
    pin: str = ""  # the table's PIN for changes from the dashboard; empty = generated


@dataclass(frozen=True)
class Config:
    table: TableConfig = field(default_factory=TableConfig)
    broker: BrokerConfig = field(default_factory=BrokerConfig)
    pins: PinsConfig = field(default_factory=PinsConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    watch: WatchConfig = field(default_factory=WatchConfig)
    players: PlayersConfig = field(default_factory=PlayersConfig)
    hub: HubConfig = field(default_factory=HubConfig)
    source: str = "(defaults)"  # the file this came from, for messages

    def with_overrides(self, **sections: dict[str, Any]) -> Config:
        """A copy with some keys replaced, validated like the file (used by command options)."""
        data: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name == "source":
                continue
            data[f.name] = dataclasses.asdict(getattr(self, f.name))
        for section, values in sections.items():
            if section not in data:
                raise ConfigError(f"no section [{section}]")
            data[section].update({k: v for k, v in values.items() if v is not None})
        return parse_config(data, source=f"{self.source} + command-line options")


def _type_ok(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if origin is list:
        (inner,) = typing.get_args(hint)
        return isinstance(value, list) and all(_type_ok(v, inner) for v in value)
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, hint)


def _type_name(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if origin is list:
        return f"a list of {_type_name(typing.get_args(hint)[0])}"
    return {bool: "true or false", int: "a whole number", float: "a number", str: "a string"}.get(
        hint, str(hint)
    )


def build_section(cls: type, data: Any, where: str) -> Any:
    """Build dataclass ``cls`` from a TOML table, rejecting unknown keys and wrong types."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a table of settings, got {data!r}")
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls) if f.name != "source"]
    kwargs = {}
    for key, value in data.items():
        if key not in names:
            near = difflib.get_close_matches(key, names, n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else f" (known: {', '.join(names)})"
            raise ConfigError(f"{where}: unknown key {key!r}{hint}")
        if not _type_ok(value, hints[key]):
            raise ConfigError(f"{where}.{key}: expected {_type_name(hints[key])}, got {value!r}")
        kwargs[key] = float(value) if hints[key] is float else value
    return cls(**kwargs)


def _check(ok: bool, where: str, message: str) -> None:
    if not ok:
        raise ConfigError(f"{where}: {message}")


def validate(cfg: Config) -> Config:
    """Range checks that a type alone cannot express."""
    src = cfg.source
    _check(
        bool(TABLE_ID_RE.match(cfg.table.id)),
        f"{src}: [table] id",
        f"{cfg.table.id!r} must be 1-64 letters, digits, '-' or '_' (it is an MQTT topic level)",
    )
    _check(
        cfg.table.game in TABLE_GAMES,
        f"{src}: [table] game",
        f"{cfg.table.game!r} must be one of {', '.join(repr(g) for g in TABLE_GAMES)}",
    )
    scheme = urlsplit(cfg.broker.url).scheme
    _check(
        scheme in ("mqtt", "mqtts", "tcp", "ssl"),
        f"{src}: [broker] url",
        f"{cfg.broker.url!r} must look like mqtt://host:1883 or mqtts://host:8883",
    )
    try:
        _ = cfg.broker.port
    except ValueError as exc:
        raise ConfigError(f"{src}: [broker] url: {exc}") from None
    _check(bool(urlsplit(cfg.broker.url).hostname), f"{src}: [broker] url", "names no host")
    _check(cfg.broker.keepalive_s >= 5, f"{src}: [broker] keepalive_s", "must be at least 5")
    _check(
        cfg.pins.factory in ("auto", "mock", "real"),
        f"{src}: [pins] factory",
        f"{cfg.pins.factory!r} must be 'auto', 'mock' or 'real'",
    )
    _check(
        cfg.pins.debounce in ("lockout", "hold"),
        f"{src}: [pins] debounce",
        f"{cfg.pins.debounce!r} must be 'lockout' or 'hold'",
    )
    cam = cfg.camera
    _check(
        cam.kind in CAMERA_KINDS,
        f"{src}: [camera] kind",
        f"{cam.kind!r} must be one of {', '.join(CAMERA_KINDS)}",
    )
    _check(cam.kind != "replay" or bool(cam.path), f"{src}: [camera] path", "replay needs a path")
    _check(0 <= cam.index < 64, f"{src}: [camera] index", "must be 0..63")
    _check(16 <= cam.width <= 4096, f"{src}: [camera] width", "must be 16..4096")
    _check(16 <= cam.height <= 4096, f"{src}: [camera] height", "must be 16..4096")
    _check(0 < cam.fps <= 240, f"{src}: [camera] fps", "must be above 0 and at most 240")
    _check(cam.warmup_s >= 0, f"{src}: [camera] warmup_s", "must not be negative")
    _check(cam.mains_hz in (50, 60), f"{src}: [camera] mains_hz", "must be 50 or 60")
    _check(0 <= cam.black_level < 255, f"{src}: [camera] black_level", "must be 0..254")
    _check(cam.black_frames >= 1, f"{src}: [camera] black_frames", "must be at least 1")
    _check(cam.freeze_timeout_s > 0, f"{src}: [camera] freeze_timeout_s", "must be above 0")
    _check(
        0 <= cam.lens_position <= 15,
        f"{src}: [camera] lens_position",
        "must be 0 (from the arm's height) or up to 15 dioptres",
    )
    _check(
        cam.reveal_zone == []
        or (
            len(cam.reveal_zone) == 4
            and min(cam.reveal_zone[2:]) > 0
            and min(cam.reveal_zone[:2]) >= 0
        ),
        f"{src}: [camera] reveal_zone",
        f"{cam.reveal_zone!r} must be [x, y, width, height] with a positive size, or []",
    )
    _check(
        cam.full_size == []
        or (
            len(cam.full_size) == 2
            and cam.width <= cam.full_size[0] <= 16384
            and cam.height <= cam.full_size[1] <= 16384
        ),
        f"{src}: [camera] full_size",
        f"{cam.full_size!r} must be [] (the sensor's resolution) or [width, height], at least "
        f"the watched frames' {cam.width}x{cam.height} and at most 16384 a side",
    )
    if len(cam.full_size) == 2:
        fw, fh = cam.full_size
        _check(
            abs(fw / fh - cam.width / cam.height) <= 0.01 * cam.width / cam.height,
            f"{src}: [camera] full_size",
            f"{fw}x{fh} must have the aspect ratio of width x height ({cam.width}x{cam.height}): "
            "both streams show the same part of the sensor",
        )
    w = cfg.watch
    _check(1 <= w.still_frames <= 300, f"{src}: [watch] still_frames", "must be 1..300")
    _check(1 <= w.track_still_frames <= 300, f"{src}: [watch] track_still_frames", "1..300")
    _check(w.die_timeout_s > 0, f"{src}: [watch] die_timeout_s", "must be above 0")
    _check(w.track_timeout_s > 0, f"{src}: [watch] track_timeout_s", "must be above 0")
    _check(w.status_interval_s > 0, f"{src}: [watch] status_interval_s", "must be above 0")
    _check(1 <= w.setup_dice <= 10, f"{src}: [watch] setup_dice", "must be 1..10")
    p = cfg.players
    _check(2 <= p.count <= 8, f"{src}: [players] count", "must be 2..8")
    _check(
        len(set(p.names)) == len(p.names) and all(n.strip() for n in p.names),
        f"{src}: [players] names",
        "must be distinct, non-empty names",
    )
    _check(len(p.names) <= 8, f"{src}: [players] names", "at most 8 players")
    _check(0 < cfg.hub.http_port < 65536, f"{src}: [hub] http_port", "must be 1..65535")
    return cfg


def parse_config(data: dict[str, Any], source: str = "(defaults)") -> Config:
    """A validated :class:`Config` from already-parsed TOML data."""
    hints = typing.get_type_hints(Config)
    sections = [f.name for f in dataclasses.fields(Config) if f.name != "source"]
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key not in sections:
            near = difflib.get_close_matches(key, sections, n=1)
            hint = f" (did you mean [{near[0]}]?)" if near else f" (known: {', '.join(sections)})"
            raise ConfigError(f"{source}: unknown section [{key}]{hint}")
        kwargs[key] = build_section(hints[key], value, f"{source}: [{key}]")
    return validate(Config(**kwargs, source=source))


def load_config(path: str | Path | None) -> Config:
    """Read a TOML file; ``None`` gives the defaults. Errors name the file and the key."""
    if path is None:
        return validate(Config())
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such configuration file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{p}: cannot read it: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: not valid TOML: {exc}") from None
    return parse_config(data, source=str(p))
