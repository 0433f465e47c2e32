"""Hand-worked Camel Up odds: each expected value below is worked out in the comment beside it."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest

from hub.commands import odds as odds_command
from hub.commands._jsonlines import serve_lines
from hub.games.camelup.odds import (
    COLOURS,
    PositionError,
    leg_odds,
    position_odds,
    validate_position,
)
from tests.hub.camelup.reference_odds import reference_odds

REPO = Path(__file__).resolve().parents[3]


def leg_of(answer: dict, key: str) -> dict[str, float]:
    return {c: answer["leg"][c][key] for c in COLOURS}


def expect(got: dict[str, float], want: dict[str, F]) -> None:
    """Every colour's probability equals the hand-worked fraction (others zero)."""
    for c in COLOURS:
        assert got[c] == pytest.approx(float(want.get(c, 0)), abs=1e-12), c


def test_mirage_puts_the_unit_under_the_camels_there() -> None:
    # blue on 3 rolls: 1 -> on top of green on 4 (blue, green); 2 -> mirage on 5 -> back to 4
    # UNDER green (green, blue); 3 -> 6 alone (blue, green).
    track = {1: ["orange"], 2: ["yellow", "white"], 3: ["blue"], 4: ["green"]}
    a = position_odds(track, ["blue"], {5: "mirage"})
    expect(leg_of(a, "first"), {"blue": F(2, 3), "green": F(1, 3)})
    expect(leg_of(a, "second"), {"green": F(2, 3), "blue": F(1, 3)})
    assert a["desert_landings"] == {"5": pytest.approx(1 / 3)}
    assert a["game_ends_this_leg"] == 0.0


def test_mirage_back_onto_the_square_it_left_goes_under_the_camels_that_stayed() -> None:
    # blue and green ride on orange on 3; blue rolls 1 -> mirage on 4 -> back to 3 under orange:
    # stack (blue, green, orange), orange first, green second. Rolls 2, 3: (blue, green) ahead.
    track = {1: ["yellow"], 2: ["white"], 3: ["orange", "blue", "green"]}
    a = position_odds(track, ["blue"], {4: "mirage"})
    expect(leg_of(a, "first"), {"orange": F(1, 3), "green": F(2, 3)})
    expect(leg_of(a, "second"), {"green": F(1, 3), "blue": F(2, 3)})
    assert a["desert_landings"] == {"4": pytest.approx(1 / 3)}


def test_oasis_moves_one_on_and_on_top() -> None:
    # green rolls 1 -> oasis on 4 -> 5 on top of blue: green first, blue second; 2 -> 5 on top
    # too; 3 -> 6 alone ahead of blue. Green always first, blue always second.
    track = {1: ["orange", "yellow", "white"], 3: ["green"], 5: ["blue"]}
    a = position_odds(track, ["green"], {4: "oasis"})
    expect(leg_of(a, "first"), {"green": F(1)})
    expect(leg_of(a, "second"), {"blue": F(1)})
    assert a["desert_landings"] == {"4": pytest.approx(1 / 3)}


def test_oasis_on_16_crosses_the_line() -> None:
    # blue on 13 rolls 1 -> 14 (green leads on 15), 2 -> 15 on top of green, 3 -> oasis on 16
    # -> 17: the race is over, blue wins and orange (bottom of the rear stack) loses.
    track = {10: ["orange"], 11: ["yellow", "white"], 13: ["blue"], 15: ["green"]}
    a = position_odds(track, ["blue"], {16: "oasis"})
    expect(leg_of(a, "first"), {"blue": F(2, 3), "green": F(1, 3)})
    expect(leg_of(a, "second"), {"green": F(2, 3), "blue": F(1, 3)})
    assert a["game_ends_this_leg"] == pytest.approx(1 / 3)
    assert a["desert_landings"] == {"16": pytest.approx(1 / 3)}
    assert a["race"]["blue"]["win"] >= 1 / 3 - 1e-12
    assert a["race"]["orange"]["lose"] >= 1 / 3 - 1e-12


def test_a_stack_crossing_keeps_its_order_and_the_top_camel_wins() -> None:
    # blue carries green and orange from 15: a 1 stops on 16, a 2 or 3 crosses. Orange (top) is
    # first and green second either way; orange wins at once 2/3 of the time and white (alone on
    # 13, behind yellow on 14) is then last.
    track = {13: ["white"], 14: ["yellow"], 15: ["blue", "green", "orange"]}
    a = position_odds(track, ["blue"], {})
    expect(leg_of(a, "first"), {"orange": F(1)})
    expect(leg_of(a, "second"), {"green": F(1)})
    assert a["game_ends_this_leg"] == pytest.approx(2 / 3)
    ref = reference_odds(track, ["blue"], {}, with_race=True)
    for c in COLOURS:
        assert a["race"][c]["win"] == pytest.approx(float(ref["race"][c]["win"]), abs=1e-9)
        assert a["race"][c]["lose"] == pytest.approx(float(ref["race"][c]["lose"]), abs=1e-9)
    assert a["race"]["orange"]["win"] >= 2 / 3


def test_a_single_die_left_only_moves_that_camel() -> None:
    # yellow (alone on 2) rolls 1 -> 3 on top of white; 2 -> 4 alone ahead; 3 -> 5 alone ahead.
    track = {1: ["orange"], 3: ["blue", "green", "white"], 2: ["yellow"]}
    a = position_odds(track, ["yellow"], {})
    expect(leg_of(a, "first"), {"yellow": F(1)})
    expect(leg_of(a, "second"), {"white": F(1)})


def test_no_dice_left_is_the_current_ranking_and_the_table() -> None:
    track = {16: ["blue", "green", "orange", "yellow", "white"]}
    a = position_odds(track, [], {})
    expect(leg_of(a, "first"), {"white": F(1)})
    expect(leg_of(a, "second"), {"yellow": F(1)})
    assert a["game_ends_this_leg"] == 0.0
    # next leg: whichever die comes first carries white (on top) over the line, and blue (at the
    # bottom) is either left behind or crosses under everyone: white wins, blue loses.
    assert a["race"]["white"]["win"] == pytest.approx(1.0)
    assert a["race"]["blue"]["lose"] == pytest.approx(1.0)


def test_an_ended_race_is_the_known_result() -> None:
    track = {18: ["green", "blue"], 16: ["white"], 9: ["orange", "yellow"]}
    a = position_odds(track, ["white", "orange"], {})
    expect(leg_of(a, "first"), {"blue": F(1)})
    expect(leg_of(a, "second"), {"green": F(1)})
    assert a["game_ends_this_leg"] == 1.0
    expect({c: a["race"][c]["win"] for c in COLOURS}, {"blue": F(1)})
    expect({c: a["race"][c]["lose"] for c in COLOURS}, {"orange": F(1)})


def test_a_fresh_leg_matches_the_reference_and_sums_to_one() -> None:
    track = {1: ["blue", "green"], 2: ["orange"], 3: ["yellow", "white"]}
    desert = {5: "mirage", 7: "oasis"}
    a = position_odds(track, None, desert)
    ref = reference_odds(track, list(COLOURS), desert)
    for c in COLOURS:
        for key in ("first", "second"):
            assert a["leg"][c][key] == pytest.approx(float(ref["leg"][c][key]), abs=1e-12)
    for s, x in ref["desert_landings"].items():
        assert a["desert_landings"][s] == pytest.approx(float(x), abs=1e-12)
    assert sum(a["leg"][c]["first"] for c in COLOURS) == pytest.approx(1.0)
    assert sum(a["race"][c]["win"] for c in COLOURS) == pytest.approx(1.0)


def test_leg_odds_returns_arrays_and_race_only_on_request() -> None:
    track = {"1": ["blue", "green"], "2": ["orange"], "3": ["yellow", "white"]}
    o = leg_odds(track, ["blue", "white"], {"5": "mirage"})
    assert isinstance(o.first, np.ndarray) and o.first.shape == (5,)
    assert o.win is None and o.lose is None
    assert set(o.landings) == {5}
    r = leg_odds(track, ["blue", "white"], {"5": "mirage"}, race=True)
    assert r.win is not None and r.win.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(r.first, o.first)


BAD = [
    ({"1": ["blue", "green", "orange", "yellow", "pink"]}, None, None, "unknown colour 'pink'"),
    ({"1": ["blue", "green", "orange", "yellow"]}, None, None, "camel white is missing"),
    ({"1": ["blue", "green"], "2": ["blue", "orange", "yellow", "white"]}, None, None, "twice"),
    ({"0": ["blue", "green", "orange", "yellow", "white"]}, None, None, "off the track"),
    ({"20": ["blue", "green", "orange", "yellow", "white"]}, None, None, "off the track"),
    ({"x": ["blue", "green", "orange", "yellow", "white"]}, None, None, "not a space number"),
    ({"17": ["blue"], "18": ["green", "orange", "yellow", "white"]}, None, None, "finish"),
    ({"3": ["blue", "green", "orange", "yellow", "white"]}, ["red"], None, "unknown die"),
    ({"3": ["blue", "green", "orange", "yellow", "white"]}, ["blue", "blue"], None, "twice"),
    ({"3": ["blue", "green", "orange", "yellow", "white"]}, None, {"1": "oasis"}, "space 1"),
    ({"3": ["blue", "green", "orange", "yellow", "white"]}, None, {"3": "oasis"}, "under a camel"),
    ({"3": ["blue", "green", "orange", "yellow", "white"]}, None, {"5": "lake"}, "unknown side"),
    (
        {"3": ["blue", "green", "orange", "yellow", "white"]},
        None,
        {"5": "oasis", "6": "mirage"},
        "adjacent",
    ),
    ({"3": ["blue", "green", "orange", "yellow", "white"]}, None, {"17": "oasis"}, "off the track"),
    ("not a track", None, None, "must be an object"),
]


@pytest.mark.parametrize(("track", "dice", "desert", "words"), BAD)
def test_bad_positions_are_refused_with_a_sentence(track, dice, desert, words) -> None:
    with pytest.raises(PositionError, match=words):
        validate_position(track, dice, desert)
    with pytest.raises(ValueError):  # PositionError is a ValueError for callers that want that
        position_odds(track, dice, desert)


def test_the_command_answers_every_line_and_names_errors() -> None:
    good = {"track": {"3": ["blue", "green"], "4": ["orange", "yellow", "white"]}}
    lines = [
        json.dumps(good),
        "",
        "{not json",
        json.dumps({"track": {"3": ["blue"]}}),
        json.dumps({"track": good["track"], "desert": {"5": "mirage"}, "extra": 1}),
        json.dumps({**good, "dice_left": ["blue"], "desert": {"5": "mirage"}}),
    ]
    out = io.StringIO()
    errors = serve_lines(
        odds_command.answer, (PositionError,), io.StringIO("\n".join(lines) + "\n"), out
    )
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    assert errors == 3 and len(answers) == 5
    assert set(answers[0]) == {"leg", "game_ends_this_leg", "race", "desert_landings"}
    assert answers[1] == {"error": answers[1]["error"], "line": 3}
    assert "not valid JSON" in answers[1]["error"]
    assert answers[2]["line"] == 4 and "missing" in answers[2]["error"]
    assert answers[3]["line"] == 5 and "'extra'" in answers[3]["error"]
    assert answers[4]["desert_landings"] == {"5": pytest.approx(1 / 3)}


def test_pyramid_odds_runs_as_a_process() -> None:
    line = json.dumps({"track": {"1": ["blue", "green", "orange", "yellow", "white"]}})
    proc = subprocess.run(
        [sys.executable, "-m", "hub.cli", "odds"],
        input=line + "\nnot json\n" + line + "\n",
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(x) for x in proc.stdout.splitlines()]
    assert len(out) == 3 and "error" in out[1] and out[0] == out[2]
    assert sum(out[0]["race"][c]["win"] for c in COLOURS) == pytest.approx(1.0)


def test_edition_1_adds_the_leg_order_and_the_winner_loser_pairs() -> None:
    # an ended race (the unit on 18 crossed): blue on top won, orange at the back lost, for sure
    track = {"18": ["green", "blue"], "16": ["white"], "9": ["orange", "yellow"]}
    a = odds_command.answer({"edition": 1, "track": track, "dice_left": ["white"]})
    assert a["race_pairs"]["blue"]["orange"] == 1.0
    assert sum(p for w in COLOURS for p in a["race_pairs"][w].values()) == pytest.approx(1.0)
    assert a["leg_order"]["blue"] == [1.0, 0.0, 0.0, 0.0, 0.0]
    assert a["leg_order"]["yellow"][3] == 1.0 and a["leg_order"]["orange"][4] == 1.0
    # without "edition" the answer keeps its old shape
    assert "race_pairs" not in odds_command.answer({"track": track})
