"""The photo of a die a person is shown: the die itself with a little margin, cut round the box
the reading gives (not the reveal zone's whole tray with a small die somewhere in it)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from firmware.readers import DIE_CROP_MARGIN, changed_box, die_crop_box, vision_read_die

board = pytest.importorskip("vision.render.board")
pytest.importorskip("vision.dice")


def decode(jpeg: bytes | None) -> np.ndarray:
    assert jpeg is not None
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None
    return image


def scene(die: tuple[str, int] | None) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    from vision.board import locate_board, reveal_zone_box

    image, _ = board.render_board_scene(
        np.random.default_rng(3), track={1: ["blue"]}, die=die, effects=False
    )
    return image, reveal_zone_box(locate_board(image), margin_mm=10.0)


def test_the_crop_box_is_the_die_with_a_little_margin_clipped_to_the_frame() -> None:
    x, y, w, h = die_crop_box((100, 200, 50, 40), (720, 1280, 3))
    assert (w, h) == (68, 68) and (x + w / 2, y + h / 2) == (125, 220)  # square, centred
    assert die_crop_box((0, 0, 50, 50), (720, 1280, 3))[:2] == (0, 0)  # clipped at the edge
    assert die_crop_box((1270, 710, 10, 10), (720, 1280, 3)) == (1267, 707, 13, 13)  # cut


def test_a_read_die_is_shown_big_in_its_photo() -> None:
    empty, zone = scene(None)
    image, _ = scene(("yellow", 2))
    x, y, w, h = zone
    reading, jpeg = vision_read_die(image, zone, background=empty[y : y + h, x : x + w].copy())
    assert reading["box"] is not None, reading
    photo = decode(jpeg)
    bw, bh = reading["box"][2:]
    side = max(bw, bh)
    # the die fills most of its photo: a margin of DIE_CROP_MARGIN of its side on each side
    assert (
        photo.shape[0] == photo.shape[1] == round(side * (1 + 2 * DIE_CROP_MARGIN))
        or abs(photo.shape[1] - side * (1 + 2 * DIE_CROP_MARGIN)) <= 2
    ), (photo.shape, side)
    assert side / photo.shape[1] > 0.7
    assert photo.shape[1] < w / 3  # not the tray: the tray is many dice wide
    # and the photo is of the die: its centre is the die's colour, not the table's
    centre = (
        photo[
            photo.shape[0] // 2 - 3 : photo.shape[0] // 2 + 3,
            photo.shape[1] // 2 - 3 : photo.shape[1] // 2 + 3,
        ]
        .reshape(-1, 3)
        .mean(axis=0)
    )
    b, g, r = centre
    assert r > 150 and g > 130 and b < 110, centre  # yellow


def test_a_die_the_reader_did_not_find_is_still_shown_cut_round_what_landed() -> None:
    """A patch without pips (the reader's "not a die") in the tray: no reading box, so the
    photo is cut round what changed against the empty tray, not the tray itself."""
    empty, zone = scene(None)
    x, y, w, h = zone
    image = empty.copy()
    px, py = x + w // 3, y + h // 3
    cv2.rectangle(image, (px, py), (px + 40, py + 40), (40, 200, 240), -1)
    reading, jpeg = vision_read_die(image, zone, background=empty[y : y + h, x : x + w].copy())
    assert reading["box"] is None and reading["reason"]
    landed = changed_box(image, zone, empty[y : y + h, x : x + w].copy())
    assert landed is not None and abs(landed[0] - px) <= 2 and abs(landed[1] - py) <= 2
    photo = decode(jpeg)
    assert photo.shape[1] < 60 < w, photo.shape
    # without the empty tray to compare with, the whole tray is all there is to show
    alone, jpeg = vision_read_die(image, zone)
    if alone["box"] is None:
        assert decode(jpeg).shape[1] == w
    assert changed_box(image, zone, None) is None
    assert changed_box(empty, zone, empty) is None  # nothing changed
