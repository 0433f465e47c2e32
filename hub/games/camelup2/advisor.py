"""The second-edition advisor: the expected money of every legal action of the player to move.

* leg ticket of colour c worth v: v*P(c first) + P(c second) - P(neither), exact leg odds;
* spectator tile on space s, either side: its expected landings this leg (1 EP each) plus the
  change it makes to the value of the leg tickets the player holds, from the exact leg odds with
  the tile there (one kernel run per placement, every legal space and side), and to the value
  of the player's own overall cards (known on their own link), from race odds with the tile
  there simulated from the same seed as the position's (2,000 races each, so the difference is
  the tile's and not the simulation's), less what the tile earns where it lies now.
  ``quick=True`` (the bots' mode) takes instead the expected landings on s of the leg without
  the tile, one run for every placement: exact for the first landing;
* pyramid ticket: 1 EP for sure;
* overall bet on c: P(c wins or loses) * E[payout] - P(not), the payout averaged over how many
  of the other players' cards on the pile may show c (as in the first edition's advisor); its
  words add, from the simulated joint (winner, loser), the camel most often at the other end
  and the chance it and the player's card on the other pile are both right;
* partnership with j: the expected best single reward among j's tickets (leg tickets and pyramid
  tickets) at leg scoring, from the exact joint distribution of the leg's (first, second); the
  bonus is optional, so it is never below 0.

The advisor sees only what its player may see: the public state and its own cards. Odds are
cached by position, so a bot's many turns in one leg do not recompute them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from hub.games.camelup.advisor import (
    expected_overall_payout,
    held_overall_value,
    joint_words,
    leg_bet_words,
    leg_tile_value,
    overall_bet_words,
    placed_bets,
    tile_words,
)

from .actions import (
    BetOverall,
    EnterPartnership,
    PlaceSpectator,
    ReleaseDie,
    TakeLegTicket,
)
from .model import RACING
from .odds import Odds, RaceOdds, leg_odds_of, race_odds_of, validate_position
from .rules import legal_actions
from .state import GameState

TrackKey = tuple[tuple[int, tuple[str, ...]], ...]
TilesKey = tuple[tuple[int, str], ...]
RACE_GAMES_QUICK = 2_000


@lru_cache(maxsize=64)  # an entry holds the leg's end states (up to ~0.5 MB)
def _leg(track: TrackKey, dice: tuple[str, ...], tiles: TilesKey, visits: bool = False) -> Odds:
    pos = validate_position(dict(track), dice, dict(tiles))
    return leg_odds_of(pos, merge_last=True, visits=visits)


@lru_cache(maxsize=256)
def _race(track: TrackKey, dice: tuple[str, ...], tiles: TilesKey, games: int) -> RaceOdds:
    return race_odds_of(_leg(track, dice, tiles).outcome, games=games)


def _keys(state: GameState, tiles: dict[int, str]) -> tuple[TrackKey, tuple[str, ...], TilesKey]:
    return tuple(sorted(state.track.items())), state.dice_left, tuple(sorted(tiles.items()))


def held_value(tickets: tuple[tuple[str, int], ...], odds: Odds) -> float:
    return sum(
        leg_tile_value(v, float(odds.first[RACING.index(c)]), float(odds.second[RACING.index(c)]))
        for c, v in tickets
    )


def partner_value(partner_tickets: tuple[tuple[str, int], ...], pyramid: int, odds: Odds) -> float:
    """E[max(0, best single reward among the partner's tickets)] over the leg's (first, second)."""
    pairs = odds.outcome.pairs
    total = 0.0
    for f in range(len(RACING)):
        for s in range(len(RACING)):
            p = float(pairs[f, s])
            if p == 0.0:
                continue
            rewards = [1] * min(pyramid, 1) + [
                v if c == RACING[f] else 1 if c == RACING[s] else -1 for c, v in partner_tickets
            ]
            total += p * max([0, *rewards])
    return total


def _from_the_joint(action: BetOverall, bets: list[tuple[str, str, int]], race: RaceOdds) -> str:
    """The joint (winner, loser) odds' part of an overall bet's sentence (see the first
    edition's advisor): the camel most often at the other end, and "both right" with the
    player's cards on the other pile."""
    i = RACING.index(action.colour)
    given = race.pairs[i, :] if action.pile == "winner" else race.pairs[:, i]
    both = [
        (
            c,
            pile,
            float(
                race.pairs[i, RACING.index(c)]
                if action.pile == "winner"
                else race.pairs[RACING.index(c), i]
            ),
        )
        for pile, c, _ in bets
        if pile != action.pile and c != action.colour
    ]
    return joint_words(action.colour, action.pile, RACING, [float(x) for x in given], both)


def advise(
    state: GameState, player: str | None = None, limit: int | None = None, quick: bool = False
) -> list[dict[str, Any]]:
    """Every legal action of the player to move with its expected money, best first."""
    if state.current is None:
        return []
    me = state.current
    if player is not None and state.players[me].name != player:
        return []
    mine = state.players[me]
    tiles = state.spectator_sides()
    track, dice, tiles_key = _keys(state, tiles)
    base = _leg(track, dice, tiles_key, quick)
    games = RACE_GAMES_QUICK if quick else 10_000
    race = _race(track, dice, tiles_key, games)
    base_held = held_value(mine.leg_tickets, base)
    where = mine.spectator
    given_up = base.landings.get(where[0], 0.0) if where else 0.0
    others = {s: side for s, (side, owner) in state.spectators.items() if owner != me}
    bets = [] if quick else placed_bets(state, me, RACING)
    # a tile moves the race odds too: with overall cards placed, each placement's race odds are
    # simulated from the same seed as the position's own (common random numbers), so the change
    # it makes to the cards' value is not lost in the simulation's noise
    bets_base = (
        held_overall_value(bets, _race(track, dice, tiles_key, RACE_GAMES_QUICK), RACING)
        if bets
        else 0.0
    )
    out: list[dict[str, Any]] = []
    for action in legal_actions(state):
        if isinstance(action, TakeLegTicket):
            i = RACING.index(action.colour)
            f, s = float(base.first[i]), float(base.second[i])
            value = state.leg_stacks[action.colour][0]
            ev = leg_tile_value(value, f, s)
            why = leg_bet_words(action.colour, value, f, s)
        elif isinstance(action, PlaceSpectator):
            yours: list[str] = []
            if quick:
                income = float(base.outcome.visits[action.space + 3])
                shift = 0.0
            else:
                layout = {**others, action.space: action.side}
                layout_key = tuple(sorted(layout.items()))
                placed = _leg(track, dice, layout_key)
                income = placed.landings.get(action.space, 0.0)
                shift = held_value(mine.leg_tickets, placed) - base_held
                yours = ["leg tickets"] if mine.leg_tickets else []
                if bets:
                    moved = _race(track, dice, layout_key, RACE_GAMES_QUICK)
                    shift += held_overall_value(bets, moved, RACING) - bets_base
                    yours.append("overall bets")
            ev = income + shift - given_up
            why = tile_words(income, shift, yours, given_up, where[0] if where else None)
        elif isinstance(action, ReleaseDie):
            ev, why = 1.0, "1 coin for the pyramid ticket, for sure."
        elif isinstance(action, BetOverall):
            i = RACING.index(action.colour)
            p = float((race.win if action.pile == "winner" else race.lose)[i])
            n_others = sum(1 for owner, _ in state.overall[action.pile] if owner != me)
            pay = expected_overall_payout(p, n_others)
            ev = p * pay - (1.0 - p)
            basis = f"simulated over {race.games} races, give or take {race.standard_error:.3f}"
            why = overall_bet_words(action.colour, action.pile, p, pay, n_others, basis)
            why += _from_the_joint(action, bets, race)
        else:
            assert isinstance(action, EnterPartnership)
            j = state.index(action.partner)
            partner = state.players[j]
            ev = partner_value(partner.leg_tickets, partner.pyramid_tickets, base)
            why = (
                f"At leg scoring you may add the best single reward among {action.partner}'s "
                f"tickets ({len(partner.leg_tickets)} leg, {partner.pyramid_tickets} pyramid): "
                f"{ev:.2f} coins on average."
            )
        out.append({"action": str(action), "expected": float(ev), "why": why})
    out.sort(key=lambda a: -float(a["expected"]))
    return out[:limit] if limit else out


def odds_for_state(state: GameState) -> dict[str, Any]:
    """The `pyramid odds` answer (edition 2) for a game state."""
    from .odds import position_odds

    return position_odds(state.track, state.dice_left, state.spectator_sides())


__all__ = ["advise", "held_value", "odds_for_state", "partner_value"]
