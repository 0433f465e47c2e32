"""Firmware figures: slider edge -> die observation at an MQTT subscriber; RSS of `pyramid watch`.

Latency: gpiozero mock pins (the slider's edge is a mock pin driven low), a rendered board shown
by a RenderedSource at the camera's 30 fps (so the frame clock is real): the empty table, and at
the edge the same table with the die lying still in the reveal zone (it lands at once, without
rolling). vision.motion's die watcher sees it appear and then ``still_frames`` still frames (so
``still_frames`` + 1 frames after the edge at best), then the real vision readers, the MQTT sink,
and a real mosquitto on 127.0.0.1 (a free port, a temporary config). After each read the die is
taken away, which the track watcher reads as the table's change. The clock stops when a
subscriber in this process receives the ``request/observe_die`` message the firmware publishes:
this measures up to the hub's door, not the hub's ``die_read`` event (the hub's own figure,
bench/hub.py, adds its part).

The same run with an instant fake reader gives the firmware's own share (debounce, frame clock,
settle frames, JPEG, MQTT) without vision's read time.

RSS: a `pyramid watch` process (mock pins, a replayed film of the table with a die landing every
second, MQTT sink) with the slider pressed every second for a few seconds; peak resident memory
(VmHWM) from /proc.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

TRIALS = 40
TARGET_P95_MS = 150.0
TARGET_RSS_MB = 100.0


def _percentile(values: list[float], q: float) -> float:
    return round(float(np.percentile(np.asarray(values), q)), 1)


def _scenes() -> tuple[np.ndarray, np.ndarray]:
    """The table without and with the die (no random effects: only the die differs), from the
    first seed whose die vision reads right, so the figure times a successful read."""
    from firmware.readers import vision_locate_zone, vision_read_die
    from vision.render.board import render_board_scene

    track = {1: ["blue", "green"]}
    for seed in range(7, 40):
        die, _ = render_board_scene(np.random.default_rng(seed), track=track,
                                    die=("blue", 2), effects=False)
        reading, _ = vision_read_die(die, vision_locate_zone(die))
        if (reading["colour"], reading["face"]) == ("blue", 2):
            break
    empty, _ = render_board_scene(np.random.default_rng(seed), track=track, effects=False)
    return empty, die


def _film(folder: Path, empty: np.ndarray, die: np.ndarray) -> None:
    """A looped film for `pyramid watch --replay`: 15 frames of the table, 15 with the die."""
    import os

    import cv2

    cv2.imwrite(str(folder / "empty.png"), empty)
    cv2.imwrite(str(folder / "die.png"), die)
    film = folder / "film"
    film.mkdir()
    for i in range(30):
        os.link(folder / ("die.png" if i >= 15 else "empty.png"), film / f"{i:03d}.png")


def _latency(broker_url: str, scenes: tuple[np.ndarray, np.ndarray],
             real_vision: bool) -> dict[str, Any]:
    import paho.mqtt.client as mqtt
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from firmware.camera import CameraSupervisor
    from firmware.config import BrokerConfig, WatchConfig
    from firmware.devices import Devices
    from firmware.frames import RenderedSource
    from firmware.readers import Readers
    from firmware.sinks import MqttSink
    from firmware.watch import WatchLoop
    from hardware.pinmap import load_pinmap

    table = f"bench{int(time.time()) % 100000}{int(real_vision)}"
    broker = BrokerConfig(url=broker_url)
    got: queue.Queue[float] = queue.Queue()
    tracks: queue.Queue[float] = queue.Queue()
    sub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)

    def on_message(client: Any, userdata: Any, msg: Any) -> None:
        (got if msg.topic.endswith("observe_die") else tracks).put(time.monotonic())

    sub.on_message = on_message
    sub.connect(broker.host, broker.port)
    sub.subscribe(f"camelup/{table}/request/observe_die", qos=1)
    sub.subscribe(f"camelup/{table}/request/observe_track", qos=1)
    sub.loop_start()

    readers = Readers()
    if not real_vision:
        readers = Readers(read_die=lambda image, zone, **hints: (
            {"colour": "blue", "face": 2, "confidence": 1.0}, b"\xff\xd8"),
            read_track=lambda image: {"track": {}, "reason": None})
    cfg = WatchConfig(track_timeout_s=0.3, status_interval_s=5.0)
    factory = MockFactory(pin_class=MockPWMPin)
    devices = Devices(load_pinmap(), pin_factory=factory, chirps=False)
    sink = MqttSink(table, broker)
    empty, die = scenes
    shown = {"image": empty}
    camera = CameraSupervisor(lambda: RenderedSource(lambda: shown["image"], fps=30)).start()
    loop = WatchLoop(camera, sink, devices=devices, config=cfg, readers=readers).start()
    lat: list[float] = []
    lost = 0
    try:
        sink.wait_connected(5.0)
        time.sleep(1.5)  # warm-up: imports, zone from the markers
        pin = devices.slider.pin
        for _ in range(TRIALS + 2):
            t0 = time.monotonic()
            shown["image"] = die  # the die lands as the slider is pushed
            pin.drive_low()
            try:
                t1 = got.get(timeout=5.0)
                lat.append((t1 - t0) * 1000)
            except queue.Empty:
                lost += 1
            pin.drive_high()
            shown["image"] = empty  # taken away: the table changed, the track is read
            try:
                tracks.get(timeout=5.0)  # back to ready
            except queue.Empty:
                pass
            time.sleep(0.05 + 0.033 * np.random.default_rng(len(lat)).random())
        lat = lat[2:]  # the first two pay for the first calls into vision
        timings = {k: round(float(np.median(v)), 1) for k, v in readers.timings.items() if v}
        return {
            "trials": len(lat),
            "lost": lost,
            "p50_ms": _percentile(lat, 50),
            "p95_ms": _percentile(lat, 95),
            "max_ms": round(max(lat), 1),
            "reader_median_ms": timings,
            "dropped_frames": camera.dropped,
        }
    finally:
        loop.stop()
        camera.stop()
        sink.close()
        devices.close()
        sub.disconnect()
        sub.loop_stop()


def _rss(broker_url: str, folder: Path, seconds: float = 8.0) -> dict[str, Any]:
    """Peak RSS of a real `pyramid watch` process that reads a die every second."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "hub.cli", "watch", "--replay", str(folder / "film"), "--mock-pins",
         "--keys", "--broker", broker_url, "--table", "benchrss", "--duration", str(seconds),
         "--log-level", "WARNING"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    status = Path(f"/proc/{proc.pid}/status")
    peak_kb = 0
    presses = 0
    start = time.monotonic()
    while proc.poll() is None:
        try:
            for line in status.read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak_kb = max(peak_kb, int(line.split()[1]))
        except OSError:
            break
        if time.monotonic() - start > 2.0 + presses and proc.stdin:
            try:
                proc.stdin.write("\n")
                proc.stdin.flush()
                presses += 1
            except (BrokenPipeError, OSError):
                pass
        time.sleep(0.1)
    err = proc.stderr.read() if proc.stderr else ""
    return {"peak_rss_mb": round(peak_kb / 1024, 1), "slider_presses": presses,
            "exit_code": proc.returncode, **({"stderr": err[-500:]} if proc.returncode else {})}


def run() -> dict[str, Any]:
    from hub.mqtt.broker import EmbeddedBroker, find_mosquitto

    if find_mosquitto() is None:
        return {"error": "mosquitto is not installed (make deps)"}
    broker = EmbeddedBroker(kind="mosquitto")
    broker.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            scenes = _scenes()
            _film(folder, *scenes)
            real = _latency(broker.url, scenes, real_vision=True)
            fake = _latency(broker.url, scenes, real_vision=False)
            rss = _rss(broker.url, folder)
    finally:
        broker.close()
    return {
        "slider_to_observe_die_mqtt": {
            **real,
            "target_p95_ms": TARGET_P95_MS,
            "meets_target": real["p95_ms"] < TARGET_P95_MS,
            "measured_to": "the firmware's request/observe_die message at an MQTT subscriber "
                           "(not yet the hub's die_read event)",
            "setup": "mock slider edge; rendered board at 30 fps, the die appears still at the "
                     "edge; vision.motion die watcher, still_frames=3; debounce lockout; real "
                     "vision readers; mosquitto 127.0.0.1",
        },
        "slider_to_observe_die_mqtt_firmware_only": {
            **fake,
            "setup": "the same with an instant fake reader: the firmware's own share",
        },
        "watch_process": {**rss, "target_rss_mb": TARGET_RSS_MB,
                          "meets_target": 0 < rss["peak_rss_mb"] < TARGET_RSS_MB},
    }


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
