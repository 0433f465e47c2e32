"""A small held-out slice of `python -m vision.eval.table` (all 2,000 scenes: make eval-vision)."""

from __future__ import annotations

import pytest

from vision.eval import table as et
from vision.eval.table import evaluate
from vision.palette import CAMEL_UP2


def test_held_out_slice_after_set_up_reads_right_and_never_confidently_wrong():
    # tables 400,000 and 400,001: the session-8 held-out range (4,000,000+), drawn once the
    # reader was final; scenes 0..1999 and 3,000,000..3,001,999 were spent on earlier choices
    r = evaluate(20, seed=4_000_000, condition="same", jobs=1)
    assert not r["setup_refused"] and not r["refused"]
    assert r["clear_spaces"] > 250
    assert r["wrong_spaces"] == 0, r["error_examples"]
    assert r["stacks_fully_right"] >= 0.93
    assert r["tiles_right"] == 1.0


def test_the_second_edition_is_evaluated_on_the_same_tables_with_seven_camels():
    # table 501: a tuning table of the second edition (tests/vision/test_track_edition2.py)
    s = et.render_scene(5012, "same", edition=2)
    assert tuple(s.table.geometry.colours) == CAMEL_UP2 and s.profile is not None
    assert set(s.profile.camels) == set(CAMEL_UP2)
    assert sorted(c for st in s.truth.track.values() for c in st) == sorted(CAMEL_UP2)
    # the first edition's scene of the same seed: the same board, its five camels
    assert s.table.thickness == et.render_scene(5012, "same").table.thickness
    r = et.evaluate(10, seed=5010, condition="same", jobs=1, edition=2)
    assert r["edition"] == 2 and not r["setup_refused"] and not r["refused"]
    assert r["clear_spaces"] > 120
    assert r["wrong_spaces"] == 0, r["error_examples"]
    assert r["stacks_fully_right"] >= 0.85
    with pytest.raises(ValueError, match="edition"):
        et.evaluate(1, seed=5010, edition=3)
