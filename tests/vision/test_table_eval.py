"""A small held-out slice of `python -m vision.eval.table` (all 2,000 scenes: make eval-vision)."""

from __future__ import annotations

from vision.eval.table import evaluate


def test_held_out_slice_after_set_up_reads_right_and_never_confidently_wrong():
    # tables 400,000 and 400,001: the session-8 held-out range (4,000,000+), drawn once the
    # reader was final; scenes 0..1999 and 3,000,000..3,001,999 were spent on earlier choices
    r = evaluate(20, seed=4_000_000, condition="same", jobs=1)
    assert not r["setup_refused"] and not r["refused"]
    assert r["clear_spaces"] > 250
    assert r["wrong_spaces"] == 0, r["error_examples"]
    assert r["stacks_fully_right"] >= 0.93
    assert r["tiles_right"] == 1.0
