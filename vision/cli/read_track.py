"""`pyramid read-track [--json] IMAGE`: the camel stacks (and desert tiles) on the track of a frame.

Prints {"track": {"3": ["blue", "green"]}, "desert": {"5": "mirage"}, "confidence": 0.9,
"uncertain": ["7"]} (camels bottom to top). A frame that cannot be read prints {"error": reason}
and exits 1; so does a file that is not an image.
"""

from __future__ import annotations

import argparse
import json
import sys

import cv2
import numpy as np


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("image", metavar="IMAGE", help="a camera frame of the board")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print JSON (the default; kept for symmetry with read-dice)",
    )
    parser.add_argument(
        "--board", metavar="YAML", help="board geometry (default hardware/board.yaml)"
    )
    parser.add_argument(
        "--table",
        metavar="JSON",
        help="a table profile from `pyramid calibrate` (its board and its learnt colours; "
        "replaces --board)",
    )
    parser.add_argument(
        "--why", action="store_true", help="also give the reason for each uncertain space"
    )


def run(args: argparse.Namespace) -> int:
    from vision.board import load_geometry
    from vision.table import SetupRefused, load_profile
    from vision.track import read_track

    profile = None
    try:
        if getattr(args, "table", None):
            profile = load_profile(args.table)
            geo = profile.geometry
        else:
            geo = load_geometry(args.board)
    except SetupRefused as exc:
        print(json.dumps({"error": exc.sentence, "code": exc.code.value}))
        return 1
    except (OSError, ValueError) as exc:
        print(json.dumps({"error": f"board geometry {args.board}: {exc}"}))
        return 1
    data = np.fromfile(args.image, np.uint8) if _exists(args.image) else None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data is not None and data.size else None
    if image is None:
        reason = "no such file" if data is None else "not an image"
        print(json.dumps({"error": f"{args.image}: {reason}"}))
        return 1
    reading = read_track(image, geo, table=profile)
    out = reading.to_json()
    if args.why and reading.ok:
        out["why"] = {str(s): reading.spaces[s].why for s in reading.uncertain}
    print(json.dumps(out))
    sys.stdout.flush()
    return 0 if reading.ok else 1


def _exists(path: str) -> bool:
    import os

    return os.path.isfile(path)
