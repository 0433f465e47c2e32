"""The guided set-up page of the table's camera (``/setup``): PIN only.

Why a page: a person at a new table sees the camera's snapshot with the 16 spaces drawn where
the system believes they are, confirms or drags the board's outer corners until the overlay
fits, then teaches the camels' and the desert tiles' colours; a refused step says why in plain
words and changes nothing.

The hub imports no vision (ARCHITECTURE.md): the page talks to a :class:`SetupDesk`, any object
with these methods, given to ``create_app(setup=...)`` or registered by the `pyramid` command
(``register_setup_desk``); the one it registers runs the same step functions as
`pyramid calibrate`, so the page and the command line save the same file. Without a desk the
page says that this hub has no camera to set up.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Protocol

from flask import Blueprint, Response, jsonify, render_template, url_for

from hub.games.camelup.model import COLOURS as CAMEL_UP
from hub.games.camelup2.model import CAMELS as CAMEL_UP2

__all__ = ["SetupDesk", "add_setup_routes", "register_setup_desk", "registered_setup_desk"]

# every camel of either edition; which ones this table has is the desk's (its board file)
COLOURS = tuple(dict.fromkeys(CAMEL_UP + CAMEL_UP2))
SPACES = range(1, 17)


class SetupDesk(Protocol):
    """The set-up steps behind the page; each answers ``{"ok": True, ...}`` or ``{"ok": False,
    "code": ..., "error": sentence}`` (see vision.cli.setup_desk.TableSetupDesk)."""

    def status(self) -> dict[str, Any]: ...

    def snapshot(self) -> dict[str, Any]: ...

    def track(
        self,
        snapshot: str,
        corners: list[list[float]] | None,
        occupied: list[int],
        board_thickness: float | None = None,
    ) -> dict[str, Any]: ...

    def camels(self, order: list[str], first_space: int = 1) -> dict[str, Any]: ...

    def tiles(self, oasis: int, mirage: int) -> dict[str, Any]: ...

    def roll(self, stacks: dict[int, list[str]]) -> dict[str, Any]: ...


_factory: Callable[[], SetupDesk] | None = None


def register_setup_desk(factory: Callable[[], SetupDesk] | None) -> None:
    """Make ``factory`` give the desk of every dashboard created from now on without one
    (the `pyramid hub` command registers the camera's; None forgets it)."""
    global _factory
    _factory = factory


def registered_setup_desk() -> SetupDesk | None:
    return None if _factory is None else _factory()


class BadPayload(ValueError):
    """A set-up request the page could not have sent; ``str(err)`` says what is wrong."""


def _corners(value: Any) -> list[list[float]] | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 4:
        raise BadPayload("corners are four [x, y] points: space 1's outer corner, then clockwise")
    out = []
    for p in value:
        if (
            not isinstance(p, list)
            or len(p) != 2
            or not all(
                isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
                for v in p
            )
        ):
            raise BadPayload("each corner is [x, y] in the snapshot's pixels")
        out.append([float(p[0]), float(p[1])])
    return out


def _thickness(value: Any) -> float | None:
    """The board's thickness in mm as the person typed it (None: the desk's default). Only its
    form is checked here; whether a board can be that thick is the desk's to say (its refusal
    names the range), so the page and `pyramid calibrate` refuse the same values alike."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BadPayload("the board's thickness is a number of millimetres")
    return float(value)


def _space(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value not in SPACES:
        raise BadPayload(f"{what} is a space from 1 to 16")
    return value


def _order(value: Any) -> list[str]:
    if not isinstance(value, list) or not 1 <= len(value) <= len(CAMEL_UP2):
        raise BadPayload(
            f"order lists the camels' colours on spaces 1 to 5 (1 to {len(CAMEL_UP2)} on "
            "the second edition)"
        )
    if not all(isinstance(c, str) and c in COLOURS for c in value):
        raise BadPayload(f"each camel is one of {', '.join(COLOURS)}")
    return list(value)


def _stacks(value: Any) -> dict[int, list[str]]:
    """The setup roll as a person confirmed it: {"3": ["blue", "green"], ...}, space -> camels
    bottom to top, each camel once."""
    if not isinstance(value, dict) or not value:
        raise BadPayload('stacks are {"space": [colours bottom to top]}, at least one')
    out: dict[int, list[str]] = {}
    for key, stack in value.items():
        space = int(key) if isinstance(key, str) and key.isdigit() else key
        where = _space(space, "a stack's space")
        if not isinstance(stack, list) or not 1 <= len(stack) <= len(CAMEL_UP2):
            raise BadPayload(f"space {where}: a stack lists its camels, bottom to top")
        out[where] = _order(stack)
    names = [c for stack in out.values() for c in stack]
    if len(set(names)) != len(names):
        raise BadPayload("each camel stands in one stack only")
    return out


def add_setup_routes(
    bp: Blueprint,
    desk: SetupDesk | None,
    *,
    access_of: Callable[[], Any],
    body: Callable[[], dict[str, Any]],
    error: Callable[..., Response],
) -> None:
    """The page and its endpoints on the dashboard's blueprint. ``access_of`` is the app's
    check of the caller (it answers 403 for a wrong PIN); ``body`` its JSON body reader;
    ``error`` its refusal answer."""

    def table_only() -> Response | None:
        access = access_of()
        if access.level != "table":
            return error("only the table (with its PIN) can set the camera up", "pin_required")
        if desk is None:
            return error(
                "this hub has no camera to set up: run the set-up where the camera "
                "is (pyramid calibrate)",
                "no_camera",
                status=503,
            )
        return None

    def answer(result: dict[str, Any]) -> Response:
        if not result.get("ok"):
            return error(
                str(result.get("error") or "the step was refused"),
                str(result.get("code") or "refused"),
                status=422,
            )
        return jsonify(result)

    def guarded(step: Callable[[SetupDesk], dict[str, Any]]) -> Response:
        refused = table_only()
        if refused is not None or desk is None:
            return refused or error("no camera", "no_camera", status=503)
        try:
            return answer(step(desk))
        except BadPayload as exc:
            return error(str(exc), "bad_payload")

    @bp.get("/setup")
    def table_setup() -> str:
        return render_template("setup.html", root=url_for("dashboard.index"))

    @bp.get("/api/table-setup")
    def table_setup_status() -> Response:
        return guarded(lambda d: d.status())

    @bp.post("/api/table-setup/snapshot")
    def table_setup_snapshot() -> Response:
        return guarded(lambda d: d.snapshot())

    @bp.post("/api/table-setup/track")
    def table_setup_track() -> Response:
        def step(d: SetupDesk) -> dict[str, Any]:
            data = body()
            sid = data.get("snapshot")
            if not isinstance(sid, str) or not sid or len(sid) > 64:
                raise BadPayload("say which snapshot the overlay was placed on")
            occupied = data.get("occupied", [])
            if not isinstance(occupied, list):
                raise BadPayload("occupied lists the spaces with pieces on them")
            spaces = [_space(s, "an occupied space") for s in occupied]
            thickness = _thickness(data.get("board_thickness"))
            return d.track(sid, _corners(data.get("corners")), spaces, thickness)

        return guarded(step)

    @bp.post("/api/table-setup/camels")
    def table_setup_camels() -> Response:
        return guarded(lambda d: d.camels(_order(body().get("order"))))

    @bp.post("/api/table-setup/roll")
    def table_setup_roll() -> Response:
        return guarded(lambda d: d.roll(_stacks(body().get("stacks"))))

    @bp.post("/api/table-setup/tiles")
    def table_setup_tiles() -> Response:
        def step(d: SetupDesk) -> dict[str, Any]:
            data = body()
            oasis = _space(data.get("oasis"), "the oasis tile's space")
            mirage = _space(data.get("mirage"), "the mirage tile's space")
            if oasis == mirage:
                raise BadPayload("the two tiles lie on two different spaces")
            return d.tiles(oasis, mirage)

        return guarded(step)
