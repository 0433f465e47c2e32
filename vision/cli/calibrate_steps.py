"""`pyramid calibrate STEP ...`: the table's set-up, one step per command (vision.table).

Steps, each from a snapshot (``--frame SPEC``: an image file, or a registered source such as the
watch service's; see vision.cli.frames), each saving the table profile (``--table PATH``) only
when it succeeds:

  markers                  find the four marker cards beside the board
  track [--corners ...]    place the board: without --corners, propose its outer corners and
        [--confirm]        draw the 16 spaces over the snapshot (--overlay PNG); --confirm
        [--overlay PNG]    takes the proposal, --corners "x,y x,y x,y x,y" (space 1's corner,
                           then clockwise) takes a person's drag; --board-thickness MM:
                           the board's top above the cards' table (default 2)
  camels --order a,b,...   the camels stand alone on spaces 1.. in that order: learn colours
  camels --track JSON      or: the setup roll's stacks as read and confirmed
                           ({"1": ["blue", "green"], "2": ["white"], ...}, bottom to top)
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
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.board import BoardGeometry, ring_5x5_cells
from vision.table import (
    BOARD_HEIGHT_MM,
    Refusal,
    SetupRefused,
    TableProfile,
    capture_background,
    learn_camels,
    learn_camels_from_stacks,
    learn_tiles,
    place_board,
    propose_corners,
    solve_markers,
)

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
    p.add_argument(
        "--board-thickness",
        metavar="MM",
        type=float,
        default=BOARD_HEIGHT_MM,
        help="track step: the board's top above the table the marker cards lie on "
        f"(default {BOARD_HEIGHT_MM:g} mm, a game board's cardboard)",
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
        TableProfile,
        load_profile,
        refine,
        samples_from_reading,
        save_profile,
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
            new, more = step_markers(profile, frame(), base)
        elif args.step == "track":
            img = frame()
            corners = None
            if args.corners:
                corners = np.array([[float(v) for v in p.split(",")] for p in args.corners.split()])
            occupied = [int(s) for s in args.occupied.split(",") if s.strip()]
            new, more = step_track(
                profile, img, base, corners, args.confirm, occupied, args.board_thickness
            )
            if args.overlay:
                _draw_overlay(img, np.asarray(more["corners"]), args.overlay)
                more["overlay"] = args.overlay
            if "cell_mm" not in more:
                more["next"] = "check the overlay, then --confirm or give --corners"
        elif args.step == "camels" and args.confirmed:
            new, more = step_camels_from_stacks(profile, frame(), _stacks(args.confirmed))
        elif args.step == "camels":
            order = [c.strip() for c in (args.order or "").split(",") if c.strip()]
            new, more = step_camels(profile, frame(), order, args.first_space)
        elif args.step == "tiles":
            sides = {s: "oasis" for s in args.oasis} | {s: "mirage" for s in args.mirage}
            new, more = step_tiles(profile, frame(), sides)
        elif args.step == "refine":
            track = _stacks(args.confirmed)
            samples = samples_from_reading(frame(), profile, track)
            confirmed = {str(k): v for k, v in track.items()}
            new = refine(profile, samples, f"confirmed track {json.dumps(confirmed)}")
            more = {"refinement": new.log[-1].seq if new.log else None}
        elif args.step == "undo":
            new = undo(profile)
            more = {"log_length": len(new.log)}
        else:
            more = {"profile": {k: v for k, v in profile.to_json().items() if k != "background"}}
        out.update(more)
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


# --- the steps themselves: one implementation, for this command and the dashboard's page -------
def step_markers(
    profile: TableProfile, img: np.ndarray, base: BoardGeometry
) -> tuple[TableProfile, dict[str, Any]]:
    """Find the four marker cards; the profile keeps their layout."""
    layout = solve_markers(img, base)
    return replace(profile, markers=layout), {"markers": layout.to_json()}


def step_track(
    profile: TableProfile,
    img: np.ndarray,
    base: BoardGeometry,
    corners: np.ndarray | None = None,
    confirm: bool = False,
    occupied: Sequence[int] = (),
    board_height: float = BOARD_HEIGHT_MM,
) -> tuple[TableProfile, dict[str, Any]]:
    """Place the board. Without ``corners`` and ``confirm``: only the proposal (``corners``
    in the answer; the profile is unchanged). With ``confirm``: the proposal is taken; with
    ``corners`` (space 1's outer corner, then clockwise, in ``img``'s pixels): a person's
    drag. The empty board's look is kept from ``img`` (``occupied``: spaces with pieces).
    ``board_height``: mm of the board's top above the table the cards lie on."""
    layout = solve_markers(img, base)
    h, w = img.shape[:2]
    chosen = propose_corners(layout, base) if corners is None else np.asarray(corners, float)
    out: dict[str, Any] = {"corners": np.round(chosen, 1).tolist()}
    if corners is None and not confirm:
        return profile, out
    new = place_board(profile, layout, chosen, (w, h), base, board_height)
    new = replace(new, background=capture_background(img, new.geometry, list(occupied)))
    out["cell_mm"] = round(new.geometry.cell, 1)
    out["board_mm"] = round(5 * new.geometry.cell, 1)
    out["board_thickness_mm"] = round(new.geometry.board_height, 2)
    return new, out


def step_camels(
    profile: TableProfile, img: np.ndarray, order: Sequence[str], first_space: int = 1
) -> tuple[TableProfile, dict[str, Any]]:
    """The camels stand alone on spaces ``first_space``.. in ``order``: learn their colours."""
    new = learn_camels(profile, img, list(order), first_space)
    return new, {"camels": {k: v.to_json() for k, v in new.camels.items()}}


def step_camels_from_stacks(
    profile: TableProfile, img: np.ndarray, stacks: dict[int, list[str]]
) -> tuple[TableProfile, dict[str, Any]]:
    """The setup roll's stacks as read and confirmed (space -> colours bottom to top): learn
    the camels' colours from them."""
    new = learn_camels_from_stacks(profile, img, stacks)
    return new, {"camels": {k: v.to_json() for k, v in new.camels.items()}}


def _stacks(text: str | None) -> dict[int, list[str]]:
    """``--track``'s JSON: {"3": ["blue", "green"]}, space -> camels bottom to top."""
    try:
        doc = json.loads(text or "")
        return {int(k): [str(c) for c in v] for k, v in doc.items()}
    except (ValueError, AttributeError, TypeError) as exc:
        raise SetupRefused(
            Refusal.BAD_ORDER, f'--track must be JSON like {{"3": ["blue", "green"]}} ({exc})'
        ) from exc


def step_tiles(
    profile: TableProfile, img: np.ndarray, sides: dict[int, str]
) -> tuple[TableProfile, dict[str, Any]]:
    """Desert tiles lie on ``sides`` (space -> "oasis" | "mirage"): learn both sides."""
    new = learn_tiles(profile, img, sides)
    return new, {"tiles": {k: v.to_json() for k, v in new.tiles.items()}}


def track_cells(corners: np.ndarray) -> list[list[list[float]]]:
    """The 16 spaces' outlines (space 1 first) in the pixels of a frame whose board has these
    outer corners (TL = space 1's, then clockwise): what the overlay draws. The page's script
    draws the same from the same four corners while a person drags them."""
    c = np.asarray(corners, np.float64).reshape(4, 2)
    src = np.array([[0, 0], [5, 0], [5, 5], [0, 5]], np.float32)
    H = cv2.getPerspectiveTransform(src, c.astype(np.float32))
    out = []
    for r, q in ring_5x5_cells():  # [row, column]
        sq = np.array([[q, r], [q + 1, r], [q + 1, r + 1], [q, r + 1]], np.float64)
        px = cv2.perspectiveTransform(sq.reshape(-1, 1, 2), H).reshape(-1, 2)
        out.append(np.round(px, 1).tolist())
    return out


def _draw_overlay(img: np.ndarray, corners: np.ndarray, out: str) -> None:
    """The snapshot with the 16 spaces where the overlay puts them, numbered."""
    canvas = img.copy()
    c = np.asarray(corners, np.float64)
    for n, cell in enumerate(track_cells(c), start=1):
        px = np.asarray(cell)
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
