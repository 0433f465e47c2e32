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
``camelup/<table>/request/observe_release|observe_die|observe_track|observe_dice`` (QoS 1) and the
retained ``camelup/<table>/firmware/status`` (last will: ``{"state": "offline"}``). Each request
carries a ``request_id`` and ``reply_to`` (the sink's client id): the hub answers on
``camelup/<table>/reply/<client id>/<cmd>``, which the broker lets only this client read. Nothing
is lost: the sink keeps every reading until its answer comes and sends it again, with the same
id, with back-off (1 s, 2 s, 4 s ... 30 s) while the hub or the broker is away (a broker restarted
without persistence has forgotten the hub's subscription until the hub reconnects). The hub logs
each id with the reading's events, so a reading sent twice is applied once.

A sink also tells the loop what it knows of the hub: the dice still in the pyramid
(:meth:`ObservationSink.dice_left`) and the game the table plays (:meth:`ObservationSink.game`),
over MQTT from the hub's retained ``camelup/<table>/state``.
"""

from __future__ import annotations

import collections
import itertools
import json
import logging
import sys
import threading
import time
import uuid
from typing import IO, Any

from firmware.games import game_of_state
from hub.observations import OBSERVATION_COMMANDS
from hub.wire import (
    Answer,
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


def payload(
    kind: str,
    *,
    ts: float | None = None,
    reading: dict[str, Any] | None = None,
    crop_jpeg: bytes | None = None,
    health: dict[str, Any] | None = None,
    readings: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
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

    def die_read(self, reading: dict[str, Any], crop_jpeg: bytes | None) -> None:
        self.send("die", payload("die", reading=reading, crop_jpeg=crop_jpeg, ts=reading.get("ts")))

    def track_read(self, reading: dict[str, Any]) -> None:
        self.send("track", payload("track", reading=reading, ts=reading.get("ts")))

    def dice_read(self, readings: list[dict[str, Any]], ts: float | None = None) -> None:
        """Every die reading of one frame (firmware.games.dice_frame_readings' fields)."""
        self.send("dice", payload("dice", readings=readings, ts=ts))

    def status(self, health: dict[str, Any]) -> None:
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


#: The first resend of an unanswered reading, and the longest wait between two.
RESEND_FIRST_S = 1.0
RESEND_MAX_S = 30.0
#: The unanswered readings kept at most (the oldest is given up, counted in ``failures``).
MAX_UNANSWERED = 1000


class _Pending:
    """A reading sent and not yet answered: resent with the same id until the hub answers."""

    __slots__ = ("topic", "body", "due", "wait", "sends", "since")

    def __init__(self, topic: str, body: str, now: float, first: float) -> None:
        self.topic, self.body, self.since = topic, body, now
        self.wait = first
        self.due = now + first
        self.sends = 1


class MqttSink(ObservationSink):
    """Publishes observations to the hub over MQTT (paho-mqtt 2.x, reconnecting by itself).

    QoS 1 messages published while the broker is away are kept by paho and sent when the
    connection comes back; a reading the hub has not answered is sent again (same id) until it
    is (see the module docstring); the retained status is published again on every connect.
    """

    def __init__(
        self,
        table: str,
        broker: BrokerConfig,
        *,
        client_id: str | None = None,
        resend_first_s: float = RESEND_FIRST_S,
    ) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

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
        self.client_id = client_id or f"pyramid-firmware-{table}-{self._session}"
        self.reply_topic = self.topics.topic(f"reply/{self.client_id}/+")
        self._pending: dict[str, _Pending] = {}  # request id -> the unanswered reading
        self._pending_lock = threading.Lock()
        self._resend_first = resend_first_s
        self.answers = 0  # readings answered by the hub
        self.resends = 0  # readings sent again for want of an answer
        self.replayed = 0  # ... whose answer said the hub had already applied them
        self.latencies: collections.deque[float] = collections.deque(maxlen=1000)  # s to answer
        self._closing = threading.Event()
        self._client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
        )
        if broker.username:
            self._client.username_pw_set(broker.username, broker.secret or None)
        if broker.use_tls:
            import ssl  # here, not at the top: a plain broker's watch never loads OpenSSL

            self._client.tls_set(ca_certs=broker.ca_file or None, cert_reqs=ssl.CERT_REQUIRED)
        self._client.will_set(
            self.status_topic, json.dumps({"table": table, "state": "offline"}), qos=1, retain=True
        )
        self._client.reconnect_delay_set(min_delay=1, max_delay=10)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        self._client.connect_async(broker.host, broker.port, keepalive=broker.keepalive_s)
        self._client.loop_start()
        self._resender = threading.Thread(
            target=self._resend_loop, daemon=True, name=f"firmware-resend-{table}"
        )
        self._resender.start()
        log.info("MQTT: connecting to %s:%s as table %s", broker.host, broker.port, table)

    def _on_connect(
        self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("MQTT: connection refused: %s", reason)
            return
        log.info("MQTT: connected")
        self.connected.set()
        # the hub's retained public state: the game played, which dice are still in the pyramid
        client.subscribe([(self.state_topic, 1), (self.reply_topic, 1)])
        if self._last_status is not None:  # a restarted broker gets the retained status back
            client.publish(self.status_topic, self._last_status, qos=1, retain=True)

    def _on_disconnect(
        self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any
    ) -> None:
        self.connected.clear()
        log.warning("MQTT: disconnected (%s); paho reconnects by itself", reason)

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        if msg.topic != self.state_topic:
            self._on_answer(msg.payload)
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

    def _on_answer(self, raw: bytes) -> None:
        """The hub answered a reading (on our reply topic): stop sending it."""
        try:
            answer = Answer.from_payload(json.loads(raw or b"null"))
        except ValueError:  # not JSON, or not an answer
            return
        rid = answer.request_id
        with self._pending_lock:
            done = self._pending.pop(rid, None) if rid is not None else None
        if done is not None:
            self.answers += 1
            self.replayed += bool(answer.replayed)
            self.latencies.append(time.monotonic() - done.since)
            if not answer.ok:
                log.warning("MQTT: the hub refused a reading: %s", answer.error)

    @property
    def unanswered(self) -> int:
        """Readings sent that the hub has not answered yet."""
        with self._pending_lock:
            return len(self._pending)

    def wait_answered(self, timeout: float = 10.0) -> bool:
        """Wait until the hub answered every reading sent (tests, shutdown)."""
        deadline = time.monotonic() + timeout
        while self.unanswered and time.monotonic() < deadline:
            time.sleep(0.02)
        return not self.unanswered

    def _resend_loop(self) -> None:
        while not self._closing.wait(0.1):
            if not self.connected.is_set():
                continue  # paho sends what it holds on reconnect; the due ones follow
            now = time.monotonic()
            with self._pending_lock:
                due = [(rid, p) for rid, p in self._pending.items() if p.due <= now]
                for _, p in due:
                    p.wait = min(p.wait * 2, RESEND_MAX_S)
                    p.due = now + p.wait
                    p.sends += 1
            for rid, p in due:
                try:
                    self._client.publish(p.topic, p.body, qos=1)
                    self.resends += 1
                    log.info("MQTT: no answer to %s yet: sent again", rid)
                except Exception as exc:
                    log.warning("MQTT: cannot send %s again: %s", rid, exc)

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
            rid = f"fw-{self._session}-{next(self._txn)}"
            message = {"transaction": rid, "request_id": rid, "reply_to": self.client_id, **data}
            topic = self.topics.observation(kind)
            body = json.dumps(message)
            with self._pending_lock:  # kept before it is sent: an answer may come at once
                self._pending[rid] = _Pending(topic, body, time.monotonic(), self._resend_first)
                if len(self._pending) > MAX_UNANSWERED:
                    oldest = next(iter(self._pending))
                    del self._pending[oldest]
                    self.failures += 1
                    log.warning("MQTT: %s never answered: given up", oldest)
            self._client.publish(topic, body, qos=1)
        except Exception as exc:
            self.failures += 1
            log.warning("MQTT: cannot publish %s: %s", kind, exc)

    def close(self) -> None:
        self._closing.set()
        try:
            info = self._client.publish(
                self.status_topic,
                json.dumps({"table": self.table, "state": "offline"}),
                qos=1,
                retain=True,
            )
            if self.connected.is_set():
                info.wait_for_publish(timeout=2.0)
        except Exception:
            pass
        self._client.disconnect()
        self._client.loop_stop()
