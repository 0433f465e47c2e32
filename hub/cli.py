"""The single `pyramid` command.

Each subcommand lives in its own module with ``HELP``, ``add_arguments(parser)`` and
``run(args) -> int``. Only the module of the command being run is imported, so `pyramid odds`
does not pay for OpenCV or Flask, and one broken command cannot take the others down.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# name -> (module, one-line help). Grouped by the package that owns the command.
COMMANDS: dict[str, tuple[str, str]] = {
    # hub: rules, odds, advice
    "odds": ("hub.commands.odds", "exact leg and race odds for JSON positions on stdin"),
    "advise": ("hub.commands.advise", "rank every legal action of the player to move"),
    "simulate": ("hub.commands.simulate", "play bot games and print win rates"),
    "hub": ("hub.commands.serve", "run the table hub: event log, MQTT bridge and dashboard"),
    "games": ("hub.commands.games", "list past games in the event log"),
    "broker-config": (
        "hub.commands.broker_config",
        "configure a system mosquitto with the table's users and ACL",
    ),
    # vision
    "read-dice": ("vision.cli.read_dice", "read the dice in images (JSON lines)"),
    "read-track": ("vision.cli.read_track", "read the camel stacks on the track of an image"),
    "calibrate": ("vision.cli.calibrate", "set the table up (markers, track, colours) or the dice"),
    "markers": ("vision.cli.markers", "write a printable sheet of the board markers (PDF)"),
    "render": ("vision.cli.render", "render synthetic dice or board scenes to image files"),
    # firmware
    "watch": ("firmware.cli.watch", "run the watch loop on the Pi (slider, camera, reads)"),
    "demo": ("firmware.cli.demo", "a complete simulated table: bots, rendered frames, dashboard"),
    "wiring": ("firmware.cli.wiring", "draw the wiring diagram from hardware/pinmap.yaml"),
    "camera": ("firmware.cli.camera", "the watch service's frames, ring light and focus (set-up)"),
}


# Frame sources of the set-up that live outside vision (vision.cli.frames.register_source): the
# running watch service's "watch:", so that `pyramid calibrate watch:` never opens the camera
FRAME_SOURCES = {"calibrate": ("firmware.setup_link",), "hub": ("firmware.setup_link",)}
# The dashboard's camera set-up page (hub.dashboard.setup_page) runs vision's set-up steps; the
# hub itself imports no vision, so `pyramid hub` hands it vision's desk from here (imported when
# the dashboard is made, so a hub without OpenCV still starts, its page saying so)
SETUP_DESKS = {"hub": "vision.cli.setup_desk"}


def _register_setup_desk(module: str) -> None:
    try:
        from hub.dashboard.setup_page import register_setup_desk
    except ImportError:  # no Flask: no dashboard at all (the hub says so when it starts)
        return

    def factory() -> object:
        try:
            return importlib.import_module(module).default_desk()
        except ImportError:
            return None

    register_setup_desk(factory)  # type: ignore[arg-type]


def _usage() -> str:
    width = max(len(n) for n in COMMANDS)
    lines = ["usage: pyramid COMMAND [options]", "", "commands:"]
    lines += [f"  {name:<{width}}  {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "`pyramid COMMAND --help` for a command's options."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0
    name = args[0]
    if name not in COMMANDS:
        print(f"pyramid: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    for plugin in FRAME_SOURCES.get(name, ()):
        importlib.import_module(plugin).register_frame_sources()
    if name in SETUP_DESKS:
        _register_setup_desk(SETUP_DESKS[name])
    module = importlib.import_module(COMMANDS[name][0])
    parser = argparse.ArgumentParser(prog=f"pyramid {name}", description=COMMANDS[name][1])
    module.add_arguments(parser)
    ns = parser.parse_args(args[1:])
    return int(module.run(ns) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
