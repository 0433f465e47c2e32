"""Home Assistant MQTT device discovery for a table (one device, several entities).

Why device discovery (``homeassistant/device/<id>/config``): one retained message describes the
whole table — leg, player to move, leader, status, and one money sensor per player — instead of a
message per entity. Home Assistant forgets retained discovery when it restarts without a
persistent broker, and announces itself on ``homeassistant/status`` ("online"): the bridge then
sends this again. Players change with every game; a player who left is removed by sending their
component with its platform only, as Home Assistant asks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from importlib import metadata
from typing import Any

from hub.games_glue.base import Sensor
from hub.wire import DiscoveryMessage, HaComponent, HaDevice, HaOrigin

__all__ = ["discovery_topic", "discovery_payload", "discovery_message", "STATUS_TOPIC"]

STATUS_TOPIC = "homeassistant/status"


def _version() -> str:
    """The installed package's version (pyproject.toml its one source), shown in Home Assistant."""
    try:
        return metadata.version("camel-pyramid")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


VERSION = _version()


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9_]+", "_", text.lower()).strip("_") or "x"


def player_key(name: str) -> str:
    """A Home Assistant id part unique per player: the slug, plus a short hash of the exact name
    whenever the slug lost something (李 and 王 both slug to "x"; Ann and ann to "ann")."""
    import hashlib

    slug = _slug(name)
    if slug == name:
        return slug
    return f"{slug}_{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def device_id(table: str) -> str:
    return f"camel_pyramid_{_slug(table)}"


def discovery_topic(table: str, prefix: str = "homeassistant") -> str:
    return f"{prefix}/device/{device_id(table)}/config"


def discovery_payload(
    table: str,
    players: list[str],
    base: str,
    removed: list[str] | None = None,
    sensors: Sequence[Sensor] = (),
    removed_sensors: Sequence[Sensor] = (),
) -> dict[str, Any]:
    """The device config's JSON object (:func:`discovery_message`)."""
    return discovery_message(table, players, base, removed, sensors, removed_sensors).to_payload()


def discovery_message(
    table: str,
    players: list[str],
    base: str,
    removed: list[str] | None = None,
    sensors: Sequence[Sensor] = (),
    removed_sensors: Sequence[Sensor] = (),
) -> DiscoveryMessage:
    """The device config: ``base`` is the table's topic prefix (``camelup/<table>``).

    ``sensors`` are the current game's (its driver's ``sensors()``), between the table's own
    status/game and seq; those of the game before (``removed_sensors``) not among them are
    removed, as players who left are."""
    dev = device_id(table)
    state = f"{base}/state"

    def sensor(key: str, name: str, template: str, **extra: Any) -> tuple[str, HaComponent]:
        return f"{dev}_{key}", HaComponent(
            "sensor",
            name=name,
            unique_id=f"{dev}_{key}",
            state_topic=state,
            value_template=template,
            **extra,
        )

    comps = dict(
        [
            sensor("status", "Status", "{{ value_json.status }}", icon="mdi:cards-playing"),
            sensor("game", "Game", "{{ value_json.game_id or 'none' }}"),
            *(sensor(s.key, s.name, s.template, **s.extra) for s in sensors),
            sensor("seq", "Events", "{{ value_json.seq }}", entity_category="diagnostic"),
        ]
    )
    for gone in removed_sensors:
        if f"{dev}_{gone.key}" not in comps:
            comps[f"{dev}_{gone.key}"] = HaComponent.removed()
    for name in players:
        key = f"score_{player_key(name)}"
        comps[f"{dev}_{key}"] = HaComponent(
            "sensor",
            name=f"{name} money",
            unique_id=f"{dev}_{key}",
            state_topic=f"{base}/score/{name}",
            unit_of_measurement="coins",
            state_class="measurement",
            icon="mdi:cash",
        )
    for name in removed or []:
        if name not in players:
            comps[f"{dev}_score_{player_key(name)}"] = HaComponent.removed()
    return DiscoveryMessage(
        device=HaDevice(
            identifiers=[dev],
            name=f"Camel Pyramid {table}",
            manufacturer="Camel Pyramid",
            model="table hub",
            sw_version=VERSION,
        ),
        origin=HaOrigin(name="camel-pyramid", sw_version=VERSION),
        availability_topic=f"{base}/available",
        qos=1,
        components=comps,
    )
