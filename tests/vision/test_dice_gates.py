"""The gate chooser (``vision.eval.dice_gates``): a gate is set by enough answers, never by one."""

from __future__ import annotations

import numpy as np

from vision.eval.dice_gates import (
    MIN_COUNT,
    WRONG_SHARE,
    answered,
    colour_gate,
    face_gates,
    share_gate,
)


def _answers(n: int, seed: int, lo: float = 0.5) -> list[tuple[float, bool]]:
    return [(float(p), True) for p in np.random.default_rng(seed).uniform(lo, 1.0, n)]


def test_one_wrong_answer_among_a_thousand_does_not_set_the_gate() -> None:
    """The wider model's colour gate rose from 0.3 to 0.94 on one rendered proposal named wrong
    at 0.93: with the share rule it stays where the many right answers put it."""
    items = [*_answers(1000, 1, lo=0.3), (0.93, False)]
    assert colour_gate(items) < 0.35


def test_many_wrong_answers_high_up_do_raise_the_gate() -> None:
    rng = np.random.default_rng(2)
    items = [*_answers(3000, 3), *((float(p), False) for p in rng.uniform(0.5, 0.9, 40))]
    g = share_gate(items, 0.5)
    assert g is not None and g > 0.85
    above = [r for p, r in items if p >= g]
    assert len(above) >= MIN_COUNT
    assert sum(not r for r in above) <= WRONG_SHARE * len(above)


def test_too_few_answers_set_no_gate() -> None:
    assert share_gate(_answers(MIN_COUNT - 1, 4), 0.5) is None
    assert share_gate(_answers(MIN_COUNT, 4), 0.5) is not None
    assert colour_gate(_answers(10, 4)) == 1.0  # too few: no colour is ever sure


def test_a_case_with_few_answers_stays_above_its_highest_wrong_one() -> None:
    """ "overrule" has eight answers, one wrong at 0.95: too few to show a 0.4 % share, so nothing
    at or below that wrong answer is answered; "agree" has enough for the share rule."""
    items = [("agree", p, r) for p, r in _answers(400, 5)] + [("agree", 0.97, False)]
    items += [("overrule", p, True) for p in np.linspace(0.6, 0.99, 7)] + [
        ("overrule", 0.95, False)
    ]
    gates, source = face_gates(items)
    assert gates["agree"] < 0.6 and "share rule" in source["agree"]
    assert 0.95 < gates["overrule"] <= 0.99 and "too few" in source["overrule"]
    assert gates["answer"] == gates["alone"] == 1.0  # no answers at all: never answered


def test_a_die_only_the_net_found_is_answered_once_by_either_gate() -> None:
    """Its "steady" item follows its "alone" one: it answers the die when the verdict does not,
    and a die is never counted twice."""
    gates = {"agree": 0.5, "answer": 0.9, "overrule": 0.9, "alone": 0.999, "steady": 0.97}
    items = [
        ("agree", 0.8, True),
        ("alone", 0.9995, True),  # answered by its verdict ...
        ("steady", 0.99, True),  # ... and steady too: still one die
        ("alone", 0.99, False),  # not by its verdict ...
        ("steady", 0.98, False),  # ... but steady: answered, wrong
        ("alone", 0.99, True),
        ("steady", 0.0, True),  # neither: not answered
    ]
    assert answered(items, gates) == [True, True, False]


def test_a_found_dies_alone_item_is_its_verdicts_probability_whatever_the_gates() -> None:
    """A die only the net found, steadier on the hub's scale than its verdict: at gates with a
    steady gate (as ``per_set`` calls it) its "alone" item is still the verdict's probability,
    and its steadiness is its "steady" item (once both were the steadiness)."""
    from vision.dice.classifier import CropClass
    from vision.dice.detect import Detection
    from vision.dice.learned import Gates, Proposal
    from vision.eval.dice_gates import Photo, found_and_false

    def verdict(p: float) -> CropClass:
        return CropClass(tuple(p if i == 3 else (1.0 - p) / 6 for i in range(7)))

    chosen = verdict(0.995)
    det = Detection(100.0, 80.0, 40.0, chosen.probs, tried=(verdict(0.98), chosen, verdict(0.99)))
    photo = Photo([{"box": [80, 60, 40, 40], "face": 3}], [Proposal(chosen, det=det)])
    gates = Gates(0.5, 0.5, 0.5, 0.9, 0.9, alone=0.9999, colour=0.3, steady=0.97)
    found, false, items = found_and_false([photo], gates)
    assert (found, false) == (1, 0)
    assert [(k, round(p, 4), r) for k, p, r in items] == [
        ("alone", 0.995, True),
        ("steady", 0.98, True),
    ]


def test_cross_fitting_counts_the_wrong_answers_a_gate_hides_on_its_own_photos() -> None:
    """Dice only the net found, two of them read wrong very surely: on its own photos the rule
    puts the gate above them (no wrong answer), but a half that holds neither lets the other
    half's pass, and the cross-fit counts them."""
    from vision.dice.classifier import CropClass
    from vision.dice.detect import Detection
    from vision.dice.learned import Proposal
    from vision.eval.dice_gates import Photo, choose, cross_fit, found_and_false

    def photo(p: float, right: bool) -> Photo:
        probs = tuple(0.0 if i == 0 else p if i == 3 else (1.0 - p) / 5 for i in range(7))
        v = CropClass(probs)
        det = Detection(100.0, 80.0, 40.0, probs, tried=(v,))
        return Photo([{"box": [80, 60, 40, 40], "face": 3 if right else 4}], [Proposal(v, det=det)])

    ps = np.linspace(0.9, 0.99999, 40)
    photos = [photo(float(p), True) for p in ps] + [photo(0.99995, False), photo(0.99996, False)]
    gates, stats = choose(photos, 0.3)
    assert (stats["found"], stats["wrong"]) == (42, 0)
    assert gates.alone > 0.99996
    cf = cross_fit(photos, rounds=6)
    assert cf.found == 6 * 2 * 21  # every photo counted once per round, in the half it was not in
    assert cf.wrong > 0 and cf.per_case["alone"][1] + cf.per_case["steady"][1] == cf.wrong
    assert cf.answered == sum(a for a, _ in cf.per_case.values())
    _, _, items = found_and_false(photos, gates)
    assert len(items) == 2 * 42  # each die gives its verdict and its steadiness


def test_the_upper_bound_of_a_wrong_share_is_the_clopper_pearson_one() -> None:
    """0 wrong of n: 1 - (1 - conf) ** (1 / n); more wrong answers or fewer answers raise it."""
    from vision.eval.dice_gates import upper_bound

    assert abs(upper_bound(0, 600, 0.9) - (1 - 0.1 ** (1 / 600))) < 1e-9
    assert upper_bound(0, 600) < upper_bound(1, 600) < upper_bound(1, 300)
    assert upper_bound(0, 0) == 1.0 and upper_bound(5, 5) == 1.0


def test_the_bound_rule_needs_enough_answers_to_show_its_share() -> None:
    """Six hundred right answers show a 0.5 % share at 90 %: the gate takes them all; a hundred
    cannot (none passes: None, and ``face_gates`` falls back to the share rule)."""
    from vision.eval.dice_gates import bound_gate

    many = _answers(600, 6, lo=0.6)
    assert bound_gate(many, 0.5, 0.005) == min(p for p, _ in many)
    assert bound_gate(_answers(100, 7), 0.5, 0.005) is None
    items = [("agree", p, r) for p, r in _answers(100, 8)]
    _, source = face_gates(items, "bound")
    assert "share" in source["agree"] or "too few" in source["agree"]


def test_pooled_photos_help_choose_but_are_never_counted_in_the_cross_fit() -> None:
    """``--pool`` with ``--cross-fit``: the pool joins every fitting half, and only the halves
    of the photos themselves are counted."""
    from vision.dice.classifier import CropClass
    from vision.dice.detect import Detection
    from vision.dice.learned import Proposal
    from vision.eval.dice_gates import Photo, cross_fit, judge, load_gates

    def photo(p: float, right: bool, source: str) -> Photo:
        probs = tuple(0.0 if i == 0 else p if i == 3 else (1.0 - p) / 5 for i in range(7))
        v = CropClass(probs)
        det = Detection(100.0, 80.0, 40.0, probs, tried=(v,))
        face = 3 if right else 4
        return Photo([{"box": [80, 60, 40, 40], "face": face}], [Proposal(v, det=det)], source)

    own = [photo(float(p), True, "a") for p in np.linspace(0.9, 0.9999, 20)]
    pool = [photo(float(p), True, "pool") for p in np.linspace(0.9, 0.9999, 30)]
    cf = cross_fit(own, rounds=2, pool=pool)
    assert cf.found == 2 * 20 and cf.per_set is not None and set(cf.per_set) == {"a"}
    assert cf.per_set["a"][0] == cf.found and cf.per_set["a"][2] == cf.answered
    counted = judge(own, load_gates())
    assert counted["all"]["found"] == counted["a"]["found"] == 20


def test_the_held_out_photos_are_never_read_for_gates() -> None:
    import pytest

    from vision.eval.dice_gates import collect, main

    with pytest.raises(SystemExit):
        main(["--photos", "heldout"])
    with pytest.raises(ValueError, match="held-out"):
        collect("heldout")
