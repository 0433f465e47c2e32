"""The set-up page's endpoints (/api/table-setup/...): PIN only, payloads checked before the
camera is asked, a hub without a camera says so. A recording desk stands in for the camera's:
these tests are about the hub's gate, the browser tests (test_setup_page.py) drive the real one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hub.dashboard import create_app
from hub.session import TableSession
from hub.store import Store

PIN = "2468"
JSON = {"Content-Type": "application/json"}


class Desk:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def status(self) -> dict[str, Any]:
        self.calls.append(("status", None))
        return {"ok": True, "board": None, "camels": [], "tiles": []}

    def snapshot(self) -> dict[str, Any]:
        self.calls.append(("snapshot", None))
        return {"ok": False, "code": "no_frame", "error": "the watch service is not running"}

    def track(
        self, snapshot: str, corners: Any, occupied: list[int], board_thickness: Any = None
    ) -> dict[str, Any]:
        self.calls.append(("track", (snapshot, corners, occupied, board_thickness)))
        return {"ok": True, "cell_mm": 68.0}

    def camels(self, order: list[str], first_space: int = 1) -> dict[str, Any]:
        self.calls.append(("camels", order))
        return {"ok": True, "camels": {}}

    def tiles(self, oasis: int, mirage: int) -> dict[str, Any]:
        self.calls.append(("tiles", (oasis, mirage)))
        return {"ok": True, "tiles": {}}

    def roll(self, stacks: dict[int, list[str]]) -> dict[str, Any]:
        self.calls.append(("roll", stacks))
        return {"ok": True, "camels": {}}


def _client(tmp_path: Path, desk: Desk | None) -> Any:
    store = Store(tmp_path / "events.sqlite")
    session = TableSession("t1", store, pin=PIN, odds=False, advice=False)
    app = create_app(session, setup=desk)
    app.testing = True
    return app.test_client()


@pytest.fixture
def desk() -> Desk:
    return Desk()


def test_only_the_table_pin_sets_the_camera_up(tmp_path: Path, desk: Desk) -> None:
    c = _client(tmp_path, desk)
    assert c.get("/setup").status_code == 200  # the page itself is public; its steps are not
    r = c.post("/api/table-setup/snapshot", json={})
    assert r.status_code == 401 and r.json["error"] == "pin_required"
    r = c.post("/api/table-setup/snapshot", json={}, headers={"X-Pyramid-Pin": "1111"})
    assert r.status_code == 403 and r.json["error"] == "wrong_pin"
    assert desk.calls == []
    r = c.get("/api/table-setup", headers={"X-Pyramid-Pin": PIN})
    assert r.status_code == 200 and desk.calls == [("status", None)]


def test_a_refused_step_is_the_desks_sentence(tmp_path: Path, desk: Desk) -> None:
    c = _client(tmp_path, desk)
    r = c.post("/api/table-setup/snapshot", json={}, headers={"X-Pyramid-Pin": PIN})
    assert r.status_code == 422 and r.json["error"] == "no_frame"
    assert r.json["message"] == "The watch service is not running."


@pytest.mark.parametrize(
    "path, payload, says",
    [
        ("track", {"corners": [[1, 2]] * 4}, "which snapshot"),
        ("track", {"snapshot": "a", "corners": [[1, 2]] * 3}, "four [x, y]"),
        ("track", {"snapshot": "a", "corners": [[1, "x"]] * 4}, "each corner"),
        ("track", {"snapshot": "a", "corners": None, "occupied": [17]}, "1 to 16"),
        ("track", {"snapshot": "a", "corners": None, "board_thickness": ""}, "millimetres"),
        ("track", {"snapshot": "a", "corners": None, "board_thickness": "2"}, "millimetres"),
        ("track", {"snapshot": "a", "corners": None, "board_thickness": True}, "millimetres"),
        ("camels", {"order": ["blue", "pink"]}, "each camel is one of"),
        ("camels", {"order": "blue"}, "order lists"),
        ("roll", {"stacks": {}}, "at least one"),
        ("roll", {"stacks": {"17": ["blue"]}}, "1 to 16"),
        ("roll", {"stacks": {"3": []}}, "a stack lists"),
        ("roll", {"stacks": {"3": ["blue"], "5": ["green", "blue"]}}, "one stack only"),
        ("roll", {"stacks": {"3": ["blue", "pink"]}}, "each camel is one of"),
        ("tiles", {"oasis": 3, "mirage": 3}, "two different spaces"),
        ("tiles", {"oasis": 0, "mirage": 3}, "1 to 16"),
    ],
)
def test_bad_payloads_are_refused_before_the_camera_is_asked(
    tmp_path: Path, desk: Desk, path: str, payload: dict[str, Any], says: str
) -> None:
    c = _client(tmp_path, desk)
    r = c.post(f"/api/table-setup/{path}", json=payload, headers={"X-Pyramid-Pin": PIN})
    assert r.status_code == 400 and r.json["error"] == "bad_payload"
    assert says.lower() in r.json["message"].lower() and desk.calls == []


def test_good_payloads_reach_the_desk(tmp_path: Path, desk: Desk) -> None:
    c = _client(tmp_path, desk)
    h = {"X-Pyramid-Pin": PIN}
    corners = [[10, 20], [30.5, 20], [30, 40], [10, 40]]
    assert (
        c.post(
            "/api/table-setup/track",
            json={"snapshot": "s1", "corners": corners, "occupied": [3]},
            headers=h,
        ).status_code
        == 200
    )
    thick = {"snapshot": "s2", "corners": None, "board_thickness": 3.5}
    assert c.post("/api/table-setup/track", json=thick, headers=h).status_code == 200
    assert (
        c.post("/api/table-setup/camels", json={"order": ["white", "blue"]}, headers=h).status_code
        == 200
    )
    assert (
        c.post("/api/table-setup/tiles", json={"oasis": 8, "mirage": 12}, headers=h).status_code
        == 200
    )
    roll = {"stacks": {"3": ["white", "blue"], "9": ["green"]}}
    assert c.post("/api/table-setup/roll", json=roll, headers=h).status_code == 200
    assert desk.calls == [
        ("track", ("s1", [[10.0, 20.0], [30.5, 20.0], [30.0, 40.0], [10.0, 40.0]], [3], None)),
        ("track", ("s2", None, [], 3.5)),
        ("camels", ["white", "blue"]),
        ("tiles", (8, 12)),
        ("roll", {3: ["white", "blue"], 9: ["green"]}),
    ]


def test_a_hub_without_a_camera_says_so(tmp_path: Path) -> None:
    c = _client(tmp_path, None)
    r = c.post("/api/table-setup/snapshot", json={}, headers={"X-Pyramid-Pin": PIN})
    assert r.status_code == 503 and "no camera" in r.json["message"]


def test_the_dashboard_links_to_the_set_up_page(tmp_path: Path, desk: Desk) -> None:
    page = _client(tmp_path, desk).get("/").get_data(as_text=True)
    assert 'id="setup-link" href="/setup"' in page
