"""An edition's game: the event-sourced shell every game of the table shares
(:class:`hub.games.common.EventSourcedGame`) with what both editions of Camel Up do alike, and
a starting track's validation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Generic, Self, TypeVar

from hub.games.common import EventSourcedGame, IllegalAction

from .model import SPACES, Track
from .rules import Event

S = TypeVar("S")
R = TypeVar("R")

__all__ = ["CamelUpGame", "check_stacks"]


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


class CamelUpGame(EventSourcedGame[S], Generic[S, R]):
    """An edition's game: the shared event-sourced shell (play, undo) with what both editions
    do alike: actions given in notation, a new game and its start event, replay, the player to
    move.

    An edition sets ``_parse`` (notation to action), ``_rules`` (the rules' ``apply``),
    ``_legal`` (its ``legal_actions``), ``_apply``/``_initial`` (its fold),
    ``_START_KEYS`` (what its game_started event says before the players, e.g. the edition)
    and its setup: ``_check_players``, ``_check_track``, ``_setup_track`` (from the observed
    setup roll, of type ``R``) and ``_random_setup`` (rolled from the seed)."""

    _START_KEYS: Mapping[str, Any] = {}

    @staticmethod
    def _parse(text: str) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    @staticmethod
    def _rules(state: Any, action: Any, player: str | None) -> list[Event]:  # pragma: no cover
        raise NotImplementedError

    @staticmethod
    def _legal(state: Any) -> list[Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    @staticmethod
    def _check_players(players: Sequence[str], /) -> list[str]:  # pragma: no cover - abstract
        raise NotImplementedError

    @staticmethod
    def _check_track(track: Mapping[Any, Sequence[str]], /) -> Track:  # pragma: no cover
        raise NotImplementedError

    @staticmethod
    def _setup_track(setup: R, /) -> Track:  # pragma: no cover - abstract
        raise NotImplementedError

    @staticmethod
    def _random_setup(seed: int | str | None, /) -> Track:  # pragma: no cover - abstract
        raise NotImplementedError

    def __init__(self, start_event: Event) -> None:
        super().__init__([start_event], self._initial(start_event))

    def _decide(self, state: S, action: Any, player: str | None) -> list[Event]:
        if isinstance(action, str):
            action = self._parse(action)
        return self._rules(state, action, player)

    @classmethod
    def new(
        cls,
        players: Sequence[str],
        *,
        seed: int | str | None = None,
        setup: R | None = None,
        track: Mapping[Any, Sequence[str]] | None = None,
        first_player: int | str = 0,
    ) -> Self:
        """Start a game: from a track, else from the setup roll observed (``setup``), else
        rolled from ``seed``; the first player named or numbered."""
        names = cls._check_players(players)
        if track is not None:
            start = cls._check_track(track)
        elif setup is not None:
            start = cls._setup_track(setup)
        else:
            start = cls._random_setup(seed)
        return cls._start(names, start, first_player, seed)

    @classmethod
    def _start(
        cls,
        names: list[str],
        start: Mapping[int, tuple[str, ...]],
        first_player: int | str,
        seed: int | str | None,
    ) -> Self:
        """The game from its checked players and starting track: the first player named or
        numbered, the game_started event written."""
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
            **cls._START_KEYS,
            "players": names,
            "track": {str(s): list(st) for s, st in sorted(start.items())},
            "first_player": first_player,
            "seed": seed,
        }
        return cls(event)

    @classmethod
    def replay(cls, events: Iterable[Event]) -> Self:
        """Rebuild a game from its log; the state is exactly the one the log folds to."""
        events = list(events)
        game = cls(events[0])
        game._load(events)
        return game

    @property
    def finished(self) -> bool:
        return bool(self.state.finished)  # type: ignore[attr-defined]

    @property
    def current_player(self) -> str | None:
        s: Any = self.state
        return None if s.current is None else str(s.players[s.current].name)

    def legal_actions(self) -> list[Any]:
        return self._legal(self.state)
