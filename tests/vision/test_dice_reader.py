"""The dice reader on rendered scenes, bad input, and a slice of the real photos."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.dice import Why, read_dice, read_dice_report, read_die_in_zone
from vision.palette import CAMEL_UP
from vision.render.dice import draw_die, make_background, render_dice_scene
from vision.whitebalance import gains_from_patch

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "dice-real"


def test_rendered_slice_reads_most_dice_and_almost_never_wrongly() -> None:
    # 40 scenes, 200 dice. The >= 99.5 % target is measured by `make eval-vision` on 2,000
    # scenes; this slice asserts what the reader reaches so that a regression fails: almost
    # every die right, and not one confident wrong face or colour. (198 of 200 when this was
    # written; 196 with the gates of the share-rule chooser, which answer no face only the net
    # reads with the shipped model: one die more abstains; 197 with the earlier face gates.)
    from vision.eval.dice import eval_rendered  # among the five colours, as the table reads

    r = eval_rendered(40, seed0=500)
    assert r["dice"] == 200
    assert r["right"] >= 196
    assert r["face_wrong"] == 0 and r["colour_wrong"] == 0


def _scene_reads(seed: int) -> tuple[list, list]:
    img, truth = render_dice_scene(np.random.default_rng(seed))
    got = read_dice(
        img, white_gains=gains_from_patch(img, truth.white_patch), expected_colours=CAMEL_UP
    )
    return sorted((d.face, d.colour) for d in truth.dice), sorted(
        (r.face or 0, r.colour or "") for r in got
    )


def test_face_edge_taken_in_by_the_spot_search_is_not_a_missed_pip() -> None:
    # seed 300008: the green die's side face is the grey of its top face, so the search for a
    # missed pip round its lone pip reached the table; thin arcs of table vetoed the face 1.
    # (The white die's box there covers its top and a side face: the net doubts 1 or 2 and its
    # face abstains, as it may; it is the green die this test is about.)
    want, got = _scene_reads(300008)
    assert (1, "green") in got and len(got) == len(want)
    assert all(g in want or g[0] == 0 for g in got)


def test_lone_pip_off_the_centre_is_read_by_the_crop_that_counts_more() -> None:
    # seed 300156: the pip path grouped one corner pip of the orange 3 alone and rightly
    # doubted it (off the centre); the body's crop counts the 3, which it may now name
    want, got = _scene_reads(300156)
    assert (3, "orange") in want and got == want


def test_colour_is_named_among_the_colours_with_such_pips() -> None:
    from vision.dice.cropread import classify_bgr, polarity_palette
    from vision.palette import default_palette

    pal = default_palette()
    assert set(polarity_palette(pal, True).colours) == {"orange", "yellow", "white"}
    assert "white" not in polarity_palette(pal, False).colours
    # a white die under a dim lamp is grey: with dark pips it is white, never black
    assert classify_bgr((110, 113, 114), pal, True)[0] == "white"
    # a dim yellow is yellow (no brighter exposure that would clip a channel makes it orange)
    assert classify_bgr((16, 82, 98), pal, True)[0] == "yellow"
    assert classify_bgr((23, 116, 243), pal, True)[0] == "orange"
    # a dim green is told from black by its white pips: they show how bright white is here
    assert classify_bgr((29, 63, 15), pal, False, pip_bal=(110, 112, 110))[0] == "green"
    # a blue face with dark pips matches no colour that has dark pips: no name, not "white"
    assert classify_bgr((75, 42, 10), pal, True)[0] is None


@pytest.mark.parametrize(
    "seed",
    [
        100179,  # the mask kept two shaded scraps of the die: not found at all
        100286,  # the mask kept the middle pip: boxed 16 x 12, the net read 2 on that crop
        100242,  # the mask kept two thirds of the die: the net, on that crop, saw no die
    ],
)
def test_white_three_on_a_light_table_is_boxed_by_its_face_not_a_scrap_of_it(seed: int) -> None:
    """A white die on a light wooden table under a warm lamp hardly stands out by colour, so
    the body mask keeps only a scrap of it. The scrap owned the die's clear 3 and gave it its
    box; the net, cropping that box, missed or doubted the die. Now a scrap under half the face
    owns no face (it is read loose, on its fitted square), and a body's box holds the face read
    on it (``fullframe.may_own``, ``fullframe.holding_face``)."""
    want, got = _scene_reads(seed)
    assert (3, "white") in want and got == want


def test_a_body_that_took_in_the_table_is_boxed_by_the_face_it_holds() -> None:
    """Seed 100140: the white 2's outline took in a patch of the wooden table beside it, so
    its box was half table. The pips' square read the 2 (``crossread.on_the_square``) but the
    box stayed the outline's, and the net, cropping it, saw a die off its centre and no die.
    The die is where its face is: the reading now takes the face's square for its box."""
    want, got = _scene_reads(100140)
    assert (2, "white") in want and got == want


def test_a_lone_pip_that_took_in_the_table_keeps_its_outline_box() -> None:
    """Seed 101470: the blue 1's outline took in the table too, but a lone pip's square is
    implied by the pip's size (here 36 px for a 64 px die): boxed by it, the net saw half a
    die and dropped it. A lone pip keeps the outline's box."""
    want, got = _scene_reads(101470)
    assert (1, "blue") in want and got == want


def test_dim_scene_colours_right() -> None:
    """Seed 100073: a dim lamp (every face read 'between palette entries' before the pips
    told the exposure); now all five dice read."""
    img, truth = render_dice_scene(np.random.default_rng(100073))
    got = sorted(
        (d.face, d.colour)
        for d in read_dice(img, white_gains=gains_from_patch(img, truth.white_patch))
    )
    assert got == sorted((d.face, d.colour) for d in truth.dice)


def test_clean_die_in_the_reveal_zone() -> None:
    rng = np.random.default_rng(4)
    frame = make_background(rng, (1280, 720))
    draw_die(frame, (660, 360), 64, "orange", 3, rng, angle=20)
    r = read_die_in_zone(frame, (560, 260, 200, 200))
    assert r is not None
    assert (r.face, r.colour) == (3, "orange")
    x, y, w, h = r.box
    assert 560 <= x and x + w <= 760  # frame coordinates, inside the zone
    assert r.crop(frame).shape[0] > h


def test_zone_as_polygon_and_outside_zone_is_ignored() -> None:
    rng = np.random.default_rng(5)
    frame = make_background(rng, (640, 480))
    draw_die(frame, (100, 100), 50, "blue", 2, rng)
    draw_die(frame, (400, 300), 50, "white", 1, rng)
    zone = [(330, 230), (470, 230), (470, 370), (330, 370)]
    dice = read_dice(frame, zone=zone)
    assert [(d.face, d.colour) for d in dice] == [(1, "white")]


def test_a_die_beside_a_zones_outline_is_no_die_there_not_printed_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A die judged in the box round the zone's triangle but outside the triangle: the report
    says no die was found inside the zone, not that the dice found were letters. (The judging
    is stood in for: the pip path already keeps to the outline, so only a die the net alone
    found lands there, and which one it finds is the net's business, not this report's.)"""
    import vision.dice.reader as reader_module
    from vision.dice.reading import DieReading

    rng = np.random.default_rng(5)
    frame = make_background(rng, (640, 480))
    draw_die(frame, (460, 360), 40, "white", 1, rng)
    outside = DieReading((440, 340, 40, 40), 1, "white", 0.99, 0.99, 0.99)
    monkeypatch.setattr(reader_module, "decide", lambda *a, **k: [outside])
    rep = read_dice_report(frame, zone=[(330, 230), (470, 230), (330, 370)])
    assert rep.dice == [] and rep.code is Why.NO_DIE and "inside the zone" in (rep.reason or "")


def test_expected_colours_narrow_the_answer() -> None:
    rng = np.random.default_rng(6)
    frame = make_background(rng, (320, 240))
    draw_die(frame, (160, 120), 50, "orange", 2, rng)
    r = read_dice(frame, expected_colours=["blue", "green"])
    assert r and r[0].colour is None  # orange is far from both: abstain, not a guess


@pytest.mark.parametrize(
    "frame,code,word",
    [
        (np.zeros((480, 640, 3), np.uint8), Why.FRAME_BLACK, "black"),
        (np.full((480, 640, 3), 128, np.uint8), Why.FRAME_UNIFORM, "uniform"),
    ],
)
def test_black_or_empty_frame_says_why(frame: np.ndarray, code: Why, word: str) -> None:
    rep = read_dice_report(frame)
    assert rep.dice == [] and rep.code is code and word in (rep.reason or "")


def test_cli_says_why_an_image_has_no_die_in_a_code_and_a_sentence(tmp_path, capsys) -> None:
    import cv2

    from hub.cli import main

    black = tmp_path / "black.png"
    cv2.imwrite(str(black), np.zeros((48, 64, 3), np.uint8))
    assert main(["read-dice", "--json", str(black)]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["dice"] == [] and line["code"] == "frame_black" and line["note"] == "frame is black"


def test_heavy_blur_abstains_or_is_right() -> None:
    import cv2

    img, truth = render_dice_scene(np.random.default_rng(9), effects=False)
    blurred = cv2.GaussianBlur(img, (0, 0), 6)
    for r in read_dice(blurred):
        faces = {d.face for d in truth.dice}
        assert r.face is None or r.face in faces


@pytest.mark.parametrize(
    "bad", [None, "image.png", np.zeros((0, 0, 3), np.uint8), np.zeros((10, 10, 3), np.float32)]
)
def test_non_images_are_value_errors(bad: object) -> None:
    with pytest.raises(ValueError):
        read_dice(bad)  # type: ignore[arg-type]


@pytest.mark.skipif(not REAL.is_dir(), reason="shared/data/dice-real is absent (no shared/)")
def test_real_photo_slice_held_out_set() -> None:
    """20 images of the held-out matteop65-valid set: found and no confident wrong face."""
    from vision.eval.dice import eval_real_set

    r = eval_real_set("matteop65-valid", limit=20)
    assert r["found"] / r["dice"] >= 0.9
    assert r["wrong"] <= max(1, int(0.02 * r["found"]))


def test_cli_reads_good_and_reports_bad_files(tmp_path, capsys) -> None:
    import cv2

    from hub.cli import main

    img, truth = render_dice_scene(np.random.default_rng(12), effects=False)
    good = tmp_path / "good.png"
    cv2.imwrite(str(good), img)
    bad = tmp_path / "bad.jpg"
    bad.write_text("not a jpeg")
    code = main(["read-dice", "--json", str(good), str(bad), str(tmp_path / "missing.png")])
    lines = [json.loads(x) for x in capsys.readouterr().out.strip().splitlines()]
    assert code == 1
    assert [x["image"] for x in lines] == [str(good), str(bad), str(tmp_path / "missing.png")]
    got = sorted((d["face"], d["colour"]) for d in lines[0]["dice"])
    assert got == sorted((d.face, d.colour) for d in truth.dice)
    assert all(set(d) == {"box", "face", "colour", "confidence"} for d in lines[0]["dice"])
    assert "error" in lines[1] and "error" in lines[2]


def test_cli_calibrate_writes_palette(tmp_path, capsys) -> None:
    import cv2

    from hub.cli import main

    img, _ = render_dice_scene(np.random.default_rng(12), effects=False)
    f = tmp_path / "setup.png"
    cv2.imwrite(str(f), img)
    out = tmp_path / "p.json"
    assert main(["calibrate", str(f), "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert {"blue", "green", "orange", "yellow", "white"} <= set(data["colours"])
    empty = tmp_path / "empty.png"
    cv2.imwrite(str(empty), np.full((100, 100, 3), 90, np.uint8))
    assert main(["calibrate", str(empty), "--out", str(tmp_path / "q.json")]) == 1
    assert not (tmp_path / "q.json").exists()


def test_two_pips_grouped_apart_are_not_two_faces_1() -> None:
    # seed 301279: a lamp's falloff across the orange 2 parted its two pips' rings, so each was
    # a lone pip; the brighter one, with no body round it, read as a confident face 1
    from vision.eval.dice import eval_rendered

    assert eval_rendered(1, seed0=301279)["face_wrong"] == 0


def test_a_body_with_no_mark_is_proposed_to_the_net_only_when_asked() -> None:
    """A dark square on a light table with no mark the pip path can see (a black die whose
    red pips it does not find): the hand-written path alone drops it as no die, and the
    learned reader's proposals
    (``unmarked=True``) hold it as a die whose face is unread, saying why; a body already
    inside a reading is not proposed twice."""
    import cv2

    from vision.dice.bodies import find_bodies
    from vision.dice.fullframe import read_full_frame, unmarked_bodies
    from vision.palette import default_palette

    img = np.full((240, 320, 3), 225, np.uint8)
    cv2.rectangle(img, (140, 100), (179, 139), (25, 25, 30), -1)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    pal = default_palette()
    assert read_full_frame(img, gray, pal, None) == []
    got = read_full_frame(img, gray, pal, None, unmarked=True)
    assert len(got) == 1 and got[0].face is None
    assert Why.NO_PIPS in got[0].codes and got[0].reason
    x, y, w, h = got[0].box
    assert abs(x + w / 2 - 160) < 4 and abs(y + h / 2 - 120) < 4
    bodies = find_bodies(img)
    assert unmarked_bodies(img, bodies, got, pal, None) == []
