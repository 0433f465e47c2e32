"""Exact leg odds of the second edition against the plain fraction enumerator, and their shape."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from hub.games.camelup2.model import CAMELS, DICE, RACING
from hub.games.camelup2.odds import PositionError, position_odds, validate_position

from .reference_odds import leg_odds as reference


def random_position(rng: random.Random, n_dice: int) -> tuple[dict, list, dict]:
    track: dict[int, list[str]] = {}
    camels = list(CAMELS)
    rng.shuffle(camels)
    for camel in camels:
        space = rng.choice([s for s in range(1, 17)] + list(track) * 2)
        track.setdefault(space, []).append(camel)
    tiles: dict[int, str] = {}
    for _ in range(rng.randint(0, 4)):
        s = rng.randint(2, 16)
        if s not in track and not {s - 1, s, s + 1} & set(tiles):
            tiles[s] = rng.choice(["cheering", "booing"])
    dice = rng.sample(list(DICE), n_dice)
    return track, dice, tiles


@pytest.mark.parametrize("seed", range(14))
def test_fast_leg_odds_equal_the_exact_fractions(seed):
    rng = random.Random(seed)
    track, dice, tiles = random_position(rng, 3 if seed % 3 else 4)
    if seed % 2:
        dice = [d for d in dice if d != "grey"][:2] + ["grey"]
    fast = position_odds(track, dice, tiles, race=False)
    places, fwd, bwd, land = reference(track, dice, tiles)
    for c in RACING:
        for r in range(5):
            assert fast["leg_order"][c][r] == pytest.approx(float(places.get((c, r), 0)), abs=1e-12)
    assert fast["ends_by"]["forward"] == pytest.approx(float(fwd), abs=1e-12)
    assert fast["ends_by"]["backward"] == pytest.approx(float(bwd), abs=1e-12)
    for s in tiles:
        assert fast["spectator_landings"][str(s)] == pytest.approx(
            float(land.get(s, Fraction(0))), abs=1e-12
        )


def test_near_the_line_both_crossings_have_the_exact_chance():
    track = {
        1: ["white", "red"],
        2: ["blue"],
        15: ["green"],
        16: ["yellow", "purple"],
        3: ["black"],
    }
    dice = ["grey", "yellow", "green"]
    fast = position_odds(track, dice, {}, race=False)
    _, fwd, bwd, _ = reference(track, dice, {})
    assert fwd > 0 and bwd > 0
    assert fast["ends_by"]["forward"] == pytest.approx(float(fwd), abs=1e-12)
    assert fast["ends_by"]["backward"] == pytest.approx(float(bwd), abs=1e-12)


def test_the_issue_example_answers_in_its_shape_and_sums_to_one():
    out = position_odds(
        {
            "1": ["red", "blue"],
            "2": ["green"],
            "3": ["yellow", "purple"],
            "14": ["white"],
            "16": ["black"],
        },
        ["blue", "green", "yellow", "red", "purple", "grey"],
        {"5": "booing"},
    )
    assert set(out["leg"]) == set(RACING)
    assert sum(v["first"] for v in out["leg"].values()) == pytest.approx(1.0)
    assert sum(v["second"] for v in out["leg"].values()) == pytest.approx(1.0)
    assert out["game_ends_this_leg"] == pytest.approx(
        out["ends_by"]["forward"] + out["ends_by"]["backward"]
    )
    assert 0 < out["spectator_landings"]["5"] < 5
    assert sum(v["win"] for v in out["race"].values()) == pytest.approx(1.0)
    assert sum(v["lose"] for v in out["race"].values()) == pytest.approx(1.0)
    assert out["race_method"]["standard_error"] <= 0.005
    pairs = sum(x for row in out["race_pairs"].values() for x in row.values())
    assert pairs == pytest.approx(1.0)
    for c in RACING:
        assert sum(out["leg_order"][c]) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("track", "dice", "tiles", "words"),
    [
        (
            {"1": ["red", "blue", "green", "yellow", "purple"], "14": ["white"]},
            None,
            None,
            "black is missing",
        ),
        (
            {"1": ["red", "blue", "green", "yellow", "orange"], "14": ["white", "black"]},
            None,
            None,
            "orange is a first-edition camel",
        ),
        (
            {"1": ["red", "blue", "green", "yellow", "purple", "red"], "14": ["white", "black"]},
            None,
            None,
            "twice",
        ),
        (
            {"1": ["red", "blue", "green", "yellow", "purple"], "14": ["white", "black"]},
            ["black"],
            None,
            "no black die",
        ),
        (
            {"1": ["red", "blue", "green", "yellow", "purple"], "14": ["white", "black"]},
            ["grey", "grey"],
            None,
            "listed twice",
        ),
        (
            {"1": ["red", "blue", "green", "yellow", "purple"], "14": ["white", "black"]},
            [],
            None,
            "one die always stays",
        ),
        (
            {"1": ["red", "blue", "green", "yellow", "purple"], "14": ["white", "black"]},
            None,
            {"1": "cheering"},
            "space 1",
        ),
        (
            {"1": ["red", "blue", "green", "yellow", "purple"], "14": ["white", "black"]},
            None,
            {"14": "booing"},
            "under a camel",
        ),
        (
            {"1": ["red", "blue", "green", "yellow", "purple"], "14": ["white", "black"]},
            None,
            {"5": "booing", "6": "cheering"},
            "adjacent",
        ),
        (
            {"1": ["red", "blue", "green", "yellow", "purple"], "14": ["white", "black"]},
            None,
            {"5": "oasis"},
            "cheering or booing",
        ),
        (
            {"1": ["red", "blue", "green", "yellow", "purple"], "24": ["white", "black"]},
            None,
            None,
            "off the track",
        ),
    ],
)
def test_bad_positions_are_refused_with_a_reason(track, dice, tiles, words):
    with pytest.raises(PositionError, match=words):
        validate_position(track, dice, tiles)


def test_a_fresh_leg_of_six_dice_five_out_equals_the_exact_fractions():
    track = {
        1: ["red", "blue"],
        2: ["green"],
        3: ["yellow", "purple"],
        14: ["white"],
        16: ["black"],
    }
    dice = ["blue", "green", "yellow", "red", "purple", "grey"]
    fast = position_odds(track, dice, {5: "booing", 9: "cheering"}, race=False)
    places, fwd, bwd, land = reference(track, dice, {5: "booing", 9: "cheering"})
    for c in RACING:
        for r in range(5):
            assert fast["leg_order"][c][r] == pytest.approx(float(places.get((c, r), 0)), abs=1e-12)
    assert fast["spectator_landings"]["5"] == pytest.approx(float(land[5]), abs=1e-12)
    assert fast["spectator_landings"]["9"] == pytest.approx(float(land[9]), abs=1e-12)
    assert fast["game_ends_this_leg"] == pytest.approx(float(fwd + bwd), abs=1e-12)


def test_pyramid_odds_answers_both_editions_line_by_line():
    import io
    import json

    from hub.commands._jsonlines import serve_lines
    from hub.commands.odds import answer
    from hub.games.camelup.odds import PositionError as PositionError1

    lines = [
        {
            "edition": 2,
            "track": {
                "1": ["red", "blue"],
                "2": ["green"],
                "3": ["yellow", "purple"],
                "14": ["white"],
                "16": ["black"],
            },
            "dice_left": ["blue", "green", "yellow", "red", "purple", "grey"],
            "spectators": {"5": "booing"},
        },
        {"track": {"1": ["blue"], "2": ["green", "orange"], "3": ["yellow", "white"]}},
        {"edition": 2, "track": {"1": ["red"]}},
        {"edition": 2, "track": {"1": ["blue"]}, "desert": {}},
        {"edition": 7, "track": {}},
    ]
    out = io.StringIO()
    failed = serve_lines(
        answer,
        (PositionError, PositionError1),
        stdin=io.StringIO("\n".join(json.dumps(x) for x in lines)),
        stdout=out,
    )
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    assert failed == 3
    assert set(answers[0]) >= {"leg", "game_ends_this_leg", "ends_by", "spectator_landings", "race"}
    assert set(answers[0]["leg"]) == set(RACING)
    assert "orange" in answers[1]["leg"] and "edition" not in answers[1]
    assert "missing" in answers[2]["error"]
    assert "desert" in answers[3]["error"]
    assert "edition must be 1 or 2" in answers[4]["error"]


def test_the_first_editions_leg_order_is_exact_and_only_added_when_asked():
    from hub.games.camelup.odds import position_odds as first_edition

    from ..camelup.reference_odds import COLOURS, freeze_desert, freeze_track, leg, ranking

    track = {1: ["blue"], 2: ["green", "orange"], 5: ["yellow"], 6: ["white"]}
    dice = ["blue", "orange", "white"]
    plain = first_edition(track, dice, {"4": "mirage"})
    assert "leg_order" not in plain and "race_pairs" not in plain
    out = first_edition(track, dice, {"4": "mirage"}, order=True)
    assert {k: v for k, v in out.items() if k not in ("leg_order", "race_pairs")} == plain
    for c in COLOURS:
        assert sum(out["leg_order"][c]) == pytest.approx(1.0)
        assert out["leg_order"][c][0] == pytest.approx(out["leg"][c]["first"])
    # against the first edition's exact-fraction enumerator: its end states, ranked
    *_, ends = leg(freeze_track(track), tuple(dice), freeze_desert({4: "mirage"}))
    exact = {(c, r): Fraction(0) for c in COLOURS for r in range(5)}
    for end, p in ends.items():
        for r, c in enumerate(ranking(end)):
            exact[(c, r)] += p
    for c in COLOURS:
        for r in range(5):
            assert out["leg_order"][c][r] == pytest.approx(float(exact[(c, r)]), abs=1e-12)


def test_pyramid_odds_edition_1_given_adds_the_leg_order():
    from hub.commands.odds import answer

    track = {"1": ["blue"], "2": ["green", "orange"], "3": ["yellow", "white"]}
    plain = answer({"track": track})
    extended = answer({"edition": 1, "track": track})
    assert "leg_order" not in plain
    assert set(extended) == set(plain) | {"leg_order", "race_pairs"}
    assert extended["leg_order"]["blue"][0] == pytest.approx(plain["leg"]["blue"]["first"])
