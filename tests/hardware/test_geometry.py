"""Camera placement geometry: the pinhole model, the checks, and the search for the lowest arm."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from firmware.geometry import (
    LENSES,
    Lens,
    Placement,
    camera_view,
    centred_tilt,
    layout_from_board,
    load_layout,
    lowest_placement,
    project,
)

BOARD = Path(__file__).resolve().parents[2] / "hardware" / "board.yaml"
CM3 = LENSES["cm3"]


@pytest.fixture(scope="module")
def layout():
    if not BOARD.exists():
        pytest.skip("hardware/board.yaml not committed yet")
    return load_layout(BOARD)


def overhead(layout, h: float) -> Placement:
    """Straight down above the board's centre: setback -depth/2, tilt 0."""
    return Placement(h, 0.0, -layout.depth / 2)


def test_layout_read_from_board_yaml(layout):
    assert len(layout.spaces) == 16
    # space 1 is the top-left cell of the ring, space 13 the bottom-left
    assert layout.spaces[0][:2] == (110.0, 110.0)
    assert layout.spaces[12][:2] == (110.0, 430.0)
    assert layout.spaces[1][2] is True  # space 2: the track runs along x
    assert layout.spaces[6][2] is False  # space 7: along y


def test_overhead_centre_projects_to_the_image_centre(layout):
    u, v = project((layout.width / 2, layout.depth / 2, 0), overhead(layout, 800), CM3, layout)
    assert u == pytest.approx(640) and v == pytest.approx(360)


def test_pinhole_scale_and_field_of_view(layout):
    h = 800.0
    p = overhead(layout, h)
    cx, cy = layout.width / 2, layout.depth / 2
    u, _ = project((cx + 100, cy, 0), p, CM3, layout)
    assert u - 640 == pytest.approx(CM3.fx * 100 / h)
    # a point on the edge of the horizontal field of view lands on the frame's right edge
    edge = h * math.tan(math.radians(CM3.hfov_deg / 2))
    u, _ = project((cx + edge, cy, 0), p, CM3, layout)
    assert u == pytest.approx(1280)
    # the far side of the board (y smaller) is at the top of the image
    _, v = project((cx, cy - 100, 0), p, CM3, layout)
    assert v < 360


def test_point_behind_the_camera(layout):
    p = Placement(300, 80, 200)  # nearly horizontal
    assert project((270, 2000, 0), p, CM3, layout) is None


def test_recommended_placement_passes(layout):
    """The build guide's placement: CM3, 200 mm behind the near edge, 550 mm high."""
    tilt = centred_tilt(550, 200, CM3, layout)
    assert 35 < tilt < 45
    view = camera_view(Placement(550, tilt, 200), CM3, layout)
    assert view.ok, view.problems
    assert view.min_band_px >= 8 and view.margin_px >= 16 and view.die_px > 20


def test_lowest_placement_is_lowest(layout):
    view = lowest_placement(CM3, layout, setback_mm=200)
    assert view is not None and view.ok
    h = view.placement.height_mm
    below = camera_view(Placement(h - 10, centred_tilt(h - 10, 200, CM3, layout), 200), CM3, layout)
    assert not below.ok


def test_too_low_is_refused_with_reasons(layout):
    view = camera_view(Placement(250, centred_tilt(250, 200, CM3, layout), 200), CM3, layout)
    assert not view.ok
    assert any("frame's edge" in p for p in view.problems)


def test_higher_camera_gives_thinner_near_bands(layout):
    bands = [
        camera_view(Placement(h, centred_tilt(h, 200, CM3, layout), 200), CM3, layout).band_px[11]
        for h in (450, 700, 1000)
    ]
    assert bands[0] > bands[1] > bands[2]


def test_pyramid_hides_the_far_row_from_a_low_flat_view(layout):
    view = camera_view(Placement(250, 70, 400), CM3, layout)
    assert any("space 3" in h and "pyramid" in h for h in view.hidden)
    assert any("pyramid" in p for p in view.problems)
    # and a shorter pyramid does not
    short = load_layout(BOARD, pyramid_height=10)
    assert not any("pyramid" in h for h in camera_view(Placement(250, 70, 400), CM3, short).hidden)


def test_wide_lens_puts_fewer_pixels_on_a_die(layout):
    p = Placement(500, centred_tilt(500, 200, CM3, layout), 200)
    assert camera_view(p, LENSES["cm3-wide"], layout).die_px < camera_view(p, CM3, layout).die_px


def test_incomplete_board_geometry_is_named():
    board = yaml.safe_load(BOARD.read_text(encoding="utf-8")) if BOARD.exists() else {}
    board.pop("camel", None)
    with pytest.raises(ValueError, match="camel"):
        layout_from_board(board)


def test_lens_focal_lengths():
    lens = Lens("test", 90.0, 90.0, 1000, 600)
    assert lens.fx == pytest.approx(500) and lens.fy == pytest.approx(300)


def test_marker_cards_beside_a_board_with_no_margin_must_be_in_view():
    """The first edition: the cards lie outside the board, so the frame must reach them. The
    build guide's head (37.3 deg) on the 550 mm arm loses the near cards; the centred tilt
    of the same arm sees them."""
    first = load_layout(BOARD.parent / "board-first-edition.yaml")
    assert len(first.cards) == 16
    assert sum(not (0 <= x <= first.width and 0 <= y <= first.depth) for x, y in first.cards) == 16
    head = camera_view(Placement(550, 37.3, 200), CM3, first)
    assert not head.ok and head.margin_px < 0
    tilt = centred_tilt(550, 200, CM3, first)
    assert 28 < tilt < 34
    assert camera_view(Placement(550, tilt, 200), CM3, first).ok
    # board.yaml's markers sit on the board's margin: nothing changes there
    old = load_layout(BOARD)
    assert all(0 <= x <= old.width and 0 <= y <= old.depth for x, y in old.cards)
