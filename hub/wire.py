"""What travels between the firmware, the hub and everyone else: topics, the broker, messages.

One module, imported by the firmware's sinks, the MQTT bridge, the demo and the tests, so a topic
or a field is spelled in one place (docs/mqtt.md describes the same contract for people).

Why dataclasses and not pydantic: the messages are few and flat, the hub already checks every
request field by hand with the sentence a player reads (``hub.requests``), and the Pi runs the
firmware and the hub from the same wheel set: pydantic would add pydantic-core (a compiled
dependency, aarch64 wheels exist) to save a few lines of ``to_payload``. Frozen dataclasses with
``slots`` are typed for mypy, cost nothing to import, and turn into the same JSON as before.

Extending: a request's envelope (:class:`RequestEnvelope`) already names ``transaction`` (echoed
back); ``request_id`` and ``reply_to`` are reserved for applying a request once and answering the
asker alone (the security work); new fields go on the dataclasses here and nowhere else.
"""

from __future__ import annotations

import base64
import dataclasses
import time
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any
from urllib.parse import unquote, urlsplit

from hub.observations import OBSERVATION_COMMANDS, DieFrame

__all__ = [
    "TOPIC_PREFIX",
    "Topics",
    "BrokerConfig",
    "parse_broker_url",
    "RequestEnvelope",
    "Answer",
    "PRIVATE_ANSWER_FIELDS",
    "EventType",
    "EventMessage",
    "LegTally",
    "PlayerTally",
    "LegTile",
    "score_payload",
    "ReleaseObservation",
    "DieObservation",
    "TrackObservation",
    "DiceObservation",
    "Observation",
    "OBSERVATION_COMMANDS",
    "CameraFault",
    "FirmwareState",
    "PaletteSource",
    "FirmwareStatus",
    "dataclass_schema",
]

#: Every table's topics live under ``<TOPIC_PREFIX>/<table>/`` (a league subscribes to
#: ``camelup/+/...``; the name stays for the brokers and dashboards that already use it).
TOPIC_PREFIX = "camelup"

MQTT_SCHEMES = ("mqtt", "mqtts", "tcp", "ssl")
TLS_SCHEMES = ("mqtts", "ssl")


@dataclass(frozen=True, slots=True)
class Topics:
    """The topics of one table: the one place a topic name is built."""

    table: str
    prefix: str = TOPIC_PREFIX

    @property
    def base(self) -> str:
        return f"{self.prefix}/{self.table}"

    def topic(self, name: str) -> str:
        return f"{self.base}/{name}"

    @property
    def available(self) -> str:
        return self.topic("available")

    @property
    def state(self) -> str:
        return self.topic("state")

    @property
    def event(self) -> str:
        return self.topic("event")

    @property
    def firmware_status(self) -> str:
        return self.topic("firmware/status")

    def score(self, player: str) -> str:
        return self.topic(f"score/{player}")

    def leg_tally(self, leg: int) -> str:
        return self.topic(f"leg/{leg}/tally")

    def request(self, cmd: str) -> str:
        """``request/<cmd>``; ``request("+")`` is the subscription to every command."""
        return self.topic(f"request/{cmd}")

    def response(self, cmd: str) -> str:
        return self.topic(f"response/{cmd}")

    def reply(self, client_id: str, cmd: str) -> str:
        """``reply/<client id>/<cmd>``: an answer only that client may read (the broker's ACL
        pattern ``reply/%c/#``, hub.mqtt.access)."""
        return self.topic(f"reply/{client_id}/{cmd}")

    def observation(self, kind: str) -> str:
        """The request topic an observation of ``kind`` (release, die, track, dice) goes to."""
        return self.request(OBSERVATION_COMMANDS[kind])


@dataclass(frozen=True)
class BrokerConfig:
    """Where the MQTT broker is, as the firmware's ``[broker]`` section and ``--broker`` say.

    ``url`` may carry the user and password (``mqtts://u:p@host``); ``user`` and ``password``
    given beside it win. The field names are the config file's keys."""

    url: str = "mqtt://127.0.0.1:1883"
    user: str = ""
    password: str = ""
    tls: bool = False
    ca_file: str = ""  # a CA bundle for a private broker certificate; empty = the system's CAs
    keepalive_s: int = 30
    # the table's broker users (JSON, 0600, written by `pyramid broker-config` at install): the
    # firmware's user and password are read from it when none are given above
    users_file: str = ""

    def _from_users_file(self) -> tuple[str, str]:
        if not self.users_file:
            return "", ""
        import json
        from pathlib import Path

        try:
            entry = json.loads(Path(self.users_file).read_text())["users"]["firmware"]
            return str(entry["username"]), str(entry["password"])
        except (OSError, ValueError, KeyError, TypeError):
            return "", ""

    @property
    def scheme(self) -> str:
        return urlsplit(self.url).scheme

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or "127.0.0.1"

    @property
    def port(self) -> int:
        """The URL's port, else 8883 with TLS, 1883 without; ValueError on a bad port."""
        return urlsplit(self.url).port or (8883 if self.use_tls else 1883)

    @property
    def use_tls(self) -> bool:
        return self.tls or self.scheme in TLS_SCHEMES

    @property
    def username(self) -> str:
        """The user: ``user``, else the URL's, else the users file's firmware user; "" none."""
        return self.user or unquote(urlsplit(self.url).username or "") or self._from_users_file()[0]

    @property
    def secret(self) -> str:
        """The password that goes with :attr:`username`."""
        if self.user or urlsplit(self.url).username:
            return self.password or unquote(urlsplit(self.url).password or "")
        return self._from_users_file()[1]

    @property
    def display_url(self) -> str:
        """The URL for a log line: the user, never the password."""
        scheme = "mqtts" if self.use_tls else "mqtt"
        user = f"{self.username}@" if self.username else ""
        return f"{scheme}://{user}{self.host}:{self.port}"


def parse_broker_url(url: str) -> BrokerConfig:
    """``mqtt://host[:1883]``, ``mqtts://user:pass@host[:8883]``, ``host`` -> BrokerConfig;
    ValueError saying what is wrong.

    >>> c = parse_broker_url("mqtts://ann:s3cret@broker.local")
    >>> (c.host, c.port, c.use_tls, c.username, c.secret)
    ('broker.local', 8883, True, 'ann', 's3cret')
    """
    full = url if "://" in url else f"mqtt://{url}"
    parts = urlsplit(full)
    if parts.scheme not in MQTT_SCHEMES:
        raise ValueError(f"broker URL {url!r}: the scheme must be mqtt:// or mqtts://")
    if not parts.hostname:
        raise ValueError(f"broker URL {url!r} has no host")
    try:
        _ = parts.port
    except ValueError:
        raise ValueError(f"broker URL {url!r} has a bad port") from None
    return BrokerConfig(
        url=full,
        tls=parts.scheme in TLS_SCHEMES,
        user=unquote(parts.username or ""),
        password=unquote(parts.password or ""),
    )


# -- requests --------------------------------------------------------------------------------


@dataclass(frozen=True)
class RequestEnvelope:
    """The parts of an MQTT request that are not the command's own fields.

    ``transaction`` is echoed on ``response/<cmd>`` so the asker can match its answer;
    ``auth`` carries a PIN or a player's token (``pin``/``token`` at the top level are folded
    into it). ``request_id`` makes the request applied once (a repeat gets the first answer,
    hub.requests); ``reply_to`` is the asker's MQTT client id: the answer goes to
    ``reply/<client id>/<cmd>``, which only that client may read."""

    cmd: str
    payload: dict[str, Any]
    transaction: str | int | None = None
    auth: Any = None
    request_id: str | None = None
    reply_to: str | None = None

    @classmethod
    def from_json(cls, cmd: str, payload: Mapping[str, Any]) -> RequestEnvelope:
        """Split a request's JSON object; ValueError (reason ``bad_transaction``) when its
        ``transaction`` is not a text or number of at most 64 characters."""
        body = dict(payload)
        transaction = body.pop("transaction", None)
        if transaction is not None and (
            isinstance(transaction, bool)
            or not isinstance(transaction, str | int)
            or len(str(transaction)) > 64
        ):
            raise ValueError("'transaction' is a text or number of at most 64 characters")
        auth: Any = body.pop("auth", None)
        for key in ("pin", "token"):
            if key in body:
                if not isinstance(auth, dict):
                    auth = {} if auth is None else auth
                if isinstance(auth, dict):
                    auth = {**auth, key: body.pop(key)}
        request_id = body.pop("request_id", None)
        if request_id is not None and not isinstance(request_id, str):
            raise ValueError("'request_id' is a text")
        reply_to = body.pop("reply_to", None)
        if reply_to is not None and (
            not isinstance(reply_to, str)
            or not 0 < len(reply_to) <= 64
            or any(c in reply_to for c in "/+#\x00")
            or not reply_to.isprintable()
        ):
            raise ValueError(
                "'reply_to' is the asker's MQTT client id (1 to 64 characters, no / + #)"
            )
        return cls(cmd, body, transaction, auth, request_id, reply_to)


# -- answers (hub -> the asker) ---------------------------------------------------------------

#: An answer's fields that never go on a topic: players' tokens and private views (the
#: dashboard gives each player their own link instead; a topic is read by more than the asker).
PRIVATE_ANSWER_FIELDS = frozenset({"tokens", "private"})


def _doc(text: str) -> Any:
    """A field's description, for the generated schema."""
    return field(default=None, metadata={"doc": text})


@dataclass(frozen=True)
class Answer:
    """The hub's answer to one request, whichever door it came in by (hub.requests builds it).

    On MQTT it goes to ``reply/<client id>/<cmd>`` (or ``response/<cmd>``) with the request's
    ``transaction`` (:meth:`to_mqtt`); over HTTP it is the dashboard's JSON body; in-process
    :meth:`hub.session.TableSession.request` hands back its :meth:`to_payload`.

    ``ok`` false is a refusal that changed nothing: ``error`` is the sentence a person reads,
    ``reason`` the code a program decides on. ``fields`` are the command's own results
    (docs/hub-api.md), flat beside the others on the wire."""

    cmd: str
    ok: bool
    seq: int | None = _doc("the table's seq after the request (a refusal may name it too)")
    error: str | None = _doc("a refusal: the sentence a person reads")
    reason: str | None = _doc("a refusal: the code a program decides on (never the sentence)")
    request_id: str | None = _doc("the request's id, when it named one")
    replayed: bool | None = _doc(
        "true: this request id was already applied; this is its first answer and nothing was "
        "done again"
    )
    fields: Mapping[str, Any] = field(default_factory=dict)

    #: the keys the typed fields take on the wire (everything else is in ``fields``)
    KEYS: typing.ClassVar[tuple[str, ...]] = (
        "ok",
        "cmd",
        "error",
        "reason",
        "seq",
        "request_id",
        "replayed",
    )

    @classmethod
    def refusal(cls, cmd: str, message: str, reason: str, **extra: Any) -> Answer:
        """A refusal: ``message`` for people, ``reason`` for programs; ``extra`` may name
        ``seq`` or ``request_id`` and the refusal's own fields."""
        return cls.from_payload(
            {"ok": False, "cmd": cmd, "error": message, "reason": reason, **extra}
        )

    @classmethod
    def done(cls, cmd: str, seq: int, result: Mapping[str, Any]) -> Answer:
        """A request applied: the table is at ``seq``; ``result`` is the command's own answer
        (it may name a ``seq`` of its own, which wins)."""
        return cls.from_payload({"ok": True, "cmd": cmd, "seq": seq, **result})

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> Answer:
        """An answer read back from its JSON object (the firmware, the dashboard, the tests);
        ValueError when it is not one (``ok`` not true or false). ``transaction`` is the
        request's, not the answer's: it is dropped here and added again by :meth:`to_mqtt`."""
        if not isinstance(payload, Mapping) or not isinstance(payload.get("ok"), bool):
            raise ValueError("an answer is a JSON object with 'ok' true or false")

        def opt(key: str, kind: type | tuple[type, ...]) -> Any:
            value = payload.get(key)
            if value is not None and (
                not isinstance(value, kind) or (kind is int and isinstance(value, bool))
            ):
                raise ValueError(f"an answer's {key!r} is not a {getattr(kind, '__name__', kind)}")
            return value

        return cls(
            cmd=str(payload.get("cmd") or ""),
            ok=bool(payload["ok"]),
            seq=opt("seq", int),
            error=opt("error", str),
            reason=opt("reason", str),
            request_id=opt("request_id", str),
            replayed=opt("replayed", bool),
            fields={k: v for k, v in payload.items() if k not in cls.KEYS and k != "transaction"},
        )

    def with_request_id(self, request_id: str) -> Answer:
        return dataclasses.replace(self, request_id=request_id)

    def replay(self, request_id: str) -> Answer:
        """This (first) answer given again to a repeat of ``request_id``."""
        return dataclasses.replace(self, request_id=request_id, replayed=True)

    def without(self, keys: frozenset[str] | set[str]) -> Answer:
        """The answer without some of the command's own fields (see
        :data:`PRIVATE_ANSWER_FIELDS`)."""
        return dataclasses.replace(
            self, fields={k: v for k, v in self.fields.items() if k not in keys}
        )

    def to_payload(self) -> dict[str, Any]:
        """The JSON object: ok, cmd, then error and reason (refusals), seq, the command's own
        fields, request_id and replayed when set."""
        out: dict[str, Any] = {"ok": self.ok, "cmd": self.cmd}
        for key, value in (("error", self.error), ("reason", self.reason)):
            if not self.ok or value is not None:
                out[key] = value
        if self.seq is not None:
            out["seq"] = self.seq
        out.update(self.fields)
        if self.request_id is not None:
            out["request_id"] = self.request_id
        if self.replayed is not None:
            out["replayed"] = self.replayed
        return out

    def to_mqtt(self, transaction: str | int | None) -> dict[str, Any]:
        """The payload on ``reply/<client id>/<cmd>`` or ``response/<cmd>``: no private field,
        and the request's ``transaction`` (null when it named none) echoed."""
        return {**self.without(PRIVATE_ANSWER_FIELDS).to_payload(), "transaction": transaction}


# -- events (hub -> everyone) ----------------------------------------------------------------


class EventType(StrEnum):
    """Every type of event a table's log holds (``type`` in the log, ``event_type`` on the
    wire). The games' engines write some, the hub the others (:data:`HUB_EVENTS`); each
    type's fields: hub.wire_events (the schema) and docs/events.md, docs/games.md (for people)."""

    # every game
    GAME_STARTED = "game_started"
    # Camel Up (both editions)
    DIE_RELEASED = "die_released"
    DIE_READ = "die_read"
    CAMEL_MOVED = "camel_moved"
    LEG_TILE_TAKEN = "leg_tile_taken"
    DESERT_PLACED = "desert_placed"
    OVERALL_BET_PLACED = "overall_bet_placed"
    LEG_SCORED = "leg_scored"
    GAME_OVER = "game_over"
    # the hub's own (HUB_EVENTS)
    VISION_UNCERTAIN = "vision_uncertain"
    TRACK_MISMATCH = "track_mismatch"
    ACTION_REFUSED = "action_refused"
    CORRECTION = "correction"
    UNDO = "undo"
    BET_PENDING = "bet_pending"
    PROMPT_DISMISSED = "prompt_dismissed"
    GAME_ABANDONED = "game_abandoned"
    # the horse race
    RACE_STARTED = "race_started"
    ROUND_STARTED = "round_started"
    BET_PLACED = "bet_placed"
    BET_PASSED = "bet_passed"
    DIE_ROLLED = "die_rolled"
    HORSE_MOVED = "horse_moved"
    RACE_SCORED = "race_scored"
    # Marco Polo II
    DICE_READ = "dice_read"
    COMPENSATION_TAKEN = "compensation_taken"
    SHEET_ENTERED = "sheet_entered"
    # the hub's, for the horse race and Marco Polo II, and the dashboard's
    ROLL_UNCERTAIN = "roll_uncertain"
    DICE_UNCERTAIN = "dice_uncertain"
    LINK_RELEASED = "link_released"
    # Camel Up second edition
    LEG_TICKET_TAKEN = "leg_ticket_taken"
    SPECTATOR_PLACED = "spectator_placed"
    PARTNERSHIP_ENTERED = "partnership_entered"


#: Events the hub itself writes (the engines write the others): prompts, corrections, undo,
#: refusals and what the camera saw beside the game.
HUB_EVENTS: tuple[EventType, ...] = (
    EventType.DIE_RELEASED,
    EventType.VISION_UNCERTAIN,
    EventType.TRACK_MISMATCH,
    EventType.ACTION_REFUSED,
    EventType.CORRECTION,
    EventType.UNDO,
    EventType.BET_PENDING,
    EventType.PROMPT_DISMISSED,
    EventType.GAME_ABANDONED,
    EventType.ROLL_UNCERTAIN,
    EventType.DICE_UNCERTAIN,
    EventType.LINK_RELEASED,
)


def _schema(extra: dict[str, Any], doc: str | None = None) -> Any:
    """A required field with more JSON Schema than its annotation says (and a description)."""
    meta: dict[str, Any] = {"schema": extra}
    if doc:
        meta["doc"] = doc
    return field(metadata=meta)


@dataclass(frozen=True)
class EventMessage:
    """One event of a table, on ``event`` (QoS 1, not retained) and in the dashboard's stream
    (hub.bus.Envelope.message): the event's own fields flat beside the envelope's.

    ``seq`` is per table and strictly increasing, never reused: a receiver drops an event whose
    seq it has seen (a hub restarted before the broker acknowledged sends it again). The fields
    are the public ones: an overall bet's colour is never in them before ``game_over``."""

    event_type: EventType
    seq: int = _schema({"minimum": 1})
    ts: float = _schema({}, "Unix time the event was logged")
    table: str = _schema({})
    game_id: str | None = _schema({})
    fields: Mapping[str, Any] = field(default_factory=dict)

    #: the envelope's keys on the wire (everything else is the event's own)
    KEYS: typing.ClassVar[tuple[str, ...]] = ("event_type", "seq", "ts", "table", "game_id")

    @classmethod
    def from_event(
        cls, seq: int, table: str, game_id: str | None, event: Mapping[str, Any], ts: float
    ) -> EventMessage:
        """From a logged event (its ``type`` and fields, as the log and the engines write it);
        ValueError on a type that is not an :class:`EventType`."""
        kind = event.get("type")
        try:
            event_type = EventType(str(kind))
        except ValueError:
            raise ValueError(f"{kind!r} is not an event type (hub.wire.EventType)") from None
        fields = {k: v for k, v in event.items() if k != "type"}
        return cls(event_type, seq, ts, table, game_id, fields)

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> EventMessage:
        """An event read back from its JSON object (a receiver, the tests); ValueError when it
        is not one."""
        if not isinstance(payload, Mapping):
            raise ValueError("an event is a JSON object")
        seq, ts, table, game_id = (payload.get(k) for k in cls.KEYS[1:])
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
            raise ValueError("an event's 'seq' is a whole number from 1")
        if isinstance(ts, bool) or not isinstance(ts, int | float):
            raise ValueError("an event's 'ts' is a number")
        if not isinstance(table, str) or not (game_id is None or isinstance(game_id, str)):
            raise ValueError("an event's 'table' is a text, its 'game_id' a text or null")
        event = {"type": payload.get("event_type")}
        event.update((k, v) for k, v in payload.items() if k not in cls.KEYS)
        return cls.from_event(seq, table, game_id, event, ts)

    @property
    def event(self) -> dict[str, Any]:
        """The event as the log and the engines write it: ``type`` and its fields."""
        return {"type": self.event_type.value, **self.fields}

    def to_payload(self) -> dict[str, Any]:
        return {
            "event_type": self.event_type.value,
            "seq": self.seq,
            "ts": self.ts,
            "table": self.table,
            "game_id": self.game_id,
            **self.fields,
        }


# -- retained results (hub -> everyone) --------------------------------------------------------


def score_payload(amount: int | float) -> str:
    """``score/<player>`` (retained): the player's money or points, a plain number ("12"); an
    empty payload clears the topic of a player who is not in the current game."""
    return str(amount)


@dataclass(frozen=True)
class LegTile:
    """A betting tile (a ticket in the second edition) a player held when the leg was scored."""

    colour: str = _schema({})
    value: int = _schema({})


@dataclass(frozen=True)
class PlayerTally:
    """One player's part of a leg's tally."""

    tiles: list[LegTile] = _schema({}, "the tiles held, in the order taken")
    pyramid_tiles: int = _schema({}, "the pyramid tiles taken this leg (a coin each)")
    change: int = _schema({}, "the money won or lost by the leg")
    money: int = _schema({}, "the money after the leg")
    partner_gain: int | None = _doc("second edition: what the partnership added")

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> PlayerTally:
        return cls(
            tiles=[LegTile(str(t["colour"]), int(t["value"])) for t in payload.get("tiles", [])],
            pyramid_tiles=int(payload.get("pyramid_tiles", 0)),
            change=int(payload.get("change", 0)),
            money=int(payload["money"]),
            partner_gain=None
            if payload.get("partner_gain") is None
            else int(payload["partner_gain"]),
        )

    def to_payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "tiles": [{"colour": t.colour, "value": t.value} for t in self.tiles],
            "pyramid_tiles": self.pyramid_tiles,
        }
        if self.partner_gain is not None:
            out["partner_gain"] = self.partner_gain
        out["change"] = self.change
        out["money"] = self.money
        return out


@dataclass(frozen=True)
class LegTally:
    """The stage-end tally of one leg of the current game on ``leg/<n>/tally`` (retained; an
    empty payload clears a leg that was undone or belongs to an older game). Camel Up, both
    editions: the drivers' ``tallies`` give the leg's part, the session adds the table."""

    table: str
    game_id: str
    seq: int = _schema({}, "the seq of the leg's leg_scored event")
    leg: int = _schema({"minimum": 1})
    winner: str = _schema({}, "the leg's leading camel")
    runner_up: str = _schema({}, "the camel second")
    players: dict[str, PlayerTally] = _schema({"minProperties": 2})

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> LegTally:
        """From its JSON object (or a driver's tally with the table's keys); ValueError when a
        field is missing or of the wrong kind."""
        try:
            return cls(
                table=str(payload["table"]),
                game_id=str(payload["game_id"]),
                seq=int(payload["seq"]),
                leg=int(payload["leg"]),
                winner=str(payload["winner"]),
                runner_up=str(payload["runner_up"]),
                players={
                    str(name): PlayerTally.from_payload(p)
                    for name, p in dict(payload["players"]).items()
                },
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"not a leg tally: {exc!r}") from None

    def to_payload(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "game_id": self.game_id,
            "seq": self.seq,
            "leg": self.leg,
            "winner": self.winner,
            "runner_up": self.runner_up,
            "players": {name: p.to_payload() for name, p in self.players.items()},
        }


# -- the retained state (hub -> everyone) -------------------------------------------------------


class TableStatus(StrEnum):
    """The table's game as the retained state names it: none yet, or the game record's
    status."""

    NONE = "none"
    PLAYING = "playing"
    FINISHED = "finished"
    ABANDONED = "abandoned"


class PromptKind(StrEnum):
    """What an open prompt asks a person (hub.prompts)."""

    DIE_READING = "die_reading"
    BET_COLOUR = "bet_colour"
    ROLL_READING = "roll_reading"
    DICE_CHECK = "dice_check"


def _required(meta: dict[str, Any]) -> Any:
    """A required field with the given metadata (as :func:`_schema`, typed Any so a dataclass
    may mix them with the fields :func:`_schema` makes)."""
    return field(metadata=meta)


def _game_view_schema() -> dict[str, Any]:
    from hub.wire_views import GAME_VIEWS

    return {"oneOf": [{"type": "null"}, *GAME_VIEWS]}


def _setup_reading_schema() -> dict[str, Any]:
    from hub.wire_views import SETUP_READING

    return {"oneOf": [{"type": "null"}, SETUP_READING]}


@dataclass(frozen=True)
class StateMessage:
    """The table's public snapshot, retained on ``state`` after every batch of events
    (hub.snapshot.table_snapshot, without its log). Never holds an overall bet's colour
    before the game is over: each game's view is its driver's ``public_view``.

    The fields are in the order the snapshot builds them, which is the order on the wire."""

    table: str
    game_id: str | None
    status: TableStatus
    seq: int = _schema({"minimum": 0})
    game: dict[str, Any] | None = _required(
        {"schema_only": _game_view_schema, "doc": "the game's public view, by game"}
    )
    pending: list[dict[str, Any]] = _required(
        {
            "schema": {
                "items": {
                    "type": "object",
                    "required": ["id", "kind", "seq"],
                    "properties": {"kind": {"enum": [k.value for k in PromptKind]}},
                }
            },
            "doc": "the open prompts: what the table waits for a person to answer",
        }
    )
    firmware: dict[str, Any] = _schema({}, "the firmware's last status as the hub heard it")
    threshold: float = _schema({}, "the die reader's confidence a reading needs to be played")
    pin_required: bool = _schema({}, "the table's commands need its PIN")
    setup_reading: dict[str, Any] | None = _required(
        {
            "schema_only": _setup_reading_schema,
            "doc": "The camera's setup reading while no game is played (docs/hub-api.md), as "
            "of this publish; not an event.",
        }
    )
    odds: dict[str, Any] | None = _schema(
        {},
        "Camel Up: leg and race odds. Horse race: {podium: {horse: [P(1st), P(2nd), "
        "P(3rd)]}}. Marco Polo II: null. Null also when the table publishes no odds.",
    )
    advice: list[Any] | dict[str, Any] = _schema(
        {},
        "Camel Up: the advisor's ranked list. Horse race: {game, player, roll: advise_roll or "
        "null, bets: bet_values or null}. Marco Polo II: [].",
    )

    @classmethod
    def from_snapshot(cls, snap: Mapping[str, Any]) -> StateMessage:
        """The message of a snapshot (hub.snapshot.table_snapshot(log=False)); one taken
        without its derived part has no odds and no advice. ValueError when a field is
        missing or of the wrong kind, or one is there that the state does not carry."""
        known = {f.name for f in dataclasses.fields(cls)}
        extra = set(snap) - known
        if extra:
            raise ValueError(f"the state carries no {', '.join(sorted(extra))}")
        body = {"odds": None, "advice": [], **snap}
        missing = known - set(body)
        if missing:
            raise ValueError(f"a state needs {', '.join(sorted(missing))}")
        seq = body["seq"]
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
            raise ValueError("a state's 'seq' is a whole number from 0")
        if not isinstance(body["table"], str):
            raise ValueError("a state's 'table' is a text")
        if body["game"] is not None and not isinstance(body["game"], dict):
            raise ValueError("a state's 'game' is a game's view or null")
        if not isinstance(body["pending"], list):
            raise ValueError("a state's 'pending' is a list of prompts")
        return cls(**{**body, "status": TableStatus(body["status"])})

    def to_payload(self) -> dict[str, Any]:
        """The JSON object retained on ``state``."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["status"] = self.status.value
        return out


# -- Home Assistant discovery (hub -> Home Assistant) ------------------------------------------


@dataclass(frozen=True)
class HaComponent:
    """One entity of the table's Home Assistant device: a sensor reading a retained topic, or,
    with its platform alone, one that is removed (a player who left, a sensor of the game
    before). Fields left None are not sent."""

    platform: str = _schema({"const": "sensor"})
    name: str | None = _doc("what Home Assistant shows")
    unique_id: str | None = _doc("the entity's id, stable across restarts")
    state_topic: str | None = field(
        default=None,
        metadata={"schema": {"pattern": f"^{TOPIC_PREFIX}/"}, "doc": "the retained topic read"},
    )
    value_template: str | None = _doc("how the value is taken from the state's JSON")
    unit_of_measurement: str | None = None
    state_class: str | None = None
    icon: str | None = _doc("an mdi: icon")
    entity_category: str | None = None

    @classmethod
    def removed(cls) -> HaComponent:
        """A component Home Assistant is to forget."""
        return cls("sensor")

    def to_payload(self) -> dict[str, Any]:
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) is not None
        }


@dataclass(frozen=True)
class HaDevice:
    """The table as Home Assistant's device."""

    identifiers: list[str]
    name: str
    manufacturer: str
    model: str
    sw_version: str


@dataclass(frozen=True)
class HaOrigin:
    """Who sent the discovery (Home Assistant shows it)."""

    name: str
    sw_version: str


@dataclass(frozen=True)
class DiscoveryMessage:
    """``homeassistant/device/<id>/config`` (retained): one device per table, its sensors
    reading the retained state and score topics (hub.mqtt.discovery builds it). Sent again
    when ``homeassistant/status`` says online."""

    device: HaDevice
    origin: HaOrigin
    availability_topic: str = _schema({"pattern": f"^{TOPIC_PREFIX}/[^/]+/available$"})
    qos: int = _schema({"enum": [0, 1, 2]})
    components: dict[str, HaComponent] = _schema({"minProperties": 1})

    def to_payload(self) -> dict[str, Any]:
        return {
            "device": dataclasses.asdict(self.device),
            "origin": dataclasses.asdict(self.origin),
            "availability_topic": self.availability_topic,
            "qos": self.qos,
            "components": {k: c.to_payload() for k, c in self.components.items()},
        }


def ha_discovery_schema() -> dict[str, Any]:
    """``docs/schemas/ha-discovery.json``: :class:`DiscoveryMessage`."""
    return dataclass_schema(
        DiscoveryMessage,
        file="ha-discovery.json",
        title="homeassistant/device/<id>/config (retained)",
        description="Home Assistant device discovery: one device per table, sensors reading "
        "the retained state and score topics. Re-sent when homeassistant/status says online",
    )


# -- observations (firmware -> hub) ----------------------------------------------------------

#: JSON Schema fragments of the fields each observation request takes: the one list of those
#: fields (hub.requests refuses any other; docs/schemas/observe-*.json are generated from them).
_NUMBER: dict[str, Any] = {"type": "number"}
_TEXT: dict[str, Any] = {"type": "string", "maxLength": 64}
_BOX: dict[str, Any] = {
    "type": "array",
    "items": {"type": "number"},
    "minItems": 4,
    "maxItems": 4,
    "description": "[x, y, w, h] in the frame's pixels",
}

#: the inks of the grey die's numerals (camelup2: the crazy camel each names)
NUMERAL_SHADES: tuple[str, ...] = ("black", "white")

DICE_READING_FIELDS: dict[str, dict[str, Any]] = {
    "colour": {"type": ["string", "null"], "maxLength": 64},
    "face": {"type": ["integer", "null"]},
    "confidence": {"type": ["number", "null"]},
    "box": {"anyOf": [_BOX, {"type": "null"}]},
}

OBSERVATION_FIELDS: dict[str, dict[str, dict[str, Any]]] = {
    "release": {
        "ts": {**_NUMBER, "description": "Unix time of the slider's edge"},
    },
    "die": {
        "colour": {"type": ["string", "null"], "description": "null: no colour was read"},
        "face": {"type": ["integer", "null"], "description": "null: no face was read"},
        "confidence": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
        "colour_confidence": {"type": ["number", "null"]},
        "face_confidence": {"type": ["number", "null"]},
        "box": {"anyOf": [_BOX, {"type": "null"}]},
        "shade": {
            "enum": [*NUMERAL_SHADES, None],
            "description": "the second edition's grey die: its numeral's ink, which names the "
            "crazy camel (null: not read, or not the grey die)",
        },
        "shade_confidence": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
        "crop_jpeg": {"type": ["string", "null"], "description": "the crop, base64 JPEG"},
        "crop_b64": {"type": "string", "description": "the crop, base64 JPEG (older name)"},
        "ts": _NUMBER,
        "reason": {"type": ["string", "null"], "description": "why the reader abstained"},
        "mode": {**_TEXT, "description": '"setup": a die of the starting roll'},
        "frame": {
            "enum": [f.value for f in DieFrame],
            "description": 'the frame it was read from: "full" (the zone cut from the camera\'s '
            'full-resolution stream), "preview" (the watched frame: no full-resolution stream), '
            '"preview_fallback" (the watched frame, the full-resolution cut having shown no '
            "die: the hub asks a person); absent from older firmware",
        },
        "index": {
            "type": "integer",
            "minimum": 0,
            "maximum": 15,
            "description": "the die's place in the setup pass",
        },
        "of": {
            "type": "integer",
            "minimum": 0,
            "maximum": 16,
            "description": "the dice in the setup pass",
        },
    },
    "track": {
        "track": {
            "type": "object",
            "description": "{space: [horses or colours bottom to top]}"
            " or the horse race's {horse: space}",
        },
        "uncertain": {"type": "array", "description": "the spaces the reader was unsure of"},
        "desert": {"type": ["object", "null"], "description": '{space: "oasis"|"mirage"}'},
        "confidence": {"type": ["number", "null"]},
        "reason": {"type": ["string", "null"]},
        "ts": _NUMBER,
        "note": {"type": ["string", "null"], "maxLength": 200},
        "mode": {**_TEXT, "description": '"setup": the starting track'},
    },
    "dice": {
        "readings": {
            "type": "array",
            "maxItems": 64,
            "items": {
                "type": "object",
                "properties": DICE_READING_FIELDS,
                "additionalProperties": False,
            },
        },
        "ts": _NUMBER,
        "note": {"type": ["string", "null"]},
    },
}

#: the fields an observation must have
OBSERVATION_REQUIRED: dict[str, tuple[str, ...]] = {"track": ("track",), "dice": ("readings",)}


def _ts(ts: float | None) -> float:
    return round(time.time() if ts is None else ts, 4)


@dataclass(frozen=True)
class ReleaseObservation:
    """The pyramid's slider was pushed (``observe_release``)."""

    kind = "release"
    ts: float | None = None

    def to_payload(self) -> dict[str, Any]:
        return {"ts": _ts(self.ts)}


@dataclass(frozen=True)
class DieObservation:
    """One die in the reveal zone as vision read it (``observe_die``): the reading's fields flat
    (colour, face, confidence, face_confidence, colour_confidence, box, reason, mode, index, of;
    the grey die's shade and shade_confidence; ``frame``, a hub.observations.DieFrame),
    and the crop as base64 JPEG text (null when there is none)."""

    kind = "die"
    reading: Mapping[str, Any] = field(default_factory=dict)
    crop_jpeg: bytes | None = None
    ts: float | None = None

    def to_payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ts": _ts(self.ts), **self.reading}
        out["crop_jpeg"] = (
            base64.b64encode(self.crop_jpeg).decode("ascii") if self.crop_jpeg else None
        )
        return out


@dataclass(frozen=True)
class TrackObservation:
    """The still track (``observe_track``): ``track`` {space: [colours bottom to top]},
    ``desert``, ``confidence``, ``uncertain`` spaces, ``reason``, ``mode``."""

    kind = "track"
    reading: Mapping[str, Any] = field(default_factory=dict)
    ts: float | None = None

    def to_payload(self) -> dict[str, Any]:
        return {"ts": _ts(self.ts), **self.reading}


@dataclass(frozen=True)
class DiceObservation:
    """Every die of one frame (``observe_dice``, Marco Polo II's round start): readings of
    {colour, face, confidence, box} with boxes in the frame's pixels."""

    kind = "dice"
    readings: Sequence[Mapping[str, Any]] = ()
    ts: float | None = None

    def to_payload(self) -> dict[str, Any]:
        return {"ts": _ts(self.ts), "readings": [dict(r) for r in self.readings]}


Observation = ReleaseObservation | DieObservation | TrackObservation | DiceObservation


# -- the firmware's status (firmware -> everyone, retained) -----------------------------------


class CameraFault(StrEnum):
    """What stops the camera (``camera_fault`` in the status; firmware.camera_fault says how
    an exception is classified and what a person should do about each)."""

    IMPORT = "import"  # picamera2, or a library under it, does not import
    BUSY = "busy"  # another process holds the camera
    ABSENT = "absent"  # no camera found
    OUT_OF_MEMORY = "out_of_memory"  # its buffers do not fit (CMA)
    FAILED = "failed"  # anything else: the message says what


class FirmwareState(StrEnum):
    """The firmware's ``state`` in its status: the watch loop's states (firmware.watch), the
    start before the loop runs, and the broker's last will when the firmware is gone."""

    STARTING = "starting"
    READY = "ready"
    READING_DIE = "reading_die"
    READING_TRACK = "reading_track"
    SETUP = "setup"
    READING_FRAME = "reading_frame"  # Marco Polo II: waiting for a still frame to read every die
    STOPPED = "stopped"
    CAMERA_ERROR = "camera_error"
    OFFLINE = "offline"  # the last will: the firmware's connection is gone


class PaletteSource(StrEnum):
    """Which colours the die reader names dice by (``palette`` in the status)."""

    DEFAULT = "default"  # the shipped palette (no taught palette on this table)
    TABLE = "table"  # the table's taught palette (``pyramid calibrate``: palette.json)


@dataclass(frozen=True)
class FirmwareStatus:
    """The firmware's health on ``firmware/status`` (retained; the last will is only ``table``
    and ``state`` "offline"). Fields left None are not sent."""

    table: str
    state: FirmwareState
    mode: str | None = _doc('"play", or "setup" while the starting roll is read')
    ts: float | None = _doc("Unix time of this status")
    uptime_s: float | None = None
    fps: float | None = _doc("frames the loop looked at per second")
    frames: int | None = None
    loop_ms_max: float | None = None
    cpu_temp_c: float | None = None
    releases: int | None = None
    dice_read: int | None = None
    tracks_read: int | None = None
    read_errors: int | None = None
    last_error: str | None = None
    last_error_ts: float | None = None
    camera: str | None = _doc("the frame source's name")
    camera_fps: float | None = None
    dropped_frames: int | None = None
    camera_errors: int | None = None
    camera_reopens: int | None = None
    camera_fault: CameraFault | None = _doc("why the camera fails now; null while it gives frames")
    attention: bool | None = _doc("the LED asks a person to look")
    game: str | None = _doc("the game the loop serves (firmware.games)")
    reveal_zone: list[int] | None = _doc("[x, y, w, h] of the reveal zone in the frame")
    white_gains: list[float] | None = _doc("(b, g, r) gains from the markers' white borders")
    zone_state: str | None = _doc("the reveal zone's settle machine state")
    light_on: bool | None = None
    read_ms: dict[str, float] | None = _doc("median milliseconds of each kind of read")
    palette: PaletteSource | None = _doc("the colours the die reader names dice by")
    palette_file: str | None = _doc("the taught palette's file (palette: table)")
    palette_error: str | None = _doc("why the table's palette file is not used")

    #: sent even when None (a dashboard shows "none yet" rather than an old value)
    ALWAYS: typing.ClassVar[frozenset[str]] = frozenset(
        {
            "table",
            "state",
            "mode",
            "ts",
            "uptime_s",
            "fps",
            "frames",
            "loop_ms_max",
            "cpu_temp_c",
            "releases",
            "dice_read",
            "tracks_read",
            "read_errors",
            "last_error",
            "last_error_ts",
        }
    )

    #: sent whenever there is a camera (``camera_fault`` null: the camera gives frames)
    WITH_CAMERA: typing.ClassVar[frozenset[str]] = frozenset({"camera_fault"})

    def to_payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        always = self.ALWAYS | (self.WITH_CAMERA if self.camera is not None else frozenset())
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is not None or f.name in always:
                out[f.name] = value.value if isinstance(value, StrEnum) else value
        return out

    @classmethod
    def offline(cls, table: str) -> FirmwareStatus:
        """The last will: the firmware is gone."""
        return cls(table, FirmwareState.OFFLINE)


# -- schemas generated from the dataclasses ---------------------------------------------------


def _type_schema(tp: Any) -> dict[str, Any]:
    """The JSON Schema of one annotation: str, int, float, bool, None, StrEnum, list[X],
    dict[str, X], Any, and unions of those (what the wire's dataclasses use)."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        parts = [_type_schema(a) for a in typing.get_args(tp)]
        simple = [p for p in parts if set(p) == {"type"}]
        if len(simple) == len(parts):
            names: list[str] = []
            for p in simple:
                names += p["type"] if isinstance(p["type"], list) else [p["type"]]
            return {"type": names}
        return {"anyOf": parts}
    if origin is list or origin is Sequence:
        return {"type": "array", "items": _type_schema(typing.get_args(tp)[0])}
    if origin is dict or origin is Mapping:
        return {"type": "object", "additionalProperties": _type_schema(typing.get_args(tp)[1])}
    if isinstance(tp, type) and issubclass(tp, StrEnum):
        return {"enum": [m.value for m in tp]}
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _object_schema(tp)
    simple_types = {
        str: "string",
        int: "integer",
        float: "number",
        bool: "boolean",
        type(None): "null",
    }
    if tp in simple_types:
        return {"type": simple_types[tp]}
    if tp is Any:
        return {}
    raise TypeError(f"no JSON Schema for {tp!r}")


def _object_schema(cls: type) -> dict[str, Any]:
    """A wire dataclass as a JSON object: one property per field (its annotation's schema, the
    field's extra ``schema`` and its ``doc``), required the fields without a default, nothing
    else allowed."""
    hints = typing.get_type_hints(cls)
    props: dict[str, Any] = {}
    required = []
    for f in dataclasses.fields(cls):
        if "schema_only" in f.metadata:  # the whole schema, not the annotation's (a callable)
            prop = dict(f.metadata["schema_only"]())
        else:
            prop = {**_type_schema(hints[f.name]), **f.metadata.get("schema", {})}
        if f.metadata.get("doc"):
            prop["description"] = f.metadata["doc"]
        props[f.name] = prop
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(f.name)
    return {
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


def dataclass_schema(cls: type, *, file: str, title: str, description: str) -> dict[str, Any]:
    """The JSON Schema of a wire dataclass's ``to_payload()`` (:func:`_object_schema`)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": file,
        "title": title,
        "description": f"{description} (generated from hub/wire.py by `python -m hub.wire "
        "docs/schemas`; do not edit).",
        **_object_schema(cls),
    }


def firmware_status_schema() -> dict[str, Any]:
    """``docs/schemas/firmware-status.json``."""
    return dataclass_schema(
        FirmwareStatus,
        file="firmware-status.json",
        title="camelup/<table>/firmware/status (retained; last will {table, state: offline})",
        description="The firmware's health, published retained by the Pi's watch service: the "
        "loop's state, the camera (and why it fails), the reads, the palette the "
        "die reader uses. Fields that are not known are left out",
    )


# -- schemas ---------------------------------------------------------------------------------

#: the request envelope's own fields (beside the command's), as RequestEnvelope reads them
ENVELOPE_FIELDS: dict[str, dict[str, Any]] = {
    "transaction": {"type": ["string", "integer"], "description": "echoed on response/<cmd>"},
    "request_id": {
        "type": "string",
        "maxLength": 64,
        "pattern": "^[A-Za-z0-9_.:-]+$",
        "description": "one per request, the same when it is sent again: a repeat "
        "is answered with the first answer and changes nothing",
    },
    "reply_to": {
        "type": "string",
        "maxLength": 64,
        "description": "the asker's client id: the answer goes to reply/<client id>/<cmd>",
    },
    "pin": {"type": "string"},
    "token": {"type": "string"},
    "auth": {
        "type": "object",
        "properties": {"pin": {"type": "string"}, "token": {"type": "string"}},
    },
}


def observation_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of an observation's request (``docs/schemas/observe-<kind>.json``)."""
    cmd = OBSERVATION_COMMANDS[kind]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"observe-{kind}.json",
        "title": f"camelup/<table>/request/{cmd} (not retained)",
        "description": f"The firmware's {kind} observation (generated from hub/wire.py by "
        "`python -m hub.wire docs/schemas`; do not edit).",
        "type": "object",
        "properties": {**OBSERVATION_FIELDS[kind], **ENVELOPE_FIELDS},
        "required": list(OBSERVATION_REQUIRED.get(kind, ())),
        "additionalProperties": False,
    }


def answer_schema() -> dict[str, Any]:
    """``docs/schemas/response.json``: :class:`Answer` as :meth:`Answer.to_mqtt` sends it. The
    command's own fields (docs/hub-api.md) are allowed beside the typed ones."""
    hints = typing.get_type_hints(Answer)
    docs = {f.name: f.metadata.get("doc") for f in dataclasses.fields(Answer)}
    props: dict[str, Any] = {}
    for key in ("ok", "cmd", "transaction", "seq", "request_id", "replayed"):
        if key == "transaction":
            prop: dict[str, Any] = {
                "type": ["string", "integer", "null"],
                "description": "the request's transaction, echoed (null when it named none)",
            }
        else:
            # sent only when set: the annotation's type without its null
            prop = _type_schema(hints[key])
            names = prop["type"] if isinstance(prop["type"], list) else [prop["type"]]
            names = [t for t in names if t != "null"]
            prop["type"] = names[0] if len(names) == 1 else names
            if docs.get(key):
                prop["description"] = docs[key]
        props[key] = prop
    refusal = {
        key: {"type": "string", "minLength": 1, "description": docs[key]}
        for key in ("error", "reason")
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "response.json",
        "title": "camelup/<table>/reply/<client id>/<cmd> or camelup/<table>/response/<cmd> "
        "(not retained)",
        "description": "The hub's answer to one request (generated from hub/wire.py by `python "
        "-m hub.wire docs/schemas`; do not edit). ok false: a refusal that changed nothing. "
        "The command's own fields (docs/hub-api.md) stand beside these; players' tokens and "
        "private views never do.",
        "type": "object",
        "required": ["ok", "cmd", "transaction"],
        "properties": props,
        "not": {"anyOf": [{"required": [k]} for k in sorted(PRIVATE_ANSWER_FIELDS)]},
        "if": {"properties": {"ok": {"const": False}}},
        "then": {"required": ["error", "reason"], "properties": refusal},
        "else": {"required": ["seq"]},
    }


def event_schema() -> dict[str, Any]:
    """``docs/schemas/event.json``: :class:`EventMessage`'s envelope, one of the
    :class:`EventType` values, and each type's fields (hub.wire_events)."""
    from hub.wire_events import EVENT_FIELDS

    hints = typing.get_type_hints(EventMessage)
    props: dict[str, Any] = {}
    for f in dataclasses.fields(EventMessage):
        if f.name == "fields":
            continue
        prop = {**_type_schema(hints[f.name]), **f.metadata.get("schema", {})}
        if f.metadata.get("doc"):
            prop["description"] = f.metadata["doc"]
        props[f.name] = prop
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "event.json",
        "title": "camelup/<table>/event (QoS 1, not retained)",
        "description": "One event of the table's log (generated from hub/wire.py and "
        "hub/wire_events.py by `python -m hub.wire docs/schemas`; do not edit). seq is per "
        "table and strictly increasing: drop an event whose seq you have seen. Secret "
        "overall-bet colours are never present before game_over. The game's events depend on "
        "the game (the state's game.game: camelup, camelup2, horserace or marcopolo2); the "
        "hub's own events are shared.",
        "type": "object",
        "required": list(EventMessage.KEYS),
        "properties": props,
        "allOf": [
            {"if": {"properties": {"event_type": {"const": t.value}}}, "then": EVENT_FIELDS[t]}
            for t in EventType
            if t in EVENT_FIELDS
        ],
    }


def leg_tally_schema() -> dict[str, Any]:
    """``docs/schemas/leg-tally.json``: :class:`LegTally`, its camels named by the games (both
    editions' racing camels; imported here only, so the firmware never loads the engines)."""
    from hub.games.camelup.model import COLOURS
    from hub.games.camelup2.model import RACING

    camels = {"enum": list(dict.fromkeys(COLOURS + RACING))}
    schema = dataclass_schema(
        LegTally,
        file="leg-tally.json",
        title="camelup/<table>/leg/<n>/tally (retained)",
        description="The stage-end tally of leg n of the current game: the leg's winner and "
        "runner-up camels, and per player the tiles held, the change and the money after. An "
        "empty retained payload clears a leg that was undone or belongs to an older game. Both "
        "editions of Camel Up: the second's racing camels add red and purple",
    )
    props = schema["properties"]
    props["winner"].update(camels)
    props["runner_up"].update(camels)
    player = props["players"]["additionalProperties"]
    player["properties"]["tiles"]["items"]["properties"]["colour"].update(camels)
    return schema


def state_schema() -> dict[str, Any]:
    """``docs/schemas/state.json``: :class:`StateMessage`, each game's view from
    hub.wire_views (imported here only, so the firmware never loads the engines)."""
    return dataclass_schema(
        StateMessage,
        file="state.json",
        title="camelup/<table>/state (retained)",
        description="The public snapshot of the table after the event with this seq. Never "
        "holds overall-bet colours before the game is over",
    )


#: a request's ``expected_seq``: the screen's seq, so a tap on a stale screen changes nothing
EXPECTED_SEQ: dict[str, Any] = {
    "type": "integer",
    "minimum": 0,
    "description": "action, confirm, undo: the table's seq the screen was drawn at; refused as "
    "stale after a move, an undo or a new game",
}


def request_schema() -> dict[str, Any]:
    """``docs/schemas/request.json``: any command's envelope (:class:`RequestEnvelope`'s
    fields, as :data:`ENVELOPE_FIELDS` describes them) and ``expected_seq``; the command's own
    fields are docs/hub-api.md's (the observations' have their own schemas)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "request.json",
        "title": "camelup/<table>/request/<cmd> (not retained)",
        "description": "A command (generated from hub/wire.py by `python -m hub.wire "
        'docs/schemas`; do not edit). Auth: "pin" or "token" at the top level, or "auth": '
        '{"pin"|"token"}. The other fields are the command\'s payload (docs/hub-api.md); '
        "unknown fields are refused.",
        "type": "object",
        "properties": {**ENVELOPE_FIELDS, "expected_seq": EXPECTED_SEQ},
    }


def generated_schemas() -> dict[str, str]:
    """file name -> text of every schema generated from this module."""
    import json

    out = {
        f"observe-{kind}.json": json.dumps(observation_schema(kind), indent=1) + "\n"
        for kind in OBSERVATION_FIELDS
    }
    out["firmware-status.json"] = json.dumps(firmware_status_schema(), indent=1) + "\n"
    out["response.json"] = json.dumps(answer_schema(), indent=1) + "\n"
    out["event.json"] = json.dumps(event_schema(), indent=1) + "\n"
    out["leg-tally.json"] = json.dumps(leg_tally_schema(), indent=1) + "\n"
    out["state.json"] = json.dumps(state_schema(), indent=1) + "\n"
    out["request.json"] = json.dumps(request_schema(), indent=1) + "\n"
    out["ha-discovery.json"] = json.dumps(ha_discovery_schema(), indent=1) + "\n"
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m hub.wire DIR``: write the generated schemas into DIR (docs/schemas)."""
    import sys
    from pathlib import Path

    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m hub.wire DIR", file=sys.stderr)
        return 2
    out = Path(args[0])
    for name, text in generated_schemas().items():
        (out / name).write_text(text)
        print(out / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
