"""The game state, and ``fold``: the only way a state changes.

The event log is the truth; a state is what the log folds to. ``fold`` never validates — the
rules did that before the events were made — so replaying a stored log is fast and exact.
States are treated as immutable: ``fold`` returns a new state and shares every unchanged part.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

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


def _player(state: GameState, i: int, **changes: Any) -> tuple[PlayerState, ...]:
    players = list(state.players)
    players[i] = replace(players[i], **changes)
    return tuple(players)


def _next(state: GameState, i: int) -> int:
    return (i + 1) % len(state.players)


def _track(raw: dict[Any, Any]) -> Track:
    return {int(space): tuple(stack) for space, stack in raw.items() if stack}


def fold(state: GameState | None, event: dict[str, Any]) -> GameState:
    """Apply one event to a state (None before game_started) and return the new state."""
    kind = event["type"]
    if kind == "game_started":
        players = tuple(PlayerState(name) for name in event["players"])
        first = int(event.get("first_player", 0))
        return GameState(
            players, _track(event["track"]), current=first, starting=first, seed=event.get("seed")
        )
    if state is None:
        raise ValueError(f"the log must start with game_started, not {kind}")
    handler = _FOLDS.get(kind)
    if handler is None:
        raise ValueError(f"unknown Camel Up event type {kind!r}")
    return handler(state, event)


def _turn_done(state: GameState, i: int, **changes: Any) -> GameState:
    return replace(state, current=_next(state, i), actions=state.actions + 1, **changes)


def _leg_tile_taken(state: GameState, e: dict[str, Any]) -> GameState:
    i = state.index(e["player"])
    colour = e["colour"]
    piles = dict(state.leg_piles)
    piles[colour] = piles[colour][1:]
    p = state.players[i]
    return _turn_done(
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
    return _turn_done(state, i, desert=desert, players=_player(state, i, desert=(space, e["side"])))


def _die_read(state: GameState, e: dict[str, Any]) -> GameState:
    i = state.index(e["player"])
    p = state.players[i]
    return _turn_done(
        state,
        i,
        dice_left=tuple(c for c in state.dice_left if c != e["colour"]),
        rolled=state.rolled + ((e["colour"], int(e["face"]), i),),
        players=_player(state, i, pyramid_tiles=p.pyramid_tiles + 1),
    )


def _camel_moved(state: GameState, e: dict[str, Any]) -> GameState:
    track = dict(state.track)
    start, end, unit = int(e["from"]), int(e["to"]), tuple(e["unit"])
    remain = track[start][: len(track[start]) - len(unit)]
    if remain:
        track[start] = remain
    else:
        del track[start]
    below = track.get(end, ())
    track[end] = unit + below if e["under"] else below + unit
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
    overall = dict(state.overall)
    overall[e["pile"]] = overall[e["pile"]] + ((i, e["colour"]),)
    p = state.players[i]
    return _turn_done(
        state,
        i,
        overall=overall,
        players=_player(state, i, race_cards=p.race_cards - {e["colour"]}),
    )


def _game_over(state: GameState, e: dict[str, Any]) -> GameState:
    players = tuple(replace(p, money=int(e["money"][p.name])) for p in state.players)
    return replace(state, players=players, finished=True, current=None, result=dict(e))


_FOLDS = {
    "leg_tile_taken": _leg_tile_taken,
    "desert_placed": _desert_placed,
    "die_read": _die_read,
    "camel_moved": _camel_moved,
    "leg_scored": _leg_scored,
    "overall_bet_placed": _overall_bet_placed,
    "game_over": _game_over,
}

# The events that begin an action (a player's turn); the others follow from them.
ACTION_EVENTS = frozenset({"leg_tile_taken", "desert_placed", "die_read", "overall_bet_placed"})
