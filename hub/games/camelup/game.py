"""A game as a log of events with push/pop-style undo (after python-chess's Board).

``Game.play`` checks an action against the rules, appends the events it causes to the log and
folds them into the state. ``undo`` pops the last action's events; ``Game.replay`` rebuilds a game
from a stored log. The bookkeeping is the shell every game of the table shares
(``hub.games.common.EventSourcedGame``), with what both editions do alike in
``hub.games.camelup_common.CamelUpGame``, which starts a new game; this module adds the
first edition's setup.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from ..camelup_common import CamelUpGame, bad_face, check_stacks
from .actions import parse_action
from .errors import IllegalAction
from .model import COLOURS, FACES, MAX_PLAYERS, MIN_PLAYERS
from .rules import apply, legal_actions
from .state import ACTION_EVENTS, GameState, fold, initial


def setup_track(roll: Sequence[tuple[str, int]]) -> dict[int, tuple[str, ...]]:
    """The starting track from the setup roll: each camel on its die's face, in roll order."""
    colours = [c for c, _ in roll]
    if sorted(colours) != sorted(COLOURS):
        raise IllegalAction(
            "bad_setup",
            "The setup roll needs each of the five dice exactly "
            f"once, got {', '.join(map(str, colours)) or 'nothing'}.",
        )
    track: dict[int, tuple[str, ...]] = {}
    for colour, face in roll:
        if face not in FACES:
            raise bad_face(face)
        track[face] = track.get(face, ()) + (colour,)
    return track


def check_track(track: Mapping[Any, Sequence[str]]) -> dict[int, tuple[str, ...]]:
    """A validated copy of a track given as {space: [colours bottom to top]}."""
    return check_stacks(track, COLOURS, "five", lambda c: f"{c!r} is not a camel colour.")


def check_players(players: Sequence[str]) -> list[str]:
    names = [str(p).strip() for p in players]
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise IllegalAction(
            "bad_setup",
            f"Camel Up is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(names)}.",
        )
    if any(not n for n in names) or len(set(names)) != len(names):
        raise IllegalAction("bad_setup", "Every player needs a name, and no two the same.")
    return names


def random_setup(seed: int | str | None) -> dict[int, tuple[str, ...]]:
    """The starting track rolled from ``seed`` (the same seed, the same track)."""
    rng = random.Random(f"camelup/{seed}/setup")
    order = list(COLOURS)
    rng.shuffle(order)
    return setup_track([(c, rng.choice(FACES)) for c in order])


SetupRoll = Sequence[tuple[str, int]]


class Game(CamelUpGame[GameState, SetupRoll]):
    """One game of Camel Up: its log, its current state, and undo (the shell is shared).

    ``Game.new(players, seed=, setup=, track=, first_player=)``: ``setup`` is the setup roll
    observed, each camel with its die's face in the order read."""

    _ACTION_STARTS = ACTION_EVENTS
    _apply = staticmethod(fold)
    _initial = staticmethod(initial)
    _parse = staticmethod(parse_action)
    _rules = staticmethod(apply)
    _legal = staticmethod(legal_actions)
    _check_players = staticmethod(check_players)
    _check_track = staticmethod(check_track)
    _setup_track = staticmethod(setup_track)
    _random_setup = staticmethod(random_setup)
