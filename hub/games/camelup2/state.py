"""The second-edition game state and ``fold``: the only way a state changes.

The event log is the truth; a state is what the log folds to. ``fold`` never validates (the rules
did that before the events were made), so replaying a stored log is fast and exact.
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

from .model import DICE, LEG_TICKET_VALUES, PILES, RACING, STARTING_MONEY, Track


@dataclass(frozen=True)
class PlayerState:
    name: str
    money: int = STARTING_MONEY
    leg_tickets: tuple[tuple[str, int], ...] = ()  # (colour, value) in the order taken
    pyramid_tickets: int = 0
    spectator: tuple[int, str] | None = None  # (space, side) while the tile is on the track
    finish_cards: frozenset[str] = frozenset(RACING)  # still in hand
    partner: int | None = None  # index of this leg's partner (public)


# the overall-bet cards in a hand, for the views and the overall bet's refusal
FINISH_CARDS = Hand(
    "finish_cards", RACING, lambda p: p.finish_cards, "finish card", "no_finish_card"
)


@dataclass(frozen=True)
class Rolled:
    """One die released this leg: what it showed and which camel it moved (and why)."""

    die: str
    face: int
    shade: str | None
    player: int
    camel: str
    why: str | None  # for the grey die: the CrazyChoice value


def _fresh_stacks() -> dict[str, tuple[int, ...]]:
    return {c: LEG_TICKET_VALUES for c in RACING}


@dataclass(frozen=True)
class GameState(Seats):
    players: tuple[PlayerState, ...]
    track: Track
    current: int | None = 0
    starting: int = 0
    leg: int = 1
    dice_left: tuple[str, ...] = DICE
    rolled: tuple[Rolled, ...] = ()
    leg_stacks: dict[str, tuple[int, ...]] = field(default_factory=_fresh_stacks)
    spectators: dict[int, tuple[str, int]] = field(default_factory=dict)  # space -> (side, owner)
    overall: dict[str, tuple[tuple[int, str], ...]] = field(
        default_factory=lambda: {p: () for p in PILES}
    )
    finished: bool = False
    result: dict[str, Any] | None = None
    seed: int | str | None = None
    actions: int = 0

    def spectator_sides(self) -> dict[int, str]:
        return {space: side for space, (side, _) in self.spectators.items()}

    @property
    def partner_play(self) -> bool:
        from .model import PARTNER_MIN_PLAYERS

        return len(self.players) >= PARTNER_MIN_PLAYERS


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
    return fold_event(state, event, initial, _FOLDS, "Camel Up (second edition)")


def _leg_ticket_taken(state: GameState, e: dict[str, Any]) -> GameState:
    i = state.index(e["player"])
    colour = e["colour"]
    p = state.players[i]
    return turn_done(
        state,
        i,
        leg_stacks=top_taken(state.leg_stacks, colour),
        players=with_player(
            state.players, i, leg_tickets=p.leg_tickets + ((colour, int(e["value"])),)
        ),
    )


def _spectator_placed(state: GameState, e: dict[str, Any]) -> GameState:
    i = state.index(e["player"])
    space = int(e["space"])
    tiles = tile_moved(state.spectators, i, space, e["side"])
    return turn_done(
        state,
        i,
        spectators=tiles,
        players=with_player(state.players, i, spectator=(space, e["side"])),
    )


def _die_read(state: GameState, e: dict[str, Any]) -> GameState:
    i = state.index(e["player"])
    p = state.players[i]
    rolled = Rolled(e["die"], int(e["face"]), e.get("shade"), i, e["camel"], e.get("why"))
    return turn_done(
        state,
        i,
        dice_left=tuple(d for d in state.dice_left if d != e["die"]),
        rolled=state.rolled + (rolled,),
        players=with_player(state.players, i, pyramid_tickets=p.pyramid_tickets + 1),
    )


def _camel_moved(state: GameState, e: dict[str, Any]) -> GameState:
    track = track_after_move(state.track, e)
    players = state.players
    if e.get("spectator"):
        owner = state.index(e["spectator"]["owner"])
        players = with_player(players, owner, money=players[owner].money + 1)
    return replace(state, track=track, players=players)


def _overall_bet_placed(state: GameState, e: dict[str, Any]) -> GameState:
    i = state.index(e["player"])
    p = state.players[i]
    return turn_done(
        state,
        i,
        overall=overall_after(state.overall, i, e),
        players=with_player(state.players, i, finish_cards=p.finish_cards - {e["colour"]}),
    )


def _partnership_entered(state: GameState, e: dict[str, Any]) -> GameState:
    i, j = state.index(e["player"]), state.index(e["partner"])
    players = with_player(state.players, i, partner=j)
    players = with_player(players, j, partner=i)
    return turn_done(state, i, players=players)


def _leg_scored(state: GameState, e: dict[str, Any]) -> GameState:
    money = e["money"]
    players = tuple(
        replace(
            p,
            money=int(money[p.name]),
            leg_tickets=(),
            pyramid_tickets=0,
            spectator=None,
            partner=None,
        )
        for p in state.players
    )
    if e.get("final"):  # the race is over: the board stays as it ended
        return replace(state, players=players)
    return replace(
        state,
        players=players,
        leg=state.leg + 1,
        dice_left=DICE,
        rolled=(),
        leg_stacks=_fresh_stacks(),
        spectators={},
        starting=state.current or 0,
    )


_FOLDS: dict[str, Callable[[GameState, dict[str, Any]], GameState]] = {
    "leg_ticket_taken": _leg_ticket_taken,
    "spectator_placed": _spectator_placed,
    "die_read": _die_read,
    "camel_moved": _camel_moved,
    "overall_bet_placed": _overall_bet_placed,
    "partnership_entered": _partnership_entered,
    "leg_scored": _leg_scored,
    "game_over": game_over_folded,
}

ACTION_EVENTS = frozenset(
    {
        "leg_ticket_taken",
        "spectator_placed",
        "die_read",
        "overall_bet_placed",
        "partnership_entered",
    }
)
