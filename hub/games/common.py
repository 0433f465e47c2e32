"""What the horse-race and Marco Polo II engines share: the refusal type and the event-sourced game
shell (play, undo, replay).

Both games follow the shape of the Camel Up engine so the hub can drive all three the same way:
an action is checked against the state, turned into a list of JSON-safe event dicts, and the state
is only ever the fold of those events. The shell below keeps that bookkeeping in one place so each
game only writes ``decide`` (state + action -> events) and ``apply`` (state + event -> state).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

Event = dict[str, Any]
S = TypeVar("S")


class IllegalAction(ValueError):
    """An action the rules refuse. ``reason`` is a stable machine code for the hub and tests;
    ``str(exc)`` is a sentence a player at the table understands. The state never changes when
    this is raised."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message

    def to_dict(self) -> dict[str, str]:
        return {"reason": self.reason, "error": self.message}


def check_player_names(players: Sequence[str], low: int, high: int) -> list[str]:
    """Validate a player list: ``low``..``high`` distinct, non-empty names without ``:`` or ``,``
    (both are separators in the action notation)."""
    names = list(players)
    if not low <= len(names) <= high:
        raise IllegalAction(
            "bad_players", f"This game needs {low} to {high} players, not {len(names)}."
        )
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise IllegalAction("bad_players", f"Player name {name!r} is empty.")
        if any(ch in name for ch in ":,;="):
            raise IllegalAction(
                "bad_players", f"Player name {name!r} may not contain ':', ',', ';' or '='."
            )
    if len(set(names)) != len(names):
        raise IllegalAction("bad_players", "Two players have the same name.")
    return names


class EventSourcedGame(Generic[S]):
    """The log, the undo stack and replay, for a game defined by three pure functions.

    ``_decide(state, action, player) -> list[Event]`` raises IllegalAction or returns the events;
    ``_apply(state, event) -> state`` folds one event; ``_initial(first_event) -> state`` builds
    the state from the game-started event. ``_ACTION_STARTS`` names the event types that begin an
    action (the others are consequences), which is how ``replay`` recovers undo boundaries from
    a bare event list.

    Like python-chess's move stack, the state before every action is kept, so undo is a pop.
    """

    _ACTION_STARTS: frozenset[str] = frozenset()

    def __init__(self, events: list[Event], state: S) -> None:
        self._log: list[Event] = list(events)
        self._state = state
        self._marks: list[int] = []  # log index where each undoable action begins
        self._stack: list[S] = []  # state before each undoable action

    # -- the game-specific part ------------------------------------------------------------
    @staticmethod
    def _apply(state: S, event: Event) -> S:  # pragma: no cover - abstract
        raise NotImplementedError

    @staticmethod
    def _initial(event: Event) -> S:  # pragma: no cover - abstract
        raise NotImplementedError

    def _decide(self, state: S, action: Any, player: str | None) -> list[Event]:
        raise NotImplementedError  # pragma: no cover - abstract

    # -- the shared part -------------------------------------------------------------------
    @property
    def state(self) -> S:
        return self._state

    @property
    def log(self) -> list[Event]:
        """Every event so far, in order (copies: callers cannot edit the truth)."""
        return [dict(e) for e in self._log]

    def check(self, action: Any, player: str | None = None) -> list[Event]:
        """The events ``action`` would cause, without playing it (raises if it is illegal)."""
        return self._decide(self._state, action, player)

    def play(self, action: Any, player: str | None = None) -> list[Event]:
        """Check ``action`` (by ``player`` if given) and apply it; return the events it caused."""
        events = self._decide(self._state, action, player)
        state = self._state
        for event in events:
            state = self._apply(state, event)
        self._stack.append(self._state)
        self._marks.append(len(self._log))
        self._log.extend(events)
        self._state = state
        return [dict(e) for e in events]

    def undo(self) -> list[Event]:
        """Take back the last action and every event it caused; return those events."""
        if not self._marks:
            raise IllegalAction("nothing_to_undo", "There is nothing to undo.")
        mark = self._marks.pop()
        removed = self._log[mark:]
        del self._log[mark:]
        self._state = self._stack.pop()
        return removed

    @classmethod
    def _fold(cls, events: Sequence[Event]) -> tuple[S, list[int], list[S]]:
        if not events:
            raise IllegalAction("bad_log", "An empty event log holds no game.")
        state = cls._initial(events[0])
        marks: list[int] = []
        stack: list[S] = []
        for i, event in enumerate(events[1:], start=1):
            if event.get("type") in cls._ACTION_STARTS:
                marks.append(i)
                stack.append(state)
            state = cls._apply(state, event)
        return state, marks, stack

    def _load(self, events: Sequence[Event]) -> None:
        self._state, self._marks, self._stack = self._fold(events)
        self._log = [dict(e) for e in events]


def fold(
    initial: Callable[[Event], S], apply: Callable[[S, Event], S], events: Sequence[Event]
) -> S:
    """Fold a whole log into a state (for callers that need no Game object)."""
    state = initial(events[0])
    for event in events[1:]:
        state = apply(state, event)
    return state
