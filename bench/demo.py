"""End to end: the pyramid's slider edge -> the die's ``die_read`` event at an MQTT subscriber.

Through everything a real table uses: the slider's gpiozero mock pin and our debounce, the camera
supervisor and the real watch loop (30 frames a second, the default settle of 3 still frames), the
die read from the reveal zone cut from the 4608x2592 full-resolution stream (the demo camera's
``zone``, with the empty zone from the same stream as background), the real vision die reader,
the hub session (SQLite with fsync), the MQTT bridge and a real mosquitto on loopback, and a paho
subscriber in this process (one clock for both ends).

The frame is already still when the slider is pressed (the die has landed): what is measured is
the product's own latency, not the renderer's (the demo camera keeps its full-resolution windows
of the few scenes shown, so after the first release of each die the cut costs a copy). Frames are
rendered ahead and kept only if vision reads them right and sure, read as the loop reads them, so
that every release ends in a ``die_read`` (an unsure read would end in a prompt, which is a
person's latency, not the product's).

    .venv/bin/python -m bench.run demo     # or: .venv/bin/python -m bench.demo
"""

from __future__ import annotations

import json
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

RELEASES = 60
TARGET_P95_MS = 150.0
BOARD = {1: ["blue", "green"], 2: ["orange"], 3: ["yellow", "white"]}


def _good_frames(
    table: Any, cameras: int = 8, per_camera: int = 10
) -> dict[str, tuple[int, np.ndarray]]:
    """Rendered frames that vision reads right and sure (colour -> (face, image)), read as the
    watch loop reads them: the zone cut from the full-resolution stream (the demo camera's
    ``zone``), the empty zone from the same stream as background, the markers' white balance,
    and sure meaning at the hub's threshold.

    Camera poses and lamps are tried in turn (one per demo "game"); the reader is not equally
    good under every lamp, and this bench times the pipeline, not the reader's accuracy (that is
    `make eval-vision`). The first camera giving frames for most colours is kept, and its frames
    are rendered again so that the demo camera knows their scenes (its ``zone`` needs them).
    """
    from firmware.readers import vision_locate_zone, vision_read_die, vision_white_gains
    from hub.games.camelup.model import COLOURS as colours
    from hub.observations import DIE_CONFIDENCE_THRESHOLD

    view = table.camera_view
    best: dict[str, tuple[int, np.ndarray]] = {}
    for cam in range(1, cameras + 1):
        view.new_game(cam)
        found: dict[str, tuple[int, np.ndarray]] = {}
        empty = view.render(BOARD, {})
        view.show(empty)
        zone = vision_locate_zone(empty)
        background = view.zone(zone)
        gains = vision_white_gains(empty)
        if background is None:
            continue
        for i in range(per_camera):
            colour, face = colours[i % 5], 1 + (i // 5 + i) % 3
            if colour in found:
                continue
            image = view.render(BOARD, {}, (colour, face))
            view.show(image)
            got = view.zone(zone)
            if got is None or got[0].shape != background[0].shape:
                continue
            reading, _ = vision_read_die(
                got[0],
                (0, 0, got[0].shape[1], got[0].shape[0]),
                background=background[0],
                white_gains=gains,
            )
            if (reading["colour"], reading["face"]) == (colour, face) and reading[
                "confidence"
            ] >= DIE_CONFIDENCE_THRESHOLD:
                found[colour] = (face, image)
        if len(found) > len(best):
            best = found
            view.kept = cam
        if len(best) >= 3:
            break
    view.new_game(getattr(view, "kept", 1))
    return {c: (face, view.render(BOARD, {}, (c, face))) for c, (face, _) in best.items()}


class _Subscriber:
    def __init__(self, url: str, table: str) -> None:
        import paho.mqtt.client as mqtt

        from hub.mqtt.bridge import parse_broker_url

        cfg = parse_broker_url(url)
        self.got: dict[int, tuple[str, float]] = {}
        self.cond = threading.Condition()
        self.ready = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"bench-{table}")
        self.client.on_connect = lambda c, *_: c.subscribe(f"camelup/{table}/event", qos=1)
        self.client.on_subscribe = lambda *_: self.ready.set()
        self.client.on_message = self._message
        self.client.username_pw_set(cfg.username, cfg.password)
        self.client.connect(cfg.host, cfg.port)
        self.client.loop_start()

    def _message(self, client: Any, userdata: Any, msg: Any) -> None:
        t = time.monotonic()
        data = json.loads(msg.payload)
        with self.cond:
            self.got[int(data["seq"])] = (str(data["event_type"]), t)
            self.cond.notify_all()

    def wait_type(
        self, types: tuple[str, ...], after_seq: int, timeout: float
    ) -> tuple[int, str, float] | None:
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for seq in sorted(s for s in self.got if s > after_seq):
                    kind, t = self.got[seq]
                    if kind in types:
                        return seq, kind, t
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self.cond.wait(remaining)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _pct(values: list[float], q: float) -> float:
    return round(float(np.percentile(values, q)), 1) if values else float("nan")


def run(releases: int = RELEASES) -> dict:
    from firmware.demo import DemoOptions, DemoTable
    from hub.bus import EventBus
    from hub.mqtt.bridge import MqttBridge
    from hub.mqtt.broker import EmbeddedBroker
    from hub.session import TableSession
    from hub.store import Store

    tmp = tempfile.TemporaryDirectory(prefix="bench-demo-")
    table_id = "bench-e2e"
    bus = EventBus(table_id)
    store = Store(Path(tmp.name) / "hub.db")
    session = TableSession(table_id, store, bus)
    broker = EmbeddedBroker(kind="mosquitto").start()
    bridge = MqttBridge(session, broker.url).start()
    from hub.mqtt.access import Role

    sub = _Subscriber(broker.url_for(Role.READER), table_id)
    table = DemoTable(session, DemoOptions(players=2, seed="bench", pace_s=0.0, table=table_id))
    edge_to_mqtt: list[float] = []
    edge_to_hub: list[float] = []
    unsure = 0
    frames_used: list[str] = []
    try:
        if not (bridge.wait_connected(10) and sub.ready.wait(10)):
            raise RuntimeError("the bridge or the subscriber could not connect to mosquitto")
        frames = _good_frames(table)
        frames_used = list(frames)
        if not frames:
            raise RuntimeError("vision read none of the rendered dice right: nothing to time")
        board = table.camera_view.render(BOARD, {})
        table.camera_view.show(board)
        table.start()
        time.sleep(1.0)  # the loop finds the reveal zone on the first frames
        game_no = 0
        while len(edge_to_mqtt) + unsure < releases:
            if not session.active:
                game_no += 1
                session.start_game(["Ada", "Bo"], seed=f"bench/{game_no}", abandon=True)
            left = [c for c in session.game.state.dice_left if c in frames]
            if not left:  # the leg's last dice have no good frame: release them by hand
                c = session.game.state.dice_left[0]
                session.request(
                    "action", {"player": session.game.current_player, "action": f"roll:{c}:1"}
                )
                continue
            colour = left[0]
            face, image = frames[colour]
            table.camera_view.show(image)
            time.sleep(0.3)  # the die has landed: the frame is still before the edge
            seq0 = session.seq
            mark = table.observed.mark()
            t_edge = time.monotonic()
            table._press_slider()
            got = sub.wait_type(("die_read", "vision_uncertain"), seq0, 15.0)
            hub = table.observed.wait_for("die", mark, 1.0)
            if got is None:
                raise RuntimeError("no die event reached the subscriber within 15 s")
            seq, kind, t = got
            if kind == "die_read":
                edge_to_mqtt.append((t - t_edge) * 1000)
                obs = table.observed
                i = next(i for i in range(mark, len(obs.answers)) if obs.answers[i][0] == "die")
                edge_to_hub.append((obs.times[i] - t_edge) * 1000)
            else:
                unsure += 1
                pid = hub[1].fields.get("prompt") if hub else None
                if pid:
                    session.request("confirm", {"prompt": pid, "colour": colour, "face": face})
            # a hand moves the camel and lets go: the loop reads the track and is ready again
            mark = table.observed.mark()
            table.camera_view.show(table.camera_view.with_hand(board, 2, seq))
            time.sleep(0.15)
            table.camera_view.show(board)
            table.observed.wait_for("track", mark, 15.0)
        die_read_ms = list(table.loop.readers.timings.get("die", []))
    finally:
        table.close()
        sub.close()
        bridge.stop()
        broker.close()
        session.close()
        bus.close()
        store.close()
        tmp.cleanup()
    return {
        "what": "slider edge (mock pin) -> die_read at an MQTT subscriber: watch loop at 30 fps "
        "(3 still frames), vision, hub (SQLite fsync), bridge, mosquitto on loopback",
        "releases_timed": len(edge_to_mqtt),
        "releases_unsure_excluded": unsure,
        "edge_to_subscriber_ms_median": _pct(edge_to_mqtt, 50),
        "edge_to_subscriber_ms_p95": _pct(edge_to_mqtt, 95),
        "edge_to_subscriber_ms_max": _pct(edge_to_mqtt, 100),
        "edge_to_hub_answer_ms_median": _pct(edge_to_hub, 50),
        "edge_to_hub_answer_ms_p95": _pct(edge_to_hub, 95),
        "vision_die_read_ms_median": _pct(die_read_ms, 50),
        "die_colours_with_good_frames": sorted(frames_used),
        "target_p95_ms": TARGET_P95_MS,
        "meets_target": bool(edge_to_mqtt) and _pct(edge_to_mqtt, 95) < TARGET_P95_MS,
    }


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
