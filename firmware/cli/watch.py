"""`pyramid watch`: run the watch loop (slider, camera, reads) and send what it sees to the hub.

    pyramid watch --config /etc/camel-pyramid/table.toml      # as the systemd unit runs it
    pyramid watch --replay frames/ --sink print --keys        # try it off a Pi: Enter = slider
    pyramid watch --config table.toml --check                 # check the config and pin map

Exit codes: 0 stopped cleanly, 2 bad configuration or pin map, 1 could not start.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import threading
import time
from typing import Any

from firmware.no_openssl import hashlib_without_openssl, plain_mqtt_ssl

hashlib_without_openssl()  # before numpy is imported (firmware.config imports it): see there

from firmware.config import CAMERA_KINDS, TABLE_GAMES, ConfigError, load_config  # noqa: E402


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        metavar="PATH",
        default=os.environ.get("PYRAMID_CONFIG"),
        help="the table's TOML file (default: $PYRAMID_CONFIG, else defaults)",
    )
    parser.add_argument("--table", metavar="ID", help="table id (MQTT camelup/<id>/...)")
    parser.add_argument("--broker", metavar="URL", help="mqtt://[user:pass@]host[:port]")
    parser.add_argument(
        "--game",
        choices=TABLE_GAMES,
        help="the game the camera reads for ([table] game; auto: the hub's)",
    )
    parser.add_argument("--camera", choices=CAMERA_KINDS, help="camera kind")
    parser.add_argument("--index", type=int, help="USB camera index")
    parser.add_argument(
        "--replay",
        metavar="PATH",
        help="replay a folder of images, an image or a video (camera = replay)",
    )
    parser.add_argument("--fps", type=float, help="camera frames per second")
    parser.add_argument("--pins", metavar="PATH", help="pin map (default hardware/pinmap.yaml)")
    parser.add_argument("--mock-pins", action="store_true", help="gpiozero mock pins")
    parser.add_argument(
        "--sink",
        choices=("mqtt", "print"),
        default="mqtt",
        help="where observations go (print: JSON lines on stdout)",
    )
    parser.add_argument(
        "--setup",
        action="store_true",
        help="start in setup mode: read the starting roll's five dice first",
    )
    parser.add_argument(
        "--keys",
        action="store_true",
        help="with mock pins: Enter presses the slider, 'c' Enter the confirm",
    )
    parser.add_argument("--duration", type=float, metavar="S", help="stop after S seconds")
    parser.add_argument(
        "--check",
        action="store_true",
        help="check the configuration and pin map, print them, and exit",
    )
    parser.add_argument(
        "--socket",
        metavar="PATH",
        help="the set-up link's Unix socket (default: $PYRAMID_WATCH_SOCKET, "
        "the service's /run/camel-pyramid/watch.sock, else per user)",
    )
    parser.add_argument(
        "--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR")
    )


def _config(args: argparse.Namespace) -> Any:
    cfg = load_config(args.config)
    camera: dict[str, Any] = {"kind": args.camera, "index": args.index, "fps": args.fps}
    if args.replay:
        camera.update(kind="replay", path=args.replay)
    return cfg.with_overrides(
        table={"id": args.table, "game": getattr(args, "game", None)},
        broker={"url": args.broker},
        camera=camera,
        pins={"file": args.pins, "factory": "mock" if args.mock_pins else None},
    )


def _press(pin: Any) -> None:
    pin.drive_low()
    time.sleep(0.08)
    pin.drive_high()


def _keys(devices: Any, stop: threading.Event) -> None:
    """Read the terminal: Enter = slider, 'c' = confirm (mock pins only)."""
    print(
        "keys: Enter = pyramid slider, c + Enter = confirm button, q + Enter = quit",
        file=sys.stderr,
    )
    for line in sys.stdin:
        key = line.strip().lower()
        if key == "q":
            stop.set()
            return
        _press(devices.confirm.pin if key == "c" else devices.slider.pin)


def lean_process() -> dict[str, Any]:
    """Process-wide settings that keep `pyramid watch` small and steady on a Pi; what was set.

    Why (measured by bench/firmware.py, the process's peak RSS): glibc gives every thread that
    allocates its own malloc arena and, once a large block has been freed, raises its mmap
    threshold up to 32 MB, so the frames and vision's temporaries (0.1-3 MB arrays) end up in
    arenas that never shrink. Two arenas and a fixed 128 KiB threshold return big blocks to the
    system when freed. OpenCV's thread pool: the zone and the thumbnails are small images, for
    which one thread is faster than handing work to four (a Pi's cores) and costs no pool. The
    systemd unit also sets MALLOC_ARENA_MAX=2 in the environment, before Python starts.
    Must run before the worker threads start. Off glibc (no ``mallopt``) the malloc part is
    skipped.
    """
    done: dict[str, Any] = {}
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        m_mmap_threshold, m_arena_max = -3, -8  # from glibc's malloc.h
        if libc.mallopt(m_arena_max, 2) == 1:
            done["malloc_arena_max"] = 2
        if libc.mallopt(m_mmap_threshold, 128 * 1024) == 1:
            done["malloc_mmap_threshold"] = 128 * 1024
    except (OSError, AttributeError):
        pass
    import cv2

    cv2.setNumThreads(1)
    done["opencv_threads"] = cv2.getNumThreads()
    return done


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=getattr(logging, args.log_level),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    log = logging.getLogger("pyramid.watch")
    # the one pin-map checker (hardware/ is the data package; `pyramid wiring` uses it too)
    from hardware.pinmap import PinMapError, load_pinmap

    try:
        cfg = _config(args)
        pinmap = load_pinmap(cfg.pins.file or None)
    except (ConfigError, PinMapError) as exc:
        print(f"pyramid watch: {exc}", file=sys.stderr)
        return 2
    for warning in pinmap.warnings():
        log.warning("pin map: %s", warning)
    if args.check:
        import dataclasses

        shown = {k: v for k, v in dataclasses.asdict(cfg).items()}
        if shown["broker"].get("password"):
            shown["broker"]["password"] = "***"
        print(json.dumps({"config": shown, "pins": dataclasses.asdict(pinmap)}, indent=2))
        return 0

    # before paho-mqtt is imported (firmware.sinks): no OpenSSL for a plain broker
    plain_mqtt_ssl(cfg.broker.use_tls)
    log.debug("lean process: %s", lean_process())
    from firmware.camera import CameraSupervisor
    from firmware.devices import Devices
    from firmware.frames import open_source
    from firmware.health import CpuThermometer, Health
    from firmware.readers import Readers
    from firmware.setup_link import SetupLinkError, SetupServer
    from firmware.sinks import MqttSink, PrintSink
    from firmware.watch import WatchLoop

    stop = threading.Event()
    devices = sink = camera = thermometer = link = None
    try:
        devices = Devices(
            pinmap,
            factory_mode=cfg.pins.factory,
            debounce_mode=cfg.pins.debounce,
            chirps=cfg.watch.chirps,
        )
        sink = PrintSink() if args.sink == "print" else MqttSink(cfg.table.id, cfg.broker)
        thermometer = CpuThermometer(devices.pin_factory)
        camera = CameraSupervisor(
            lambda: open_source(cfg.camera, lamp=devices.light),
            black_level=cfg.camera.black_level,
            black_frames=cfg.camera.black_frames,
            freeze_timeout_s=cfg.camera.freeze_timeout_s,
        )
        zone = tuple(cfg.camera.reveal_zone) if cfg.camera.reveal_zone else None
        loop = WatchLoop(
            camera,
            sink,
            devices=devices,
            config=cfg.watch,
            health=Health(cfg.table.id, thermometer),
            readers=Readers(),
            reveal_zone=zone,
            setup=args.setup,
            table=cfg.table.id,
            game=cfg.table.game,
        )
        camera.start()
        # the set-up (pyramid calibrate, pyramid camera) asks this process for frames and light;
        # without it the table still plays (a second watch on the same socket, a read-only /run)
        try:
            link = SetupServer(
                camera, devices.light, getattr(args, "socket", None), loop=loop
            ).start()
        except (SetupLinkError, OSError) as exc:
            log.warning("set-up link off: %s", exc)

        def on_signal(signum: int, frame: Any) -> None:
            log.info("signal %s: stopping", signum)
            loop.stop(timeout=0)

        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
        if args.keys:
            if type(devices.pin_factory).__name__ != "MockFactory":
                log.warning("--keys needs mock pins (--mock-pins or off a Pi); ignored")
            else:
                threading.Thread(target=_keys, args=(devices, stop), daemon=True).start()

                def stop_when_asked() -> None:
                    stop.wait()
                    loop.stop(timeout=0)

                threading.Thread(target=stop_when_asked, daemon=True).start()
        log.info(
            "watching table %s with camera %s, game %s",
            cfg.table.id,
            cfg.camera.kind,
            cfg.table.game,
        )
        loop.run(duration=args.duration)
        return 0
    except Exception as exc:
        log.exception("pyramid watch could not run: %s", exc)
        return 1
    finally:
        for closer in (
            link and link.close,
            camera and camera.stop,
            sink and sink.close,
            thermometer and thermometer.close,
            devices and devices.close,
        ):
            if closer:
                try:
                    closer()
                except Exception:
                    log.exception("closing failed")
