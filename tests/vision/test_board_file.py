"""The board file's version 2: marker cards on the table beside a board with no margin."""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml

from hub.cli import main
from vision.board import BoardGeometry, load_geometry, locate_board
from vision.render.table import make_table, render_table_scene
from vision.table import BOARD_HEIGHT_MM

POSITION = {2: ["blue"], 7: ["orange", "white"], 11: ["green"], 15: ["yellow"]}


@pytest.fixture(scope="module")
def table():
    return make_table(3)


@pytest.fixture(scope="module")
def board_file(table, tmp_path_factory):
    path = tmp_path_factory.mktemp("board") / "first-edition.yaml"
    path.write_text(yaml.safe_dump(table.board_dict()))
    return path


def _read_track_cli(table, board: Path, tmp_path: Path) -> dict:
    """``pyramid read-track --board BOARD --json FRAME`` on a rendered frame of ``table`` with
    POSITION and an oasis on space 5: its JSON, after checking it exited 0."""
    img, _ = render_table_scene(table, np.random.default_rng(2), POSITION, {5: "oasis"})
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), img)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["read-track", "--board", str(board), "--json", str(frame)])
    got: dict = json.loads(out.getvalue())
    assert code == 0, got
    return got


def test_version_2_file_puts_the_markers_beside_a_marginless_board(board_file):
    geo = load_geometry(board_file)
    assert geo.version == 2
    assert geo.track_origin == (0.0, 0.0) and geo.margin == 0.0
    ring = (0.0, 5 * geo.cell)
    for mid, (x, y) in geo.marker_centres.items():
        # every marker's centre lies outside the board, so no camel can stand on one
        assert not (ring[0] < x < ring[1] and ring[0] < y < ring[1]), mid
    assert any(geo.marker_angles.values())  # cards lie a little turned


def test_old_file_still_loads_as_version_1_with_upright_markers():
    geo = load_geometry()
    assert geo.version == 1 and geo.marker_angles == {}
    assert geo.margin == pytest.approx(70.0)
    c = geo.marker_corners(0)
    assert np.allclose(c, [[10, 10], [60, 10], [60, 60], [10, 60]])


def test_unknown_version_and_bad_placement_are_refused_by_name(table):
    doc = table.board_dict()
    with pytest.raises(ValueError, match="version 7"):
        BoardGeometry.from_dict({**doc, "version": 7})
    bad = json.loads(json.dumps(doc))
    bad["markers"]["placements"][0] = [1.0]
    with pytest.raises(ValueError, match=r"placements\[0\]"):
        BoardGeometry.from_dict(bad)


def test_turned_cards_give_the_board_where_the_renderer_put_it(table, board_file):
    geo = load_geometry(board_file)
    assert geo.board_height == pytest.approx(table.thickness, abs=1e-3)
    img, truth = render_table_scene(table, np.random.default_rng(2), POSITION, {5: "oasis"})
    loc = locate_board(img, geo)
    corners = np.array([[0, 0], [5 * geo.cell, 0], [5 * geo.cell, 5 * geo.cell], [0, 5 * geo.cell]])
    # the cards lie on the table, the board's top (board.thickness) 2.7 mm above it: with the
    # height the corners land within a pixel; taken as one plane they were 3.5 px off
    assert np.abs(loc.to_image(corners) - np.asarray(truth.board_corners)).max() < 1.0
    flat = locate_board(img, replace(geo, board_height=0.0))
    assert np.abs(flat.to_image(corners) - np.asarray(truth.board_corners)).max() > 2.0


def test_a_file_without_the_board_thickness_still_reads(table, tmp_path):
    # files written before board.thickness existed: the board and cards taken as one plane
    doc = table.board_dict()
    del doc["board"]["thickness"]
    path = tmp_path / "old.yaml"
    path.write_text(yaml.safe_dump(doc))
    assert load_geometry(path).board_height == 0.0
    got = _read_track_cli(table, path, tmp_path)
    assert got["track"] == {str(k): v for k, v in POSITION.items()}


@pytest.mark.parametrize("thickness", [-1.0, 25.0, "thick"])
def test_a_board_thickness_out_of_range_is_refused_by_name(table, thickness):
    doc = json.loads(json.dumps(table.board_dict()))
    doc["board"]["thickness"] = thickness
    with pytest.raises(ValueError, match="thickness"):
        BoardGeometry.from_dict(doc)


def test_read_track_cli_reads_a_marginless_board_from_its_file(table, board_file, tmp_path):
    got = _read_track_cli(table, board_file, tmp_path)
    assert got["track"] == {str(k): v for k, v in POSITION.items()}
    assert got["desert"] == {"5": "oasis"}


def test_the_shipped_first_edition_file_is_version_2_with_cards_off_the_board():
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "hardware" / "board-first-edition.yaml"
    geo = load_geometry(path)
    assert geo.version == 2 and geo.margin == 0.0
    side = 5 * geo.cell
    assert geo.width == side
    for x, y in geo.marker_centres.values():
        assert x < 0 or y < 0 or x > side or y > side
    # the board's top above the cards' table, as the set-up's default (the page's and the
    # command line's): a file without it would read board and cards as one plane
    assert geo.board_height == BOARD_HEIGHT_MM == 2.0
