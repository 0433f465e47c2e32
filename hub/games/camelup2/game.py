"""A second-edition game as a log of events with undo and replay (the shell both editions share,
``hub.games.camelup_common.CamelUpGame``), plus the second edition's setup.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from ..camelup_common import CamelUpGame, bad_face, check_stacks
from ..common import check_player_names
from .actions import parse_action
from .errors import IllegalAction
from .model import CAMELS, CRAZY, FACES, MAX_PLAYERS, MIN_PLAYERS, RACING, setup_space
from .rules import apply, legal_actions
from .state import ACTION_EVENTS, GameState, fold, initial


def setup_track(
    racing_roll: Sequence[tuple[str, int]], crazy_roll: Sequence[tuple[str, int]]
) -> dict[int, tuple[str, ...]]:
    """The starting track from the setup rolls.

    racing_roll: each racing camel with its die's face (space 1-3), in the order read (later on
    top). crazy_roll: each crazy camel with the grey die's number (1 -> 16, 2 -> 15, 3 -> 14;
    the numeral's colour is ignored), in the order placed: on the same space the second goes on
    top.
    """
    colours = [c for c, _ in racing_roll]
    if sorted(colours) != sorted(RACING):
        raise IllegalAction(
            "bad_setup",
            "The setup roll needs each of the five racing dice "
            f"exactly once, got {', '.join(map(str, colours)) or 'nothing'}.",
        )
    crazies = [c for c, _ in crazy_roll]
    if sorted(crazies) != sorted(CRAZY):
        raise IllegalAction(
            "bad_setup",
            "The setup places each crazy camel (black, white) "
            f"exactly once, got {', '.join(map(str, crazies)) or 'nothing'}.",
        )
    track: dict[int, tuple[str, ...]] = {}
    for colour, face in racing_roll:
        if face not in FACES:
            raise bad_face(face)
        track[face] = track.get(face, ()) + (colour,)
    for camel, face in crazy_roll:
        if face not in FACES:
            raise bad_face(face, "The grey die")
        space = setup_space(face)
        track[space] = track.get(space, ()) + (camel,)
    return track


def check_track(track: Mapping[Any, Sequence[str]]) -> dict[int, tuple[str, ...]]:
    """A validated copy of a track {space: [camels bottom to top]} holding all seven camels."""
    return check_stacks(
        track,
        CAMELS,
        "seven",
        lambda c: f"{c!r} is not a camel of the second edition ({', '.join(CAMELS)}).",
    )


def random_setup(seed: int | str | None) -> dict[int, tuple[str, ...]]:
    """The starting track rolled from ``seed`` (the same seed, the same track)."""
    rng = random.Random(f"camelup2/{seed}/setup")
    order = list(RACING)
    rng.shuffle(order)
    crazy = list(CRAZY)
    rng.shuffle(crazy)
    return setup_track(
        [(c, rng.choice(FACES)) for c in order], [(c, rng.choice(FACES)) for c in crazy]
    )


RacingRoll = Sequence[tuple[str, int]]
CrazyRoll = Sequence[tuple[str, int]]


def _setup_rolls(setup: tuple[RacingRoll, CrazyRoll]) -> dict[int, tuple[str, ...]]:
    return setup_track(*setup)


def _check_players(players: Sequence[str]) -> list[str]:
    return check_player_names(players, MIN_PLAYERS, MAX_PLAYERS)


class Game(CamelUpGame[GameState, tuple[RacingRoll, CrazyRoll]]):
    """One game of Camel Up (second edition): its log, its state, undo and replay.

    ``Game.new(players, seed=, setup=, track=, first_player=)``: ``setup`` is the pair of setup
    rolls observed, (racing roll, crazy roll), as :func:`setup_track` takes them."""

    _ACTION_STARTS = ACTION_EVENTS
    _START_KEYS = {"edition": 2}
    _apply = staticmethod(fold)
    _initial = staticmethod(initial)
    _parse = staticmethod(parse_action)
    _rules = staticmethod(apply)
    _legal = staticmethod(legal_actions)
    _check_players = staticmethod(_check_players)
    _check_track = staticmethod(check_track)
    _setup_track = staticmethod(_setup_rolls)
    _random_setup = staticmethod(random_setup)
