"""`pyramid calibrate IMAGE [--out PATH]`: store the table's palette from a frame of the five dice.

IMAGE is a frame source (vision.cli.frames): an image file, or ``watch:`` for a frame from the
running watch service, ring light on (on the Pi the service owns the camera).

`pyramid calibrate STEP ...` (markers, track, camels, tiles, refine, undo, show) runs a step of
the table's set-up instead: see vision.cli.calibrate_steps.

The five Camel Up dice lie in view (any faces up). Their face colours are measured and assigned to
blue, green, orange, yellow and white by the assignment of least total distance to the default
palette (Hungarian by brute force over the 120 orders), so a table whose orange looks a little
red still gets its own orange. Fewer or more than five dice is an error that changes nothing.
"""

from __future__ import annotations

import argparse
import itertools
import sys

import numpy as np


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "image",
        metavar="IMAGE|STEP",
        help="a frame showing the five dice, or a set-up step: "
        "markers, track, camels, tiles, refine, undo, show (`pyramid calibrate STEP --help`)",
    )
    parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)


def _dice_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pyramid calibrate")
    parser.add_argument(
        "image",
        metavar="IMAGE",
        help="a frame showing the five dice: an image file, or watch: (the "
        "running watch service's frame, ring light on)",
    )
    parser.add_argument(
        "--out",
        metavar="PATH",
        help="where to store it (default $PYRAMID_HOME/palette.json or "
        "~/.config/camel-pyramid/palette.json)",
    )
    parser.add_argument(
        "--white-patch", metavar="X,Y,W,H", help="a neutral patch in the frame to white-balance on"
    )
    return parser


def calibrate(image: np.ndarray, white_gains=None):  # type: ignore[no-untyped-def]
    """The palette of the five dice in ``image``; ValueError unless exactly five are found."""
    from vision.dice import read_dice_report
    from vision.palette import CAMEL_UP, Palette, bgr_to_lab, default_palette

    report = read_dice_report(image, white_gains=white_gains)
    dice = [d for d in report.dice if d.face_bgr is not None]
    if len(dice) != 5:
        raise ValueError(
            f"found {len(dice)} dice, need exactly the five Camel Up dice in view"
            + (f" ({report.reason})" if report.reason else "")
        )
    ref = default_palette().restricted(CAMEL_UP)
    bgrs = [d.face_bgr for d in dice if d.face_bgr is not None]
    cost = np.array([[ref.distances(bgr)[j] for j in range(5)] for bgr in bgrs])
    best = min(itertools.permutations(range(5)), key=lambda p: sum(cost[i, p[i]] for i in range(5)))
    names = list(ref.colours)
    colours = {names[best[i]]: bgr_to_lab(bgrs[i]) for i in range(5)}
    worst = max(cost[i, best[i]] for i in range(5))
    if worst > 60:
        raise ValueError(
            f"a die's colour is {worst:.0f} from every Camel Up colour; "
            "is the light very coloured? give --white-patch"
        )
    full = default_palette()
    merged = {**full.colours, **colours}
    return Palette(
        merged, "calibrated", {"boxes": {names[best[i]]: list(dice[i].box) for i in range(5)}}
    )


def run(args: argparse.Namespace) -> int:
    from vision.cli.calibrate_steps import STEPS, run_step

    if args.image in STEPS:
        return run_step([args.image, *args.rest])
    args = _dice_parser().parse_args([args.image, *args.rest])
    from vision.cli.frames import open_source
    from vision.palette import save_palette
    from vision.whitebalance import gains_from_patch

    try:
        src = open_source(args.image)  # a file, or a registered source such as watch:
        try:
            img = src.snapshot()
        finally:
            src.close()
        gains = None
        if args.white_patch:
            x, y, w, h = (float(v) for v in args.white_patch.split(","))
            gains = gains_from_patch(img, [(x, y), (x + w, y), (x + w, y + h), (x, y + h)])
        palette = calibrate(img, gains)
    except (ValueError, OSError) as exc:  # FrameSourceError is an OSError
        print(f"pyramid calibrate: {exc}", file=sys.stderr)
        return 1
    path = save_palette(palette, args.out)
    for name, box in palette.meta["boxes"].items():
        print(f"{name:7s} die at {box}")
    print(f"palette written to {path}")
    return 0
