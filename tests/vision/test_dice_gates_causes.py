"""Where answers are lost (``vision.eval.dice_gates_causes``): each unanswered die under one
cause, and the counts the tool prints."""

from __future__ import annotations

import numpy as np

from vision.dice.classifier import CropClass, load_classifier
from vision.dice.detect import Detection
from vision.dice.learned import Gates, Proposal
from vision.eval.dice_gates import Photo
from vision.eval.dice_gates_causes import Unanswered, tally, unanswered
from vision.render.dice import draw_die, make_background

GATES = Gates(keep=0.5, detect=0.5, agree=0.5, answer=0.9, overrule=0.9, alone=0.9, colour=0.3)


def _unsure(face: int, p: float) -> tuple[float, ...]:
    probs = [0.0] * 7
    probs[face] = p
    probs[1 + face % 6] = 1.0 - p
    return tuple(probs)


def test_a_die_the_finder_boxed_badly_is_lost_to_the_box_one_the_net_cannot_read_to_the_net() -> (
    None
):
    """Two found dice, each unanswered (the net gave its proposal 0.6 < the gate 0.9): the one
    whose labelled box is a clean die the net reads surely was lost to the finder's box; the
    one whose labelled box holds bare table is one the net cannot read however it is cut."""
    rng = np.random.default_rng(7)
    img = make_background(rng, (320, 160))
    x, y, w, h = draw_die(img, (80.0, 80.0), 48.0, "white", 5, rng).box
    clean = {"box": [x, y, w, h], "face": 5}
    bare = {"box": [220, 60, 40, 40], "face": 5}  # no die drawn there
    props = [
        Proposal(CropClass(_unsure(5, 0.6)), det=Detection(x + w / 2, y + h / 2, 48.0, (0, 1.0))),
        Proposal(CropClass(_unsure(5, 0.6)), det=Detection(240.0, 80.0, 40.0, (0, 1.0))),
    ]
    found, answered, lost = unanswered(
        img, Photo([clean, bare], props, "s"), GATES, load_classifier()
    )
    assert (found, answered) == (2, 0)
    assert [d.cause for d in lost] == ["box", "net_unsure"]
    assert all(d.case == "alone" and d.right for d in lost)


def test_the_tally_counts_each_die_under_one_cause() -> None:
    dice = [
        Unanswered("alone", "a", True, True),
        Unanswered("overrule", "a", False, False),
        Unanswered("answer", "b", True, False),
        Unanswered("answer", "b", False, False),
        Unanswered("overrule", "b", True, True),  # the label crop settles it: the box's fault
    ]
    t = tally(10, 5, dice)
    assert t["unanswered"] == 5
    assert t["by_cause"] == {"box": 2, "overruled": 1, "net_unsure": 2}
    assert t["by_case"] == {"alone": 1, "overrule": 2, "answer": 2}
    assert t["by_set"] == {"a": 2, "b": 3}
    assert (t["net_unsure_right_below"], t["net_unsure_wrong_below"]) == (1, 1)
