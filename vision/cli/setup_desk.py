"""The table's set-up as the dashboard's page drives it: the `pyramid calibrate` steps behind a
small object that takes snapshots, remembers the one a person is looking at, and saves the
table profile when a step succeeds.

Why here and not in the hub: the hub imports no vision (ARCHITECTURE.md); its page talks to
any object with these methods (``hub.dashboard.setup_page.SetupDesk``), and the `pyramid`
command hands it this one. Each step calls the very functions `pyramid calibrate STEP` calls
(``vision.cli.calibrate_steps.step_*``), so the file a person saves from the page is the file
the command line would have saved from the same snapshot.

Every method answers a JSON-ready dict: ``{"ok": True, ...}``, or ``{"ok": False, "code":
refusal code, "error": a sentence for people}`` and the profile on disk is untouched.
"""

from __future__ import annotations

import base64
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.board import BoardGeometry, load_geometry
from vision.cli.calibrate_steps import (
    default_profile_path,
    step_camels,
    step_camels_from_stacks,
    step_tiles,
    step_track,
    track_cells,
)
from vision.cli.frames import FrameSource, FrameSourceError, open_source
from vision.palette import CAMEL_UP
from vision.table import (
    BOARD_HEIGHT_MM,
    BOARD_MOVED,
    SetupRefused,
    TableProfile,
    load_profile,
    save_profile,
)
from vision.track import read_track

__all__ = ["TableSetupDesk", "default_desk"]

KEEP_SNAPSHOTS = 4  # a person may go back to the last few snapshots; older ones are dropped
JPEG_QUALITY = 85
COLOURS = CAMEL_UP


def _jpeg_b64(img: np.ndarray) -> str:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise FrameSourceError("the snapshot could not be encoded")
    return base64.b64encode(buf.tobytes()).decode("ascii")


def _refused(exc: Exception) -> dict[str, Any]:
    if isinstance(exc, SetupRefused):
        return {"ok": False, "code": exc.code.value, "error": exc.sentence}
    return {
        "ok": False,
        "code": "no_frame" if isinstance(exc, OSError) else "bad_input",
        "error": str(exc),
    }


def _thickness_of(profile: TableProfile) -> float:
    """The board's thickness this table was set up with (a board placed again keeps it unless
    the person types another), or the default for a table not set up yet."""
    return BOARD_HEIGHT_MM if profile.board is None else profile.geometry.board_height


class TableSetupDesk:
    """The set-up steps of one table for the dashboard (see the module's docstring).

    ``frames``: a frame-source spec (``watch:``, an image file, a registered scheme) or a
    callable giving a fresh FrameSource; ``table``: the profile's path (default that of
    `pyramid calibrate`); ``board``: a board file for the marker sizes (default board.yaml)."""

    def __init__(
        self,
        frames: str | Callable[[], FrameSource] = "watch:",
        table: str | Path | None = None,
        board: str | Path | None = None,
    ) -> None:
        self._frames = frames
        self.path = Path(table) if table else default_profile_path()
        self._board = board
        self._base: BoardGeometry | None = None
        self._snaps: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    # -- helpers ------------------------------------------------------------------------------
    def _geometry(self) -> BoardGeometry:
        if self._base is None:
            self._base = load_geometry(self._board)
        return self._base

    def _take(self) -> tuple[str, np.ndarray]:
        src = open_source(self._frames) if isinstance(self._frames, str) else self._frames()
        try:
            img = src.snapshot()
        finally:
            src.close()
        if not isinstance(img, np.ndarray) or img.ndim != 3 or img.dtype != np.uint8:
            raise FrameSourceError("the camera gave no colour picture")
        sid = uuid.uuid4().hex[:12]
        self._snaps[sid] = img
        while len(self._snaps) > KEEP_SNAPSHOTS:
            self._snaps.popitem(last=False)
        return sid, img

    def _profile(self) -> TableProfile:
        return load_profile(self.path) if self.path.exists() else TableProfile()

    def _picture(self, sid: str, img: np.ndarray) -> dict[str, Any]:
        h, w = img.shape[:2]
        return {"snapshot": sid, "width": w, "height": h, "jpeg": _jpeg_b64(img)}

    # -- what the page calls --------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        """Which steps this table has done (no picture is taken)."""
        with self._lock:
            try:
                prof = self._profile()
            except SetupRefused as exc:
                return {**_refused(exc), "table": str(self.path)}
            board = (
                None
                if prof.board is None
                else {
                    "cell_mm": round(prof.geometry.cell, 1),
                    "thickness_mm": round(prof.geometry.board_height, 2),
                }
            )
            return {
                "ok": True,
                "table": str(self.path),
                "markers": prof.markers is not None,
                "board": board,
                "camels": sorted(prof.camels),
                "tiles": sorted(prof.tiles),
                # the table's own camels (a second-edition board file names seven)
                "colours": list(self._geometry().colours),
            }

    def snapshot(self) -> dict[str, Any]:
        """A snapshot, and where the system believes the board's outer corners and its 16
        spaces are in it (``corners``/``cells``: None with ``refusal`` when the marker cards
        are not all seen). Nothing is saved."""
        with self._lock:
            try:
                sid, img = self._take()
            except (FrameSourceError, OSError) as exc:
                return _refused(exc)
            out: dict[str, Any] = {"ok": True, **self._picture(sid, img)}
            out["corners"] = out["cells"] = out["refusal"] = None
            try:
                _, proposal = step_track(self._profile(), img, self._geometry())
            except (SetupRefused, ValueError) as exc:
                out["refusal"] = _refused(exc)
                return out
            out["corners"] = proposal["corners"]
            out["cells"] = track_cells(np.asarray(proposal["corners"]))
            out["moved"] = self._moved(img)
            return out

    def _moved(self, img: np.ndarray) -> dict[str, str] | None:
        """The prompt to place the board again when the saved board has moved against the
        marker cards in ``img`` (the reader abstains on every space until then), else None."""
        try:
            prof = self._profile()
        except SetupRefused:
            return None
        if prof.board is None or prof.background is None:
            return None
        reading = read_track(img, prof.geometry, table=prof, all_camels=False)
        if reading.reason != BOARD_MOVED:
            return None
        return {
            "code": "board_moved",
            "error": "The board has moved against the marker cards since it was set up, so "
            "the track is not read: drag the corners onto the board again and save it.",
        }

    def track(
        self,
        snapshot: str,
        corners: Sequence[Sequence[float]] | None,
        occupied: Sequence[int],
        board_thickness: float | None = None,
    ) -> dict[str, Any]:
        """Save the board as placed on ``snapshot``: at ``corners`` (a person's drag), or at
        the proposal when ``corners`` is None. ``board_thickness``: mm of the board's top above
        the table the cards lie on (None: the thickness saved before, else the default 2 mm);
        out of 0-20 mm it is refused (``board_height``) and nothing is saved."""
        with self._lock:
            img = self._snaps.get(snapshot)
            if img is None:
                return {
                    "ok": False,
                    "code": "stale_snapshot",
                    "error": "that snapshot is gone: take a new one",
                }
            try:
                prof = self._profile()
                c = None if corners is None else np.asarray(corners, np.float64).reshape(4, 2)
                height = _thickness_of(prof) if board_thickness is None else board_thickness
                new, out = step_track(
                    prof, img, self._geometry(), c, True, list(occupied), float(height)
                )
                save_profile(new, self.path)
            except (SetupRefused, ValueError, OSError) as exc:
                return _refused(exc)
            out["cells"] = track_cells(np.asarray(out["corners"]))
            return {"ok": True, **out}

    def camels(self, order: Sequence[str], first_space: int = 1) -> dict[str, Any]:
        """A new snapshot of the camels standing alone on spaces 1.. in ``order``: learn them."""
        with self._lock:
            try:
                sid, img = self._take()
                new, out = step_camels(self._profile(), img, order, first_space)
                save_profile(new, self.path)
            except (SetupRefused, ValueError, OSError) as exc:
                return _refused(exc)
            return {"ok": True, **out, "snapshot": sid}

    def roll(self, stacks: dict[int, list[str]]) -> dict[str, Any]:
        """A new snapshot of the setup roll's stacks as read and confirmed (space -> camels
        bottom to top): learn the camels' colours from them instead of spaces 1 to 5."""
        with self._lock:
            try:
                sid, img = self._take()
                new, out = step_camels_from_stacks(self._profile(), img, stacks)
                save_profile(new, self.path)
            except (SetupRefused, ValueError, OSError) as exc:
                return _refused(exc)
            return {"ok": True, **out, "snapshot": sid}

    def tiles(self, oasis: int, mirage: int) -> dict[str, Any]:
        """A new snapshot with a desert tile oasis side up on ``oasis`` and one mirage side
        up on ``mirage``: learn both sides."""
        with self._lock:
            try:
                sid, img = self._take()
                new, out = step_tiles(self._profile(), img, {oasis: "oasis", mirage: "mirage"})
                save_profile(new, self.path)
            except (SetupRefused, ValueError, OSError) as exc:
                return _refused(exc)
            return {"ok": True, **out, "snapshot": sid}


def default_desk() -> TableSetupDesk:
    """The desk of `pyramid hub` on the Pi: snapshots from the running watch service, the
    profile where `pyramid calibrate` keeps it."""
    return TableSetupDesk("watch:")
