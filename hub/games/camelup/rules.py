"""The rules: a state and an action in, the events the action causes out — or a refusal.

``apply`` checks everything and returns events; it never changes the state (``fold`` does, in
state.py). A refusal is an ``IllegalAction`` with a reason code and a sentence for the player.
"""

from __future__ import annotations

from hub.games.camelup_common import (
    Event,
    Handler,
    TileRules,
    bad_face,
    decide,
    game_over,
    overall_bet,
    roll_rng,
    tile_placements,
    tile_refusal,
)

from .actions import Action, BetOverall, PlaceDesert, ReleaseDie, TakeLegTile
from .errors import IllegalAction
from .model import (
    COLOURS,
    FACES,
    PILES,
    SIDES,
    move_camel,
    race_over,
    ranking,
)
from .state import RACE_CARDS, GameState


def apply(state: GameState, action: Action, player: str | None = None) -> list[Event]:
    """The events ``action`` causes for the player to move; raise IllegalAction if it is illegal."""
    return decide(_HANDLERS, state, action, player)


def _check_colour(colour: object) -> str:
    if colour not in COLOURS:
        raise IllegalAction("bad_action", f"{colour!r} is not a camel colour.")
    return str(colour)


def _take_leg_tile(state: GameState, mover: str, a: TakeLegTile) -> list[Event]:
    colour = _check_colour(a.colour)
    pile = state.leg_piles[colour]
    if not pile:
        raise IllegalAction("no_leg_tile", f"No {colour} leg betting tile is left this leg.")
    return [{"type": "leg_tile_taken", "player": mover, "colour": colour, "value": pile[0]}]


DESERT_TILE = TileRules(
    name="desert",
    sides=SIDES,
    goes_on="empty spaces",
    turn_over_in_place=True,  # the own tile may be turned over where it lies
    off_track="desert_illegal_space",
    space_one="desert_space_one",
    on_camel="desert_on_camel",
    occupied="desert_occupied",
    adjacent="desert_adjacent",
    own_here="desert_no_change",
)


def desert_refusal(state: GameState, owner: int, space: int, side: str) -> IllegalAction | None:
    """Why ``owner`` may not put their desert tile on ``space`` with ``side`` up, or None."""
    return tile_refusal(DESERT_TILE, state.desert, state.track, state.names, owner, space, side)


def _place_desert(state: GameState, mover: str, a: PlaceDesert) -> list[Event]:
    owner = state.index(mover)
    refusal = desert_refusal(state, owner, a.space, a.side)
    if refusal is not None:
        raise refusal
    old = state.players[owner].desert
    return [
        {
            "type": "desert_placed",
            "player": mover,
            "space": a.space,
            "side": a.side,
            "moved_from": old[0] if old else None,
        }
    ]


def _release_die(state: GameState, mover: str, a: ReleaseDie) -> list[Event]:
    if (a.colour is None) != (a.face is None):
        raise IllegalAction("bad_action", "An observed die needs both its colour and its face.")
    if a.colour is None:
        rng = roll_rng("camelup", state)
        colour, face = rng.choice(state.dice_left), rng.choice(FACES)
    else:
        colour = _check_colour(a.colour)
        face = a.face  # type: ignore[assignment]
        if face not in FACES:
            raise bad_face(face)
        if colour not in state.dice_left:
            raise IllegalAction(
                "colour_already_rolled", f"The {colour} die was already released this leg."
            )
    track, move = move_camel(state.track, state.desert_sides(), colour, face)
    desert = None
    if move.desert_space is not None:
        owner = state.desert[move.desert_space][1]
        desert = {
            "space": move.desert_space,
            "side": move.desert_side,
            "owner": state.players[owner].name,
        }
    events: list[Event] = [
        {"type": "die_read", "player": mover, "colour": colour, "face": face},
        {
            "type": "camel_moved",
            "colour": colour,
            "unit": list(move.unit),
            "from": move.start,
            "to": move.end,
            "desert": desert,
            "under": move.under,
        },
    ]
    # money after the desert income, for the scoring that may follow in the same action
    money = {p.name: p.money for p in state.players}
    if desert:
        money[str(desert["owner"])] += 1
    ended = race_over(track)
    if ended or len(state.dice_left) == 1:
        pyramid = {p.name: p.pyramid_tiles for p in state.players}
        pyramid[mover] += 1
        scored = leg_scoring(state, track, money, pyramid, final=ended)
        events.append(scored)
        if ended:
            events.append(final_scoring(state, track, scored["money"]))
    return events


def leg_scoring(
    state: GameState,
    track: dict[int, tuple[str, ...]],
    money: dict[str, int],
    pyramid: dict[str, int],
    final: bool = False,
) -> Event:
    """The leg_scored event: 5/3/2 for the leader's tiles, 1 for the runner-up's, -1 otherwise.

    Each player's tiles are settled together (one net change), then the floor at 0 applies: a
    player who would owe more than they have pays what they have.
    """
    order = ranking(track)
    first, second = order[0], order[1]
    changes, after, tiles = {}, {}, {}
    for p in state.players:
        delta = pyramid[p.name]
        for colour, value in p.leg_tiles:
            delta += value if colour == first else 1 if colour == second else -1
        after[p.name] = max(0, money[p.name] + delta)
        changes[p.name] = after[p.name] - state.players[state.index(p.name)].money
        tiles[p.name] = [{"colour": c, "value": v} for c, v in p.leg_tiles]
    return {
        "type": "leg_scored",
        "leg": state.leg,
        "first": first,
        "second": second,
        "changes": changes,
        "money": after,
        "tiles": tiles,
        "pyramid_tiles": pyramid,
        "final": final,
    }


def final_scoring(
    state: GameState, track: dict[int, tuple[str, ...]], money: dict[str, int]
) -> Event:
    """The game_over event: both overall piles turned card by card in the order placed."""
    return game_over(state, ranking(track), money)


def _bet_overall(state: GameState, mover: str, a: BetOverall) -> list[Event]:
    return overall_bet(state, mover, a.pile, a.colour, RACE_CARDS, _check_colour)


_HANDLERS: dict[type, Handler] = {
    TakeLegTile: _take_leg_tile,
    PlaceDesert: _place_desert,
    ReleaseDie: _release_die,
    BetOverall: _bet_overall,
}


def legal_actions(state: GameState) -> list[Action]:
    """Every legal action of the player to move (empty once the game is over)."""
    if state.finished or state.current is None:
        return []
    me = state.current
    acts: list[Action] = [TakeLegTile(c) for c in COLOURS if state.leg_piles[c]]
    acts += [
        PlaceDesert(space, side)
        for space, side in tile_placements(DESERT_TILE, state.desert, state.track, me)
    ]
    acts.append(ReleaseDie())
    cards = state.players[me].race_cards
    acts += [BetOverall(pile, c) for pile in PILES for c in COLOURS if c in cards]
    return acts
