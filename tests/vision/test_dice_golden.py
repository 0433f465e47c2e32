"""Golden readings: every reader's exact answer on fixed frames, kept in a data file.

Why: a refactor of the dice readers must not change a single reading (box, face, colour,
confidence, reasons' codes and sentences). The frames are fixed files (rendered scenes stored as
PNG here, so a renderer change does not move them; a slice of the real photos in the shared data
folder beside the repo, skipped when it is absent); ``golden/dice_readings.json`` holds what each
reader answered. A deliberate change of the readings rewrites it:

    python -m tests.vision.test_dice_golden --write

and the diff of that file is the change to review.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.dice import read_dice_report, read_die_in_zone
from vision.dice.bodies import find_bodies
from vision.dice.cropread import CropRead, read_body
from vision.dice.reading import DieReading
from vision.palette import CAMEL_UP, default_palette

HERE = Path(__file__).resolve().parent / "golden"
DATA = HERE / "dice_readings.json"
REAL = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "dice-real"
RENDERED = ["rendered_500.png", "rendered_509.png", "rendered_537.png"]
REAL_IMAGES = [
    "byler-train/images/IMG_20191208_111304.jpg",
    "byler-train/images/IMG_20191208_111548.jpg",
    "byler-train/images/IMG_20191208_112127.jpg",
    "matteop65-valid/images/valid_1.jpg",
    "rune55-trays/images/PXL_20240219_191021760.jpg",
]


# How far a stored confidence may move and still be the same answer. Why: the learned net's and
# the pip path's sums differ in their last bits between CPUs (OpenCV and numpy pick their SIMD
# kernels at run time: 0.6364144737345062 on one machine, ...064 on another), and rounding alone
# does not absorb that: a value astride a rounding boundary (0.94205) stores as 0.9421 on one
# and 0.942 on the other. Faces, colours, boxes, pips and reasons are compared exactly.
TOLERANCE = 1e-4


def _f(x: float) -> float:
    """A confidence to 6 decimals, to keep the data file readable (compared within TOLERANCE)."""
    return round(float(x), 6)


def differs(got: Any, want: Any, where: str = "") -> str | None:
    """Where ``got`` first differs from ``want`` (None when they are the same): floats within
    ``TOLERANCE``, everything else exactly (an int is not a float: a face is not a confidence)."""
    if isinstance(want, float) and isinstance(got, float):
        return None if abs(got - want) <= TOLERANCE else f"{where}: {got} != {want}"
    if isinstance(want, dict) and isinstance(got, dict):
        if set(got) != set(want):
            return f"{where}: keys {sorted(got)} != {sorted(want)}"
        return next((d for k in want if (d := differs(got[k], want[k], f"{where}.{k}"))), None)
    if isinstance(want, list) and isinstance(got, list):
        if len(got) != len(want):
            return f"{where}: {len(got)} items != {len(want)}"
        pairs = enumerate(zip(got, want, strict=True))
        return next((d for i, (g, w) in pairs if (d := differs(g, w, f"{where}[{i}]"))), None)
    return None if got == want and type(got) is type(want) else f"{where}: {got!r} != {want!r}"


def _die(r: DieReading | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {
        "box": list(r.box),
        "face": r.face,
        "colour": r.colour,
        "confidence": _f(r.confidence),
        "face_confidence": _f(r.face_confidence),
        "colour_confidence": _f(r.colour_confidence),
        "pips": r.pips,
        "face_bgr": None if r.face_bgr is None else list(r.face_bgr),
        "reasons": [[w.code.value, w.sentence] for w in r.reasons],
    }


def _crop(c: CropRead) -> dict[str, Any]:
    return {
        "face": c.face,
        "face_confidence": _f(c.face_confidence),
        "colour": c.colour,
        "colour_confidence": _f(c.colour_confidence),
        "face_bgr": list(c.face_bgr),
        "pips": c.pips,
        "dark": c.dark,
        "reasons": [[w.code.value, w.sentence] for w in c.reasons],
    }


def readings(img: np.ndarray, zones: list[list[int]]) -> dict[str, Any]:
    """What every reader answers on ``img``: the whole frame (also among Camel Up's five
    colours), the pip path on its middle, the crop read of every body, the reveal-zone reader
    on each of ``zones``."""
    h, w = img.shape[:2]
    full = read_dice_report(img)
    five = read_dice_report(img, expected_colours=CAMEL_UP)
    pips = read_dice_report(img, zone=(w // 4, h // 4, w // 2, h // 2))
    pal = default_palette()
    return {
        "full": [_die(r) for r in full.dice],
        "full_code": full.code,
        "five": [_die(r) for r in five.dice],
        "pips": [_die(r) for r in pips.dice],
        "pips_code": pips.code,
        "crop": [_crop(read_body(img, b, pal, None)) for b in find_bodies(img)],
        "zone": [_die(read_die_in_zone(img, z, faces=(1, 2, 3, 4, 5, 6))) for z in zones],
    }


def _image(name: str) -> np.ndarray:
    path = HERE / name if name in RENDERED else REAL / name
    img = cv2.imread(str(path))
    assert img is not None, f"cannot read {path}"
    return img


def _zones(img: np.ndarray) -> list[list[int]]:
    """Reveal zones round the first three dice the whole-frame reader finds (fixed once written)."""
    return [list(r.crop_box) for r in read_dice_report(img).dice[:3]]


def write() -> None:
    """Rewrite the data file from the readers as they are (rendered and, if present, real)."""
    old = json.loads(DATA.read_text()) if DATA.is_file() else {}
    out = {}
    for name in RENDERED + (REAL_IMAGES if REAL.is_dir() else []):
        img = _image(name)
        # a frame's zones stay those first written: the zone reader is compared like for like
        zones = old[name]["zones"] if name in old else _zones(img)
        out[name] = {"zones": zones, "readings": readings(img, zones)}
    DATA.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


def _cases() -> list[str]:
    """The data file's frames (none when it is missing: the coverage test then fails)."""
    return list(json.loads(DATA.read_text())) if DATA.is_file() else []


@pytest.mark.parametrize("name", _cases())
def test_readings_are_the_golden_ones(name: str) -> None:
    if name not in RENDERED and not (REAL / name).is_file():
        pytest.skip(f"real dice photos absent ({REAL}): the shared data folder beside the repo")
    case = json.loads(DATA.read_text())[name]
    got = json.loads(json.dumps(readings(_image(name), case["zones"]), sort_keys=True))
    for reader, want in case["readings"].items():
        where = differs(got[reader], want, reader)
        assert where is None, f"{name}: the {reader} reader's answer changed at {where}"


def test_the_comparison_forgives_last_bits_and_nothing_else() -> None:
    """The golden comparison must still fail on a changed answer, or it guards nothing."""
    want = {"face": 4, "face_confidence": 0.942, "box": [238, 130, 34, 36], "colour": None}
    assert differs({**want, "face_confidence": 0.94205}, want) is None  # another CPU's sums
    assert differs({**want, "face_confidence": 0.95}, want) == ".face_confidence: 0.95 != 0.942"
    assert differs({**want, "face": 5}, want) is not None
    assert differs({**want, "colour": "red"}, want) is not None
    assert differs({**want, "box": [238, 130, 34]}, want) is not None
    assert differs({**want, "face": 4.0}, want) is not None  # a float is not a face
    assert differs([want, want], [want]) is not None


def test_the_golden_file_covers_every_reader_and_some_reasons() -> None:
    data = json.loads(DATA.read_text())
    assert set(RENDERED) <= set(data)
    codes = {
        code
        for case in data.values()
        for reader in ("full", "pips", "zone")
        for r in case["readings"][reader]
        if r
        for code, _ in r["reasons"]
    }
    assert len(codes) >= 5, codes  # abstentions as well as readings are guarded


def _readings_in(o: Any) -> list[dict[str, Any]]:
    """Every stored reading (a dict with a box, a face and reasons) anywhere in ``o``."""
    if isinstance(o, dict):
        if {"box", "face", "reasons"} <= set(o):
            return [o]
        return [r for v in o.values() for r in _readings_in(v)]
    if isinstance(o, list):
        return [r for v in o for r in _readings_in(v)]
    return []


def test_a_reading_names_no_colour_exactly_when_a_colour_doubt_says_why() -> None:
    """Every golden reading: a colour and no colour doubt, or no colour and a doubt saying why.
    Both were broken: the pip path's "between palette entries" stayed beside the crop's named
    colour, and a colour the face's square withheld, or a die found unread, went without one."""
    from vision.dice.reasons import COLOUR_CODES

    codes = {c.value for c in COLOUR_CODES}
    readings = _readings_in(json.loads(DATA.read_text()))
    assert len(readings) > 100
    for r in readings:
        doubted = any(code in codes for code, _ in r["reasons"])
        assert (r["colour"] is None) == doubted, r


def test_a_colour_named_on_a_tuning_scene_carries_no_doubt_of_it() -> None:
    """Rendered tuning scene 101,066: a blurred orange 2 whose face abstains is named white
    from the crop while the pip path had found its colour between palette entries; the
    reading said both."""
    from vision.dice import read_dice
    from vision.render.dice import render_dice_scene
    from vision.whitebalance import gains_from_patch

    img, truth = render_dice_scene(np.random.default_rng(101066))
    assert truth.white_patch is not None
    got = read_dice(
        img, white_gains=gains_from_patch(img, truth.white_patch), expected_colours=CAMEL_UP
    )
    doubted = [r for r in got if any(x.code.value == "colour_ambiguous" for x in r.reasons)]
    assert len(got) == 5 and all(r.colour is None for r in doubted)


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.vision.test_dice_golden --write")
    write()


def test_no_decision_reads_a_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every sentence reworded (reversed): every reading's box, face, colour, confidences and
    codes stay the golden ones. A reader that matched words in its own messages would change."""
    from vision.dice.reasons import Reason, Why

    plain = Reason.__init__

    def reworded(self: Reason, code: Why, sentence: str) -> None:
        plain(self, code, sentence[::-1])

    monkeypatch.setattr(Reason, "__init__", reworded)
    data = json.loads(DATA.read_text())
    # the real photos hold the cases where a doubt's code decides (rendered ones alone do not)
    for name in [n for n in data if n in RENDERED or (REAL / n).is_file()]:
        got = json.loads(json.dumps(readings(_image(name), data[name]["zones"]), sort_keys=True))
        for reader, want in data[name]["readings"].items():
            if not isinstance(want, list):
                continue
            assert len(got[reader]) == len(want), (name, reader)
            for g, w in zip(got[reader], want, strict=True):
                if w is None:
                    assert g is None
                    continue
                assert [c for c, _ in g["reasons"]] == [c for c, _ in w["reasons"]]
                assert [s for _, s in g["reasons"]] == [s[::-1] for _, s in w["reasons"]]
                where = differs({**g, "reasons": None}, {**w, "reasons": None}, reader)
                assert where is None, (name, where)
