"""The second edition's grey die read by its numeral: shade by contrast, value by shape at any
angle, and abstentions (typed) where it cannot be sure (issue 16)."""

from __future__ import annotations

import numpy as np
import pytest

from firmware.games import palette_for
from firmware.readers import vision_read_die, vision_white_gains
from vision.dice.greydie import (
    GreyFind,
    GreyReason,
    GreyWhy,
    Shade,
    find_grey_die,
    read_grey_die,
)
from vision.render.dice import draw_die, make_background
from vision.render.zone import render_zone_scene

SIX = ["blue", "green", "yellow", "red", "purple", "grey"]


def _die(
    seed: int, face: int, ink: str, size: float, angle: float | None = None
) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    rng = np.random.default_rng(seed)
    img = make_background(rng, (200, 200))
    truth = draw_die(img, (100.0, 100.0), size, "grey", face, rng, angle=angle, numeral=ink)
    return img, truth.box


def test_the_renderer_draws_the_grey_die_with_numerals_and_refuses_pips_on_it() -> None:
    img = make_background(np.random.default_rng(0), (120, 120))
    with pytest.raises(ValueError, match="numeral"):
        draw_die(img.copy(), (60, 60), 40, "grey", 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match="1-3"):
        draw_die(img.copy(), (60, 60), 40, "grey", 5, np.random.default_rng(0), numeral="black")
    with pytest.raises(ValueError, match="numeral"):
        draw_die(img.copy(), (60, 60), 40, "blue", 2, np.random.default_rng(0), numeral="white")
    white, _ = _die(1, 3, "white", 60, angle=0)
    black, _ = _die(1, 3, "black", 60, angle=0)
    middle = (slice(85, 115), slice(85, 115))
    assert white[middle].max() > 200 and black[middle].min() < 60  # the ink shows


@pytest.mark.parametrize("ink", ["white", "black"])
def test_each_numeral_is_read_at_every_angle(ink: str) -> None:
    for face in (1, 2, 3):
        for angle in (0.0, 50.0, 100.0, 170.0, 235.0, 310.0):
            img, box = _die(7 + face, face, ink, 56, angle=angle)
            r = read_grey_die(img, box)
            assert (r.face, r.shade) == (face, Shade(ink)), (face, angle, r)
            assert r.reason is None and 0.5 < r.confidence <= 1


def test_a_rendered_slice_of_reveal_zones_is_read_through_the_firmware_right_and_never_wrong() -> (
    None
):
    """The watch's path: the zone cut from the full-resolution stream, the pip reader finds no
    pips, the grey die is found against the empty zone and read by its numeral (seeds the
    calibration never used)."""
    palette = palette_for("camelup2", None)
    right = wrong = 0
    for seed in range(70_000, 70_010):
        rng = np.random.default_rng(seed)
        face, ink = int(rng.integers(1, 4)), ["black", "white"][int(rng.integers(2))]
        scene = render_zone_scene(rng, ("grey", face, ink))
        zone = scene.zone
        reading, jpeg = vision_read_die(
            zone,
            (0, 0, zone.shape[1], zone.shape[0]),
            white_gains=vision_white_gains(scene.preview),
            expected_colours=SIX,
            background=scene.zone_empty,
            palette=palette,
        )
        assert jpeg is not None and reading["colour"] in ("grey", None)
        if reading["face"] is None or reading["shade"] is None:
            assert reading["reason"]  # an abstention says why
            continue
        if (reading["face"], reading["shade"]) == (face, ink):
            right += 1
        else:
            wrong += 1
    assert wrong == 0 and right >= 8


def test_the_pip_readers_case_is_left_alone_when_grey_is_not_expected() -> None:
    rng = np.random.default_rng(70_001)
    scene = render_zone_scene(rng, ("grey", 2, "white"))
    zone = scene.zone
    reading, _ = vision_read_die(
        zone,
        (0, 0, zone.shape[1], zone.shape[0]),
        expected_colours=["blue", "red"],  # the grey die was rolled this leg
        background=scene.zone_empty,
        palette=palette_for("camelup2", None),
    )
    assert "shade" not in reading


def test_misreads_are_refused_with_their_reason() -> None:
    # too small for its numeral
    img, box = _die(3, 2, "white", 10)
    r = read_grey_die(img, box)
    assert r.reason is not None and r.reason.code == GreyWhy.TOO_SMALL and not r.read
    # a coloured die is not grey
    rng = np.random.default_rng(4)
    img = make_background(rng, (200, 200))
    t = draw_die(img, (100.0, 100.0), 60, "blue", 2, rng)
    r = read_grey_die(img, t.box)
    assert r.reason is not None and r.reason.code == GreyWhy.NOT_GREY and not r.read
    # a blank grey face: no numeral (a stand-in for a die seen edge-on, or a grey cube)
    rng = np.random.default_rng(5)
    img = make_background(rng, (200, 200))
    blank = draw_die(img, (100.0, 100.0), 60, (128, 128, 128), 1, rng)
    img2 = make_background(np.random.default_rng(5), (200, 200))
    x, y, w, h = blank.box
    img2[y : y + h, x : x + w] = img[y : y + h, x : x + w]
    img2[95:106, 95:106] = 128  # the pip painted over
    r = read_grey_die(img2, blank.box)
    assert r.reason is not None and r.reason.code == GreyWhy.NO_NUMERAL and r.face is None
    # a numeral of mid grey: neither lighter nor darker
    img, box = _die(6, 3, "white", 60, angle=30)
    grey_ink = img.copy()
    bright = grey_ink.min(axis=2) > 200
    grey_ink[bright] = 132
    r = read_grey_die(grey_ink, box)
    assert r.reason is not None and r.reason.code in (GreyWhy.SHADE_UNCLEAR, GreyWhy.NO_NUMERAL)
    assert r.shade is None and r.face is None
    # a shape that is none of 1, 2, 3: a ring (a "0") in white ink
    rng = np.random.default_rng(8)
    img = make_background(rng, (200, 200))
    t = draw_die(img, (100.0, 100.0), 64, "grey", 1, rng, angle=0, numeral="white")
    x, y, w, h = t.box
    face = img[y + 8 : y + h - 8, x + 8 : x + w - 8]
    face[face.min(axis=2) > 150] = 128  # the 1 painted out
    import cv2

    cv2.circle(img, (100, 100), 11, (236, 236, 236), 4, cv2.LINE_AA)
    r = read_grey_die(img, t.box)
    assert r.face is None and r.reason is not None and r.reason.code == GreyWhy.SHAPE_UNCLEAR
    assert r.shade == Shade.WHITE  # the shade was sure; only the value is asked


def test_finding_needs_the_empty_zone_and_a_grey_patch() -> None:
    taught = palette_for("camelup2", None)
    assert taught is not None
    palette = taught.restricted(SIX)
    rng = np.random.default_rng(9)
    empty = make_background(rng, (240, 200))
    landed = empty.copy()
    t = draw_die(landed, (120.0, 100.0), 60, "grey", 2, rng, numeral="black")
    found = find_grey_die(landed, empty, palette)
    assert isinstance(found, GreyFind)
    fx, fy, fw, fh = found.box
    assert abs((fx + fw / 2) - 120) < 12 and abs((fy + fh / 2) - 100) < 12
    assert read_grey_die(landed, found.box).face == 2 == t.face
    none = find_grey_die(landed, None, palette)
    assert isinstance(none, GreyReason) and none.code == GreyWhy.NO_BACKGROUND
    blue = empty.copy()
    draw_die(blue, (120.0, 100.0), 60, "blue", 2, rng)
    other = find_grey_die(blue, empty, palette)
    assert isinstance(other, GreyReason) and other.code == GreyWhy.NOT_FOUND
