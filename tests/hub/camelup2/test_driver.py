"""The second edition at the table: started, played, undone and rebuilt through the hub's
session, with its secrets kept and the grey die's choice published."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hub.session import TableSession
from tests.hub._hubkit import TABLE, Tables, open_tables

TRACK = {
    "1": ["blue"],
    "2": ["green"],
    "3": ["yellow"],
    "5": ["black", "red"],
    "9": ["purple"],
    "14": ["white"],
}


@pytest.fixture
def tables(tmp_path: Path) -> Iterator[Tables]:
    yield from open_tables(tmp_path)


def ask(s: TableSession, cmd: str, payload: dict[str, Any], auth: Any = TABLE) -> dict[str, Any]:
    answer = s.request(cmd, payload, auth)
    assert answer["ok"], answer
    return answer


def start(s: TableSession) -> dict[str, Any]:
    return ask(
        s, "start_game", {"game": "camelup2", "players": ["Ann", "Bob", "Cy"], "setup": TRACK}
    )


def test_a_second_edition_game_is_played_undone_and_rebuilt_after_a_restart(tables):
    s = tables.session()
    started = start(s)
    assert started["game"] == "camelup2"
    answer = ask(s, "action", {"player": "Ann", "action": "roll:grey:white:2"})
    read = answer["events"][0]
    # black carries red: the only carrier moves, whatever the numeral's colour
    assert (read["camel"], read["why"]) == ("black", "only_carrier")
    view = s.snapshot()["game"]
    assert view["game"] == "camelup2" and view["track"]["3"] == ["yellow", "black", "red"]
    assert view["dice_rolled"][0]["why"] == "only_carrier"
    ask(s, "action", {"player": "Bob", "action": "bet:winner:purple"})
    ask(s, "action", {"player": "Cy", "action": "spectator:7:booing"})
    ask(s, "undo", {})
    assert s.snapshot()["game"]["spectators"] == {}
    ask(s, "action", {"player": "Cy", "action": "spectator:8:cheering"})
    before = s.snapshot()["game"]
    again = tables.session()  # a hub restarting on the same log
    assert again.snapshot()["game"] == before
    assert "purple" not in str(before["overall"])  # the bet's colour stays secret
    mine = again.player_snapshot(started["tokens"]["Bob"])["game"]
    assert mine["my_bets"] == [{"pile": "winner", "colour": "purple"}]


def test_refusals_come_back_with_the_engine_reason_and_change_nothing(tables):
    s = tables.session()
    start(s)
    seq = s.seq
    answer = s.request("action", {"player": "Ann", "action": "spectator:1:booing"}, TABLE)
    assert not answer["ok"] and answer["reason"] == "spectator_space_one"
    answer = s.request("action", {"player": "Ann", "action": "partner:Bob"}, TABLE)
    assert not answer["ok"] and answer["reason"] == "no_partner_play"
    answer = s.request(
        "start_game", {"game": "camelup2", "players": ["Ann", "Bob"], "abandon": True}, TABLE
    )
    assert not answer["ok"]
    assert s.snapshot()["game"]["players"] == ["Ann", "Bob", "Cy"]
    assert s.seq >= seq


def test_the_odds_and_advice_of_a_second_edition_table(tmp_path):
    tables = Tables(tmp_path / "hub.db")
    try:
        s = tables.session(odds=True, advice=True)
        start(s)
        ask(s, "action", {"player": "Ann", "action": "roll:blue:3"})
        derived = s.driver.derived(s.game.state, "Bob", True, True)
        odds = derived["odds"]
        assert odds["edition"] == 2 and set(odds["leg"]) == {
            "blue",
            "green",
            "yellow",
            "red",
            "purple",
        }
        assert sum(v["first"] for v in odds["leg"].values()) == pytest.approx(1.0)
        assert odds["race_method"]["standard_error"] <= 0.005
        assert len(derived["advice"]) == 5
        assert all("action" in a and "why" in a for a in derived["advice"])
    finally:
        tables.close()


def test_the_demo_bots_play_the_second_edition_at_the_table(tables):
    from firmware.demo_games import OtherGameBots, demo_players

    s = tables.session()
    names = demo_players(["Ada", "Bo", "Cy", "Di", "Eli", "Fay", "Gus", "Hal", "Ivy"], "camelup2")
    assert len(names) == 8
    ask(s, "start_game", {"game": "camelup2", "players": names[:4], "seed": 9})
    bots = OtherGameBots(s, seed=9, auth=TABLE, seat="Di")
    played = 0
    while s.game.current_player != "Di" and played < 40:
        assert bots.step()
        played += 1
    assert bots.refusals == 0 and bots.moves == played > 0
    assert not bots.step()  # Di's turn: the bots wait for the person


def test_the_camera_reads_the_second_editions_dice_and_a_person_names_the_grey_numeral(tables):
    """Issue 16: a confident racing die is released as read; the grey die and a doubtful
    reading wait for a person (the grey die's numeral colour is theirs to say); bad answers
    change nothing; a die released by hand closes an open reading."""
    s = tables.session()
    start(s)
    read = ask(s, "observe_die", {"colour": "red", "face": 2, "confidence": 0.97})
    assert read["events"][0]["type"] == "die_read"
    assert s.snapshot()["game"]["dice_rolled"][-1]["die"] == "red"
    grey = ask(s, "observe_die", {"colour": "grey", "face": 3, "confidence": 0.95})
    assert grey["uncertain"] and "black or white" in grey["problems"][0]
    seq = s.seq
    assert (
        s.request("confirm", {"prompt": grey["prompt"], "accept": True}, TABLE)["reason"]
        == "bad_payload"
    )  # no shade: nothing played
    assert (
        s.request("confirm", {"prompt": grey["prompt"], "colour": "pink", "face": 3}, TABLE)[
            "reason"
        ]
        == "bad_colour"
    )
    assert s.seq == seq
    done = ask(s, "confirm", {"prompt": grey["prompt"], "accept": True, "shade": "white"})
    assert done["events"][0]["type"] == "die_read"
    assert s.snapshot()["game"]["dice_rolled"][-1]["die"] == "grey"
    assert s.snapshot()["pending"] == []
    unsure = ask(s, "observe_die", {"colour": "red", "face": 1, "confidence": 0.99})
    assert unsure["uncertain"] and "already rolled" in unsure["problems"][0]
    ask(s, "action", {"player": s.snapshot()["game"]["current_player"], "action": "roll:blue:1"})
    assert s.snapshot()["pending"] == []  # the die entered by hand answers the reading


APART = {  # neither crazy camel carries a racing camel: the numeral's shade names the one moved
    "1": ["blue"],
    "2": ["green"],
    "3": ["yellow"],
    "4": ["red"],
    "9": ["purple"],
    "14": ["white"],
    "16": ["black"],
}


def test_the_grey_dies_shade_read_by_the_camera_moves_its_crazy_camel_or_is_asked(tables):
    """Issue 16: the reader's shade, when it is sure, is played as read (the crazy camel it
    names moves); a doubtful or missing shade is asked of a person, who may correct it; a
    shade that is not black or white is refused and changes nothing."""
    s = tables.session()
    ask(s, "start_game", {"game": "camelup2", "players": ["Ann", "Bob", "Cy"], "setup": APART})
    seq = s.seq
    bad = s.request(
        "observe_die",
        {"colour": "grey", "face": 2, "confidence": 0.97, "shade": "grey"},
        TABLE,
    )
    assert not bad["ok"] and "black or white" in bad["error"]
    bad = s.request(
        "observe_die",
        {"colour": "grey", "face": 2, "confidence": 0.97, "shade": "white", "shade_confidence": 2},
        TABLE,
    )
    assert not bad["ok"] and s.seq == seq and s.snapshot()["pending"] == []
    sure = ask(
        s,
        "observe_die",
        {
            "colour": "grey",
            "face": 2,
            "confidence": 0.97,
            "shade": "white",
            "shade_confidence": 0.99,
        },
    )
    read = sure["events"][0]
    assert read["type"] == "die_read" and (read["camel"], read["why"]) == ("white", "colour")
    assert s.snapshot()["game"]["track"]["12"] == ["white"]  # 14 back by 2
    ask(s, "undo", {})
    doubt = ask(
        s,
        "observe_die",
        {"colour": "grey", "face": 1, "confidence": 0.9, "shade": "black", "shade_confidence": 0.5},
    )
    assert doubt["uncertain"] and "looks black, but not surely" in doubt["problems"][0]
    pending = s.snapshot()["pending"]
    assert len(pending) == 1 and s.snapshot()["game"]["track"]["16"] == ["black"]
    done = ask(s, "confirm", {"prompt": doubt["prompt"], "accept": True, "shade": "white"})
    assert (done["events"][0]["camel"], s.snapshot()["game"]["track"]["13"]) == ("white", ["white"])
    abstained = ask(
        s,
        "observe_die",
        {
            "colour": "grey",
            "face": None,
            "confidence": 0.0,
            "shade": None,
            "reason": "the numeral is neither clearly lighter nor darker than the die",
        },
    )
    assert abstained["uncertain"]
