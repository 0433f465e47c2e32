"""The MQTT bridge of one table: events out, retained state, scores and tallies, requests in.

Why it is built this way (Frigate's conventions, paho-mqtt 2.x):

- ``connect_async`` + ``loop_start``: paho reconnects by itself; the hub never waits for the
  broker. ``available`` is retained with a last will of ``offline``.
- Every retained topic (available, state, scores, leg tallies, Home Assistant discovery) is
  published again on every connect, so a restarted broker gets it all back.
- Events are QoS 1 and delivered in seq order, even across a broker outage: while the broker is
  away, events wait in the bridge's outbox; on reconnect, paho first re-sends what was in flight,
  and only when all of that is acknowledged (``on_publish``) does the outbox drain, in order.
- A hub killed before the broker acknowledged some events sends them again on its next start:
  the highest contiguously acknowledged seq is kept in the store (``mqtt_acked/<table>``). A
  receiver may so see an event twice; ``seq`` lets it drop the second.
- Requests (``request/<cmd>``) are handled on a worker thread, never on paho's network thread, and
  answered with the request's ``transaction`` on ``reply/<client id>/<cmd>`` when the request
  names its ``reply_to`` (its client id: the broker's ACL lets only that client read it), else
  on ``response/<cmd>`` (kept for older clients; only the firmware and controller read it).
- Applied once: a request is acknowledged to the broker only after it is answered (manual ack),
  so a hub that dies in between gets it again; its ``request_id``, logged with its events in one
  transaction (hub.requests), makes the second delivery answer the first answer and change
  nothing.

Fault injection (tests only): with the environment variable ``PYRAMID_TEST_KILL_BEFORE_ACK`` set
to a command name, the hub kills itself (SIGKILL) right after applying such a request, before
answering and acknowledging it: the crash the applied-once log is for
(tests/security/test_once_mqtt.py). Unset, nothing of it runs.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import signal
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from hub.bus import Envelope
from hub.games_glue import Sensor
from hub.mqtt import discovery
from hub.wire import (
    TOPIC_PREFIX,
    Answer,
    BrokerConfig,
    RequestEnvelope,
    StateMessage,
    Topics,
    parse_broker_url,
    score_payload,
)

if TYPE_CHECKING:
    from hub.session import TableSession

log = logging.getLogger(__name__)

__all__ = ["BrokerConfig", "MqttBridge", "parse_broker_url"]


SESSION_EXPIRY_S = 24 * 3600  # the broker keeps the hub's subscriptions and queued requests
KILL_BEFORE_ACK_ENV = "PYRAMID_TEST_KILL_BEFORE_ACK"


#: a request to the request thread: (cmd, payload, mid, qos) from the broker, which is acked
#: once answered, or (what, payload) of the hub's own ("__discovery__", "__status__")
_Request = tuple[str, bytes, int, int] | tuple[str, bytes]


def _json(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":"), sort_keys=False).encode()


class MqttBridge:
    """Connects one :class:`TableSession` to a broker. ``start()``, then ``stop()``."""

    def __init__(
        self,
        session: TableSession,
        broker: str | BrokerConfig,
        *,
        prefix: str = TOPIC_PREFIX,
        discovery_prefix: str | None = "homeassistant",
        client_id: str | None = None,
        keepalive: int = 30,
        state_odds: bool = True,
        mark_interval: float = 1.0,
        trusted_requests: bool = False,
    ) -> None:
        self.session = session
        # the broker's ACL lets only trusted users (hub.mqtt.access: the controller, the
        # firmware for its observations) write the request topics: their requests need no PIN
        self.trusted_requests = trusted_requests
        self.config = broker if isinstance(broker, BrokerConfig) else parse_broker_url(broker)
        self.topics = Topics(session.table_id, prefix)
        self.base = self.topics.base
        self.discovery_prefix = discovery_prefix
        self.keepalive = keepalive
        self.state_odds = state_odds
        self.mark_interval = mark_interval
        # a fixed client id and a persistent MQTT 5 session (clean start off, a session expiry):
        # QoS 1 requests sent while the hub restarts wait for it at the broker
        self.client_id = client_id or f"camel-pyramid-hub-{session.table_id}"
        # guards the outbox and the in-flight map; never held while calling into paho (paho
        # holds its own locks while it calls on_publish)
        self._lock = threading.Condition()
        self._early: set[int] = set()  # acks that came before publish() returned the mid
        self._sending = 0
        self._online = False
        self._draining = False
        self._outbox: deque[Envelope] = deque()
        self._inflight: dict[int, int | None] = {}  # paho mid -> event seq (None: retained)
        self._mark_key = f"mqtt_acked/{session.table_id}"
        self._acked_upto = int(session.store.get_meta(self._mark_key, "0") or 0)
        self._acked_above: set[int] = set()
        self._mark_saved = self._acked_upto
        self._dirty = threading.Event()
        self._force = True  # republish every retained topic at the next state update
        self._stopping = threading.Event()
        self._requests: queue.Queue[_Request | None] = queue.Queue()  # None: stop
        self._scores: dict[str, Any] = {}
        self._tallies: dict[int, bytes] = {}
        self._disc_players: list[str] = []
        self._disc_sensors: list[Sensor] = []
        self._unsubscribe: Callable[[], None] | None = None
        self._threads: list[threading.Thread] = []
        self.connected = threading.Event()
        self.connects = 0
        self.retained_rounds = 0  # full republishes of the retained topics (one per connect)
        self.events_sent = 0
        self.events_refused = 0  # events the wire refused (see _refuse): logged, never sent
        self.requests_handled = 0
        self._kill_before_ack = os.environ.get(KILL_BEFORE_ACK_ENV) or None  # tests only
        self.client = self._make_client()

    # -- topics ------------------------------------------------------------------------------

    def topic(self, name: str) -> str:
        return self.topics.topic(name)

    # -- lifecycle ---------------------------------------------------------------------------

    def _make_client(self) -> mqtt.Client:
        # manual_ack: a request is acknowledged to the broker only once it is answered, so one
        # that reached a hub stopping (or dying) before it was handled is delivered again
        c = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            protocol=mqtt.MQTTv5,
            manual_ack=True,
        )
        c.max_inflight_messages_set(100)
        c.will_set(self.topics.available, "offline", qos=1, retain=True)
        if self.config.username:
            c.username_pw_set(self.config.username, self.config.secret)
        if self.config.use_tls:
            c.tls_set(cert_reqs=ssl.CERT_REQUIRED)
        c.reconnect_delay_set(1, 5)
        c.on_connect = self._on_connect
        c.on_subscribe = self._on_subscribe
        c.on_disconnect = self._on_disconnect
        c.on_publish = self._on_publish
        c.on_message = self._on_message
        return c

    def start(self) -> MqttBridge:
        # Events logged but never acknowledged by a broker (the hub died first) go out first;
        # holding the session lock while subscribing means none is missed or sent twice.
        with self.session.lock:
            for env in self.session.events_since(self._acked_upto):
                self._outbox.append(env)
            self._unsubscribe = self.session.bus.subscribe(self._on_envelope)
        for target, name in (
            (self._send_loop, "send"),
            (self._state_loop, "state"),
            (self._request_loop, "requests"),
        ):
            t = threading.Thread(
                target=target, name=f"mqtt-{name}-{self.session.table_id}", daemon=True
            )
            t.start()
            self._threads.append(t)
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties

        props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        props.SessionExpiryInterval = SESSION_EXPIRY_S
        self.client.connect_async(
            self.config.host, self.config.port, self.keepalive, clean_start=False, properties=props
        )
        self.client.loop_start()
        self._dirty.set()
        return self

    def wait_connected(self, timeout: float = 10.0) -> bool:
        return self.connected.wait(timeout)

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every event so far is acknowledged by the broker (tests, shutdown)."""
        self.session.bus.flush(timeout)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if not self._outbox and not self._inflight and not self._sending:
                    return True
            time.sleep(0.01)
        return False

    def stop(self, timeout: float = 5.0) -> None:
        """Say offline (retained), send what is queued, disconnect."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self.connected.is_set():
            self.flush(timeout)
            info = self.client.publish(self.topics.available, "offline", qos=1, retain=True)
            try:
                info.wait_for_publish(timeout)
            except (RuntimeError, ValueError):
                pass
        self._stopping.set()
        self._dirty.set()
        with self._lock:
            self._lock.notify_all()
        self._requests.put(None)
        for t in self._threads:  # the requests already taken are answered while connected
            if t.name.startswith("mqtt-requests"):
                t.join(timeout)
        self.client.disconnect()
        self.client.loop_stop()
        for t in self._threads:
            t.join(timeout)
        self._save_mark(force=True)

    @property
    def outbox(self) -> int:
        """Events not yet acknowledged by the broker."""
        with self._lock:
            return len(self._outbox) + len(self._inflight)

    @property
    def acked_upto(self) -> int:
        return self._acked_upto

    # -- events --------------------------------------------------------------------------------

    def _on_envelope(self, env: Envelope) -> None:
        with self._lock:
            self._outbox.append(env)
            self._lock.notify_all()
        if env.batch_end:
            self._dirty.set()

    def _send_loop(self) -> None:
        """The one thread that hands events to paho, in seq order, when the broker is there and
        nothing older is waiting to be re-sent."""
        while True:
            with self._lock:
                while not self._stopping.is_set() and not (
                    self._online and not self._draining and self._outbox
                ):
                    self._lock.wait(0.5)
                if self._stopping.is_set():
                    return
                env = self._outbox.popleft()
                self._sending += 1
            try:
                payload = _json(env.to_dict())
            except ValueError as exc:  # an event the wire does not know: a bug, not a crash
                self._refuse(env, exc)
                continue
            info = self.client.publish(self.topics.event, payload, qos=1)
            self._record(info.mid, env.seq)
            self.events_sent += 1

    def _refuse(self, env: Envelope, exc: ValueError) -> None:
        """An event that cannot go on the wire (``Envelope.to_dict`` refused it: an event type
        hub.wire does not name) is logged and counted, and the thread goes on with the next:
        before, it ended the send thread and every later event stayed in the outbox. It is
        marked done, as if sent, so the acknowledged mark moves past it and a restart does not
        try it again; the log keeps it, and nothing else changes."""
        self.events_refused += 1
        log.error(
            "event %s of table %s not sent over MQTT: %s", env.seq, env.table, exc, exc_info=exc
        )
        with self._lock:
            self._sending -= 1
            self._ack(env.seq)
            self._lock.notify_all()

    def _record(self, mid: int, seq: int | None) -> None:
        with self._lock:
            if seq is not None:
                self._sending -= 1
            if mid in self._early:
                self._early.discard(mid)
                if seq is not None:
                    self._ack(seq)
            else:
                self._inflight[mid] = seq
            self._lock.notify_all()

    def _on_publish(
        self, client: mqtt.Client, userdata: Any, mid: int, reason: ReasonCode, props: Properties
    ) -> None:
        with self._lock:
            if mid not in self._inflight:
                self._early.add(mid)
                return
            seq = self._inflight.pop(mid)
            if seq is not None:
                self._ack(seq)
            if self._draining and not self._inflight:
                self._draining = False
                self._dirty.set()
            self._lock.notify_all()

    def _ack(self, seq: int) -> None:
        if seq <= self._acked_upto:
            return
        self._acked_above.add(seq)
        while self._acked_upto + 1 in self._acked_above:
            self._acked_upto += 1
            self._acked_above.discard(self._acked_upto)

    def _save_mark(self, force: bool = False) -> None:
        mark = self._acked_upto
        if mark != self._mark_saved:
            try:
                self.session.store.set_meta(self._mark_key, str(mark))
                self._mark_saved = mark
            except Exception:
                log.exception("cannot save the MQTT delivery mark")

    # -- connection ----------------------------------------------------------------------------

    def _on_connect(
        self,
        client: mqtt.Client,
        userdata: Any,
        flags: mqtt.ConnectFlags,
        reason: ReasonCode,
        props: Properties | None,
    ) -> None:
        if reason.is_failure:
            log.warning("broker %s refused the connection: %s", self.config.display_url, reason)
            return
        self.connects += 1
        client.subscribe(
            [
                (self.topics.request("+"), 1),
                (self.topics.firmware_status, 1),
                (discovery.STATUS_TOPIC, 1),
            ]
        )
        with self._lock:
            self._online = True
            self._force = True
            # paho re-sends what was in flight right after this callback; anything new (events,
            # and the retained state that a stale copy must not overwrite) waits for those acks
            self._draining = bool(self._inflight)
            self._lock.notify_all()
        self._dirty.set()

    def _on_subscribe(
        self,
        client: mqtt.Client,
        userdata: Any,
        mid: int,
        reasons: list[ReasonCode],
        props: Properties | None,
    ) -> None:
        """Connected means able to hear requests: on the first connection of a new session,
        a request published between CONNACK and SUBACK would reach no subscriber and be lost.
        Only the requests' subscription (the first) decides; a broker's ACL that refuses the
        others (firmware status, Home Assistant's status) is logged, not fatal."""
        if any(r.is_failure for r in reasons):
            log.warning(
                "broker %s refused some of the hub's subscriptions: %s",
                self.config.display_url,
                reasons,
            )
        if reasons and not reasons[0].is_failure:
            self.connected.set()

    def _on_disconnect(
        self,
        client: mqtt.Client,
        userdata: Any,
        flags: mqtt.DisconnectFlags,
        reason: ReasonCode,
        props: Properties | None,
    ) -> None:
        with self._lock:
            self._online = False
        self.connected.clear()
        if not self._stopping.is_set():
            log.info("broker %s gone (%s): reconnecting", self.config.display_url, reason)

    # -- retained topics -----------------------------------------------------------------------

    def _state_loop(self) -> None:
        last_mark = time.monotonic()
        while not self._stopping.is_set():
            self._dirty.wait(self.mark_interval)
            if self._stopping.is_set():
                break
            if self._dirty.is_set():
                with self._lock:
                    ready = self._online and not self._draining
                if ready:
                    self._dirty.clear()
                    try:
                        self._publish_retained()
                    except Exception:
                        log.exception("publishing the retained state failed")
            if time.monotonic() - last_mark >= self.mark_interval:
                self._save_mark()
                last_mark = time.monotonic()

    def _pub(self, topic: str, payload: bytes | str, retain: bool = True) -> None:
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        self._record(info.mid, None)

    def _publish_retained(self) -> None:
        """available, state, score/<player>, leg/<n>/tally, discovery: what changed, or all of
        them after a (re)connect. Only this thread publishes retained topics, so their order
        is the order of the snapshots."""
        with self._lock:
            force, self._force = self._force, False
        s = self.session
        state = StateMessage.from_snapshot(s.snapshot(log=False, derived=self.state_odds))
        pub = self._pub
        if force:
            pub(self.topics.available, "online")
        pub(self.topics.state, _json(state.to_payload()))
        game = state.game or {}
        players = list(game.get("players", []))
        drv = s.driver
        scores = drv.scores(game) if game else {}
        for name, money in scores.items():
            if force or self._scores.get(name) != money:
                pub(self.topics.score(name), score_payload(money))
        for name in set(self._scores) - set(scores):
            pub(self.topics.score(name), b"")  # an empty retained payload clears it
        self._scores = scores
        tallies = {t.leg: _json(t.to_payload()) for t in s.tallies()}
        for leg, payload in tallies.items():
            if force or self._tallies.get(leg) != payload:
                pub(self.topics.leg_tally(leg), payload)
        for leg in set(self._tallies) - set(tallies):
            pub(self.topics.leg_tally(leg), b"")
        self._tallies = tallies
        if self.discovery_prefix and (
            force or players != self._disc_players or drv.sensors() != self._disc_sensors
        ):
            self._publish_discovery(players)
        if force:
            self.retained_rounds += 1

    def _publish_discovery(self, players: list[str] | None = None) -> None:
        if not self.discovery_prefix:
            return
        if players is None:
            game = self.session.snapshot(log=False, derived=False).get("game") or {}
            players = list(game.get("players", []))
        sensors = self.session.driver.sensors()
        payload = discovery.discovery_payload(
            self.session.table_id,
            players,
            self.base,
            removed=self._disc_players,
            sensors=sensors,
            removed_sensors=self._disc_sensors,
        )
        self._pub(
            discovery.discovery_topic(self.session.table_id, self.discovery_prefix), _json(payload)
        )
        self._disc_players = players
        self._disc_sensors = sensors

    # -- requests ------------------------------------------------------------------------------

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        if msg.topic == discovery.STATUS_TOPIC:
            client.ack(msg.mid, msg.qos)
            if msg.payload.strip().lower() == b"online":
                self._requests.put(("__discovery__", b""))
            return
        if msg.topic == self.topics.firmware_status:  # the Pi's health, retained by firmware
            client.ack(msg.mid, msg.qos)
            self._requests.put(("__status__", bytes(msg.payload)))
            return
        if self._stopping.is_set():
            return  # not acknowledged: the broker gives it to the hub's next session
        cmd = msg.topic.rsplit("/", 1)[-1]
        self._requests.put((cmd, bytes(msg.payload), msg.mid, msg.qos))

    def _request_loop(self) -> None:
        while True:
            item = self._requests.get()
            if item is None:
                return
            cmd, raw = item[0], item[1]
            try:
                if cmd == "__discovery__":
                    self._publish_discovery()
                    continue
                if cmd == "__status__":
                    from hub.jsonsafe import JsonError, loads

                    try:
                        status = loads(raw, max_bytes=10_000) if raw.strip() else {}
                    except JsonError as exc:
                        log.warning("firmware/status ignored: %s", exc)
                        continue
                    if isinstance(status, dict):
                        self.session.request("observe_status", status, None, channel="mqtt")
                    continue
                answer, reply_to = self._handle(cmd, raw)
                if self._kill_before_ack == cmd:  # a crash after the commit, before the ack
                    log.warning(
                        "%s: killing the hub before acknowledging %s", KILL_BEFORE_ACK_ENV, cmd
                    )
                    os.kill(os.getpid(), signal.SIGKILL)
                topic = self.topics.reply(reply_to, cmd) if reply_to else self.topics.response(cmd)
                self.client.publish(topic, _json(answer), qos=1)
                self.requests_handled += 1
            except Exception:
                log.exception("request %s failed", cmd)
            finally:
                if len(item) == 4:
                    self.client.ack(item[2], item[3])

    def handle_request(self, cmd: str, raw: bytes) -> dict[str, Any]:
        """Decode one MQTT request and run it; the answer echoes ``transaction``."""
        return self._handle(cmd, raw)[0]

    def _handle(self, cmd: str, raw: bytes) -> tuple[dict[str, Any], str | None]:
        """The answer to one MQTT request, and the client id to answer (None: response/)."""
        answer, req = self._run(cmd, raw)
        return answer, None if req is None else req.reply_to

    def _run(self, cmd: str, raw: bytes) -> tuple[dict[str, Any], RequestEnvelope | None]:
        """The answer's MQTT payload (:meth:`Answer.to_mqtt`) and the request's envelope (None:
        the request could not be read, so it names no client to answer)."""
        from hub.jsonsafe import JsonError, loads

        try:
            payload = loads(raw) if raw.strip() else {}
        except JsonError as exc:  # not JSON, or nested too deeply: a sentence, not a traceback
            return Answer.refusal(cmd, str(exc), exc.reason).to_mqtt(None), None
        if not isinstance(payload, dict):
            return Answer.refusal(cmd, "the request must be a JSON object", "bad_payload").to_mqtt(
                None
            ), None
        try:
            req = RequestEnvelope.from_json(cmd, payload)
        except ValueError as exc:
            return Answer.refusal(cmd, str(exc), "bad_transaction").to_mqtt(None), None
        payload, transaction, auth = req.payload, req.transaction, req.auth
        rid = req.request_id
        if self.trusted_requests:
            if auth:  # a secret in a payload is read by the broker and whoever may subscribe
                return Answer.refusal(
                    cmd,
                    "no PIN or token over MQTT: the broker's user and password "
                    "are the authority (docs/mqtt.md)",
                    "secret_on_mqtt",
                ).to_mqtt(transaction), req
            if cmd == "tokens":
                return Answer.refusal(
                    cmd,
                    "players' links are given on the dashboard only, never over MQTT",
                    "forbidden",
                ).to_mqtt(transaction), req
            answer = self.session.request(cmd, payload, None, channel="local", request_id=rid)
        else:
            answer = self.session.request(cmd, payload, auth, channel="mqtt", request_id=rid)
        # players' tokens and private views never go on a topic: the dashboard gives links
        return Answer.from_payload(answer).to_mqtt(transaction), req
