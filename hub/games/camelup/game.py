"""A game as a log of events with push/pop-style undo (after python-chess's Board).

``Game.play`` checks an action against the rules, appends the events it causes to the log and
folds them into the state. ``undo`` pops the last action's events; ``Game.replay`` rebuilds a game
from a stored log. The bookkeeping is the shell every game of the table shares
(``hub.games.common.EventSourcedGame``); this module adds Camel Up's setup.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..common import EventSourcedGame
from .actions import Action, parse_action
from .errors import IllegalAction
from .model import COLOURS, FACES, MAX_PLAYERS, MIN_PLAYERS, SPACES
from .rules import Event, apply, legal_actions
from .state import ACTION_EVENTS, GameState, fold


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
            raise IllegalAction("bad_face", f"A Camel Up die shows 1, 2 or 3, not {face!r}.")
        track[face] = track.get(face, ()) + (colour,)
    return track


def check_track(track: Mapping[Any, Sequence[str]]) -> dict[int, tuple[str, ...]]:
    """A validated copy of a track given as {space: [colours bottom to top]}."""
    return check_stacks(track, COLOURS, "five", lambda c: f"{c!r} is not a camel colour.")


def check_stacks(
    track: Mapping[Any, Sequence[str]],
    camels: Sequence[str],
    count: str,
    unknown: Callable[[str], str],
) -> dict[int, tuple[str, ...]]:
    """A validated copy of a track {space: [camels bottom to top]} holding each of ``camels``
    (``count`` of them, in words) once, on spaces 1..16; IllegalAction("bad_setup") if not,
    with ``unknown(camel)`` as the sentence for a camel the edition does not have."""
    out: dict[int, tuple[str, ...]] = {}
    seen: list[str] = []
    for raw_space, stack in track.items():
        try:
            space = int(raw_space)
        except (TypeError, ValueError):
            raise IllegalAction("bad_setup", f"{raw_space!r} is not a space number.") from None
        if not 1 <= space <= SPACES:
            raise IllegalAction("bad_setup", f"Space {space} is not on the track (1 to {SPACES}).")
        for camel in stack:
            if camel not in camels:
                raise IllegalAction("bad_setup", unknown(camel))
        seen += list(stack)
        if stack:
            out[space] = tuple(stack)
    if sorted(seen) != sorted(camels):
        raise IllegalAction(
            "bad_setup",
            f"The track must hold each of the {count} camels exactly "
            f"once, got {', '.join(seen) or 'none'}.",
        )
    return out


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


class Game(EventSourcedGame[GameState]):
    """One game of Camel Up: its log, its current state, and undo (the shell is shared)."""

    _ACTION_STARTS = ACTION_EVENTS

    _apply = staticmethod(fold)

    def __init__(self, start_event: Event) -> None:
        super().__init__([start_event], fold(None, start_event))

    @staticmethod
    def _initial(event: Event) -> GameState:
        return fold(None, event)

    def _decide(self, state: GameState, action: Action | str, player: str | None) -> list[Event]:
        if isinstance(action, str):
            action = parse_action(action)
        return apply(state, action, player)

    @classmethod
    def new(
        cls,
        players: Sequence[str],
        *,
        seed: int | str | None = None,
        setup: Sequence[tuple[str, int]] | None = None,
        track: Mapping[Any, Sequence[str]] | None = None,
        first_player: int | str = 0,
    ) -> Game:
        """Start a game: the setup roll observed (``setup``), a track, or rolled from ``seed``."""
        names = check_players(players)
        if track is not None:
            start = check_track(track)
        elif setup is not None:
            start = setup_track(setup)
        else:
            rng = random.Random(f"camelup/{seed}/setup")
            order = list(COLOURS)
            rng.shuffle(order)
            start = setup_track([(c, rng.choice(FACES)) for c in order])
        if isinstance(first_player, str):
            if first_player not in names:
                raise IllegalAction(
                    "unknown_player", f"There is no player called {first_player!r}."
                )
            first_player = names.index(first_player)
        if not 0 <= first_player < len(names):
            raise IllegalAction("bad_setup", f"No player number {first_player}.")
        event = {
            "type": "game_started",
            "players": names,
            "track": {str(s): list(st) for s, st in sorted(start.items())},
            "first_player": first_player,
            "seed": seed,
        }
        return cls(event)

    @classmethod
    def replay(cls, events: Iterable[Event]) -> Game:
        """Rebuild a game from its log; the state is exactly the one the log folds to."""
        events = list(events)
        game = cls(events[0])
        game._load(events)
        return game

    @property
    def finished(self) -> bool:
        return self.state.finished

    @property
    def current_player(self) -> str | None:
        s = self.state
        return None if s.current is None else s.players[s.current].name

    def legal_actions(self) -> list[Action]:
        return legal_actions(self.state)
