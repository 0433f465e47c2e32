"""Close-ups: dice that fill a large share of the frame, read by setting the frame in a larger one.

The readers expect a die to be a small share of the frame, as a table seen from above shows it;
a phone photo taken close to a few dice does not (``vision.dice.reader.close_up``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.dice import read_dice, read_dice_report, reader
from vision.dice.reading import DiceReport, DieReading
from vision.palette import default_palette
from vision.render.dice import draw_die, make_background

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "dice-real"


def _die(box: tuple[int, int, int, int], face: int | None) -> DieReading:
    return DieReading(box, face, None, 0.5, 0.5, 0.0)


def _big_die(seed: int) -> tuple[np.ndarray, int]:
    rng = np.random.default_rng(seed)
    img = make_background(rng, (640, 480))
    colour = ("blue", "red", "white", "green", "yellow")[seed % 5]
    d = draw_die(
        img, (320.0, 240.0), 480 * rng.uniform(0.3, 0.45), colour, int(rng.integers(1, 7)), rng
    )
    return img, d.face


def test_a_die_a_third_of_the_frame_is_read_and_was_not_before() -> None:
    """Rendered dice of 0.30-0.45 of the frame's short side, one per frame: the frame's own
    read finds none of them (what the canvas is for), the reader reads each, and nothing else."""
    pal = default_palette()
    for seed in range(4):
        img, face = _big_die(seed)
        assert reader._read_whole(img, pal, None).dice == []
        assert read_dice(img, close_ups=False) == []  # the table's fixed camera reads it once
        dice = read_dice(img)
        assert [r.face for r in dice] == [face], seed
        x, y, w, h = dice[0].box
        assert abs(x + w / 2 - 320) < 40 and abs(y + h / 2 - 240) < 40


def test_the_canvas_holds_the_frame_scaled_and_maps_boxes_back() -> None:
    img = np.full((300, 400, 3), 90, np.uint8)
    img[100:140, 200:240] = 250
    canvas, (ox, oy), f = reader.on_canvas(img, 3.0)
    assert f == 1.0 and canvas.shape == (900, 900, 3) and (ox, oy) == (250, 300)
    assert (canvas[:50, :50] == 90).all()  # the border's colour, not black, not mirrored
    assert (canvas[oy + 100 : oy + 140, ox + 200 : ox + 240] == 250).all()
    back = reader._moved(_die((ox + 200, oy + 100, 40, 40), 3), (ox, oy), f, img.shape)
    assert back.box == (200, 100, 40, 40) and back.face == 3
    # a box reaching into the canvas's border is clipped to the frame
    edge = reader._moved(_die((ox - 10, oy + 5, 30, 20), None), (ox, oy), f, img.shape)
    assert edge.box == (0, 5, 20, 20)
    # a large frame's canvas is built small: never at the camera's pixels
    big = np.full((3000, 4000, 3), 90, np.uint8)
    canvas, (ox, oy), f = reader.on_canvas(big, 4.0)
    assert max(canvas.shape[:2]) <= reader.FULL_FRAME_SIDE
    assert f == pytest.approx(reader.FULL_FRAME_SIDE / 12000, rel=0.01)
    box = reader._moved(_die((ox + 107, oy + 53, 21, 21), 5), (ox, oy), f, big.shape).box
    assert box == pytest.approx((1000, 500, 200, 200), abs=4)  # 427 x 320 px of 4000 x 3000


def test_a_canvas_read_counts_the_dice_it_lost() -> None:
    first = [_die((10, 10, 20, 20), 2), _die((100, 100, 20, 20), None), _die((60, 60, 8, 8), 1)]
    # the same die (16 px for 20), and a pip at (64, 64) in a large 5's box: kept; (110, 110) lost
    other = [_die((50, 50, 40, 40), 5), _die((12, 12, 16, 16), 2)]
    assert reader.lost(first, other) == 1
    assert reader.lost(first, first) == 0 and reader.lost(first, []) == 3
    # four dice of a tray in one large box: a "3" cannot hold four of them, nor can a box that
    # read no face: both lose all four
    tray = [_die((x, y, 20, 20), None) for x in (100, 130) for y in (100, 130)]
    assert reader.lost(tray, [_die((90, 90, 70, 70), 3)]) == 4
    assert reader.lost(tray, [_die((90, 90, 70, 70), None)]) == 4
    assert reader.lost(tray, [_die((90, 90, 70, 70), 4)]) == 0


def test_which_reads_are_tried_again_on_a_canvas() -> None:
    shape = (480, 640, 3)
    small = DiceReport([_die((10, 10, 40, 40), 4)], None)
    assert not reader.close_up(small, shape)  # answered, at a usual size
    assert reader.close_up(DiceReport([_die((10, 10, 40, 40), None)], None), shape)
    assert reader.close_up(DiceReport([_die((10, 10, 90, 90), 4)], None), shape)  # 0.19
    black = read_dice_report(np.zeros((480, 640, 3), np.uint8))
    assert black.dice == [] and not reader.close_up(black, shape)


def test_a_close_up_cut_keeps_the_dice_inside_and_names_those_it_cuts() -> None:
    """``vision.eval.dice --close-up``: the window is the chosen die's side over the share, the
    dice wholly inside it keep their labels in its pixels, the dice it cuts are set aside."""
    from vision.eval.dice import CLOSE_UP_PX, close_up_cut

    img = np.zeros((400, 600, 3), np.uint8)
    im = {"file": "x.jpg", "dice": [{"box": [280, 180, 40, 40], "face": 4}]}
    taken = close_up_cut(img, im, 0.25)
    assert taken is not None
    out, lab, cut = taken
    k = CLOSE_UP_PX / 40
    assert out.shape[:2] == (round(160 * k), round(160 * k)) and cut == []
    (die,) = lab["dice"]
    assert die["face"] == 4 and die["box"][2] == pytest.approx(CLOSE_UP_PX)
    assert im["dice"][0]["box"] == [280, 180, 40, 40]  # the caller's labels are left as they were
    # a neighbour half in the window is cut, one far off is neither inside nor cut
    im["dice"] += [{"box": [x, 180, 40, 40], "face": 2} for x in (190, 520)]
    rounds = [close_up_cut(img, {**im, "file": f"{i}.jpg"}, 0.25) for i in range(12)]
    assert all(t is not None for t in rounds)
    assert any(len(t[2]) == 1 for t in rounds if t is not None)
    assert all(len(t[1]["dice"]) + len(t[2]) <= 2 for t in rounds if t is not None)
    assert close_up_cut(img, im, 0.09) is None  # a window of 444 px does not fit in 400


@pytest.mark.skipif(
    not (REAL / "byler-train" / "labels.json").is_file(),
    reason=f"real dice photos absent ({REAL}): they live in the shared data folder beside the repo",
)
def test_real_photos_cut_to_close_ups_are_read() -> None:
    """Three calibration photos of each set cut so that a die is four tenths of the frame
    (``vision.eval.dice --close-up 0.4``). When written: 10 of 12 dice found, all 10 answered,
    none wrong, 1 false die; the frame's own read alone (no canvas) found 4, answered none and
    saw 10 false dice (a large die's pips)."""
    from vision.eval.dice import eval_split_part, pooled

    r = pooled(eval_split_part("calibration", limit=3, close_up=0.4))
    assert r["images"] >= 9 and r["dice"] >= 9
    assert r["found"] >= 0.8 * r["dice"]
    assert r["answered"] >= 0.7 * r["found"]
    assert r["wrong"] == 0 and r["unmatched_readings"] <= 1
    alone = pooled(eval_split_part("calibration", limit=3, close_up=0.4, close_ups=False))
    assert alone["dice"] == r["dice"] and alone["found"] <= r["found"] - 3
    assert alone["answered"] < r["answered"] and alone["unmatched_readings"] >= 5
