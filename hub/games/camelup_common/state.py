"""What the two editions' states fold alike: a player's record replaced, a turn passed on, a
unit's move on the track, an overall card placed, the game's end, and a log's first event and
each later one handed to its edition's fold. Each edition keeps its own state and field names
(tiles or tickets, desert or spectators) and passes its folds here as values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from .model import Track

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    S = TypeVar("S", bound=DataclassInstance)
    P = TypeVar("P", bound=DataclassInstance)

__all__ = [
    "Seats",
    "fold_event",
    "game_over_folded",
    "overall_after",
    "top_taken",
    "track_after_move",
    "track_from",
    "turn_done",
    "with_player",
]


class Seats:
    """Who sits at the table, for a state with ``players`` (each with a ``name``): a player's
    index by name and the names in seat order."""

    players: tuple[Any, ...]

    def index(self, name: str) -> int:
        for i, p in enumerate(self.players):
            if p.name == name:
                return i
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players)


def fold_event(
    state: S | None,
    event: dict[str, Any],
    initial: Callable[[dict[str, Any]], S],
    folds: Mapping[str, Callable[[S, dict[str, Any]], S]],
    game: str,
) -> S:
    """One event applied to a state by the edition's fold for its type (``initial`` for the
    log's first event, None before it); ValueError for an event type ``game`` does not have."""
    if state is None:
        return initial(event)
    handler = folds.get(event["type"])
    if handler is None:
        raise ValueError(f"unknown {game} event type {event['type']!r}")
    return handler(state, event)


def with_player(players: tuple[P, ...], i: int, **changes: Any) -> tuple[P, ...]:
    """The players with player i's record changed."""
    out = list(players)
    out[i] = replace(out[i], **changes)
    return tuple(out)


def turn_done(state: S, i: int, **changes: Any) -> S:
    """Player i has acted: the turn passes to the left and the action is counted."""
    players = state.players  # type: ignore[attr-defined]
    actions = state.actions  # type: ignore[attr-defined]
    return replace(state, current=(i + 1) % len(players), actions=actions + 1, **changes)


def top_taken(piles: Mapping[str, tuple[int, ...]], colour: str) -> dict[str, tuple[int, ...]]:
    """The leg-bet piles after the top one of ``colour`` was taken."""
    out = dict(piles)
    out[colour] = out[colour][1:]
    return out


def track_from(raw: dict[Any, Any]) -> Track:
    """A track read from an event: integer spaces, stacks as tuples, no empty spaces."""
    return {int(space): tuple(stack) for space, stack in raw.items() if stack}


def track_after_move(track: Track, e: dict[str, Any]) -> Track:
    """The track after a camel_moved event: the unit leaves the top of its start space and goes
    on top of the end space (or under it, ``under``)."""
    track = dict(track)
    start, end, unit = int(e["from"]), int(e["to"]), tuple(e["unit"])
    remain = track[start][: len(track[start]) - len(unit)]
    if remain:
        track[start] = remain
    else:
        del track[start]
    below = track.get(end, ())
    track[end] = unit + below if e["under"] else below + unit
    return track


def overall_after(
    overall: dict[str, tuple[tuple[int, str], ...]], i: int, e: dict[str, Any]
) -> dict[str, tuple[tuple[int, str], ...]]:
    """The overall piles after player i's overall_bet_placed event."""
    out = dict(overall)
    out[e["pile"]] = out[e["pile"]] + ((i, e["colour"]),)
    return out


def game_over_folded(state: S, e: dict[str, Any]) -> S:
    """The state after game_over: the final money, nobody to move, the result kept."""
    players = tuple(replace(p, money=int(e["money"][p.name])) for p in state.players)  # type: ignore[attr-defined]
    return replace(state, players=players, finished=True, current=None, result=dict(e))
