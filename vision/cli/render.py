"""`pyramid render --kind board|dice --seed S --out DIR -n N`: rendered frames and their truth.

Writes DIR/<kind>_<seed>.png for seeds S..S+N-1 and DIR/truth.json mapping each file name to
what it shows (board: track, desert, homography, die box, covered spaces; dice: boxes, faces,
colours). Used by the demo and to build test folders.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kind", choices=["board", "dice"], required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True, metavar="DIR")
    parser.add_argument("-n", type=int, default=1, help="number of frames")
    parser.add_argument("--hands", type=int, default=0, help="board: hands over the track (0..2)")
    parser.add_argument("--die", action="store_true", help="board: a die in the reveal zone")
    parser.add_argument("--size", default="1280x720", help="board: frame size WxH")


def _board(seed: int, args: argparse.Namespace) -> tuple[np.ndarray, dict[str, Any]]:
    import numpy as np

    from vision.render.board import COLOURS, render_board_scene

    w, h = (int(v) for v in args.size.lower().split("x"))
    rng = np.random.default_rng(seed)
    die = (COLOURS[int(rng.integers(5))], int(rng.integers(1, 4))) if args.die else None
    img, truth = render_board_scene(rng, die=die, hands=args.hands, size=(w, h))
    return img, truth.to_json()


def _dice(seed: int, args: argparse.Namespace) -> tuple[np.ndarray, dict[str, Any]]:
    import numpy as np

    from vision.render.dice import render_dice_scene

    img, truth = render_dice_scene(np.random.default_rng(seed))
    return img, {"dice": [asdict(d) for d in truth.dice], "white_patch": truth.white_patch}


def run(args: argparse.Namespace) -> int:
    import cv2

    if args.n < 1:
        print("pyramid render: -n must be at least 1", file=sys.stderr)
        return 2
    if not 0 <= args.hands <= 2:
        print("pyramid render: --hands must be 0..2", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    truth_path = out / "truth.json"
    truth = json.loads(truth_path.read_text()) if truth_path.exists() else {}
    make = _board if args.kind == "board" else _dice
    for seed in range(args.seed, args.seed + args.n):
        img, t = make(seed, args)
        name = f"{args.kind}_{seed}.png"
        if not cv2.imwrite(str(out / name), img):
            print(f"pyramid render: could not write {out / name}", file=sys.stderr)
            return 1
        truth[name] = {"kind": args.kind, "seed": seed, **t}
    truth_path.write_text(json.dumps(truth, indent=1) + "\n")
    print(f"wrote {args.n} {args.kind} frame(s) and truth.json to {out}")
    return 0
