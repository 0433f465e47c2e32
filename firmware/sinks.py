"""Where the watch loop's observations go: the hub in this process, the hub over MQTT, or a list.

The firmware only observes; the hub decides what an observation means for the game. Every sink
sends the same JSON-ready payloads (built by :func:`payload`), so a hub on this Pi and a hub on
another machine see exactly the same thing:

* ``release``: ``{"ts": <unix time of the slider edge>}``
* ``die``: ``{"ts", "colour", "face", "confidence", "face_confidence", "colour_confidence",
  "box", "reason", "mode", "crop_jpeg": <base64 JPEG text or null>}`` (flat: the hub's
  ``observe_die`` reads the reading's fields at the top level)
* ``track``: ``{"ts", "track": {"3": ["blue", "green"]}, "desert", "confidence", "uncertain",
  "reason"}``
* ``dice``: ``{"ts", "readings": [{"colour", "face", "confidence", "box"}, ...]}``: every die of
  one frame (Marco Polo II's round start), boxes in the frame's pixels
* ``status``: the health snapshot (firmware.health), retained over MQTT.

Over MQTT they are requests
``camelup/<table>/request/observe_release|observe_die|observe_track|observe_dice`` (QoS 1, each
with a ``transaction`` id the hub echoes on ``response/<cmd>``) and the retained
``camelup/<table>/firmware/status`` (last will: ``{"state": "offline"}``).

A sink also tells the loop what it knows of the hub: the dice still in the pyramid
(:meth:`ObservationSink.dice_left`) and the game the table plays (:meth:`ObservationSink.game`),
over MQTT from the hub's retained ``camelup/<table>/state``.
"""

from __future__ import annotations

import itertools
import json
import logging
import ssl
import sys
import threading
import time
import uuid
from typing import IO, Any

from firmware.games import game_of_state
from hub.observations import OBSERVATION_COMMANDS
from hub.wire import (
    BrokerConfig,
    DiceObservation,
    DieObservation,
    Observation,
    ReleaseObservation,
    Topics,
    TrackObservation,
)

log = logging.getLogger(__name__)

#: an observation's kind -> its hub command (status goes to its own retained topic instead)
KIND_TO_COMMAND = {k: v for k, v in OBSERVATION_COMMANDS.items() if k != "status"}


def payload(kind: str, *, ts: float | None = None, reading: dict | None = None,
            crop_jpeg: bytes | None = None, health: dict | None = None,
            readings: list[dict] | None = None) -> dict[str, Any]:
    """The JSON-ready payload of one observation (see the module's docstring)."""
    if kind == "status":
        return dict(health or {})
    message: Observation
    if kind == "die":
        message = DieObservation(reading or {}, crop_jpeg, ts)
    elif kind == "track":
        message = TrackObservation(reading or {}, ts)
    elif kind == "dice":
        message = DiceObservation(readings or [], ts)
    elif kind == "release":
        message = ReleaseObservation(ts)
    else:
        raise ValueError(f"unknown observation kind {kind!r}")
    return message.to_payload()


class ObservationSink:
    """The interface: five observations and ``close()``. Subclasses implement :meth:`send`.

    ``send`` must not raise into the watch loop: a sink that cannot deliver logs it and counts it
    in ``failures`` (the loop reports it in its status).
    """

    failures = 0

    def dice_left(self) -> list[str] | None:
        """The colours still in the pyramid as the hub last said, or None if not known (then the
        die reader considers every colour). A sink must return None rather than a stale list:
        a die outside the list could not be read as itself."""
        return None

    def game(self) -> str | None:
        """The game the hub says the table plays ("camelup", "horserace", "marcopolo2"), or None
        if not known (no game, or a sink that does not hear the hub): firmware.games decides."""
        return None

    def pyramid_released(self, ts: float) -> None:
        self.send("release", payload("release", ts=ts))

    def die_read(self, reading: dict, crop_jpeg: bytes | None) -> None:
        self.send("die", payload("die", reading=reading, crop_jpeg=crop_jpeg,
                                 ts=reading.get("ts")))

    def track_read(self, reading: dict) -> None:
        self.send("track", payload("track", reading=reading, ts=reading.get("ts")))

    def dice_read(self, readings: list[dict], ts: float | None = None) -> None:
        """Every die reading of one frame (firmware.games.dice_frame_readings' fields)."""
        self.send("dice", payload("dice", readings=readings, ts=ts))

    def status(self, health: dict) -> None:
        self.send("status", payload("status", health=health))

    def send(self, kind: str, data: dict[str, Any]) -> None:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self) -> ObservationSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RecordingSink(ObservationSink):
    """Keeps every observation in memory: for tests and for driving the loop by hand."""

    def __init__(self) -> None:
        self.records: list[tuple[str, dict[str, Any]]] = []
        self.times: list[float] = []
        self.left: list[str] | None = None  # what dice_left() answers (set by a test)
        self.hub_game: str | None = None  # what game() answers (set by a test)
        self._cond = threading.Condition()

    def dice_left(self) -> list[str] | None:
        return None if self.left is None else list(self.left)

    def game(self) -> str | None:
        return self.hub_game

    def send(self, kind: str, data: dict[str, Any]) -> None:
        with self._cond:
            self.records.append((kind, data))
            self.times.append(time.monotonic())  # when it arrived, for latency checks
            self._cond.notify_all()

    def of(self, kind: str) -> list[dict[str, Any]]:
        with self._cond:
            return [d for k, d in self.records if k == kind]

    def wait_for(self, kind: str, count: int = 1, timeout: float = 5.0) -> list[dict[str, Any]]:
        """Wait until ``count`` observations of ``kind`` arrived; returns them (maybe fewer)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                got = [d for k, d in self.records if k == kind]
                remaining = deadline - time.monotonic()
                if len(got) >= count or remaining <= 0:
                    return got
                self._cond.wait(remaining)


class PrintSink(ObservationSink):
    """One JSON line per observation on a stream: try the firmware without a hub or broker."""

    def __init__(self, stream: IO[str] | None = None, with_status: bool = False) -> None:
        self.stream = stream or sys.stdout
        self.with_status = with_status

    def send(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "status" and not self.with_status:
            return
        shown = dict(data)
        if shown.get("crop_jpeg"):
            shown["crop_jpeg"] = f"<{len(shown['crop_jpeg'])} base64 chars>"
        print(json.dumps({"kind": kind, **shown}), file=self.stream, flush=True)


class InProcessSink(ObservationSink):
    """Hands observations to a hub session in this process: ``session.observe(kind, payload)``.

    Kinds are the hub's: "release", "die", "track", "dice", "status".
    """

    def __init__(self, session: Any) -> None:
        self.session = session
        self.failures = 0
        self.last_error: str | None = None

    def dice_left(self) -> list[str] | None:
        """From the session's game (``session.game.state.dice_left``): current, since
        ``observe`` has applied the last die before it returned."""
        try:
            left = self.session.game.state.dice_left
        except AttributeError:  # no game yet, or a session without one
            return None
        return [str(c) for c in left] or None

    def game(self) -> str | None:
        """The kind of the session's current game (None with no game)."""
        if getattr(self.session, "game", None) is None:
            return None
        kind = getattr(self.session, "kind", None)
        return kind if isinstance(kind, str) else None

    def send(self, kind: str, data: dict[str, Any]) -> None:
        try:
            answer = self.session.observe(kind, data)
        except Exception as exc:  # the hub failing must not stop the loop
            self.failures += 1
            self.last_error = f"hub failed on {kind}: {type(exc).__name__}: {exc}"
            log.warning("%s", self.last_error)
            return
        if isinstance(answer, dict) and answer.get("ok") is False:
            self.failures += 1
            self.last_error = f"hub refused {kind}: {answer.get('error')}"
            log.warning("%s", self.last_error)


class MqttSink(ObservationSink):
    """Publishes observations to the hub over MQTT (paho-mqtt 2.x, reconnecting by itself).

    QoS 1 messages published while the broker is away are kept by paho and sent when the
    connection comes back; the retained status is published again on every connect.
    """

    def __init__(self, table: str, broker: BrokerConfig, *, client_id: str | None = None) -> None:
        import paho.mqtt.client as mqtt

        self.table = table
        self.topics = Topics(table)
        self.prefix = self.topics.base
        self.status_topic = self.topics.firmware_status
        self.failures = 0
        self.connected = threading.Event()
        self._last_status: str | None = None
        self.state_topic = self.topics.state
        self._dice_left: list[str] | None = None
        self._game: str | None = None  # state.game.game of the retained state
        self._state_at = -1.0  # time.monotonic() the retained state last arrived
        self._die_sent_at = -1.0  # ... and our last die was published
        self._txn = itertools.count(1)
        self._session = uuid.uuid4().hex[:8]
        self._client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=client_id or f"pyramid-firmware-{table}-{self._session}",
        )
        if broker.username:
            self._client.username_pw_set(broker.username, broker.secret or None)
        if broker.use_tls:
            self._client.tls_set(ca_certs=broker.ca_file or None,
                                 cert_reqs=ssl.CERT_REQUIRED)
        self._client.will_set(self.status_topic, json.dumps({"table": table, "state": "offline"}),
                              qos=1, retain=True)
        self._client.reconnect_delay_set(min_delay=1, max_delay=10)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        self._client.connect_async(broker.host, broker.port, keepalive=broker.keepalive_s)
        self._client.loop_start()
        log.info("MQTT: connecting to %s:%s as table %s", broker.host, broker.port, table)

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("MQTT: connection refused: %s", reason)
            return
        log.info("MQTT: connected")
        self.connected.set()
        # the hub's retained public state: the game played, which dice are still in the pyramid
        client.subscribe(self.state_topic, qos=1)
        if self._last_status is not None:  # a restarted broker gets the retained status back
            client.publish(self.status_topic, self._last_status, qos=1, retain=True)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        self.connected.clear()
        log.warning("MQTT: disconnected (%s); paho reconnects by itself", reason)

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        if msg.topic != self.state_topic:
            return
        try:
            state = json.loads(msg.payload or b"null")
            game = state.get("game") if isinstance(state, dict) else None
            left = game.get("dice_left") if isinstance(game, dict) else None
            ok = isinstance(left, list) and all(isinstance(c, str) for c in left)
        except ValueError:
            state, ok, left = None, False, None
        self._dice_left = list(left) if ok and left else None
        before, self._game = self._game, game_of_state(state)
        if self._game != before:
            log.info("MQTT: the hub's state names the game %s", self._game or "(none)")
        self._state_at = time.monotonic()

    def dice_left(self) -> list[str] | None:
        """``game.dice_left`` of the retained ``camelup/<table>/state``, but only if that state
        came after our last die: an older one may not have that die taken out yet (or be the
        leg before, when all dice go back into the pyramid)."""
        if self._state_at <= self._die_sent_at:
            return None
        return None if self._dice_left is None else list(self._dice_left)

    def game(self) -> str | None:
        """``state.game.game`` of the last retained state (None: no game, or none heard)."""
        return self._game

    def wait_connected(self, timeout: float = 5.0) -> bool:
        return self.connected.wait(timeout)

    def send(self, kind: str, data: dict[str, Any]) -> None:
        try:
            if kind == "status":
                text = json.dumps(data)
                self._last_status = text
                self._client.publish(self.status_topic, text, qos=1, retain=True)
                return
            if kind == "die":
                self._die_sent_at = time.monotonic()
            message = {"transaction": f"fw-{self._session}-{next(self._txn)}", **data}
            topic = self.topics.observation(kind)
            self._client.publish(topic, json.dumps(message), qos=1)
        except Exception as exc:
            self.failures += 1
            log.warning("MQTT: cannot publish %s: %s", kind, exc)

    def close(self) -> None:
        try:
            info = self._client.publish(
                self.status_topic, json.dumps({"table": self.table, "state": "offline"}),
                qos=1, retain=True)
            if self.connected.is_set():
                info.wait_for_publish(timeout=2.0)
        except Exception:
            pass
        self._client.disconnect()
        self._client.loop_stop()
