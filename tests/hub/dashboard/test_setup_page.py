"""The camera's set-up page (/setup) in real headless Chromium, on rendered tables.

A real hub session and dashboard on a free port; the camera is a replay of rendered frames of
one table (the empty board, then the pieces on it), handed to vision's set-up desk, which runs
the same step functions as `pyramid calibrate`. Boards of three sizes (spaces of 40, 60 and 80
mm); the person drags the overlay's corners with the mouse onto the board's true corners, saves,
teaches the camels and tiles, and the saved file then reads a scene of play right.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
import yaml

from hub.cli import main
from hub.dashboard import create_app
from hub.dashboard.server import ServerThread
from hub.session import TableSession
from hub.store import Store
from tests.fixtures.browser import csp_violations, wait_js
from vision.board import BoardGeometry
from vision.cli.calibrate_steps import track_cells
from vision.cli.frames import ReplaySource
from vision.cli.setup_desk import TableSetupDesk
from vision.eval.table import SETUP_TILES, _setup_view
from vision.render.table import make_table, render_table_scene
from vision.table import BOARD_MOVED, load_profile
from vision.track import read_track

pytestmark = pytest.mark.browser

PIN = "2468"
PLAY = {3: ["orange", "blue"], 9: ["white"], 14: ["green", "yellow"]}


class Scenes:
    """One rendered table: the set-up's two snapshots, a scene of play and the truth."""

    def __init__(self, seed: int, cell: float) -> None:
        self.table = make_table(seed, cell_mm=cell)
        pose, kelvin, self.order, rng = _setup_view(self.table)
        self.empty, truth = render_table_scene(self.table, rng, {}, {}, kelvin=kelvin, pose=pose)
        self.corners = np.asarray(truth.board_corners)
        self.homography = np.asarray(truth.homography)  # board mm -> image px
        track = {i + 1: [c] for i, c in enumerate(self.order)}
        self.pieces, _ = render_table_scene(
            self.table, rng, track, dict(SETUP_TILES), kelvin=kelvin, pose=pose
        )
        self.play, _ = render_table_scene(
            self.table, rng, PLAY, {6: "mirage"}, kelvin=kelvin, pose=pose
        )


@pytest.fixture(scope="module")
def scenes() -> dict[int, Scenes]:
    # one tuning table drawn at three sizes (on 40 mm spaces some views hide a camel behind its
    # neighbour in the "spaces 1 to 5" step: a limit of that step, not of this page)
    return {cell: Scenes(100_080, cell) for cell in (40, 60, 80)}


@contextmanager
def served(
    tmp_path: Path, frames: list[np.ndarray], board: Path | None = None
) -> Iterator[tuple[str, Path]]:
    """A hub with a PIN and this camera (one frame per snapshot, in order) on a free port;
    ``board``: the board file the desk starts from (board.yaml when None)."""
    queue = iter(frames)
    tmp_path.mkdir(parents=True, exist_ok=True)
    profile = tmp_path / "table.json"
    desk = TableSetupDesk(lambda: ReplaySource([next(queue)]), table=profile, board=board)
    store = Store(tmp_path / "events.sqlite")
    session = TableSession("t1", store, pin=PIN, odds=False, advice=False)
    app = create_app(session, setup=desk)
    try:
        with ServerThread(app) as srv:
            yield srv.url, profile
    finally:
        app.extensions["pyramid_dashboard"].close()
        session.bus.close()
        store.close()


def open_setup(browser: Any, url: str, width: int = 1024, pin: str | None = PIN) -> Any:
    context = browser.new_context(viewport={"width": width, "height": 800})
    if pin is not None:
        context.add_init_script(f"localStorage.setItem('pyramid.pin', {pin!r})")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors  # type: ignore[attr-defined]
    page.csp = csp_violations(page)  # type: ignore[attr-defined]
    page.goto(url + "/setup")
    return page


def close(page: Any) -> None:
    assert page.errors == [], page.errors
    assert page.csp == [], page.csp
    page.context.close()


def take_snapshot(page: Any) -> str:
    page.click("#snap")
    return str(
        wait_js(
            page,
            "['proposed', 'refused'].includes(document.body.dataset.state) "
            "&& document.body.dataset.state",
        )
    )


def drag(page: Any, corner: int, to: np.ndarray) -> None:
    """Drag handle ``corner`` with the mouse to ``to`` (the snapshot's pixels)."""
    # a person scrolls the picture into view first (the mouse only reaches the viewport)
    page.locator("#stage-scroll").scroll_into_view_if_needed()
    box = page.locator("#shot").bounding_box()
    w, h = page.evaluate(
        "[document.getElementById('shot').naturalWidth, "
        "document.getElementById('shot').naturalHeight]"
    )
    now = json.loads(
        page.evaluate(
            "JSON.stringify(document.body.dataset.overlay.split(' ')"
            ".map(p => p.split(',').map(Number)))"
        )
    )[corner]

    def css(p: Any) -> tuple[float, float]:
        return box["x"] + p[0] * box["width"] / w, box["y"] + p[1] * box["height"] / h

    page.mouse.move(*css(now))
    page.mouse.down()
    a, b = css(now), css(to)
    for t in (0.3, 0.7, 1.0):  # a person's drag: several moves, not a jump
        page.mouse.move(a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
    page.mouse.up()


def learn(page: Any, what: str) -> str:
    """Press a colour step's button; its outcome ("camels:ok", "tiles:refused", ...)."""
    page.click(f"#learn-{what}")
    return str(wait_js(page, "document.body.dataset.last"))


def overlay(page: Any) -> np.ndarray:
    text = page.evaluate("document.body.dataset.overlay")
    return np.array([[float(v) for v in p.split(",")] for p in text.split()])


@pytest.mark.parametrize("cell", [40, 60, 80])
def test_a_table_set_up_from_the_page_by_dragging_the_corners(
    browser: Any, scenes: dict[int, Scenes], tmp_path: Path, cell: int
) -> None:
    s = scenes[cell]
    with served(tmp_path, [s.empty, s.pieces, s.pieces]) as (url, profile):
        page = open_setup(browser, url)
        wait_js(page, "document.body.dataset.ready === '1'")
        assert take_snapshot(page) == "proposed"
        # the overlay the page draws is the one the hub computes for the same corners
        proposal = overlay(page)
        drawn = page.evaluate(f"window.setupCells({json.dumps(proposal.tolist())})")
        assert np.allclose(drawn, track_cells(proposal), atol=0.2)
        assert page.locator("#overlay polygon.space").count() == 16
        # the proposal is near, not on: the person drags each handle onto the board's corner
        for i in range(4):
            drag(page, i, s.corners[i])
        dragged = overlay(page)
        px_per_css = 1280 / page.locator("#shot").bounding_box()["width"]
        assert np.abs(dragged - s.corners).max() < 1.5 * px_per_css + 0.5
        # the person measured the board's thickness and types it (the field offers 2 mm)
        assert page.input_value("#board-thickness") == "2"
        thick = round(s.table.thickness, 1)
        page.fill("#board-thickness", str(thick))
        page.click("#save-board")
        wait_js(page, "document.body.dataset.state === 'saved'")
        said = page.locator("#setup-message").inner_text()
        assert "spaces of" in said and f"{thick:g} mm thick" in said, said
        saved = load_profile(profile)
        assert saved.geometry.cell == pytest.approx(cell, abs=2.0)
        assert saved.geometry.board_height == pytest.approx(thick)
        # the same file as `pyramid calibrate track` from the same snapshot and corners
        shot = tmp_path / "empty.png"
        cv2.imwrite(str(shot), s.empty)
        cli_profile = tmp_path / "cli.json"
        corners = " ".join(f"{x},{y}" for x, y in dragged)
        with contextlib.redirect_stdout(io.StringIO()):
            assert (
                main(
                    [
                        "calibrate",
                        "track",
                        "--frame",
                        str(shot),
                        "--table",
                        str(cli_profile),
                        "--corners",
                        corners,
                        "--board-thickness",
                        str(thick),
                    ]
                )
                == 0
            )
        assert load_profile(cli_profile).board == saved.board

        # the camels, in the order the page asks for, then the tiles
        for i, colour in enumerate(s.order, start=1):
            page.select_option(f"#camel-{i}", colour)
        assert learn(page, "camels") == "camels:ok", page.locator("#setup-message").inner_text()
        assert page.locator("#camel-result .setup-swatch").count() == 5
        assert learn(page, "tiles") == "tiles:ok", page.locator("#setup-message").inner_text()
        assert page.locator("#tile-result .setup-swatch").count() == 2
        wait_js(page, "document.querySelector('#progress li[data-step=tiles] .yes')")
        saved = load_profile(profile)
        assert sorted(saved.camels) == sorted(s.order) and sorted(saved.tiles) == [
            "mirage",
            "oasis",
        ]
        reading = read_track(s.play, saved.geometry, table=saved)
        # the saved file reads play: every stack read is right, the tile too; a stack may be
        # abstained on (the reader's own figures, vision.eval.table), never read wrong
        assert reading.desert == {6: "mirage"}
        assert all(PLAY.get(sp) == stack for sp, stack in reading.track.items()), reading.track
        assert all(sp in reading.track or sp in reading.uncertain for sp in PLAY)
        assert len(reading.track) >= 2, reading.uncertain
        close(page)


def test_refused_steps_say_why_on_the_page_and_change_nothing(
    browser: Any, scenes: dict[int, Scenes], tmp_path: Path
) -> None:
    s = scenes[60]
    hidden = s.empty.copy()
    # something lying on marker card 2
    card = s.table.geometry.marker_corners(2, s.table.geometry.marker_border)
    px = cv2.perspectiveTransform(card.reshape(-1, 1, 2).astype(np.float64), s.homography)
    cv2.fillConvexPoly(hidden, np.round(px.reshape(-1, 2)).astype(np.int32), (40, 60, 90))
    frames = [hidden, s.empty, s.empty, s.empty]
    with served(tmp_path, frames) as (url, profile):
        page = open_setup(browser, url)
        wait_js(page, "document.body.dataset.ready === '1'")
        assert take_snapshot(page) == "refused"
        assert "marker card(s) [2] not seen" in page.locator("#setup-message").inner_text()
        assert page.locator("#fit").is_hidden() and not profile.exists()
        # a corner dragged into the middle of the board: no square board, nothing saved
        assert take_snapshot(page) == "proposed"
        drag(page, 2, s.corners.mean(axis=0))
        page.click("#save-board")
        wait_js(page, "document.body.dataset.state === 'refused'")
        assert "no square board" in page.locator("#setup-message").inner_text()
        assert not profile.exists()
        # the corners right but a thickness no board has, or none at all: refused, nothing saved
        page.click("#reset-corners")
        for i in range(4):
            drag(page, i, s.corners[i])
        for typed, says in (("25", "0-20 mm above the table"), ("", "number of millimetres")):
            page.fill("#board-thickness", typed)
            page.evaluate("document.body.dataset.state = ''")
            page.click("#save-board")
            wait_js(page, "document.body.dataset.state === 'refused'")
            assert says in page.locator("#setup-message").inner_text()
            assert not profile.exists()
        # saved properly, then the camels asked for on an empty board: refused, file unchanged
        page.fill("#board-thickness", "3")
        page.click("#save-board")
        wait_js(page, "document.body.dataset.state === 'saved'")
        assert load_profile(profile).geometry.board_height == 3.0
        before = profile.read_bytes()
        assert learn(page, "camels") == "camels:refused"
        assert "camel" in page.locator("#setup-message").inner_text().lower()
        assert profile.read_bytes() == before
        close(page)


def test_the_page_needs_the_table_pin(
    browser: Any, scenes: dict[int, Scenes], tmp_path: Path
) -> None:
    s = scenes[40]
    with served(tmp_path, [s.empty]) as (url, profile):
        page = open_setup(browser, url, pin=None)
        page.wait_for_selector("#pin-card:not([hidden])")
        import urllib.request

        req = urllib.request.Request(
            url + "/api/table-setup/snapshot",
            data=b"{}",
            headers={"Content-Type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(req)
        assert err.value.code == 401
        page.fill("#setup-pin", "1111")
        page.click("#setup-pin-ok")
        wait_js(page, "document.getElementById('setup-message').textContent.includes('PIN')")
        page.fill("#setup-pin", PIN)
        page.click("#setup-pin-ok")
        wait_js(page, "document.body.dataset.ready === '1'")
        assert page.locator("#pin-card").is_hidden()
        assert take_snapshot(page) == "proposed"
        assert not profile.exists()
        close(page)


def test_screenshots_at_phone_and_tablet_width(
    browser: Any, scenes: dict[int, Scenes], tmp_path: Path, screenshot_dir: Path
) -> None:
    s = scenes[60]
    for width in (360, 1024):
        with served(tmp_path / str(width), [s.empty]) as (url, _):
            page = open_setup(browser, url, width=width)
            wait_js(page, "document.body.dataset.ready === '1'")
            assert take_snapshot(page) == "proposed"
            scroll = page.evaluate("document.documentElement.scrollWidth")
            assert scroll <= width, f"horizontal scroll at {width} px: {scroll}"
            page.screenshot(path=str(screenshot_dir / f"setup-{width}.png"), full_page=True)
            if width == 360:  # zoomed in: the picture scrolls inside its box, the page not
                page.click("#zoom")
                assert page.evaluate("document.documentElement.scrollWidth") <= width
                zoomed = page.locator("#shot").bounding_box()["width"]
                assert zoomed > 2 * width
                # a handle dragged while zoomed lands to within a pixel of the snapshot
                page.evaluate("document.getElementById('stage-scroll').scrollTo(0, 0)")
                box = page.locator("#stage-scroll").bounding_box()
                page.evaluate(
                    "document.getElementById('stage-scroll').scrollLeft = "
                    f"{s.corners[3][0]} * {zoomed / 1280} - {box['width'] / 2}"
                )
                drag(page, 3, s.corners[3] + [0.0, 0.0])
                assert np.abs(overlay(page)[3] - s.corners[3]).max() < 1.0
                page.locator("#stage-scroll").screenshot(
                    path=str(screenshot_dir / "setup-360-zoomed.png")
                )
            close(page)


def test_a_second_edition_table_teaches_its_seven_camels_from_the_page(
    browser: Any, tmp_path: Path
) -> None:
    """A second-edition board file: the page asks for seven camels on spaces 1 to 7 (the
    crazy black and white ones too), and the saved table reads them in play."""
    table = make_table(501, edition=2)
    board = tmp_path / "board-second-edition.yaml"
    board.write_text(yaml.safe_dump(table.board_dict(), sort_keys=False))
    seven = list(table.geometry.colours)
    pose, kelvin, _, rng = _setup_view(table)
    empty, truth = render_table_scene(table, rng, {}, {}, kelvin=kelvin, pose=pose)
    pieces, _ = render_table_scene(
        table, rng, {i + 1: [c] for i, c in enumerate(seven)}, {}, kelvin=kelvin, pose=pose
    )
    with served(tmp_path, [empty, pieces], board=board) as (url, profile):
        page = open_setup(browser, url)
        wait_js(page, "document.body.dataset.ready === '1'")
        assert page.locator("#camel-order select").count() == 7
        assert page.locator("#camel-last").inner_text() == "7"
        shown = [page.locator(f"#camel-{i + 1}").input_value() for i in range(7)]
        assert shown == seven
        assert take_snapshot(page) == "proposed"
        for i in range(4):
            drag(page, i, np.asarray(truth.board_corners)[i])
        page.click("#save-board")
        wait_js(page, "document.body.dataset.state === 'saved'")
        assert learn(page, "camels") == "camels:ok"
        assert sorted(load_profile(profile).camels) == sorted(seven)
        close(page)
    saved = load_profile(profile)
    play = {4: ["red", "black"], 9: ["white", "blue", "green"], 13: ["yellow", "purple"]}
    scene, _ = render_table_scene(table, rng, play, {}, kelvin=kelvin, pose=pose)
    reading = read_track(scene, saved.geometry, table=saved)
    assert all(play[s] == stack for s, stack in reading.track.items())  # abstains, never wrong
    assert len(reading.track) >= 2 and "black" in reading.track.get(4, [])


def test_a_board_moved_since_set_up_asks_for_the_overlay_again(
    browser: Any, scenes: dict[int, Scenes], tmp_path: Path
) -> None:
    """The person bumps the board 14 mm against the cards: the next snapshot says so (the
    track is not read until then), and placing the board again reads it."""
    s = scenes[60]
    moved = replace(
        s.table, markers={m: (x + 14.0, y + 5.0, a) for m, (x, y, a) in s.table.markers.items()}
    )
    object.__setattr__(moved, "geometry", BoardGeometry.from_dict(moved.board_dict()))
    pose, kelvin, _, _ = _setup_view(s.table)
    rng = np.random.default_rng(11)
    bumped, truth = render_table_scene(moved, rng, {}, {}, kelvin=kelvin, pose=pose)
    with served(tmp_path, [s.empty, bumped]) as (url, profile):
        page = open_setup(browser, url)
        wait_js(page, "document.body.dataset.ready === '1'")
        assert take_snapshot(page) == "proposed"
        for i in range(4):
            drag(page, i, s.corners[i])
        page.click("#save-board")
        wait_js(page, "document.body.dataset.state === 'saved'")
        assert page.evaluate("document.body.dataset.moved") == ""
        # the board was bumped: the snapshot asks for the overlay again
        assert take_snapshot(page) == "proposed"
        assert page.evaluate("document.body.dataset.moved") == "1"
        assert "has moved" in page.locator("#setup-message").inner_text()
        before = load_profile(profile)
        assert read_track(bumped, before.geometry, table=before).reason == BOARD_MOVED
        for i in range(4):
            drag(page, i, np.asarray(truth.board_corners)[i])
        page.click("#save-board")
        wait_js(page, "document.body.dataset.state === 'saved'")
        assert page.evaluate("document.body.dataset.moved") == ""
        close(page)
    after = load_profile(profile)
    play, _ = render_table_scene(moved, rng, PLAY, {}, kelvin=kelvin, pose=pose)
    reading = read_track(play, after.geometry, table=after)
    assert reading.reason is None
    assert all(PLAY[k] == v for k, v in reading.track.items()) and reading.track


def test_the_camels_taught_from_the_setup_roll_on_the_page(browser: Any, tmp_path: Path) -> None:
    """The setup roll's stacks as they stand, typed one per line, teach the camels' colours;
    a camel named twice is refused with the hub's sentence and nothing is taken."""
    table = make_table(100_031)  # a tuning table whose roll shows every camel
    pose, kelvin, order, rng = _setup_view(table)
    perm = [str(c) for c in rng.permutation(order)]
    roll = {1: perm[:2], 2: perm[2:3], 3: perm[3:]}
    rolled, _ = render_table_scene(table, rng, roll, {}, kelvin=kelvin, pose=pose)
    empty, truth = render_table_scene(
        table, np.random.default_rng(5), {}, {}, kelvin=kelvin, pose=pose
    )
    with served(tmp_path, [empty, rolled]) as (url, profile):
        page = open_setup(browser, url)
        wait_js(page, "document.body.dataset.ready === '1'")
        assert take_snapshot(page) == "proposed"
        for i in range(4):
            drag(page, i, np.asarray(truth.board_corners)[i])
        page.click("#save-board")
        wait_js(page, "document.body.dataset.state === 'saved'")
        page.fill("#roll-stacks", f"1: {perm[0]} {perm[0]}")
        assert learn(page, "roll") == "camels:refused"
        assert "one stack only" in page.locator("#setup-message").inner_text()
        page.fill("#roll-stacks", "\n".join(f"{s}: {' '.join(c)}" for s, c in roll.items()))
        assert learn(page, "roll") == "camels:ok"
        assert "setup roll" in page.locator("#setup-message").inner_text()
        close(page)
    saved = load_profile(profile)
    assert sorted(saved.camels) == sorted(order)
    rng = np.random.default_rng(3)
    scene, _ = render_table_scene(table, rng, PLAY, {}, kelvin=kelvin, pose=pose)
    reading = read_track(scene, saved.geometry, table=saved)
    assert reading.track and all(PLAY[k] == v for k, v in reading.track.items())
