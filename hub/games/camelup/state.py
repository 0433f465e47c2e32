"""The game state, and ``fold``: the only way a state changes.

The event log is the truth; a state is what the log folds to. ``fold`` never validates — the
rules did that before the events were made — so replaying a stored log is fast and exact.
States are treated as immutable: ``fold`` returns a new state and shares every unchanged part.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

from .model import COLOURS, LEG_TILE_VALUES, PILES, STARTING_MONEY, Track


@dataclass(frozen=True)
class PlayerState:
    name: str
    money: int = STARTING_MONEY
    leg_tiles: tuple[tuple[str, int], ...] = ()  # (colour, value) in the order taken
    pyramid_tiles: int = 0
    desert: tuple[int, str] | None = None  # (space, side) while the tile is on the track
    race_cards: frozenset[str] = frozenset(COLOURS)  # still in hand


def _fresh_piles() -> dict[str, tuple[int, ...]]:
    return {c: LEG_TILE_VALUES for c in COLOURS}


@dataclass(frozen=True)
class GameState:
    players: tuple[PlayerState, ...]
    track: Track
    current: int | None = 0  # index of the player to move; None once the game is over
    starting: int = 0  # holder of the starting-player marker for this leg
    leg: int = 1
    dice_left: tuple[str, ...] = COLOURS  # in the pyramid, in COLOURS order
    rolled: tuple[tuple[str, int, int], ...] = ()  # (colour, face, player index) this leg
    leg_piles: dict[str, tuple[int, ...]] = field(default_factory=_fresh_piles)
    desert: dict[int, tuple[str, int]] = field(default_factory=dict)  # space -> (side, owner)
    overall: dict[str, tuple[tuple[int, str], ...]] = field(
        default_factory=lambda: {p: () for p in PILES}
    )  # pile -> (player index, colour) in the order placed
    finished: bool = False
    result: dict[str, Any] | None = None
    seed: int | str | None = None
    actions: int = 0  # actions applied so far; seeds the simulator's roll of the next one

    def index(self, name: str) -> int:
        for i, p in enumerate(self.players):
            if p.name == name:
                return i
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players)

    def desert_sides(self) -> dict[int, str]:
        return {space: side for space, (side, _) in self.desert.items()}


# What the two editions' states fold alike (the second edition imports these): a player's
# record replaced, a turn passed on, a unit's move on the track, an overall card placed, the
# game's end. Each edition keeps its own field names (tiles or tickets, desert or spectators).
if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    S = TypeVar("S", bound=DataclassInstance)
    P = TypeVar("P", bound=DataclassInstance)


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


def _player(state: GameState, i: int, **changes: Any) -> tuple[PlayerState, ...]:
    return with_player(state.players, i, **changes)


def fold(state: GameState | None, event: dict[str, Any]) -> GameState:
    """Apply one event to a state (None before game_started) and return the new state."""
    kind = event["type"]
    if kind == "game_started":
        players = tuple(PlayerState(name) for name in event["players"])
        first = int(event.get("first_player", 0))
        return GameState(
            players,
            track_from(event["track"]),
            current=first,
            starting=first,
            seed=event.get("seed"),
        )
    if state is None:
        raise ValueError(f"the log must start with game_started, not {kind}")
    handler = _FOLDS.get(kind)
    if handler is None:
        raise ValueError(f"unknown Camel Up event type {kind!r}")
    return handler(state, event)


def _leg_tile_taken(state: GameState, e: dict[str, Any]) -> GameState:
    i = state.index(e["player"])
    colour = e["colour"]
    piles = dict(state.leg_piles)
    piles[colour] = piles[colour][1:]
    p = state.players[i]
    return turn_done(
        state,
        i,
        leg_piles=piles,
        players=_player(state, i, leg_tiles=p.leg_tiles + ((colour, e["value"]),)),
    )


def _desert_placed(state: GameState, e: dict[str, Any]) -> GameState:
    i = state.index(e["player"])
    desert = {s: v for s, v in state.desert.items() if v[1] != i}
    space = int(e["space"])
    desert[space] = (e["side"], i)
    return turn_done(state, i, desert=desert, players=_player(state, i, desert=(space, e["side"])))


def _die_read(state: GameState, e: dict[str, Any]) -> GameState:
    i = state.index(e["player"])
    p = state.players[i]
    return turn_done(
        state,
        i,
        dice_left=tuple(c for c in state.dice_left if c != e["colour"]),
        rolled=state.rolled + ((e["colour"], int(e["face"]), i),),
        players=_player(state, i, pyramid_tiles=p.pyramid_tiles + 1),
    )


def _camel_moved(state: GameState, e: dict[str, Any]) -> GameState:
    track = track_after_move(state.track, e)
    players = state.players
    if e.get("desert"):
        owner = state.index(e["desert"]["owner"])
        players = _player(state, owner, money=players[owner].money + 1)
    return replace(state, track=track, players=players)


def _leg_scored(state: GameState, e: dict[str, Any]) -> GameState:
    money = e["money"]
    players = tuple(
        replace(p, money=int(money[p.name]), leg_tiles=(), pyramid_tiles=0, desert=None)
        for p in state.players
    )
    if e.get("final"):  # the race is over: keep the board as it ended, for everyone to see
        return replace(state, players=players)
    # the marker passes to the player left of the one who released the last die: the player
    # to move now, since the turn already passed when that die was read
    return replace(
        state,
        players=players,
        leg=state.leg + 1,
        dice_left=COLOURS,
        rolled=(),
        leg_piles=_fresh_piles(),
        desert={},
        starting=state.current or 0,
    )


def _overall_bet_placed(state: GameState, e: dict[str, Any]) -> GameState:
    i = state.index(e["player"])
    p = state.players[i]
    return turn_done(
        state,
        i,
        overall=overall_after(state.overall, i, e),
        players=_player(state, i, race_cards=p.race_cards - {e["colour"]}),
    )


_FOLDS: dict[str, Callable[[GameState, dict[str, Any]], GameState]] = {
    "leg_tile_taken": _leg_tile_taken,
    "desert_placed": _desert_placed,
    "die_read": _die_read,
    "camel_moved": _camel_moved,
    "leg_scored": _leg_scored,
    "overall_bet_placed": _overall_bet_placed,
    "game_over": game_over_folded,
}

# The events that begin an action (a player's turn); the others follow from them.
ACTION_EVENTS = frozenset({"leg_tile_taken", "desert_placed", "die_read", "overall_bet_placed"})
