"""The die classifier's training script and the loader's refusals of a bad model file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.dice.classifier import CLASSES, INPUT, META_FILE, MODEL_FILE, DieClassifier, ModelError


def _meta(path: Path) -> Path:
    path.write_text(json.dumps({"input": INPUT, "classes": list(CLASSES), "temperature": 1.0}))
    return path


@pytest.mark.parametrize("damage", ["missing", "garbage"])
def test_a_missing_or_corrupt_model_is_an_error_naming_the_file(
    tmp_path: Path, damage: str
) -> None:
    model, meta = tmp_path / "m.onnx", _meta(tmp_path / "m.json")
    if damage == "garbage":
        model.write_bytes(b"not an onnx file at all" * 10)
    with pytest.raises(ModelError, match=str(model).replace(".", r"\.")):
        DieClassifier(model, meta)


def test_unreadable_metadata_is_an_error_naming_the_file(tmp_path: Path) -> None:
    model = tmp_path / "m.onnx"
    model.write_bytes(b"x")
    meta = tmp_path / "m.json"
    meta.write_text('{"input": 64}')
    with pytest.raises(ModelError, match="m.json"):
        DieClassifier(model, meta)


def test_metadata_asking_for_an_unknown_number_of_views_is_an_error_naming_the_file(
    tmp_path: Path,
) -> None:
    model = tmp_path / "m.onnx"
    model.write_bytes(b"x")
    meta = tmp_path / "m.json"
    meta.write_text(
        json.dumps({"input": INPUT, "classes": list(CLASSES), "temperature": 1.0, "views": 3})
    )
    with pytest.raises(ModelError, match="m.json.*views"):
        DieClassifier(model, meta)


@pytest.mark.slow
@pytest.mark.parametrize("recut", [False, True])
def test_training_runs_one_short_epoch_and_exports_a_model_cv2_reproduces(
    tmp_path: Path, recut: bool
) -> None:
    """The training script on a few photos and one epoch: it exports, and its own check compares
    the ONNX file read by cv2.dnn with PyTorch's outputs (an error if they differ by 1e-3); the
    same with the train dice re-cut every epoch (``--online-geometry``), which the metadata
    records."""
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from vision.train import split
    from vision.train.train import VIEWS, main

    if not (split.real_root() / "byler-train" / "labels.json").is_file():
        pytest.skip("real dice photos absent: they live in the shared data folder")
    assert main(["--quick", "--out", str(tmp_path)] + (["--online-geometry"] if recut else [])) == 0
    clf = DieClassifier(tmp_path / MODEL_FILE.name, tmp_path / META_FILE.name)
    assert clf.info.get("online_geometry", False) is recut
    assert clf.net_logits(np.zeros((2, INPUT, INPUT, 3), np.uint8)).shape == (2, len(CLASSES))
    assert clf.views == VIEWS  # its temperature was fitted on these views' mean
    verdicts = clf.classify(np.zeros((3, INPUT, INPUT, 3), np.uint8))
    assert all(abs(sum(v.probs) - 1.0) < 1e-6 for v in verdicts)


def test_batch_recolouring_is_seeded_swaps_channels_and_stays_in_range() -> None:
    """The per-batch colour jitter: the same seed gives the same batch; a red crop comes out blue
    or green in some samples (the channel swap), and values stay on the net's input scale."""
    torch = pytest.importorskip("torch")
    from vision.dice.classifier import to_blob
    from vision.train.train import recolour

    red = np.zeros((64, INPUT, INPUT, 3), np.uint8)
    red[..., 2] = 200  # BGR: a red crop
    xb = torch.from_numpy(to_blob(red))
    a = recolour(xb, torch.Generator().manual_seed(1))
    b = recolour(xb, torch.Generator().manual_seed(1))
    assert torch.equal(a, b) and a.shape == xb.shape
    assert float(a.min()) >= -2.0 and float(a.max()) <= 127.0 / 64.0
    dominant = a.mean(dim=(2, 3)).argmax(dim=1)
    assert int((dominant == 2).sum()) >= 16  # about half keep their colours
    assert int((dominant != 2).sum()) >= 8  # and a good share turned blue or green


def test_answerable_share_at_a_precision_counts_the_most_confident_first() -> None:
    from vision.train.evaluate import Tally

    t = Tally(crop_scores=[(0.99, True), (0.95, True), (0.9, False), (0.8, True), (0.5, False)])
    assert t.coverage_at(1.0) == 2 / 5  # the first wrong answer stops a perfect run
    assert t.coverage_at(0.75) == 4 / 5  # 3 right of the 4 most confident
    assert Tally().coverage_at(0.99) == 0.0


def test_printed_pages_are_seeded_and_give_glyph_crops_labelled_not_a_die() -> None:
    """``--pages``: what the hand-written reader proposes on rendered printed pages, as
    not-a-die crops; the same seed draws the same page."""
    from vision.train import data
    from vision.train.distractors import text_page

    a = text_page(np.random.default_rng(5), 480, 360)
    assert a.shape == (360, 480, 3) and a.dtype == np.uint8
    np.testing.assert_array_equal(a, text_page(np.random.default_rng(5), 480, 360))
    assert float(a.std()) > 10.0  # ink on paper, not a blank
    crops, labels, tags = data.page_crops(2, np.random.default_rng(9))
    assert len(crops) >= 4  # two random windows per page at least, and the reader's glyphs
    assert set(labels) == {0} and set(tags) == {"page"}
    assert all(c.shape == (INPUT, INPUT, 3) for c in crops)


def test_the_tray_look_is_seeded_keeps_grey_and_changes_about_half_a_batch() -> None:
    """``tray_look``: the same seed gives the same batch; a grey crop stays grey (the hue turns
    about the grey axis and the contrast about the crop's mean); about half the crops change,
    the rest are left as they were; values stay on the net's input scale."""
    torch = pytest.importorskip("torch")
    from vision.dice.classifier import to_blob
    from vision.train.train import tray_look

    rng = np.random.default_rng(3)
    crops = rng.integers(0, 256, (64, INPUT, INPUT, 3), dtype=np.uint8)
    xb = torch.from_numpy(to_blob(crops))
    a = tray_look(xb, torch.Generator().manual_seed(1))
    b = tray_look(xb, torch.Generator().manual_seed(1))
    assert torch.equal(a, b) and a.shape == xb.shape
    assert float(a.min()) >= -2.0 and float(a.max()) <= 127.0 / 64.0
    same = [bool(torch.equal(a[i], xb[i])) for i in range(len(xb))]
    assert 16 <= sum(same) <= 48
    grey = torch.full((32, 3, INPUT, INPUT), 0.5)
    assert float((tray_look(grey, torch.Generator().manual_seed(2)) - 0.5).abs().max()) < 1e-5


@pytest.mark.slow
def test_finder_crops_label_the_finders_boxes_with_the_faces_they_lie_on() -> None:
    """``data.finder_crops`` on two train photos: crops of the hand finder's boxes, those on a
    labelled die with its face (1..6), the others not a die; seeded."""
    from vision.train import data, split

    if not (split.real_root() / "byler-train" / "labels.json").is_file():
        pytest.skip("real dice photos absent: they live in the shared data folder")
    crops, labels, tags = data.finder_crops("train", np.random.default_rng(4), per_die=2, limit=2)
    assert len(crops) == len(labels) == len(tags) and all(
        c.shape == (INPUT, INPUT, 3) for c in crops
    )
    faces = [v for v, t in zip(labels, tags, strict=True) if t.endswith(":finder")]
    assert faces and len(faces) % 2 == 0 and set(faces) <= {1, 2, 3, 4, 5, 6}
    assert all(v == 0 for v, t in zip(labels, tags, strict=True) if t.endswith(":finder-false"))
    again = data.finder_crops("train", np.random.default_rng(4), per_die=2, limit=2)
    np.testing.assert_array_equal(np.stack(crops), np.stack(again[0]))


def _crops(n: int, label: int) -> tuple[np.ndarray, np.ndarray]:
    return np.full((n, INPUT, INPUT, 3), label, np.uint8), np.full(n, label, np.int64)


def test_a_crop_cache_is_reused_only_for_the_options_that_built_it(tmp_path: Path) -> None:
    """``--cache`` once reused crops built with other options, and the model's metadata then
    misstated what it was trained on. A cache now records its options: the same ones read it
    back; others (or none recorded) are refused with the file and the option named, and the
    file is left as it was."""
    from vision.train.train import CacheMismatch, data_options, load_cache, save_cache

    cache = tmp_path / "crops.npz"
    sets = {"train": _crops(3, 1), "calibration": _crops(2, 4)}
    built = data_options(quick=False, pages=0, finder_per_die=2)
    save_cache(cache, sets, built)
    back = load_cache(cache, built)
    assert {k: (x.tolist(), y.tolist()) for k, (x, y) in back.items()} == {
        k: (x.tolist(), y.tolist()) for k, (x, y) in sets.items()
    }
    before = cache.read_bytes()
    with pytest.raises(CacheMismatch, match=r"crops\.npz.*finder_per_die 2 \(asked: 0\)"):
        load_cache(cache, data_options(quick=False, pages=0, finder_per_die=0))
    assert cache.read_bytes() == before
    old = tmp_path / "old.npz"  # the format before the options were recorded
    np.savez(
        old, **{f"{k}_{a}": v for k, xy in sets.items() for a, v in zip("xy", xy, strict=True)}
    )
    with pytest.raises(CacheMismatch, match="does not record"):
        load_cache(old, built)
    # the wide crops of dice re-cut every epoch come back too, and only for that option
    recut = tmp_path / "recut.npz"
    wide = (np.full((2, 96, 96, 3), 3, np.uint8), np.array([3, 5]))
    online = data_options(quick=False, pages=0, finder_per_die=0, online=True)
    save_cache(recut, {**sets, "wide": wide}, online)
    back = load_cache(recut, online)
    assert back["wide"][0].shape == (2, 96, 96, 3) and back["wide"][1].tolist() == [3, 5]
    with pytest.raises(CacheMismatch, match="online_geometry True"):
        load_cache(recut, data_options(quick=False, pages=0, finder_per_die=0))
    # crops jittered by another seed (``--seed``) are other crops
    with pytest.raises(CacheMismatch, match=r"seed 11 \(asked: 12\)"):
        load_cache(cache, data_options(quick=False, pages=0, finder_per_die=2, seed=12))


def test_astride_points_lie_between_neighbouring_dice_only() -> None:
    """``--astride-per-pair``'s windows: one on the midpoint of two touching dice; none for dice
    farther apart than ``ASTRIDE_REACH`` sides, nor where a third die sits on the midpoint."""
    from vision.train.data import ASTRIDE_REACH, LabelledDie, astride_points

    a, b = LabelledDie(100, 100, 40, 3), LabelledDie(144, 100, 36, 5)
    assert astride_points([a, b]) == [(122, 100, 38)]
    far = LabelledDie(100 + ASTRIDE_REACH * 40 + 1, 100, 40, 2)
    assert astride_points([a, far]) == []
    c = LabelledDie(160, 100, 40, 1)
    assert astride_points([a, c]) == [(130, 100, 40)]
    middle = LabelledDie(130, 110, 40, 6)  # a third die on their midpoint
    assert (130, 100, 40) not in astride_points([a, c, middle])


def test_astride_crops_are_seeded_and_not_a_die() -> None:
    """``data.astride_crops`` on a few train photos: crops labelled not a die, the same for the
    same seed."""
    from vision.train import data, split

    if not (split.real_root() / "matteop65-train" / "labels.json").is_file():
        pytest.skip("real dice photos absent: they live in the shared data folder")
    crops, labels, tags = data.astride_crops("train", np.random.default_rng(5), per_pair=1, limit=3)
    assert crops and all(c.shape == (INPUT, INPUT, 3) for c in crops)
    assert set(labels) == {0} and all(t.endswith(":astride") for t in tags)
    again = data.astride_crops("train", np.random.default_rng(5), per_pair=1, limit=3)
    np.testing.assert_array_equal(np.stack(crops), np.stack(again[0]))


def test_the_train_folds_split_each_sets_train_photos_evenly_and_only_them() -> None:
    """``--fold K/N``: every train photo in exactly one fold, each set's share to within one
    photo, and the same folds on every call; no calibration or held-out photo in any."""
    from vision.train.split import parse_fold, part_files

    train = part_files("train")
    folds = [part_files(f"train-fold-{k}/2") for k in (1, 2)]
    assert folds[0] == part_files("train-fold-1/2")
    for name, files in train.items():
        a, b = (f[name] for f in folds)
        assert sorted(a + b) == sorted(files) and not set(a) & set(b)
        assert abs(len(a) - len(b)) <= 1
    assert parse_fold("2/3") == (2, 3)
    for bad in ("0/2", "3/2", "1/1", "2", "a/b"):
        with pytest.raises(ValueError, match="K/N"):
            parse_fold(bad)


def test_a_fold_is_a_data_option_only_when_given() -> None:
    """Without ``--fold`` the options (and so the caches and metadata of the default run) are
    what they were; with it a cache of the whole train part is not reused for a fold."""
    from vision.train.train import data_options

    plain = data_options(quick=False, pages=0, finder_per_die=0)
    assert "fold" not in plain
    assert data_options(quick=False, pages=0, finder_per_die=0, fold="1/2") == {
        **plain,
        "fold": "1/2",
    }


def test_a_wide_crop_reframed_at_scale_one_with_no_turn_or_shift_is_the_readers_crop() -> None:
    """The training's re-cut crops (``reframe``) are the reader's crops (``die_crop``) at the
    identity draw, and move as drawn: a shift of half a side is the reader's crop half a side
    away, a quarter turn its quarter turn; ``recut``'s draws are seeded."""
    torch = pytest.importorskip("torch")
    import cv2

    from vision.dice.classifier import die_crop, to_blob
    from vision.train import data
    from vision.train.train import recut, reframe

    rng = np.random.default_rng(3)
    img = cv2.GaussianBlur((rng.random((240, 260, 3)) * 255).astype(np.uint8), (0, 0), 2.0)
    cx, cy, side = 130.0, 118.0, 36.0
    wide = die_crop(img, cx, cy, side, context=data.WIDE_CONTEXT, out=data.WIDE)
    assert wide.shape == (data.WIDE, data.WIDE, 3)
    one = torch.from_numpy(np.ascontiguousarray(wide.transpose(2, 0, 1)))[None]
    batch = one.repeat(3, 1, 1, 1)
    got = reframe(
        batch,
        torch.tensor([1.0, 1.0, 1.0]),
        torch.tensor([0.0, 0.0, np.pi / 2]),
        torch.tensor([[0.0, 0.0], [0.5, 0.0], [0.0, 0.0]]),
    )
    assert got.shape == (3, 3, INPUT, INPUT)
    want = [
        die_crop(img, cx, cy, side),
        die_crop(img, cx + side / 2, cy, side),
        np.rot90(die_crop(img, cx, cy, side), 1),  # a turn of the frame's content
    ]

    def err(i: int, crop: np.ndarray) -> float:
        ref = torch.from_numpy(to_blob(np.ascontiguousarray(crop)[None]))[0]
        return float((got[i] - ref).abs().mean())

    assert err(0, want[0]) < 0.02 and err(1, want[1]) < 0.02
    assert err(0, want[1]) > 0.1  # the images differ enough for the check to mean something
    assert min(err(2, want[2]), err(2, np.rot90(want[0], -1))) < 0.02 < err(2, want[0])
    assert torch.equal(
        recut(batch, torch.Generator().manual_seed(5)),
        recut(batch, torch.Generator().manual_seed(5)),
    )
    assert not torch.equal(
        recut(batch, torch.Generator().manual_seed(5)),
        recut(batch, torch.Generator().manual_seed(6)),
    )


def test_part_windows_frame_a_part_of_the_face_never_the_die() -> None:
    """``--part-per-die``'s windows: smaller than any crop of a die the net learns as a die
    (``jitter_crop``'s scale starts at 0.8) and off its centre by more than the die crops'
    shift (0.12), so that no window frames the whole face."""
    from vision.train.data import PART_OFF, PART_SIDE, LabelledDie, part_window

    d = LabelledDie(200.0, 150.0, 40.0, 6)
    rng = np.random.default_rng(3)
    for _ in range(500):
        x, y, s = part_window(d, rng)
        off = float(np.hypot(x - d.cx, y - d.cy)) / d.side
        assert PART_OFF[0] - 1e-9 <= off <= PART_OFF[1] + 1e-9
        assert PART_SIDE[0] * d.side <= s <= PART_SIDE[1] * d.side
        assert s < 0.8 * d.side and off > 0.12
    assert PART_SIDE[1] < 0.8 and PART_OFF[0] > 0.12


def test_part_crops_are_seeded_and_not_a_die() -> None:
    """``data.part_crops`` on a few train photos and rendered scenes: crops labelled not a die,
    of the pip-box sets and rendered dice only (the trays' and byler's labels box a die too
    loosely), the same for the same seed."""
    from vision.train import data, split

    if not (split.real_root() / "matteop65-train" / "labels.json").is_file():
        pytest.skip("real dice photos absent: they live in the shared data folder")
    crops, labels, tags = data.part_crops("train", np.random.default_rng(5), per_die=1, limit=6)
    assert crops and all(c.shape == (INPUT, INPUT, 3) for c in crops)
    assert set(labels) == {0}
    assert {t.split(":")[0] for t in tags} <= {*data.PART_SETS, "rendered"}
    assert any(t == "rendered:part" for t in tags) and any(t != "rendered:part" for t in tags)
    again = data.part_crops("train", np.random.default_rng(5), per_die=1, limit=6)
    np.testing.assert_array_equal(np.stack(crops), np.stack(again[0]))
