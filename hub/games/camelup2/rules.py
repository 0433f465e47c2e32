"""The second-edition rules: a state and an action in, the events it causes out, or a refusal.

``apply`` checks everything and returns events; it never changes the state (``fold`` does).
Leg and final scoring follow the first edition's shape; the overall-bet payout schedule is the
first edition's own function.
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

from .actions import (
    Action,
    BetOverall,
    EnterPartnership,
    PlaceSpectator,
    ReleaseDie,
    TakeLegTicket,
)
from .errors import IllegalAction
from .model import (
    CRAZY,
    DICE,
    FACES,
    GREY,
    PARTNER_MIN_PLAYERS,
    PILES,
    RACING,
    SIDES,
    crazy_to_move,
    move_camel,
    ranking,
)
from .state import FINISH_CARDS, GameState


def apply(state: GameState, action: Action, player: str | None = None) -> list[Event]:
    """The events ``action`` causes for the player to move; raise IllegalAction if illegal."""
    return decide(_HANDLERS, state, action, player)


def _check_racing(colour: object) -> str:
    if colour in CRAZY:
        raise IllegalAction(
            "not_racing_camel", f"{colour} is a crazy camel: only racing camels can be bet on."
        )
    if colour not in RACING:
        raise IllegalAction("bad_action", f"{colour!r} is not a racing camel.")
    return str(colour)


def _take_leg_ticket(state: GameState, mover: str, a: TakeLegTicket) -> list[Event]:
    colour = _check_racing(a.colour)
    stack = state.leg_stacks[colour]
    if not stack:
        raise IllegalAction("no_leg_ticket", f"No {colour} leg betting ticket is left this leg.")
    return [{"type": "leg_ticket_taken", "player": mover, "colour": colour, "value": stack[0]}]


SPECTATOR_TILE = TileRules(
    name="spectator",
    sides=SIDES,
    goes_on="spaces without camels",
    turn_over_in_place=False,  # the rulebook's "a different space"
    off_track="spectator_off_track",
    space_one="spectator_space_one",
    on_camel="spectator_on_camel",
    occupied="spectator_occupied",
    adjacent="spectator_adjacent",
    own_here="spectator_same_space",
)


def spectator_refusal(
    state: GameState, owner: int, space: object, side: str
) -> IllegalAction | None:
    """Why ``owner`` may not put their spectator tile on ``space`` with ``side`` up, or None.

    The own tile is picked up first, so its old square blocks nothing; the new space must differ
    from the old one (the rulebook's "a different space").
    """
    return tile_refusal(
        SPECTATOR_TILE, state.spectators, state.track, state.names, owner, space, side
    )


def _place_spectator(state: GameState, mover: str, a: PlaceSpectator) -> list[Event]:
    owner = state.index(mover)
    refusal = spectator_refusal(state, owner, a.space, a.side)
    if refusal is not None:
        raise refusal
    old = state.players[owner].spectator
    return [
        {
            "type": "spectator_placed",
            "player": mover,
            "space": a.space,
            "side": a.side,
            "moved_from": old[0] if old else None,
        }
    ]


def _observed(state: GameState, a: ReleaseDie) -> tuple[str, int, str | None]:
    if a.die is None:
        rng = roll_rng("camelup2", state)
        die = rng.choice(state.dice_left)
        face = rng.choice(FACES)
        shade = rng.choice(CRAZY) if die == GREY else None
        return die, face, shade
    if a.die not in DICE:
        raise IllegalAction("bad_action", f"There is no {a.die!r} die (dice: {', '.join(DICE)}).")
    if a.face not in FACES:
        raise bad_face(a.face)
    if a.die == GREY and a.shade not in CRAZY:
        raise IllegalAction("bad_action", "The grey die's numeral is black or white.")
    if a.die != GREY and a.shade is not None:
        raise IllegalAction("bad_action", "Only the grey die has a numeral colour.")
    if a.die not in state.dice_left:
        raise IllegalAction(
            "die_already_out",
            f"The {a.die} die was already released this leg: a misread, not a move.",
        )
    return a.die, a.face, a.shade


def _release_die(state: GameState, mover: str, a: ReleaseDie) -> list[Event]:
    die, face, shade = _observed(state, a)
    if die == GREY:
        assert shade is not None
        camel, choice = crazy_to_move(state.track, shade)
        why: str | None = choice.value
    else:
        camel, why = die, None
    track, move = move_camel(state.track, state.spectator_sides(), camel, face)
    tile = None
    if move.spectator_space is not None:
        owner = state.spectators[move.spectator_space][1]
        tile = {
            "space": move.spectator_space,
            "side": move.spectator_side,
            "owner": state.players[owner].name,
        }
    events: list[Event] = [
        {
            "type": "die_read",
            "player": mover,
            "die": die,
            "face": face,
            "shade": shade,
            "camel": camel,
            "why": why,
        },
        {
            "type": "camel_moved",
            "camel": camel,
            "unit": list(move.unit),
            "from": move.start,
            "to": move.end,
            "spectator": tile,
            "under": move.under,
            "crossed": move.crossed.value if move.crossed else None,
        },
    ]
    money = {p.name: p.money for p in state.players}
    if tile:
        money[str(tile["owner"])] += 1
    ended = move.crossed is not None
    if ended or len(state.dice_left) == len(DICE) - 4:  # this was the leg's fifth die
        pyramid = {p.name: p.pyramid_tickets for p in state.players}
        pyramid[mover] += 1
        scored = leg_scoring(state, track, money, pyramid, final=ended)
        events.append(scored)
        if ended:
            events.append(final_scoring(state, track, scored["money"]))
    return events


def ticket_reward(colour: str, value: int, first: str, second: str) -> int:
    """What one leg ticket pays at leg scoring: its value, 1 for the second camel, else -1."""
    return value if colour == first else 1 if colour == second else -1


def leg_scoring(
    state: GameState,
    track: dict[int, tuple[str, ...]],
    money: dict[str, int],
    pyramid: dict[str, int],
    final: bool = False,
) -> Event:
    """The leg_scored event, netted per player then floored at 0.

    A partnered player adds the best single reward among the partner's tickets (leg or pyramid
    tickets) if it is positive: the addition is optional, so it never costs anything.
    """
    order = ranking(track)
    first, second = order[0], order[1]

    def own(p_index: int) -> tuple[int, list[int]]:
        p = state.players[p_index]
        rewards = [ticket_reward(c, v, first, second) for c, v in p.leg_tickets]
        rewards += [1] * pyramid[p.name]
        return sum(rewards), rewards

    changes, after, tickets, partner_gain = {}, {}, {}, {}
    for i, p in enumerate(state.players):
        delta, _ = own(i)
        gain = 0
        if p.partner is not None:
            gain = max([0, *own(p.partner)[1]])
            partner_gain[p.name] = gain
        after[p.name] = max(0, money[p.name] + delta + gain)
        changes[p.name] = after[p.name] - p.money
        tickets[p.name] = [{"colour": c, "value": v} for c, v in p.leg_tickets]
    return {
        "type": "leg_scored",
        "leg": state.leg,
        "first": first,
        "second": second,
        "changes": changes,
        "money": after,
        "tickets": tickets,
        "pyramid_tickets": pyramid,
        "partner_gain": partner_gain,
        "final": final,
    }


def final_scoring(
    state: GameState, track: dict[int, tuple[str, ...]], money: dict[str, int]
) -> Event:
    """The game_over event: winner pile then loser pile, card by card in the order placed
    (the first edition's reveal, with the second edition's ranking of the racing camels)."""
    return game_over(state, ranking(track), money)


def _bet_overall(state: GameState, mover: str, a: BetOverall) -> list[Event]:
    return overall_bet(state, mover, a.pile, a.colour, FINISH_CARDS, _check_racing)


def partner_refusal(state: GameState, me: int, other: str) -> IllegalAction | None:
    if len(state.players) < PARTNER_MIN_PLAYERS:
        return IllegalAction(
            "no_partner_play",
            "Partnerships are only played with "
            f"{PARTNER_MIN_PLAYERS} to 8 players, not {len(state.players)}.",
        )
    if other not in state.names:
        return IllegalAction("unknown_player", f"There is no player called {other!r} here.")
    j = state.index(other)
    if j == me:
        return IllegalAction("partner_self", "You cannot enter a partnership with yourself.")
    if state.players[me].partner is not None:
        name = state.players[state.players[me].partner].name  # type: ignore[index]
        return IllegalAction("already_partnered", f"You are already {name}'s partner this leg.")
    if state.players[j].partner is not None:
        return IllegalAction("partner_taken", f"{other} already has a partner this leg.")
    return None


def _enter_partnership(state: GameState, mover: str, a: EnterPartnership) -> list[Event]:
    refusal = partner_refusal(state, state.index(mover), a.partner)
    if refusal is not None:
        raise refusal
    return [{"type": "partnership_entered", "player": mover, "partner": a.partner}]


_HANDLERS: dict[type, Handler] = {
    TakeLegTicket: _take_leg_ticket,
    PlaceSpectator: _place_spectator,
    ReleaseDie: _release_die,
    BetOverall: _bet_overall,
    EnterPartnership: _enter_partnership,
}


def legal_actions(state: GameState) -> list[Action]:
    """Every legal action of the player to move (empty once the game is over)."""
    if state.finished or state.current is None:
        return []
    me = state.current
    acts: list[Action] = [TakeLegTicket(c) for c in RACING if state.leg_stacks[c]]
    acts += [
        PlaceSpectator(space, side)
        for space, side in tile_placements(SPECTATOR_TILE, state.spectators, state.track, me)
    ]
    acts.append(ReleaseDie())
    cards = state.players[me].finish_cards
    acts += [BetOverall(pile, c) for pile in PILES for c in RACING if c in cards]
    if state.partner_play and state.players[me].partner is None:
        acts += [
            EnterPartnership(p.name)
            for j, p in enumerate(state.players)
            if j != me and p.partner is None
        ]
    return acts
