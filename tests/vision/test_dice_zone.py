"""The product path: one die in the board's reveal zone (``read_die_in_zone``)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.board import locate_board, marker_white_mask, reveal_zone_box
from vision.dice import read_die_in_zone
from vision.dice.colour import gains_from_mask
from vision.render.dice import draw_die, make_background
from vision.render.zone import render_zone_scene

COLOURS = ("blue", "green", "orange", "yellow", "white")


def _read(z, full: bool):  # type: ignore[no-untyped-def]
    loc = locate_board(z.preview)
    gains = gains_from_mask(z.preview, marker_white_mask(z.preview.shape, loc))
    if full:
        return read_die_in_zone(z.zone, (0, 0, z.zone.shape[1], z.zone.shape[0]),
                                white_gains=gains, background=z.zone_empty)
    return read_die_in_zone(z.preview, reveal_zone_box(loc, margin_mm=10.0), white_gains=gains,
                            background=z.preview_empty)


def test_full_resolution_zone_reads_every_colour_and_face() -> None:
    # 6 board scenes (every colour, faces 1..3) at the camera's full resolution: all right.
    # The >= 99.5 % figure is `python -m vision.eval_dice_zone` over hundreds of scenes.
    right = wrong = 0
    for i in range(6):
        colour, face = COLOURS[i % 5], 1 + i % 3
        z = render_zone_scene(np.random.default_rng(700 + i), (colour, face))
        r = _read(z, full=True)
        assert r is not None
        right += (r.face, r.colour) == (face, colour)
        wrong += r.face not in (None, face) or r.colour not in (None, colour)
        # the box is in the zone cut's pixels and holds the die drawn there
        x, y, w, h = r.box
        tx, ty, tw, th = z.die_box_zone
        assert abs((x + w / 2) - (tx + tw / 2)) < tw / 2
    assert wrong == 0
    assert right >= 5


def test_preview_resolution_never_answers_wrongly() -> None:
    # at 1280x720 the die is ~20 px: many abstain, none may be answered wrongly
    wrong = 0
    for i in range(5):
        colour, face = COLOURS[i % 5], 1 + i % 3
        z = render_zone_scene(np.random.default_rng(800 + i), (colour, face))
        r = _read(z, full=False)
        if r is not None:
            wrong += r.face not in (None, face) or r.colour not in (None, colour)
    assert wrong == 0


def test_empty_zone_is_no_die_and_background_shape_is_checked() -> None:
    z = render_zone_scene(np.random.default_rng(900), ("orange", 2))
    box = (0, 0, z.zone.shape[1], z.zone.shape[0])
    assert read_die_in_zone(z.zone_empty, box, background=z.zone_empty) is None
    with pytest.raises(ValueError):
        read_die_in_zone(z.zone, box, background=z.zone_empty[:10])
    with pytest.raises(ValueError):
        read_die_in_zone(z.zone, box, faces=(0, 7))


def test_clean_die_without_background_and_faces_restrict_the_answer() -> None:
    rng = np.random.default_rng(4)
    frame = make_background(rng, (1280, 720))
    draw_die(frame, (660, 360), 64, "orange", 3, rng, angle=20)
    r = read_die_in_zone(frame, (560, 260, 200, 200))
    assert r is not None and (r.face, r.colour) == (3, "orange")
    assert r.confidence > 0.5
    # a face outside ``faces`` is never answered
    r2 = read_die_in_zone(frame, (560, 260, 200, 200), faces=(1, 2))
    assert r2 is not None and r2.face is None and "not a face" in (r2.reason or "")
    # the tiny die of a 1280x720 board frame says why it abstains
    small = make_background(np.random.default_rng(5), (640, 480))
    draw_die(small, (320, 240), 10, "blue", 2, np.random.default_rng(5))
    r3 = read_die_in_zone(small, (280, 200, 80, 80), background=make_background(
        np.random.default_rng(5), (640, 480)))
    assert r3 is None or r3.face is None
