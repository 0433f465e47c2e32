"""The game state, and ``fold``: the only way a state changes.

The event log is the truth; a state is what the log folds to. ``fold`` never validates — the
rules did that before the events were made — so replaying a stored log is fast and exact.
States are treated as immutable: ``fold`` returns a new state and shares every unchanged part.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from hub.games.camelup_common import (
    Hand,
    Seats,
    fold_event,
    game_over_folded,
    overall_after,
    tile_moved,
    top_taken,
    track_after_move,
    track_from,
    turn_done,
    with_player,
)

from .model import COLOURS, LEG_TILE_VALUES, PILES, STARTING_MONEY, Track


@dataclass(frozen=True)
class PlayerState:
    name: str
    money: int = STARTING_MONEY
    leg_tiles: tuple[tuple[str, int], ...] = ()  # (colour, value) in the order taken
    pyramid_tiles: int = 0
    desert: tuple[int, str] | None = None  # (space, side) while the tile is on the track
    race_cards: frozenset[str] = frozenset(COLOURS)  # still in hand


# the overall-bet cards in a hand, for the views and the overall bet's refusal
RACE_CARDS = Hand("race_cards", COLOURS, lambda p: p.race_cards, "race card", "no_race_card")


def _fresh_piles() -> dict[str, tuple[int, ...]]:
    return {c: LEG_TILE_VALUES for c in COLOURS}


@dataclass(frozen=True)
class GameState(Seats):
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

    def desert_sides(self) -> dict[int, str]:
        return {space: side for space, (side, _) in self.desert.items()}


def _player(state: GameState, i: int, **changes: Any) -> tuple[PlayerState, ...]:
    return with_player(state.players, i, **changes)


def initial(event: dict[str, Any]) -> GameState:
    """The state a log's first event (game_started) starts from."""
    if event.get("type") != "game_started":
        raise ValueError(f"the log must start with game_started, not {event.get('type')}")
    players = tuple(PlayerState(name) for name in event["players"])
    first = int(event.get("first_player", 0))
    return GameState(
        players, track_from(event["track"]), current=first, starting=first, seed=event.get("seed")
    )


def fold(state: GameState | None, event: dict[str, Any]) -> GameState:
    """Apply one event to a state (None before game_started) and return the new state."""
    return fold_event(state, event, initial, _FOLDS, "Camel Up")


def _leg_tile_taken(state: GameState, e: dict[str, Any]) -> GameState:
    i = state.index(e["player"])
    colour = e["colour"]
    p = state.players[i]
    return turn_done(
        state,
        i,
        leg_piles=top_taken(state.leg_piles, colour),
        players=_player(state, i, leg_tiles=p.leg_tiles + ((colour, e["value"]),)),
    )


def _desert_placed(state: GameState, e: dict[str, Any]) -> GameState:
    i = state.index(e["player"])
    space = int(e["space"])
    desert = tile_moved(state.desert, i, space, e["side"])
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
    "game_started": lambda _state, e: initial(e),  # a log restarted: the new game's state
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
