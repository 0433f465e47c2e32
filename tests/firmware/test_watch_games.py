"""The watch loop at the other games: the horse race's six-sided die, Marco Polo II's frame of dice,
the game followed from the hub's retained state (a real mosquitto), the `[table] game` override."""

from __future__ import annotations

import json
import queue
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import paho.mqtt.client as mqtt
import pytest

from firmware.config import BrokerConfig, ConfigError, WatchConfig, load_config, parse_config
from firmware.devices import Devices
from firmware.frames import RenderedSource
from firmware.games import dice_frame_readings, game_of_state, horse_race_die, table_game
from firmware.sinks import InProcessSink, MqttSink, RecordingSink
from firmware.watch import WatchLoop
from hub.mqtt.access import Role
from tests.firmware._watchkit import running_watch, wait_until
from tests.firmware.test_watch import CFG, Table, kinds

# --- pure parts --------------------------------------------------------------------------------


def test_the_game_comes_from_the_state_unless_the_config_names_it() -> None:
    assert game_of_state({"game": {"game": "horserace", "positions": {}}}) == "horserace"
    assert game_of_state({"game": {"game": "marcopolo2"}}) == "marcopolo2"
    assert game_of_state({"game": {"dice_left": ["blue"]}}) == "camelup"  # an older hub's view
    assert game_of_state({"game": None, "status": "none"}) is None
    assert game_of_state({"game": {"game": "chess"}}) is None
    assert game_of_state("not a state") is None
    assert table_game("auto", "marcopolo2") == "marcopolo2"
    assert table_game("auto", None) == "camelup"
    assert table_game("horserace", "marcopolo2") == "horserace"


def test_a_horse_race_die_has_a_face_and_no_colour() -> None:
    read = {
        "colour": "blue",
        "face": 6,
        "confidence": 0.55,
        "face_confidence": 0.93,
        "colour_confidence": 0.4,
        "box": [1, 2, 3, 4],
        "reason": "colour is between palette entries",
    }
    out = horse_race_die(read)
    assert out["colour"] is None and "colour_confidence" not in out
    assert out["face"] == 6 and out["confidence"] == 0.93 and out["reason"] is None
    unread = horse_race_die(
        {
            "colour": None,
            "face": None,
            "confidence": 0.0,
            "face_confidence": 0.1,
            "reason": "no pips",
        }
    )
    assert unread["confidence"] == 0.0 and unread["reason"] == "no pips"
    assert dice_frame_readings(
        [
            {
                "colour": "red",
                "face": 3,
                "confidence": 0.9,
                "face_confidence": 0.9,
                "box": (5, 6, 7, 8),
                "reason": None,
            }
        ]
    ) == [{"colour": "red", "face": 3, "confidence": 0.9, "box": [5, 6, 7, 8]}]


def test_a_bad_table_game_is_a_clear_config_error(tmp_path: Path) -> None:
    assert parse_config({"table": {"game": "marcopolo2"}}).table.game == "marcopolo2"
    assert load_config(None).table.game == "auto"
    bad = tmp_path / "table.toml"
    bad.write_text('[table]\ngame = "horse-race"\n')
    with pytest.raises(
        ConfigError,
        match=r"table\.toml: \[table\] game: 'horse-race' must be "
        r"one of 'auto', 'camelup', 'camelup2', 'horserace', "
        r"'marcopolo2'",
    ):
        load_config(bad)
    with pytest.raises(ConfigError, match=r"\[table\]\.game: expected a string"):
        parse_config({"table": {"game": 2}})


# --- the loop with stand-in readers --------------------------------------------------------------


def test_horse_race_one_press_one_die_with_faces_one_to_six_and_no_colour(mock_factory) -> None:
    table = Table(mock_factory)
    try:
        table.sink.hub_game = "horserace"
        time.sleep(0.2)
        table.release_die()
        dice = table.sink.wait_for("die", 1, 2.0)
        time.sleep(0.3)
        assert len(dice) == 1 and kinds(table.sink) == ["release", "die"]
        assert dice[0]["colour"] is None and dice[0]["face"] == 2 and dice[0]["confidence"] > 0.9
        hints = {k: v for k, v in table.vision.hints[0].items() if k != "background"}
        assert hints["faces"] == (1, 2, 3, 4, 5, 6) and hints["expected_colours"] is None
        assert table.sink.of("status")[-1]["game"] == "horserace"
        table.move_camel(to=3)  # the track is read after the roll, as at Camel Up
        assert table.sink.wait_for("track", 1, 2.0)
    finally:
        table.close()


def test_second_edition_one_press_one_die_among_its_six_dice_with_grey_in_the_palette(
    mock_factory,
) -> None:
    """camelup2 (issue 16): a slider press reads one die, among the dice the hub says are left
    (the grey die too), faces 1..3, with a palette that knows grey; then the track."""
    table = Table(mock_factory)
    try:
        table.sink.hub_game = "camelup2"
        table.sink.left = ["red", "grey", "purple"]
        time.sleep(0.2)
        table.release_die()
        dice = table.sink.wait_for("die", 1, 2.0)
        assert len(dice) == 1 and dice[0]["colour"] == "blue" and dice[0]["face"] == 2
        hints = table.vision.hints[0]
        assert hints["faces"] == (1, 2, 3) and hints["expected_colours"] == [
            "red",
            "grey",
            "purple",
        ]
        assert hints["palette"] is not None and "grey" in hints["palette"].colours
        hints["palette"].restricted(hints["expected_colours"])  # the reader can narrow to them
        assert table.sink.of("status")[-1]["game"] == "camelup2"
        table.move_camel(to=3)
        assert table.sink.wait_for("track", 1, 2.0)
    finally:
        table.close()


def test_the_second_editions_dice_and_palette() -> None:
    pytest.importorskip("vision.palette")
    from firmware.games import DICE_COLOURS, dice_colours, palette_for
    from vision.palette import Palette, default_palette

    assert DICE_COLOURS["camelup2"] == ("blue", "green", "yellow", "red", "purple", "grey")
    assert dice_colours("camelup2", None) == list(DICE_COLOURS["camelup2"])
    assert dice_colours("camelup2", ["grey"]) == ["grey"]
    assert dice_colours("horserace", ["blue"]) is None
    assert palette_for("camelup", None) is None  # the first edition: the shipped palette as is
    pal = palette_for("camelup2", None)
    assert pal is not None and set(default_palette().colours) < set(pal.colours)
    # a grey body is named grey among the second edition's dice, not white or black
    assert pal.restricted(DICE_COLOURS["camelup2"]).classify((120, 122, 125))[0] == "grey"
    taught = Palette({**default_palette().colours, "grey": (40.0, 1.0, 2.0)}, "calibrated")
    assert palette_for("camelup2", taught) is taught  # a taught grey is kept


def test_marco_polo_confirm_reads_the_frame_and_the_slider_does_nothing(mock_factory) -> None:
    table = Table(mock_factory)
    try:
        table.sink.hub_game = "marcopolo2"
        time.sleep(0.2)
        table.press_slider()
        time.sleep(0.3)
        assert kinds(table.sink) == [] and table.loop.health.releases == 1
        table.devices.confirm.pin.drive_low()
        frames = table.sink.wait_for("dice", 1, 2.0)
        time.sleep(0.3)
        table.devices.confirm.pin.drive_high()
        assert len(frames) == 1 and kinds(table.sink) == ["dice"]
        assert [(r["colour"], r["face"]) for r in frames[0]["readings"]] == [
            ("blue", 1),
            ("green", 2),
            ("orange", 3),
            ("yellow", 1),
            ("white", 2),
        ]
        assert set(frames[0]["readings"][0]) == {"colour", "face", "confidence", "box"}
        assert table.loop.state == "ready" and table.vision.die_calls == 0
        assert table.vision.paused == [1]  # no frame decoded while the frame is read
        assert table.camera._paused == 0
    finally:
        table.close()


def test_setup_mode_is_left_when_the_table_plays_another_game(mock_factory) -> None:
    table = Table(mock_factory, setup=True)
    try:
        table.sink.hub_game = "horserace"
        deadline = time.monotonic() + 2.0
        while table.loop.state != "ready" and time.monotonic() < deadline:
            time.sleep(0.02)
        assert table.loop.state == "ready" and table.loop.game == "horserace"
    finally:
        table.close()


# --- the game from the hub's retained state, over a real mosquitto --------------------------------


class Requests:
    """The hub's side of the broker: publishes the retained state, collects the requests."""

    def __init__(self, url: str, table: str) -> None:
        self.table = table
        self.got: queue.Queue[tuple[str, dict]] = queue.Queue()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.client.on_message = lambda c, u, m: self.got.put(
            (m.topic.rsplit("/", 1)[-1], json.loads(m.payload))
        )
        b = BrokerConfig(url=url)
        self.client.username_pw_set(b.username, b.secret)
        self.client.connect(b.host, b.port)
        self.client.subscribe(f"camelup/{table}/request/#", qos=1)
        self.client.loop_start()

    def state(self, game: dict | None) -> None:
        self.client.publish(
            f"camelup/{self.table}/state", json.dumps({"seq": 1, "game": game}), qos=1, retain=True
        ).wait_for_publish(5.0)

    def close(self) -> None:
        self.client.publish(f"camelup/{self.table}/state", b"", retain=True).wait_for_publish(5.0)
        self.client.disconnect()
        self.client.loop_stop()


@pytest.mark.broker
def test_a_state_message_switching_the_game_switches_the_mode(broker, mock_factory) -> None:
    table_id = f"fwgame{int(time.time() * 1000) % 100000}"
    hub = Requests(broker.url, table_id)
    hub.state({"game": "horserace"})  # retained before the firmware connects
    t = Table(mock_factory)  # (its recording sink is replaced by the MQTT one below)
    t.loop.stop()
    sink = MqttSink(table_id, BrokerConfig(url=broker.url_for(Role.FIRMWARE)))
    loop = WatchLoop(
        t.camera, sink, devices=t.devices, config=CFG, readers=t.vision.readers()
    ).start()
    fixed = None
    try:
        assert sink.wait_connected(5.0)
        assert wait_until(lambda: loop.game == "horserace")
        hub.state({"game": "marcopolo2", "round": 1})
        assert wait_until(lambda: loop.game == "marcopolo2")
        time.sleep(0.2)
        t.press_slider()  # does nothing at Marco Polo II
        t.devices.confirm.pin.drive_low()
        cmd, body = hub.got.get(timeout=5.0)
        t.devices.confirm.pin.drive_high()
        assert cmd == "observe_dice" and len(body["readings"]) == 5
        assert body["transaction"].startswith("fw-")
        hub.state(None)  # the game is over and none started: Camel Up's pyramid again
        assert wait_until(lambda: loop.game == "camelup")
        time.sleep(0.2)
        t.release_die()
        got = [hub.got.get(timeout=5.0)[0] for _ in range(2)]
        assert got == ["observe_release", "observe_die"]  # no release was sent before
        # a table that names its game in the config ignores the hub's
        fixed = WatchLoop(t.camera, sink, config=CFG, readers=t.vision.readers(), game="horserace")
        fixed._follow_game()
        hub.state({"game": "marcopolo2"})
        time.sleep(0.3)
        fixed._follow_game()
        assert sink.game() == "marcopolo2" and fixed.game == "horserace"
    finally:
        loop.stop()
        sink.close()
        t.close()
        hub.close()


# --- real vision, rendered frames, the real hub in process ----------------------------------------


def _session(tmp_path: Path):
    session_mod = pytest.importorskip("hub.session")
    store_mod = pytest.importorskip("hub.store")
    bus_mod = pytest.importorskip("hub.bus")
    bus = bus_mod.EventBus()
    return session_mod.TableSession("t1", store_mod.Store(tmp_path / "hub.db"), bus), bus


class HubSink(InProcessSink):
    """The in-process sink to a real session, keeping what was sent (as RecordingSink does)."""

    def __init__(self, session) -> None:
        super().__init__(session)
        self.rec = RecordingSink()

    def send(self, kind: str, data: dict) -> None:
        self.rec.send(kind, data)
        super().send(kind, data)


@contextmanager
def _hub_table(
    session, mock_factory, source: Callable[[], RenderedSource], **loop_kw
) -> Iterator[tuple[WatchLoop, Devices, HubSink]]:
    """A watch loop with mock pins on frames from ``source``, its readings going in process to
    the hub's ``session``; stopped and its pins closed on leaving."""
    sink = HubSink(session)
    with running_watch(mock_factory, source, sink, **loop_kw) as (loop, devices):
        yield loop, devices, sink


def _event_types(session) -> list[str]:
    return [e.event.get("type") for e in session.events_since(0)]


def _release_one_die(
    session, mock_factory, scene, game: str, *, cut_shows_die: bool = True, timeout: float = 8.0
) -> tuple[list[dict], HubSink]:
    """One die through the whole chain: a watch on the rendered zone ``scene`` waits for the
    hub's ``game``, the slider is pulled, the die appears in the preview (and, if
    ``cut_shows_die``, in the full-resolution cut; else every cut is the empty zone), and the
    die readings the watch sent are returned with its sink once the watch has stopped."""
    scale = scene.zone.shape[1] / scene.zone_box_preview[2]
    shown = {"die": False}

    def cut(box):
        die = shown["die"] and cut_shows_die
        return (scene.zone if die else scene.zone_empty).copy(), scale

    def source() -> RenderedSource:
        return RenderedSource(
            lambda: scene.preview if shown["die"] else scene.preview_empty, fps=30, zone=cut
        )

    with _hub_table(
        session,
        mock_factory,
        source,
        reveal_zone=scene.zone_box_preview,
        config=WatchConfig(still_frames=2, track_timeout_s=0.5, status_interval_s=1.0),
    ) as (loop, devices, sink):
        assert wait_until(lambda: loop.game == game, 15.0)
        time.sleep(0.5)
        devices.slider.pin.drive_low()
        shown["die"] = True
        dice = sink.rec.wait_for("die", 1, timeout)
        time.sleep(0.3)
    return dice, sink


def test_horse_race_a_rendered_six_is_read_and_rolled_by_the_hub(
    mock_factory, tmp_path: Path
) -> None:
    zone_mod = pytest.importorskip("vision.render.zone")
    scene = zone_mod.render_zone_scene(
        np.random.default_rng(2), ("blue", 6), track={1: ["blue", "green"]}
    )
    session, bus = _session(tmp_path)
    try:
        session.start_game(["Ann", "Bob"], game="horserace", seed=3)
        for _ in range(20):  # a betting phase first: everyone passes
            if session.game.state.phase == "running":
                break
            session.request(
                "action", {"player": session.game.current_player, "action": "pass"}, {"local": True}
            )
        assert session.game.state.phase == "running"  # a roll is due

        dice, sink = _release_one_die(session, mock_factory, scene, "horserace")
        assert len(dice) == 1 and len(sink.rec.of("die")) == 1
        assert dice[0]["colour"] is None and dice[0]["face"] == 6, dice[0]
        assert sink.failures == 0, sink.last_error
        events = [e.event for e in session.events_since(0)]
        assert "die_released" in [e.get("type") for e in events]
        rolled = [e for e in events if e.get("type") == "die_rolled"]
        assert len(rolled) == 1 and rolled[0]["face"] == 6, events[-3:]
    finally:
        bus.close()


def test_marco_polo_a_rendered_frame_of_dice_goes_to_the_players(
    mock_factory, tmp_path: Path
) -> None:
    dice_render = pytest.importorskip("vision.render.dice")
    from vision.dice import read_dice

    # the players' colours (Ann blue, Bob yellow) and two neutral dice; no black die (that needs
    # the boards' regions, a table setting, to be given to a player)
    image, truth = dice_render.render_dice_scene(
        np.random.default_rng(4),
        4,
        colours=["blue", "yellow", "green", "red"],
        size=(640, 480),
        faces=(1, 2, 3, 4, 5, 6),
    )
    # read as the table reads a frame: once, never as a close-up (firmware.readers)
    direct = [(r.colour, r.face, list(r.box)) for r in read_dice(image, close_ups=False)]
    session, bus = _session(tmp_path)
    try:
        session.start_game(["Ann", "Bob"], game="marcopolo2", settings={"expected_dice": 1})
        with _hub_table(
            session,
            mock_factory,
            lambda: RenderedSource(lambda: image, fps=30),
            config=WatchConfig(still_frames=2, status_interval_s=1.0),
        ) as (loop, devices, sink):
            assert wait_until(lambda: loop.game == "marcopolo2", 15.0)
            time.sleep(0.3)
            devices.confirm.pin.drive_low()
            frames = sink.rec.wait_for("dice", 1, 30.0)
            time.sleep(0.3)
        assert len(frames) == 1 and len(sink.rec.of("dice")) == 1
        got = [(r["colour"], r["face"], r["box"]) for r in frames[0]["readings"]]
        assert got == direct
        want = {(d.colour, d.face) for d in truth.dice}
        assert {(c, f) for c, f, _ in got} == want  # every die of the frame, read right
        assert sink.failures == 0, sink.last_error
        colours = session.game.state.colours  # player -> colour
        read = {p: session.game.state.dice.get(p) for p in colours}
        for player, colour in colours.items():
            face = next(f for c, f, _ in got if c == colour)
            assert read[player] is not None and list(read[player]["faces"]) == [face], read
        assert "dice_read" in _event_types(session)
    finally:
        bus.close()


def test_second_edition_a_rendered_grey_die_is_read_by_its_numeral_and_moves_its_crazy_camel(
    mock_factory, tmp_path: Path
) -> None:
    """Issue 16, end to end: the grey die (no pips, a white 2) lands in the rendered reveal
    zone; the watch finds it against the empty zone, reads its numeral's shade and value
    (vision.dice.greydie) and the hub plays it: the white crazy camel goes back two spaces."""
    zone_mod = pytest.importorskip("vision.render.zone")
    scene = zone_mod.render_zone_scene(
        np.random.default_rng(2), ("grey", 2, "white"), track={1: ["blue", "green"]}
    )
    session, bus = _session(tmp_path)
    apart = {  # neither crazy camel carries a racing camel: the numeral's ink decides
        "1": ["blue"],
        "2": ["green"],
        "3": ["yellow"],
        "4": ["red"],
        "9": ["purple"],
        "14": ["white"],
        "16": ["black"],
    }
    try:
        answer = session.request(
            "start_game",
            {"game": "camelup2", "players": ["Ann", "Bob", "Cy"], "setup": apart},
            {"local": True},
        )
        assert answer["ok"], answer

        dice, sink = _release_one_die(session, mock_factory, scene, "camelup2")
        assert len(dice) == 1, dice
        die = dice[0]
        assert (die["colour"], die["face"], die["shade"]) == ("grey", 2, "white"), die
        assert die["shade_confidence"] >= 0.8 and die["reason"] is None
        events = [e.event for e in session.events_since(0)]
        read = [e for e in events if e.get("type") == "die_read"]
        assert len(read) == 1 and (read[0]["camel"], read[0]["why"]) == ("white", "colour")
        assert "vision_uncertain" not in [e.get("type") for e in events]
        assert session.snapshot()["game"]["track"]["12"] == ["white"]
    finally:
        bus.close()


def test_a_preview_fallback_reading_waits_for_a_person_and_is_played_once(
    mock_factory, tmp_path: Path
) -> None:
    """Issue 14: when the full-resolution cut shows no die (here every cut is the empty zone),
    the watch reads the still preview frame, where a ~20 px die can be read wrong at a high
    confidence. The reading says so (``frame``: preview_fallback) and the hub plays nothing on
    it: it opens the usual die prompt, even though this reading is right and sure. Confirmed by
    a person, the die is played exactly once; a second confirm finds no prompt."""
    zone_mod = pytest.importorskip("vision.render.zone")
    scene = zone_mod.render_zone_scene(
        np.random.default_rng(3), ("green", 2), track={1: ["blue", "green"]}
    )
    session, bus = _session(tmp_path)
    local = {"local": True}
    try:
        session.start_game(["Ann", "Bob"], game="camelup", seed=3)
        left = list(session.game.state.dice_left)
        assert "green" in left

        dice, sink = _release_one_die(
            session, mock_factory, scene, "camelup", cut_shows_die=False, timeout=10.0
        )  # every full-resolution cut is the empty zone
        assert len(dice) == 1, dice
        die = dice[0]
        assert (die["colour"], die["face"], die["frame"]) == ("green", 2, "preview_fallback"), die
        assert die["confidence"] >= 0.8, die  # sure, and still not played on its own
        assert sink.failures == 0, sink.last_error
        types = _event_types(session)
        assert "die_read" not in types and "vision_uncertain" in types, types
        assert list(session.game.state.dice_left) == left  # nothing applied
        (prompt,) = session.snapshot(derived=False)["pending"]
        assert prompt["kind"] == "die_reading", prompt
        assert any("preview frame" in p for p in prompt["problems"]), prompt
        assert (prompt["reading"]["colour"], prompt["reading"]["face"]) == ("green", 2)
        answer = session.request("confirm", {"prompt": prompt["id"], "accept": True}, local)
        assert answer["ok"], answer
        again = session.request("confirm", {"prompt": prompt["id"], "accept": True}, local)
        assert not again["ok"] and again["reason"] == "unknown_prompt", again
        read = [e.event for e in session.events_since(0) if e.event.get("type") == "die_read"]
        assert len(read) == 1, read
        assert list(session.game.state.dice_left) == [c for c in left if c != "green"]
        assert session.snapshot(derived=False)["pending"] == []
    finally:
        bus.close()
