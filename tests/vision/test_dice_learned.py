"""The learned net wired into every die reader: what it refuses, the model and gates files, a
large photo, and a slice of the held-out real photos with the shipped gates."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.dice import Why, read_dice, read_dice_report
from vision.dice import classifier as classifier_mod
from vision.dice.classifier import CropClass, ModelError
from vision.dice.detect import Detection
from vision.dice.learned import (
    GATES_FILE,
    HUB_AT,
    Gates,
    Proposal,
    astride_bodies,
    face_case,
    hub_scale,
    kept,
    load_gates,
    model_hashes,
    steady,
)
from vision.dice.reading import DieReading
from vision.render.dice import draw_die, make_background


def _keyboard(seed: int) -> np.ndarray:
    """A photo-like keyboard: rows of light keycaps with letters and digits, on a dark desk."""
    rng = np.random.default_rng(seed)
    img = np.full((480, 640, 3), 40, np.uint8)
    for row in range(6):
        for col in range(11):
            x, y = 20 + col * 56, 40 + row * 70
            cv2.rectangle(img, (x, y), (x + 48, y + 52), (200, 200, 205), -1)
            ch = "QWERTYUIOPASDFGHJKLZXCVBNM1234567890"[int(rng.integers(36))]
            cv2.putText(
                img,
                ch,
                (x + 14, y + 36),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.9,
                (30, 30, 30),
                2,
                cv2.LINE_AA,
            )
    return cv2.GaussianBlur(img, (0, 0), 0.8)


def _colon_keys(seed: int) -> np.ndarray:
    """Keycaps of ":" (and ";") 48 px wide: two dots in the middle of a light square, which a
    crop of the dots alone shows as a die's 2 seen close."""
    rng = np.random.default_rng(seed)
    img = np.full((480, 640, 3), 40, np.uint8)
    for row in range(7):
        for col in range(10):
            x, y = 20 + col * 56, 20 + row * 66
            cv2.rectangle(img, (x, y), (x + 48, y + 52), (200, 200, 205), -1)
            ch = ":;"[int(rng.integers(4) == 0)]
            cv2.putText(
                img,
                ch,
                (x + 16, y + 33),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.9,
                (30, 30, 30),
                2,
                cv2.LINE_AA,
            )
    return cv2.GaussianBlur(img, (0, 0), 0.8)


def _text(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = np.full((480, 640, 3), 235, np.uint8)
    for line in range(12):
        words = " ".join(
            "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz:."), 5)) for _ in range(5)
        )
        cv2.putText(
            img,
            words,
            (20, 40 + 36 * line),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.8,
            (20, 20, 20),
            2,
            cv2.LINE_AA,
        )
    return img


def _wood(seed: int) -> np.ndarray:
    from vision.train.distractors import wood

    return cv2.resize(
        np.clip(wood(np.random.default_rng(seed), 240), 0, 255).astype(np.uint8), (640, 480)
    )


@pytest.mark.parametrize("make", [_keyboard, _text, _wood], ids=["keyboard", "text", "wood"])
def test_photos_of_no_dice_give_no_dice_and_say_why(make: Callable[[int], np.ndarray]) -> None:
    for seed in (1, 2, 3):
        report = read_dice_report(make(seed))
        assert report.dice == [], [(r.box, r.face) for r in report.dice]
        assert report.code is not None and report.reason


def test_the_hand_readers_phantoms_on_a_keyboard_are_refused_by_the_net() -> None:
    """The keyboard is a case where the hand-written reader alone does propose dice: the test
    above passes because the net refuses them, not because nothing was proposed."""
    from vision.dice.reader import hand_proposals
    from vision.palette import default_palette

    proposed = sum(len(hand_proposals(_keyboard(s), default_palette(), None)) for s in (1, 2, 3))
    assert proposed > 0


def test_colon_keys_are_not_read_as_twos() -> None:
    """A ":" key was read as a die's 2 at 0.95: the pip path fitted a 12 px face to its two
    dots, vetoed it because the face's colour goes on to the keycap's edge, but still boxed the
    dots alone, and the net, shown two dots filling a light crop, saw a 2. Boxed by the face its
    colour fills, it is shown the keycap."""
    from vision.dice.reader import hand_proposals
    from vision.dice.reasons import Why
    from vision.palette import default_palette

    for seed in (1, 2):
        img = _colon_keys(seed)
        dice = read_dice(img)
        assert all(r.face is None for r in dice), [(r.box, r.face) for r in dice]
        hand = hand_proposals(img, default_palette(), None)
        reach = [r for r in hand if any(x.code == Why.FACE_COLOUR_REACH for x in r.reasons)]
        assert len(reach) >= 20  # the dots are proposed, vetoed for the colour's reach ...
        assert all(max(r.box[2:]) >= 40 for r in reach)  # ... and boxed by the keycap (48 px)


def test_a_die_in_a_12_megapixel_photo_is_found_in_its_place() -> None:
    """A 4000 x 3000 frame is brought to the size the readers want; boxes in its own pixels."""
    rng = np.random.default_rng(5)
    img = make_background(rng, (4000, 3000))
    d = draw_die(img, (2500.0, 1200.0), 260.0, "blue", 3, rng)
    dice = read_dice(img)
    assert len(dice) == 1
    x, y, w, h = dice[0].box
    assert abs(x + w / 2 - 2500) < 60 and abs(y + h / 2 - 1200) < 60
    assert d.face == 3 and dice[0].face == 3


def test_the_net_slid_in_strips_gives_the_numbers_of_one_pass() -> None:
    """The detector runs the net over a frame in strips (for the Pi's memory); a strip's halo
    must keep its cut edges' padding out of every window it keeps, so the logits are the whole
    pass's exactly. (A halo of 8 px instead of 24 differs by more than 1.)"""
    from vision.dice.classifier import load_classifier
    from vision.dice.detect import dense_logits_in_strips

    rng = np.random.default_rng(7)
    img = make_background(rng, (1034, 582))
    for i, colour in enumerate(("blue", "green", "white", "orange", "yellow")):
        draw_die(img, (120.0 + 190 * i, 150.0 + 60 * i), 30.0 + 4 * i, colour, i + 1, rng)
    clf = load_classifier()
    whole = clf.dense_logits(img)
    strips = dense_logits_in_strips(clf, img, rows=5)
    assert strips.shape == whole.shape and whole.shape[1] > 20
    np.testing.assert_allclose(strips, whole, atol=1e-4)
    # tiles across as well as down (the width cut too): still the whole pass's numbers
    tiles = dense_logits_in_strips(clf, img, rows=9, cols=7)
    assert tiles.shape == whole.shape and whole.shape[2] > 3 * 7
    np.testing.assert_allclose(tiles, whole, atol=1e-4)


def test_the_tiles_fit_each_grid_and_stay_within_the_memory_bound() -> None:
    """The dense pass's tiles are shaped per grid (``detect._tiling``): no tile's input is larger
    than a full ``STRIP_ROWS`` x ``TILE_COLS`` tile's, and over a 640 x 480 frame's smallest-die
    scale they compute fewer pixels than the fixed grid did (thin edge tiles of nearly all
    halo)."""
    from vision.dice.detect import STRIP_ROWS, TILE_COLS, _spans, _tile_px, _tiling

    def plan(gh: int, gw: int, h: int, w: int, r: int, c: int) -> tuple[int, int]:
        ys = [p1 - p0 for _, _, p0, p1 in _spans(gh, r, h)]
        xs = [p1 - p0 for _, _, p0, p1 in _spans(gw, c, w)]
        return sum(ys) * sum(xs), max(ys) * max(xs)

    budget = _tile_px(STRIP_ROWS) * _tile_px(TILE_COLS)
    for gh, gw, h, w in ((73, 98, 630, 824), (51, 67, 448, 581), (73, 130, 630, 1082)):
        r, c = _tiling(gh, gw, h, w, STRIP_ROWS, TILE_COLS)
        px, largest = plan(gh, gw, h, w, r, c)
        assert largest <= budget
        assert px <= plan(gh, gw, h, w, STRIP_ROWS, TILE_COLS)[0]
    px, _ = plan(73, 98, 630, 824, *_tiling(73, 98, 630, 824, STRIP_ROWS, TILE_COLS))
    assert px < 0.95 * plan(73, 98, 630, 824, STRIP_ROWS, TILE_COLS)[0]


def test_the_confidence_maps_each_gate_to_the_hubs_threshold() -> None:
    assert hub_scale(0.93, 0.93) == pytest.approx(HUB_AT)
    assert hub_scale(0.92, 0.93) < HUB_AT <= hub_scale(0.94, 0.93)
    assert hub_scale(1.0, 0.6) == pytest.approx(1.0) and hub_scale(0.0, 0.6) == 0.0


def test_a_reading_without_a_colour_is_never_sure() -> None:
    """Dice read against a palette of one far colour: named or not, a die whose colour is None
    has a confidence under the hub's threshold (never None beside 1.0)."""
    from vision.palette import Palette, bgr_to_lab

    rng = np.random.default_rng(11)
    img = make_background(rng, (640, 480))
    for k, face in enumerate((1, 2, 3)):
        draw_die(img, (150.0 + 170 * k, 240.0), 70.0, "blue", face, rng)
    pal = Palette({"pink": bgr_to_lab((180, 105, 255)), "brown": bgr_to_lab((40, 70, 120))}, "test")
    dice = read_dice(img, palette=pal)
    assert dice
    for r in dice:
        if r.colour is None:
            assert r.confidence < HUB_AT and r.colour_confidence < HUB_AT


def test_the_gates_were_chosen_for_the_shipped_model() -> None:
    """A new model needs its own gates: ``python -m vision.eval.dice_gates --write``."""
    data = json.loads(GATES_FILE.read_text())
    assert {k: data.get(k) for k in model_hashes()} == model_hashes()
    g = load_gates()
    assert 0.0 < g.keep < 1.0 and all(
        0.5 <= getattr(g, c) <= 1.0 for c in ("agree", "answer", "overrule", "alone")
    )


def test_a_changed_temperature_is_another_model_for_the_gates(tmp_path: Path) -> None:
    """The temperatures live in the metadata, not the weights: the same ONNX file with another
    temperature has other hashes, so the gates chosen for the old one no longer match."""
    from vision.dice.classifier import META_FILE

    meta = json.loads(META_FILE.read_text())
    changed = tmp_path / META_FILE.name
    changed.write_text(json.dumps({**meta, "temperature": meta["temperature"] * 1.1}))
    data = json.loads(GATES_FILE.read_text())
    shipped = model_hashes()
    other = model_hashes(meta=changed)
    assert other["model_sha256"] == shipped["model_sha256"]
    assert other != shipped and {k: data.get(k) for k in other} != other


@pytest.fixture
def broken_model(tmp_path: Path) -> Path:
    bad = tmp_path / "die_classifier.onnx"
    bad.write_bytes(b"\x08\x07garbage, not a model" * 40)
    return bad


def test_a_corrupt_model_stops_the_reader_naming_the_file(
    broken_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(classifier_mod, "MODEL_FILE", broken_model)
    classifier_mod.load_classifier.cache_clear()
    try:
        with pytest.raises(ModelError, match=str(broken_model).replace(".", r"\.")):
            read_dice(_wood(1))
    finally:
        classifier_mod.load_classifier.cache_clear()


def test_cli_stops_at_start_on_a_corrupt_model(
    broken_model: Path,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from hub.cli import main

    image = tmp_path / "wood.png"
    cv2.imwrite(str(image), _wood(1))
    monkeypatch.setattr(classifier_mod, "MODEL_FILE", broken_model)
    classifier_mod.load_classifier.cache_clear()
    try:
        assert main(["read-dice", "--json", str(image)]) == 2
    finally:
        classifier_mod.load_classifier.cache_clear()
    out = capsys.readouterr()
    assert out.out == "" and str(broken_model) in out.err


def test_missing_gates_file_is_a_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="gates.json"):
        load_gates.__wrapped__(tmp_path / "gates.json")
    (tmp_path / "gates.json").write_text('{"gates": {"keep": 0.5}}')
    with pytest.raises(ModelError, match="gates.json"):
        load_gates.__wrapped__(tmp_path / "gates.json")


def test_blank_and_non_image_frames_say_why() -> None:
    assert read_dice_report(np.zeros((480, 640, 3), np.uint8)).code == Why.FRAME_BLACK
    with pytest.raises(ValueError):
        read_dice(np.zeros((0, 0, 3), np.uint8))


def test_gates_are_a_dataclass_of_every_case() -> None:
    assert set(Gates.__dataclass_fields__) == {
        "keep",
        "detect",
        "agree",
        "answer",
        "overrule",
        "alone",
        "colour",
        "steady",
    }


def _verdict(face: int, p: float) -> CropClass:
    """A crop's verdict: ``face`` at ``p``, the rest spread over the other classes."""
    rest = (1.0 - p) / 6
    return CropClass(tuple(p if i == face else rest for i in range(7)))


def _alone(chosen: CropClass, tried: tuple[CropClass, ...]) -> Proposal:
    det = Detection(100.0, 80.0, 40.0, chosen.probs, tried=tried)
    return Proposal(chosen, det=det)


def test_a_face_read_at_every_size_tried_is_steady_and_a_part_of_one_is_not() -> None:
    """A die only the net found: the least probability of its face over the sizes tried, or
    nothing when one size reads another face (a crop too small reads the middle of a 6 as 4)."""
    sure4 = _verdict(4, 0.999)
    d = _alone(sure4, (_verdict(4, 0.97), sure4, _verdict(4, 0.995))).det
    assert d is not None and steady(d, 4, None) == pytest.approx(0.97)
    d = _alone(sure4, (_verdict(4, 0.97), sure4, _verdict(6, 0.9))).det
    assert d is not None and steady(d, 4, None) == 0.0
    d = _alone(sure4, ()).det
    assert d is not None and steady(d, 4, None) == 0.0  # no sizes tried: no witness
    # among Camel Up's faces 1..3, a size that reads 5 is no witness for a 2 either
    d = _alone(_verdict(2, 0.99), (_verdict(2, 0.99), _verdict(5, 0.6))).det
    assert d is not None and steady(d, 2, (1, 2, 3)) == 0.0


def test_a_steady_die_only_the_net_found_is_answered_at_the_steady_gate() -> None:
    gates = Gates(0.5, 0.5, 0.5, 0.9, 0.9, alone=0.9999, colour=0.3, steady=0.97)
    chosen = _verdict(3, 0.995)  # under the alone gate
    steady_one = _alone(chosen, (_verdict(3, 0.98), chosen, _verdict(3, 0.99)))
    face, prob, gate = face_case(steady_one, gates, None)
    assert (face, gate) == (3, 0.97) and prob == pytest.approx(0.98)
    unsteady = _alone(chosen, (_verdict(1, 0.98), chosen, _verdict(3, 0.99)))
    face, prob, gate = face_case(unsteady, gates, None)
    assert (face, gate) == (3, 0.9999) and prob == pytest.approx(0.995)
    never = Gates(0.5, 0.5, 0.5, 0.9, 0.9, alone=0.9999, colour=0.3)  # steady 1.0: unused
    assert face_case(steady_one, never, None)[2] == 0.9999


def _body(x: float, y: float, side: float, face: int | None, p_die: float = 0.999) -> Proposal:
    """A hand body at (x, y) whose pips read ``face``, with the net's verdict ``p_die`` a die."""
    r = DieReading(
        (int(x - side / 2), int(y - side / 2), int(side), int(side)), face, None, 0.9, 0.9, 0.0
    )
    return Proposal(_verdict(face or 1, p_die), hand=r)


def _net_die(x: float, y: float, side: float, face: int) -> Proposal:
    return Proposal(_verdict(face, 0.999), det=Detection(x, y, side, _verdict(face, 0.999).probs))


def test_a_body_boxing_several_dice_gives_way_to_the_dice_the_net_found_in_it() -> None:
    """byler-train's white tray: the body finder joins touching dice into one blob, twice a
    die's side, whose pips read nothing; the net finds each die inside it. The dice are kept,
    not the blob (``learned.astride_bodies``); one die the net finds inside it is no reason to
    drop the blob, nor is a large body whose pips read a face (the pip path's witness)."""
    gates = Gates(
        keep=0.8, detect=0.9, agree=0.5, answer=0.98, overrule=0.99, alone=0.999, colour=0.3
    )
    singles = [_body(50, 50, 30, 2), _body(150, 50, 30, 3), _body(250, 50, 31, 5)]
    blob = _body(200, 200, 64, None)
    inside = [_net_die(185, 200, 30, 4), _net_die(216, 200, 30, 6)]
    got = kept([*singles, blob, *inside], gates)
    assert not any(p is blob for p in got)
    assert all(any(p is q for p in got) for q in [*singles, *inside])
    assert astride_bodies([*singles, blob], [*singles, blob, *inside], gates) == [blob]
    # one die inside: the blob may be that die seen large; it stays, and the detection is it
    got = kept([*singles, blob, inside[0]], gates)
    assert any(p is blob for p in got) and not any(p is inside[0] for p in got)
    # a body as large whose pips read a face is one die
    read = _body(200, 200, 64, 5)
    assert any(p is read for p in kept([*singles, read, *inside], gates))
    # the frame's dice unknown (fewer than three bodies): no body is too large
    assert astride_bodies([singles[0], blob], [singles[0], blob, *inside], gates) == []
