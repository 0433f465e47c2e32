"""`pyramid calibrate STEP ...`: the table's set-up, one step per command (vision.table).

Steps, each from a snapshot (``--frame SPEC``: an image file, or a registered source such as the
watch service's; see vision.cli.frames), each saving the table profile (``--table PATH``) only
when it succeeds:

  markers                  find the four marker cards beside the board
  track [--corners ...]    place the board: without --corners, propose its outer corners and
        [--confirm]        draw the 16 spaces over the snapshot (--overlay PNG); --confirm
        [--overlay PNG]    takes the proposal, --corners "x,y x,y x,y x,y" (space 1's corner,
                           then clockwise) takes a person's drag
  camels --order a,b,...   the camels stand alone on spaces 1.. in that order: learn colours
  tiles --oasis S --mirage S   desert tiles laid on those spaces: learn both sides
  refine --track JSON      a confirmed or corrected reading ({"3": ["blue", "green"]}):
                           refine the colours within their bound, logged
  undo                     take back the last refinement
  show                     print the profile

A refused step prints ``{"error": sentence, "code": code}`` and exits 1; the file is untouched.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

STEPS = ("markers", "track", "camels", "tiles", "refine", "undo", "show")


def default_profile_path() -> Path:
    home = os.environ.get("PYRAMID_HOME")
    base = Path(home) if home else Path.home() / ".config" / "camel-pyramid"
    return base / "table.json"


def step_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pyramid calibrate",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("step", choices=STEPS)
    p.add_argument("--frame", metavar="SPEC", help="snapshot: an image file or SCHEME:...")
    p.add_argument(
        "--table",
        metavar="PATH",
        help=f"the table profile (default $PYRAMID_HOME/table.json or {default_profile_path()})",
    )
    p.add_argument(
        "--board", metavar="YAML", help="marker size and pieces (default hardware/board.yaml)"
    )
    p.add_argument("--corners", metavar="'x,y x,y x,y x,y'")
    p.add_argument("--confirm", action="store_true")
    p.add_argument("--overlay", metavar="PNG")
    p.add_argument(
        "--occupied",
        metavar="S,S,...",
        default="",
        help="track step: spaces with pieces on them in the snapshot",
    )
    p.add_argument("--order", metavar="COLOURS")
    p.add_argument("--first-space", type=int, default=1)
    p.add_argument("--oasis", type=int, action="append", default=[])
    p.add_argument("--mirage", type=int, action="append", default=[])
    p.add_argument("--track", metavar="JSON", dest="confirmed")
    return p


def _emit(obj: dict[str, Any]) -> None:
    print(json.dumps(obj))
    sys.stdout.flush()


def run_step(argv: list[str]) -> int:
    from vision.board import load_geometry
    from vision.cli.frames import FrameSourceError, open_source
    from vision.table import (
        Refusal,
        SetupRefused,
        TableProfile,
        capture_background,
        learn_camels,
        learn_tiles,
        load_profile,
        place_board,
        propose_corners,
        refine,
        samples_from_reading,
        save_profile,
        solve_markers,
        undo,
    )

    args = step_parser().parse_args(argv)
    path = Path(args.table) if args.table else default_profile_path()
    try:
        base = load_geometry(args.board)
        profile = load_profile(path) if path.exists() else TableProfile()

        def frame() -> np.ndarray:
            if not args.frame:
                raise SetupRefused(Refusal.NOT_AN_IMAGE, f"the {args.step} step needs --frame")
            src = open_source(args.frame)
            try:
                return src.snapshot()
            finally:
                src.close()

        out: dict[str, Any] = {"step": args.step, "table": str(path)}
        new = profile
        if args.step == "markers":
            layout = solve_markers(frame(), base)
            new = replace(profile, markers=layout)
            out["markers"] = layout.to_json()
        elif args.step == "track":
            img = frame()
            layout = solve_markers(img, base)
            h, w = img.shape[:2]
            if args.corners:
                corners = np.array([[float(v) for v in p.split(",")] for p in args.corners.split()])
            else:
                corners = propose_corners(layout, base)
            out["corners"] = np.round(corners, 1).tolist()
            if args.corners or args.confirm:
                new = place_board(profile, layout, corners, (w, h), base)
                occupied = [int(s) for s in args.occupied.split(",") if s.strip()]
                new = replace(new, background=capture_background(img, new.geometry, occupied))
                out["cell_mm"] = round(new.geometry.cell, 1)
            if args.overlay:
                _draw_overlay(img, new if new.board else profile, corners, args.overlay)
                out["overlay"] = args.overlay
            if not (args.corners or args.confirm):
                out["next"] = "check the overlay, then --confirm or give --corners"
        elif args.step == "camels":
            order = [c.strip() for c in (args.order or "").split(",") if c.strip()]
            new = learn_camels(profile, frame(), order, args.first_space)
            out["camels"] = {k: v.to_json() for k, v in new.camels.items()}
        elif args.step == "tiles":
            sides = {s: "oasis" for s in args.oasis} | {s: "mirage" for s in args.mirage}
            new = learn_tiles(profile, frame(), sides)
            out["tiles"] = {k: v.to_json() for k, v in new.tiles.items()}
        elif args.step == "refine":
            try:
                confirmed = json.loads(args.confirmed or "")
                track = {int(k): [str(c) for c in v] for k, v in confirmed.items()}
            except (ValueError, AttributeError, TypeError) as exc:
                raise SetupRefused(
                    Refusal.BAD_ORDER,
                    f'--track must be JSON like {{"3": ["blue", "green"]}} ({exc})',
                ) from exc
            samples = samples_from_reading(frame(), profile, track)
            new = refine(profile, samples, f"confirmed track {json.dumps(confirmed)}")
            out["refinement"] = new.log[-1].seq if new.log else None
        elif args.step == "undo":
            new = undo(profile)
            out["log_length"] = len(new.log)
        else:
            out["profile"] = {k: v for k, v in profile.to_json().items() if k != "background"}
        if new is not profile:
            save_profile(new, path)
        _emit(out)
        return 0
    except SetupRefused as exc:
        _emit({"step": args.step, "error": exc.sentence, "code": exc.code.value})
        return 1
    except (FrameSourceError, OSError, ValueError) as exc:
        _emit({"step": args.step, "error": str(exc), "code": "bad_input"})
        return 1


def _draw_overlay(img: np.ndarray, profile: Any, corners: np.ndarray, out: str) -> None:
    """The snapshot with the 16 spaces where the overlay puts them, numbered."""
    canvas = img.copy()
    c = np.asarray(corners, np.float64)
    src = np.array([[0, 0], [5, 0], [5, 5], [0, 5]], np.float64)
    H = cv2.getPerspectiveTransform(src.astype(np.float32), c.astype(np.float32))
    cells = [(0, i) for i in range(5)] + [(i, 4) for i in range(1, 5)]
    cells += [(4, i) for i in range(3, -1, -1)] + [(i, 0) for i in range(3, 0, -1)]
    for n, (r, q) in enumerate(cells, start=1):
        sq = np.array([[q, r], [q + 1, r], [q + 1, r + 1], [q, r + 1]], np.float64)
        px = cv2.perspectiveTransform(sq.reshape(-1, 1, 2), H).reshape(-1, 2)
        cv2.polylines(canvas, [np.round(px).astype(np.int32)], True, (0, 255, 255), 2, cv2.LINE_AA)
        m = px.mean(axis=0)
        cv2.putText(
            canvas,
            str(n),
            (int(m[0]) - 8, int(m[1]) + 6),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.6,
            (0, 0, 255),
            2,
            cv2.LINE_AA,
        )
    for p in c:
        cv2.circle(canvas, (int(p[0]), int(p[1])), 8, (255, 0, 255), 2, cv2.LINE_AA)
    cv2.imwrite(out, canvas)
