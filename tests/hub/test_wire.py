"""hub.wire: the generated schemas match docs/schemas, the firmware's payloads fit them, one
broker URL parser, one place for topics; and the hub's layering (no import cycle, no branch on a
game's name outside the games and their drivers)."""

from __future__ import annotations

import ast
from pathlib import Path

import jsonschema
import pytest

from firmware.sinks import payload
from hub import wire

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "docs" / "schemas"


def test_the_schemas_in_docs_are_the_generated_ones() -> None:
    generated = wire.generated_schemas()
    assert set(generated) == {
        "observe-release.json",
        "observe-die.json",
        "observe-track.json",
        "observe-dice.json",
        "firmware-status.json",
        "response.json",
        "event.json",
        "leg-tally.json",
        "state.json",
        "request.json",
        "ha-discovery.json",
    }
    # every schema in docs/ is generated: none is written by hand any more
    assert {p.name for p in SCHEMAS.glob("*.json")} == set(generated)
    for name, text in generated.items():
        on_disk = (SCHEMAS / name).read_text() if (SCHEMAS / name).exists() else None
        assert on_disk == text, f"docs/schemas/{name} drifted: run python -m hub.wire docs/schemas"


@pytest.mark.parametrize(
    "kind, kwargs",
    [
        ("release", {"ts": 12.5}),
        (
            "die",
            {
                "reading": {
                    "colour": "blue",
                    "face": 2,
                    "confidence": 0.93,
                    "box": [1, 2, 3, 4],
                    "reason": None,
                    "mode": "setup",
                    "index": 0,
                    "of": 5,
                },
                "crop_jpeg": b"\xff\xd8jpeg",
            },
        ),
        (
            "die",
            {"reading": {"colour": None, "face": None, "confidence": 0.0, "reason": "no pips"}},
        ),
        (
            "track",
            {
                "reading": {
                    "track": {"3": ["blue", "green"]},
                    "uncertain": [7],
                    "desert": None,
                    "confidence": 0.9,
                    "reason": None,
                }
            },
        ),
        (
            "dice",
            {
                "readings": [
                    {"colour": "black", "face": 6, "confidence": 0.9, "box": [5, 5, 10, 10]}
                ]
            },
        ),
    ],
)
def test_the_firmwares_payloads_fit_the_schemas(kind: str, kwargs: dict) -> None:
    message = {"transaction": "fw-1", **payload(kind, **kwargs)}  # as MqttSink sends it
    jsonschema.validate(message, wire.observation_schema(kind))


def test_the_firmware_status_fits_its_schema_with_and_without_a_camera_fault() -> None:
    """Health's payload (with a failing camera: the fault is the enum's word), the loop's extra
    fields, and the last will all fit docs/schemas/firmware-status.json; a fault word the
    schema does not know, or an unknown field, does not."""
    from types import SimpleNamespace

    from firmware.health import Health

    schema = wire.firmware_status_schema()
    camera = SimpleNamespace(
        source_name="picamera2", fps_captured=0.0, dropped=0, errors=3, reopens=2, last_fault="busy"
    )
    health = Health("t1")
    snap = health.snapshot(camera)
    assert snap["camera_fault"] == "busy" and snap["state"] == "starting"
    jsonschema.validate(snap, schema)
    camera.last_fault = None
    assert health.snapshot(camera)["camera_fault"] is None  # sent: the camera gives frames
    jsonschema.validate(health.snapshot(camera), schema)
    jsonschema.validate(health.snapshot(), schema)  # no camera at all
    jsonschema.validate(wire.FirmwareStatus.offline("t1").to_payload(), schema)
    jsonschema.validate({"table": "t1", "state": "offline"}, schema)  # the sink's last will
    for bad in (
        {**snap, "camera_fault": "on_fire"},
        {**snap, "state": "dancing"},
        {**snap, "colour": "blue"},
        {"state": "ready"},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
    # every fault the firmware can classify is a word the schema knows
    from firmware.camera_fault import ADVICE

    fault_schema = schema["properties"]["camera_fault"]["anyOf"][0]
    assert set(fault_schema["enum"]) == {f.value for f in ADVICE}


def test_a_payload_with_an_unknown_field_does_not_fit() -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(
            {"ts": 1.0, "colour": "blue", "pips": 3}, wire.observation_schema("die")
        )


def test_an_answer_round_trips_and_keeps_its_private_fields_off_the_topics() -> None:
    """What the hub answers, read back as the firmware and the dashboard read it: the same
    object; on MQTT the transaction is echoed and no token or private view is sent."""
    done = wire.Answer.done("action", 42, {"message": "Ann rolled.", "tokens": {"Ann": "t"}})
    assert done.to_payload() == {
        "ok": True,
        "cmd": "action",
        "seq": 42,
        "message": "Ann rolled.",
        "tokens": {"Ann": "t"},
    }
    assert wire.Answer.from_payload(done.to_payload()) == done
    on_topic = done.with_request_id("r1").to_mqtt("tx-1")
    assert on_topic == {
        "ok": True,
        "cmd": "action",
        "seq": 42,
        "message": "Ann rolled.",
        "request_id": "r1",
        "transaction": "tx-1",
    }
    schema = wire.answer_schema()
    jsonschema.validate(on_topic, schema)
    with pytest.raises(jsonschema.ValidationError):  # a token on a topic does not fit
        jsonschema.validate({**done.to_payload(), "transaction": None}, schema)

    no = wire.Answer.refusal("undo", "nothing to undo", "nothing_to_undo", seq=7)
    assert no.to_payload() == {
        "ok": False,
        "cmd": "undo",
        "error": "nothing to undo",
        "reason": "nothing_to_undo",
        "seq": 7,
    }
    assert (no.ok, no.reason, no.seq) == (False, "nothing_to_undo", 7)
    jsonschema.validate(no.to_mqtt(None), schema)
    again = wire.Answer.from_payload(no.replay("r2").to_payload())
    assert (again.replayed, again.request_id, again.error) == (True, "r2", "nothing to undo")
    for bad in (None, [], {"cmd": "undo"}, {"ok": "yes"}, {"ok": True, "seq": "7"}):
        with pytest.raises(ValueError):
            wire.Answer.from_payload(bad)  # type: ignore[arg-type]
    for bad_on_wire in (
        {"ok": False, "cmd": "undo", "transaction": None},  # a refusal says why
        {"ok": True, "cmd": "undo", "transaction": None},  # done says the seq
        {"ok": True, "cmd": "undo", "seq": 1},  # no transaction echoed
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad_on_wire, schema)


def test_an_event_round_trips_and_its_type_is_one_the_schema_knows() -> None:
    from hub.bus import Envelope

    env = Envelope(14, "t1", "g3", {"type": "camel_moved", "colour": "green", "to": 6}, 1.5)
    message = env.message()
    assert message.event_type is wire.EventType.CAMEL_MOVED
    assert env.to_dict() == {
        "event_type": "camel_moved",
        "seq": 14,
        "ts": 1.5,
        "table": "t1",
        "game_id": "g3",
        "colour": "green",
        "to": 6,
    }
    assert wire.EventMessage.from_payload(env.to_dict()) == message
    assert message.event == env.event
    schema = wire.event_schema()
    moved = {**env.to_dict(), "unit": ["green"], "from": 3, "under": False, "desert": None}
    jsonschema.validate(moved, schema)
    with pytest.raises(jsonschema.ValidationError):  # a camel_moved names where it came from
        jsonschema.validate({k: v for k, v in moved.items() if k != "from"}, schema)
    with pytest.raises(ValueError, match="not an event type"):
        Envelope(1, "t1", "g3", {"type": "camel_flew"}, 1.0).to_dict()
    for bad in (
        {**env.to_dict(), "seq": 0},
        {**env.to_dict(), "seq": True},
        {**env.to_dict(), "ts": "now"},
        {**env.to_dict(), "table": None},
        {**env.to_dict(), "event_type": "camel_flew"},
    ):
        with pytest.raises(ValueError):
            wire.EventMessage.from_payload(bad)


def test_every_event_type_has_its_fields_in_the_schema_and_the_code_writes_no_other() -> None:
    """hub.wire_events describes every EventType and nothing else, and every event the hub's
    code writes as a literal ``{"type": "..."}`` is an EventType (a new one fails here before
    it fails on the wire)."""
    from hub.wire import HUB_EVENTS
    from hub.wire_events import EVENT_FIELDS

    assert set(EVENT_FIELDS) == {t.value for t in wire.EventType}
    assert set(HUB_EVENTS) <= set(wire.EventType)
    written: set[str] = set()
    for path in (REPO / "hub").rglob("*.py"):
        if path.name in ("wire.py", "wire_events.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if (
                        isinstance(key, ast.Constant)
                        and key.value == "type"
                        and isinstance(value, ast.Constant)
                        and isinstance(value.value, str)
                    ):
                        written.add(value.value)
    json_types = {"string", "object", "array", "number", "integer", "boolean", "null"}
    assert len(written - json_types) > 20  # the scan sees the engines' events
    assert written - json_types <= {t.value for t in wire.EventType}


def test_a_leg_tally_round_trips_and_fits_its_schema_in_both_editions() -> None:
    """The drivers' tallies (with the table's keys) read as a LegTally and give back the same
    payload; the second edition's partner_gain is kept, the first edition sends none."""
    first = {
        "table": "t1",
        "game_id": "g1",
        "seq": 40,
        "leg": 2,
        "winner": "orange",
        "runner_up": "white",
        "players": {
            "Ann": {
                "tiles": [{"colour": "orange", "value": 5}],
                "pyramid_tiles": 1,
                "change": 6,
                "money": 9,
            },
            "Bob": {"tiles": [], "pyramid_tiles": 0, "change": 0, "money": 3},
        },
    }
    second = {
        **first,
        "winner": "purple",
        "runner_up": "red",
        "players": {
            name: {**p, "tiles": [], "partner_gain": 2} for name, p in first["players"].items()
        },
    }
    schema = wire.leg_tally_schema()
    for sent in (first, second):
        assert wire.LegTally.from_payload(sent).to_payload() == sent
        jsonschema.validate(sent, schema)
    assert wire.LegTally.from_payload(first).players["Ann"].tiles == [wire.LegTile("orange", 5)]
    for bad in (
        {**first, "winner": "grey"},
        {**first, "leg": 0},
        {**first, "players": {"Ann": first["players"]["Ann"]}},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
    with pytest.raises(ValueError):
        wire.LegTally.from_payload({k: v for k, v in first.items() if k != "players"})
    assert wire.score_payload(12) == "12"


def test_one_broker_url_parser_that_never_shows_the_password() -> None:
    c = wire.parse_broker_url("mqtts://ann:p%40ss@broker.lan")
    assert (c.host, c.port, c.use_tls, c.username, c.secret) == (
        "broker.lan",
        8883,
        True,
        "ann",
        "p@ss",
    )
    assert c.display_url == "mqtts://ann@broker.lan:8883" and "p@ss" not in c.display_url
    assert wire.parse_broker_url("10.0.0.2:1884").display_url == "mqtt://10.0.0.2:1884"
    with pytest.raises(ValueError, match="bad port"):
        wire.parse_broker_url("mqtt://host:99999")
    # the firmware's [broker] section is the same class
    from firmware.config import parse_config

    assert isinstance(parse_config({"broker": {"url": "mqtt://h:1"}}).broker, wire.BrokerConfig)


def test_topics_are_built_in_one_place() -> None:
    t = wire.Topics("t1")
    assert (t.base, t.state, t.event, t.available) == (
        "camelup/t1",
        "camelup/t1/state",
        "camelup/t1/event",
        "camelup/t1/available",
    )
    assert t.score("Ann") == "camelup/t1/score/Ann"
    assert t.leg_tally(3) == "camelup/t1/leg/3/tally"
    assert (t.request("+"), t.response("undo")) == (
        "camelup/t1/request/+",
        "camelup/t1/response/undo",
    )
    assert t.observation("die") == "camelup/t1/request/observe_die"
    assert t.firmware_status == "camelup/t1/firmware/status"


def test_the_request_envelope_folds_pin_and_token_into_auth() -> None:
    req = wire.RequestEnvelope.from_json(
        "action", {"transaction": 7, "pin": "1234", "player": "Ann", "action": "roll"}
    )
    assert (req.transaction, req.auth, req.payload) == (
        7,
        {"pin": "1234"},
        {"player": "Ann", "action": "roll"},
    )
    assert req.request_id is None and req.reply_to is None


# -- the hub's layering ------------------------------------------------------------------------


def _hub_modules() -> dict[str, Path]:
    out = {}
    for path in (REPO / "hub").rglob("*.py"):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(path: Path, name: str, known: set[str]) -> set[str]:
    """The hub modules a module imports anywhere: at its top, in TYPE_CHECKING blocks, and
    inside functions (where a cycle hides: it imports fine until someone moves the line)."""
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1]
                    + ([base] if base else [])
                )
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names}
    return {m for m in found if m in known and m != name}


def test_the_hub_has_no_import_cycle() -> None:
    modules = _hub_modules()
    graph = {name: _imports(path, name, set(modules)) for name, path in modules.items()}
    done: set[str] = set()

    def visit(node: str, trail: list[str]) -> None:
        if node in trail:
            raise AssertionError(
                "import cycle: " + " -> ".join(trail[trail.index(node) :] + [node])
            )
        if node in done:
            return
        for nxt in sorted(graph[node]):
            # a package's __init__ importing its own submodules is how packages work
            if not nxt.startswith(node + "."):
                visit(nxt, [*trail, node])
        done.add(node)

    for name in sorted(graph):
        visit(name, [])
    # the scan sees the imports it is about: the session imports the dispatcher, not back, and
    # the dashboard's import of the session inside a function counts
    assert "hub.requests" in graph["hub.session"]
    assert "hub.session" not in graph["hub.requests"]
    assert "hub.session" in graph["hub.dashboard.app"]


def test_no_branch_on_a_games_name_outside_the_games_and_their_drivers() -> None:
    from hub.games.kinds import GameKind

    names = {k.value for k in GameKind}
    offenders = []
    for name, path in _hub_modules().items():
        if name.startswith(("hub.games.", "hub.games_glue.")) or name in (
            "hub.games",
            "hub.games_glue",
        ):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare):
                for side in [node.left, *node.comparators]:
                    consts = (
                        side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side]
                    )
                    if any(isinstance(c, ast.Constant) and c.value in names for c in consts):
                        offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert offenders == []


def test_the_retained_state_is_a_typed_message_that_refuses_what_it_does_not_carry(
    tmp_path: Path,
) -> None:
    """A real table's snapshot goes through StateMessage unchanged (the same keys in the same
    order: the wire's bytes), fits state.json, and a snapshot without odds gets them as null;
    a state with a field too many or too few, or a bad seq, is refused with a sentence."""
    import json

    from hub.bus import EventBus
    from hub.session import TableSession
    from hub.store import Store

    schema = jsonschema.Draft202012Validator(json.loads((SCHEMAS / "state.json").read_text()))
    store = Store(tmp_path / "t.db")
    try:
        s = TableSession("t1", store, EventBus("t1"), pin="1234", odds=False, advice=False)
        empty = s.snapshot(log=False)
        s.start_game(["Ann", "Bob"], seed=3)
        s.request("action", {"player": "Ann", "action": "bet:winner:blue"}, {"pin": "1234"})
        for snap in (empty, s.snapshot(log=False)):
            msg = wire.StateMessage.from_snapshot(snap)
            payload = msg.to_payload()
            assert list(payload) == list(snap) and payload == snap
            assert not list(schema.iter_errors(payload))
        assert msg.status is wire.TableStatus.PLAYING
        # a secret never fits: an overall bet's colour in the public view breaks the schema
        leaked = json.loads(json.dumps(payload))
        pile = next(p for p in leaked["game"]["overall"].values() if p)
        pile[0]["colour"] = "blue"
        assert list(schema.iter_errors(leaked))
        bare = s.snapshot(log=False, derived=False)
        assert "odds" not in bare
        filled = wire.StateMessage.from_snapshot(bare).to_payload()
        assert filled["odds"] is None and filled["advice"] == []
        assert not list(schema.iter_errors(filled))
        for bad, words in (
            ({**snap, "log": []}, "carries no log"),
            ({k: v for k, v in snap.items() if k != "table"}, "needs table"),
            ({**snap, "seq": -1}, "'seq' is a whole number"),
            ({**snap, "status": "lost"}, "not a valid TableStatus"),
        ):
            with pytest.raises(ValueError, match=words):
                wire.StateMessage.from_snapshot(bad)
        s.close()
    finally:
        store.close()


def test_home_assistant_discovery_is_a_typed_message_that_fits_its_schema() -> None:
    import json

    from hub.games_glue.base import TO_MOVE
    from hub.mqtt.discovery import discovery_message, player_key

    schema = jsonschema.Draft202012Validator(
        json.loads((SCHEMAS / "ha-discovery.json").read_text())
    )
    msg = discovery_message("t1", ["Ann", "Bob"], "camelup/t1", ["Cy"], [TO_MOVE])
    payload = msg.to_payload()
    assert not list(schema.iter_errors(payload))
    comps = payload["components"]
    assert comps[f"camel_pyramid_t1_score_{player_key('Cy')}"] == {"platform": "sensor"}  # left
    assert comps["camel_pyramid_t1_to_move"]["state_topic"] == "camelup/t1/state"
    # the schema is not blind: a component on another platform, or no component, is refused
    assert list(schema.iter_errors({**payload, "components": {}}))
    other = {**payload, "components": {"x": {"platform": "switch"}}}
    assert list(schema.iter_errors(other))
