"""`pyramid camera`: the running watch service's camera and ring light, for the set-up.

    pyramid camera status                     # camera, fault, light, focus
    pyramid camera snapshot --out frame.png   # a frame as the service sees it, ring on
    pyramid camera light on [--for 300]       # the ring on (for the set-up), then off by itself
    pyramid camera light off
    pyramid camera focus 1.6                  # manual focus in dioptres (Camera Module 3)
    pyramid camera setup                      # read the starting roll next (Camel Up)

The watch service owns the camera while it runs (a second process would get "device busy"), so
these ask it over its Unix socket (firmware.setup_link) instead of opening the camera.
Exit codes: 0 done, 1 the service refused or could not be asked, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--socket",
        metavar="PATH",
        help="the watch service's socket (default: as the service chooses)",
    )
    sub = parser.add_subparsers(dest="what", required=True)
    sub.add_parser("status", help="camera, fault, light and focus, as JSON")
    snap = sub.add_parser("snapshot", help="save a frame as the service sees it")
    snap.add_argument("--out", default="frame.png", help="image file (.png or .jpg)")
    snap.add_argument("--no-light", action="store_true", help="as lit now (default: ring on)")
    light = sub.add_parser("light", help="the ring light on or off")
    light.add_argument("state", choices=("on", "off"))
    light.add_argument(
        "--for",
        dest="seconds",
        type=float,
        default=300.0,
        metavar="S",
        help="on for S seconds at most (default 300)",
    )
    focus = sub.add_parser("focus", help="manual focus at D dioptres (1 / metres)")
    focus.add_argument("dioptres", type=float)
    sub.add_parser(
        "setup",
        help="read the starting roll next: roll the five dice into the "
        "reveal zone, then press confirm",
    )


def run(args: argparse.Namespace) -> int:
    from firmware.setup_link import SetupLinkError, WatchServiceSource

    link = WatchServiceSource(args.socket, light=not getattr(args, "no_light", False))
    try:
        if args.what == "status":
            print(json.dumps(link.status(), indent=2))
        elif args.what == "snapshot":
            import cv2

            image = link.read()
            assert image is not None
            if not cv2.imwrite(args.out, image):
                print(f"pyramid camera: cannot write {args.out}", file=sys.stderr)
                return 1
            print(
                f"{args.out}: {image.shape[1]}x{image.shape[0]}"
                + (", ring light on" if link.light else "")
            )
        elif args.what == "light":
            got = link.set_light(args.state == "on", args.seconds)
            said = f"on for {got['seconds']:g} s" if got["light"] else "off"
            print(f"ring light {said}")
        elif args.what == "focus":
            got = link.focus(args.dioptres)
            print(
                f"focus: LensPosition {got['lens_position']:.2f} dioptres "
                f"({1000 / max(got['lens_position'], 1e-3):.0f} mm)"
            )
        elif args.what == "setup":
            link.setup()
            print(
                "setup mode: roll the five dice into the reveal zone, let them lie still, "
                "then press confirm (or the slider)"
            )
    except SetupLinkError as exc:
        print(f"pyramid camera: {exc}", file=sys.stderr)
        return 1
    return 0
