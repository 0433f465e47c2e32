"""`pyramid read-dice [--json] IMAGE...`: one JSON object per image per line.

An image with no die says why in ``note`` (a sentence) and ``code`` (its stable code,
``vision.dice.Why``). A file that is not an image (missing, empty, corrupt) gets an ``error`` object
and the others are still read; the exit code is 1 if any image failed, else 0. A missing or
corrupt model file stops the command before any image (exit code 2, the file named on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="image files to read")
    parser.add_argument(
        "--json",
        action="store_true",
        help="JSON lines (the default; kept for the scoring interface)",
    )
    parser.add_argument(
        "--palette",
        metavar="PATH",
        help="palette JSON (default: the table's palette, else the shipped one)",
    )


def load_image(path: str) -> np.ndarray:
    """The image at ``path`` as BGR; ValueError saying why it is not one."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"no such file: {path}")
    data = p.read_bytes()
    if not data:
        raise ValueError(f"empty file: {path}")
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        raise ValueError(f"not a readable image: {path}")
    return img


def run(args: argparse.Namespace) -> int:
    from vision.dice import read_dice_report
    from vision.dice.classifier import ModelError
    from vision.dice.reader import check_model
    from vision.palette import load_palette

    try:  # at start: a missing or corrupt model stops the command, naming the file
        check_model()
    except ModelError as exc:
        print(f"pyramid read-dice: {exc}", file=sys.stderr)
        return 2

    try:
        palette = load_palette(args.palette)
    except ValueError as exc:
        print(f"pyramid read-dice: {exc}", file=sys.stderr)
        return 2
    failed = False
    for path in args.images:
        try:
            img = load_image(path)
            report = read_dice_report(img, palette=palette)
            out: dict[str, Any] = {"image": path, "dice": [d.to_json() for d in report.dice]}
            if report.why is not None and not report.dice:
                out["note"] = report.why.sentence
                out["code"] = report.why.code.value
        except Exception as exc:  # one bad file must not stop the others
            failed = True
            out = {"image": path, "error": str(exc)}
        print(json.dumps(out), flush=True)
    return 1 if failed else 0
