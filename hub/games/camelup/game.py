"""A game as a log of events with push/pop-style undo (after python-chess's Board).

``Game.play`` checks an action against the rules, appends the events it causes to the log and
folds them into the state. ``undo`` pops the last action's events; ``Game.replay`` rebuilds a game
from a stored log. The stack of states makes undo O(1) and keeps replay the one source of truth.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .actions import Action, parse_action
from .errors import IllegalAction
from .model import COLOURS, FACES, MAX_PLAYERS, MIN_PLAYERS, SPACES
from .rules import Event, apply, legal_actions
from .state import ACTION_EVENTS, GameState, fold


def setup_track(roll: Sequence[tuple[str, int]]) -> dict[int, tuple[str, ...]]:
    """The starting track from the setup roll: each camel on its die's face, stacked in roll order."""
    colours = [c for c, _ in roll]
    if sorted(colours) != sorted(COLOURS):
        raise IllegalAction("bad_setup", "The setup roll needs each of the five dice exactly "
                            f"once, got {', '.join(map(str, colours)) or 'nothing'}.")
    track: dict[int, tuple[str, ...]] = {}
    for colour, face in roll:
        if face not in FACES:
            raise IllegalAction("bad_face", f"A Camel Up die shows 1, 2 or 3, not {face!r}.")
        track[face] = track.get(face, ()) + (colour,)
    return track


def check_track(track: Mapping[Any, Sequence[str]]) -> dict[int, tuple[str, ...]]:
    """A validated copy of a track given as {space: [colours bottom to top]}."""
    out: dict[int, tuple[str, ...]] = {}
    seen: list[str] = []
    for raw_space, stack in track.items():
        try:
            space = int(raw_space)
        except (TypeError, ValueError):
            raise IllegalAction("bad_setup", f"{raw_space!r} is not a space number.") from None
        if not 1 <= space <= SPACES:
            raise IllegalAction("bad_setup", f"Space {space} is not on the track (1 to {SPACES}).")
        for colour in stack:
            if colour not in COLOURS:
                raise IllegalAction("bad_setup", f"{colour!r} is not a camel colour.")
        seen += list(stack)
        if stack:
            out[space] = tuple(stack)
    if sorted(seen) != sorted(COLOURS):
        raise IllegalAction("bad_setup", "The track must hold each of the five camels exactly "
                            f"once, got {', '.join(seen) or 'none'}.")
    return out


def check_players(players: Sequence[str]) -> list[str]:
    names = [str(p).strip() for p in players]
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise IllegalAction("bad_setup", f"Camel Up is for {MIN_PLAYERS} to {MAX_PLAYERS} "
                            f"players, not {len(names)}.")
    if any(not n for n in names) or len(set(names)) != len(names):
        raise IllegalAction("bad_setup", "Every player needs a name, and no two the same.")
    return names


class Game:
    """One game of Camel Up: its log, its current state, and undo."""

    def __init__(self, start_event: Event) -> None:
        self._log: list[Event] = [start_event]
        self._states: list[GameState] = [fold(None, start_event)]
        self._marks: list[int] = []  # log length before each action, for undo

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
        """Start a game: the setup roll observed (``setup``), a track given, or rolled from ``seed``."""
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
                raise IllegalAction("unknown_player", f"There is no player called {first_player!r}.")
            first_player = names.index(first_player)
        if not 0 <= first_player < len(names):
            raise IllegalAction("bad_setup", f"No player number {first_player}.")
        event = {"type": "game_started", "players": names,
                 "track": {str(s): list(st) for s, st in sorted(start.items())},
                 "first_player": first_player, "seed": seed}
        return cls(event)

    @classmethod
    def replay(cls, events: Iterable[Event]) -> Game:
        """Rebuild a game from its log; the state is exactly the one the log folds to."""
        it = iter(events)
        game = cls(next(it))
        for event in it:
            if event["type"] in ACTION_EVENTS:
                game._marks.append(len(game._log))
            game._log.append(event)
            game._states.append(fold(game._states[-1], event))
        return game

    @property
    def state(self) -> GameState:
        return self._states[-1]

    @property
    def log(self) -> list[Event]:
        return list(self._log)

    @property
    def finished(self) -> bool:
        return self.state.finished

    @property
    def current_player(self) -> str | None:
        s = self.state
        return None if s.current is None else s.players[s.current].name

    def legal_actions(self) -> list[Action]:
        return legal_actions(self.state)

    def check(self, action: Action | str, player: str | None = None) -> list[Event]:
        """The events ``action`` would cause, without playing it (raises if it is illegal)."""
        if isinstance(action, str):
            action = parse_action(action)
        return apply(self.state, action, player)

    def play(self, action: Action | str, player: str | None = None) -> list[Event]:
        """Play an action of the player to move; return the events it caused."""
        events = self.check(action, player)
        self._marks.append(len(self._log))
        state = self.state
        for event in events:
            state = fold(state, event)
            self._log.append(event)
            self._states.append(state)
        return events

    def undo(self) -> list[Event]:
        """Take back the last action with every event it caused; return those events."""
        if not self._marks:
            raise IllegalAction("nothing_to_undo", "There is nothing to undo.")
        mark = self._marks.pop()
        removed = self._log[mark:]
        del self._log[mark:]
        del self._states[mark:]
        return removed
