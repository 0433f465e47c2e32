"""`pyramid demo`: a complete simulated table — bots, the mock pyramid, rendered frames read by the
real vision, the hub, MQTT and the dashboard — on one machine with no hardware.

    pyramid demo                                  # watch it on the printed address
    pyramid demo --players 3 --seed 7 --speed 1   # one move a second
    pyramid demo --headless --games 2 --speed max # CI: play two games, print a summary, exit 0
    pyramid demo --seat Ann                       # you play Ann from the page; the bots wait
    pyramid demo --game horserace                 # or camelup2, marcopolo2; or from the page

Exit codes: 0 done (or stopped with Ctrl-C), 2 bad options or nothing could start, 1 a headless
run that did not finish its games.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import signal
import sys
import threading
from typing import Any

from hub.games.kinds import DEFAULT_GAME, GameKind


def _speed(text: str) -> float:
    """``human`` (a move every ~2 s), ``max`` (no waiting) or seconds per move."""
    from firmware.demo import HUMAN_PACE_S

    if text == "human":
        return HUMAN_PACE_S
    if text == "max":
        return 0.0
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--speed is human, max or seconds per move, not {text!r}"
        ) from None
    if not 0.0 <= value <= 60.0:
        raise argparse.ArgumentTypeError("--speed in seconds per move must be 0 to 60")
    return value


def _players(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--players is a number, not {text!r}") from None
    if not 2 <= n <= 8:
        raise argparse.ArgumentTypeError(f"Camel Up is for 2 to 8 players, not {n}")
    return n


def _port(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a port is a number, not {text!r}") from None
    if not 0 <= n <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, not {n}")
    return n


DEFAULT_PORT = 8080
DEMO_DB = "var/demo.db"
#: how many ports after the default the demo tries when the default is busy
PORT_TRIES = 20


def free_port_from(host: str, first: int, tries: int = PORT_TRIES) -> int | None:
    """The first port from ``first`` that ``host`` can listen on now, or None."""
    import socket

    for port in range(first, first + tries):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind((host if host not in ("", "0.0.0.0") else "0.0.0.0", port))
            except OSError:
                continue
            return port
    return None


def _read_enter(resume: threading.Event, stop: threading.Event) -> None:
    """--pause-after-leg: every line on stdin says "play on"; at its end, nothing pauses."""
    for _line in sys.stdin:
        resume.set()
        if stop.is_set():
            return
    resume.set()
    stop.wait()  # stdin closed (not a terminal): keep the bots going


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=_players, default=4, help="2 to 8 bots (default 4)")
    parser.add_argument(
        "--seed",
        default=None,
        help="seed of the dice and the bots (default: a random one, printed)",
    )
    parser.add_argument(
        "--speed",
        type=_speed,
        default="human",
        help="human (a move every ~2 s, the default), max, or seconds per move",
    )
    parser.add_argument("--table", default="demo", help="table id in MQTT topics (default demo)")
    parser.add_argument(
        "--broker",
        default=None,
        metavar="URL",
        help="mqtt://[user:pass@]host[:port]; default: an embedded broker on 127.0.0.1 (mosquitto)",
    )
    parser.add_argument("--no-mqtt", action="store_true", help="no broker, no MQTT at all")
    parser.add_argument(
        "--headless",
        action="store_true",
        help="no waiting between games; with --games N, exit when done",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help="games to play (default: until Ctrl-C; 1 with --headless)",
    )
    parser.add_argument(
        "--http-host",
        default="0.0.0.0",
        help="dashboard address (default 0.0.0.0: phones on the Wi-Fi)",
    )
    parser.add_argument(
        "--http-port",
        type=_port,
        default=None,
        help=f"dashboard port (default {DEFAULT_PORT}, or the next free one; 0 = no dashboard)",
    )
    parser.add_argument(
        "--game",
        choices=[g.value for g in GameKind],
        default=DEFAULT_GAME.value,
        help="the game the demo starts (default camelup); "
        "any game started from the page is played too",
    )
    parser.add_argument(
        "--seat",
        default=None,
        metavar="NAME",
        help="you play this seat from the page (your own link is printed); the "
        "bots wait for you and leave the dice the camera doubts to you",
    )
    parser.add_argument(
        "--pause-after-leg",
        action="store_true",
        help="hold the bots after each leg until you press Enter here",
    )
    parser.add_argument(
        "--pin",
        default=None,
        help="table PIN for the dashboard (default: a random 4 digits, printed)",
    )
    parser.add_argument(
        "--db",
        default=None,
        help=f"keep the event log in this SQLite file (default {DEMO_DB}, so "
        "`pyramid games` lists the demo's games; with --headless a "
        "temporary one)",
    )
    parser.add_argument(
        "--no-odds",
        action="store_true",
        help="skip odds in the state and dashboard (the advisor bots still use the race table)",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="every move and the debug log as well"
    )


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    from firmware.demo import DemoError, DemoOptions, run_demo

    games = args.games if args.games is not None else (1 if args.headless else None)
    if games is not None and games < 1:
        print("pyramid demo: --games must be at least 1", file=sys.stderr)
        return 2
    pin = args.pin if args.pin is not None else f"{random.SystemRandom().randrange(10**6):06d}"
    if pin and (not pin.isalnum() or len(pin) > 32):
        print("pyramid demo: --pin is letters and digits, 32 at most", file=sys.stderr)
        return 2
    seed: Any = args.seed if args.seed is not None else random.randrange(1 << 20)
    speed = args.speed if isinstance(args.speed, float) else _speed(args.speed)
    if args.seat is not None and (not args.seat.strip() or len(args.seat) > 24):
        print("pyramid demo: --seat is a player's name, 1 to 24 characters", file=sys.stderr)
        return 2
    port = args.http_port
    if port is None:  # the default: the next free port if it is taken, and say so
        port = free_port_from(args.http_host, DEFAULT_PORT)
        if port is None:
            print(
                f"pyramid demo: ports {DEFAULT_PORT}-{DEFAULT_PORT + PORT_TRIES - 1} are all "
                "busy; choose one with --http-port",
                file=sys.stderr,
            )
            return 2
        if port != DEFAULT_PORT:
            print(f"pyramid demo: port {DEFAULT_PORT} is busy, using {port}", flush=True)
    db = args.db
    if db is None and not args.headless:
        from pathlib import Path

        Path(DEMO_DB).parent.mkdir(parents=True, exist_ok=True)
        db = DEMO_DB
    stop = threading.Event()
    resume = threading.Event()
    if args.pause_after_leg:
        threading.Thread(target=_read_enter, args=(resume, stop), daemon=True).start()
    options = DemoOptions(
        players=args.players,
        seed=seed,
        pace_s=speed,
        games=games,
        table=args.table,
        pin=pin,
        game=args.game,
        seat=args.seat.strip() if args.seat else None,
        pause_after_leg=args.pause_after_leg,
        resume=resume,
        qr=not args.headless and sys.stdout.isatty(),
        moves=args.verbose,
    )

    def on_signal(signum: int, frame: Any) -> None:
        if stop.is_set():  # a second Ctrl-C: the user means it
            raise KeyboardInterrupt
        print("stopping...", flush=True)
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    print(
        f"pyramid demo: {args.game} at table {args.table}, {args.players} players, seed {seed}, "
        f"speed {'max' if speed == 0 else f'{speed:g} s a move'}"
        + (f"; games kept in {db} (pyramid games --db {db})" if db else ""),
        flush=True,
    )
    try:
        result = run_demo(
            options,
            broker=args.broker,
            mqtt=not args.no_mqtt,
            http_host=args.http_host,
            http_port=port,
            db=db,
            stop=stop,
            out=lambda text: print(text, flush=True),
            odds=not args.no_odds,
        )
    except DemoError as exc:
        print(f"pyramid demo: {exc}", file=sys.stderr)
        return 2
    s = result.stats
    print(
        f"played {s.games} game(s), {s.moves} moves: {s.releases} dice released, "
        f"{s.read_by_vision} read by vision, {s.vision_prompts} vision prompts, "
        f"{s.misreads_corrected} misreads corrected, {s.entered_by_hand} entered by hand; "
        f"{s.track_reads} track reads, {s.track_mismatches} track mismatches; "
        f"winners: {'; '.join(s.winners) or '-'}",
        flush=True,
    )
    # the self-checks a person needs only when one fails (CI's --headless run reads them all)
    checks = args.headless or args.verbose
    if result.mqtt_events is not None and (checks or result.mqtt_gaps):
        print(
            f"MQTT: {result.mqtt_events} events seen by a subscriber, "
            f"{result.mqtt_gaps} gaps, final state {result.final_status}",
            flush=True,
        )
    if checks:
        print("summary: " + json.dumps(result.summary(), sort_keys=True), flush=True)
    if args.headless and games is not None and s.games < games:
        return 1
    return 0
