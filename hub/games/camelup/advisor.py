"""The advisor: the expected money of every legal action of the player to move, best first.

Each figure is the expected change in that player's money caused by the action, from exact odds:

* leg tile of colour c worth v:  v*P(c first) + 1*P(c second) - 1*P(c neither)
* desert tile on space s, side x: the expected landings on it this leg (1 EP each), plus the change
  it makes to the expected value of the leg tiles this player already holds and of the overall
  bets it has already placed (the leg and race odds are recomputed exactly with the tile on the
  board; all placements of a position in one kernel pass,
  :func:`hub.games.camelup.odds.leg_odds_many`, which equals one call per placement exactly)
* pyramid tile: exactly 1 EP (the die it releases changes nothing in expectation)
* overall bet on c: P(c wins or loses the race) * E[payout] - P(not) * 1. The payout depends on
  how many correct cards lie before this one; the colours of the cards already on the pile are
  secret, so each of the other players' cards is taken to show c with probability P(c) — players
  back likely camels — and E[payout] averages the 8/5/3/2/1 schedule over that binomial. A card
  already placed is valued the same way, counting only the other players' cards before it.
  With a card already on the other pile, the why names the chance that both are right, from
  the exact joint distribution of the race's (winner, loser) (expectations add, so the figure
  itself does not need the joint; the player's risk does).

The advisor sees only what its player may see: the public state and its own cards.
"""

from __future__ import annotations

from math import comb
from typing import Any, Protocol

import numpy as np

from .actions import Action, BetOverall, PlaceDesert, ReleaseDie, TakeLegTile
from .model import COLOURS, overall_payout
from .odds import LegOdds, leg_odds_many, odds_of, validate_position
from .rules import legal_actions
from .state import GameState


def state_odds(
    state: GameState, race: bool = True, desert: dict[int, str] | None = None, pairs: bool = False
) -> LegOdds:
    """Exact odds of a game state (optionally with the desert tiles replaced); pairs: with the
    joint distribution of the race's (winner, loser)."""
    position = validate_position(
        state.track, state.dice_left, state.desert_sides() if desert is None else desert
    )
    return odds_of(position, race=race or pairs, pairs=pairs)


def odds_for_state(state: GameState) -> dict[str, Any]:
    """The `pyramid odds` answer for a game state."""
    o = state_odds(state)
    assert o.win is not None and o.lose is not None
    return {
        "leg": {
            c: {"first": float(o.first[i]), "second": float(o.second[i])}
            for i, c in enumerate(COLOURS)
        },
        "game_ends_this_leg": o.game_ends,
        "race": {
            c: {"win": float(o.win[i]), "lose": float(o.lose[i])} for i, c in enumerate(COLOURS)
        },
        "desert_landings": {str(s): x for s, x in o.landings.items()},
    }


def leg_tile_value(value: int, first: float, second: float) -> float:
    """Expected payout of one leg tile: value if first, 1 if second, -1 otherwise."""
    return value * first + second - (1.0 - first - second)


def held_value(tiles: tuple[tuple[str, int], ...], odds: LegOdds) -> float:
    return sum(
        leg_tile_value(v, float(odds.first[COLOURS.index(c)]), float(odds.second[COLOURS.index(c)]))
        for c, v in tiles
    )


def overall_bet_value(p: float, others_before: int) -> float:
    """Expected money of one overall card: right with p, paying by the correct cards before it."""
    return p * expected_overall_payout(p, others_before) - (1.0 - p)


def placed_bets(
    state: Any, me: int, camels: tuple[str, ...] = COLOURS
) -> list[tuple[str, str, int]]:
    """The player's own overall cards as (pile, colour, other players' cards before it); cards
    whose colour this state does not know (rebuilt from a public view: "?") are left out.
    ``camels``: the edition's racing camels (both editions' advisors use this)."""
    out = []
    for pile, cards in state.overall.items():
        before = 0
        for owner, colour in cards:
            if owner == me:
                if colour in camels:
                    out.append((pile, colour, before))
            else:
                before += 1
    return out


class RaceMargins(Protocol):
    """Race odds as the advisors read them: P(win) and P(last) per racing camel (the first
    edition's exact LegOdds, the second edition's simulated RaceOdds)."""

    @property
    def win(self) -> np.ndarray | None: ...

    @property
    def lose(self) -> np.ndarray | None: ...


def held_overall_value(
    bets: list[tuple[str, str, int]], odds: RaceMargins, camels: tuple[str, ...] = COLOURS
) -> float:
    """Expected money of the placed overall cards under the given race odds."""
    win, lose = odds.win, odds.lose
    assert win is not None and lose is not None
    total = 0.0
    for pile, colour, before in bets:
        p = float((win if pile == "winner" else lose)[camels.index(colour)])
        total += overall_bet_value(p, before)
    return total


def expected_overall_payout(p: float, others_on_pile: int) -> float:
    """E[payout of a correct card] if each of ``others_on_pile`` earlier cards is right with p."""
    return sum(
        comb(others_on_pile, k) * p**k * (1 - p) ** (others_on_pile - k) * overall_payout(k)
        for k in range(others_on_pile + 1)
    )


def pct(p: float) -> str:
    """A chance as a player reads it: "23%" ("under 1%" and "over 99%" rather than a
    misleading "0%" or "100%" for what may still happen or fail)."""
    if 0.0 < p < 0.005:
        return "under 1%"
    if 0.995 <= p < 1.0:
        return "over 99%"
    return f"{p:.0%}"


def leg_bet_words(colour: str, value: int, first: float, second: float) -> str:
    """Why a leg tile (ticket) is worth what it is, in words, from the leg odds."""
    return (
        f"Pays {value} if {colour} leads the leg ({pct(first)}), 1 if it is second "
        f"({pct(second)}); costs 1 otherwise ({pct(max(0.0, 1 - first - second))})."
    )


def tile_words(
    income: float, shift: float, yours: list[str], given_up: float, where: int | None
) -> str:
    """Why a desert (spectator) tile on a space is worth what it is: the coins from camels
    landing on it, what it does to the player's own leg and overall bets, what moving it from
    where it lies gives up."""
    why = f"Camels land on it {income:.2f} times on average (1 coin each)"
    if yours:
        why += f"; it changes what your {' and '.join(yours)} are worth by {shift:+.2f}"
    if where is not None:
        why += f"; moving it gives up {given_up:.2f} on space {where}"
    return why + "."


PILE_EVENTS = {"winner": "wins the race", "loser": "comes last in the race"}


def overall_bet_words(
    colour: str, pile: str, p: float, pay: float, others: int, basis: str = ""
) -> str:
    """Why an overall winner/loser card is worth what it is: how often it is right (``basis``:
    how that chance was found, when not exactly), what it pays then (by the cards other players
    put on the pile before it), what it costs if not."""
    how = f" ({basis})" if basis else ""
    why = f"{colour.capitalize()} {PILE_EVENTS[pile]} in {pct(p)} of games{how}. "
    why += "Right, this card pays "
    if others:
        why += (
            f"about {pay:.1f} coins ({others} other card{'s' if others != 1 else ''} already "
            "on the pile may be right before it)"
        )
    else:
        why += f"{pay:.0f} coins (it is the first on the pile)"
    return why + "; wrong, it costs 1 coin."


def joint_words(
    colour: str,
    pile: str,
    camels: tuple[str, ...],
    given: list[float],
    both: list[tuple[str, str, float]],
) -> str:
    """From the joint distribution of the race's (winner, loser): ``given[k]`` is P(this card
    is right and camel k is at the other end); ``both``: the player's cards on the other pile
    as (colour, pile, P(both right))."""
    total = sum(given)
    words = ""
    if total > 0:
        k = max(range(len(camels)), key=lambda j: given[j])
        other = "comes last" if pile == "winner" else "wins"
        words += (
            f" When {colour} {'wins' if pile == 'winner' else 'comes last'}, {camels[k]} most "
            f"often {other} ({pct(given[k] / total)} of those games)."
        )
    for mine, mine_pile, p in both:
        words += f" This card and your {mine} {mine_pile} card are both right in {pct(p)} of games."
    return words


def advise(
    state: GameState, player: str | None = None, limit: int | None = None, words: bool = True
) -> list[dict[str, Any]]:
    """Every legal action of the player to move with its expected money, best first.

    words=False skips what only the explanations use (the joint (winner, loser) odds behind
    "both right", and the sentences themselves: "why" is empty): the bots' mode, same figures
    and order."""
    if state.current is None:
        return []
    me = state.current
    if player is not None and state.players[me].name != player:
        return []
    mine = state.players[me]
    actions = legal_actions(state)
    bets = placed_bets(state, me)
    # every desert placement's hypothetical layout and the position as it stands (the last
    # layout), rolled out together in one kernel pass; race odds for the position as it stands,
    # and for the placements only when the player has overall cards for them to move
    places = [a for a in actions if isinstance(a, PlaceDesert)]
    others = {sp: side for sp, (side, owner) in state.desert.items() if owner != me}
    layouts = [{**others, a.space: a.side} for a in places] + [state.desert_sides()]
    flags = [bool(bets)] * len(places) + [True]
    *placed, base = leg_odds_many(state.track, state.dice_left, layouts, race=flags)
    if words and any(isinstance(a, BetOverall) for a in actions):
        base = state_odds(state, race=True, pairs=True)  # the joint, for the explanations
    assert base.win is not None and base.lose is not None
    base_held = held_value(mine.leg_tiles, base) + held_overall_value(bets, base)
    desert_odds: dict[Action, LegOdds] = dict(zip(places, placed, strict=True))
    out = [
        _rate(action, state, me, base, base_held, desert_odds.get(action), bets, base.pairs, words)
        for action in actions
    ]
    out.sort(key=lambda a: -a["expected"])
    return out[:limit] if limit else out


def _rate(
    action: Action,
    state: GameState,
    me: int,
    base: LegOdds,
    base_held: float,
    placed: LegOdds | None = None,
    bets: list[tuple[str, str, int]] | None = None,
    pairs: np.ndarray | None = None,
    words: bool = True,
) -> dict[str, Any]:
    """One action's expected money; ``placed``: for a desert placement, the odds with it;
    ``bets``: the player's placed overall cards; ``pairs``: the joint (winner, loser) odds;
    ``words``: also the sentence saying why (off for the bots: an empty one, same figure)."""
    bets = bets or []
    why = ""
    if isinstance(action, TakeLegTile):
        i = COLOURS.index(action.colour)
        f, s = float(base.first[i]), float(base.second[i])
        value = state.leg_piles[action.colour][0]
        ev = leg_tile_value(value, f, s)
        if words:
            why = leg_bet_words(action.colour, value, f, s)
    elif isinstance(action, PlaceDesert):
        if placed is None:  # not batched by advise(): the layout on its own
            desert = {sp: side for sp, (side, owner) in state.desert.items() if owner != me}
            desert[action.space] = action.side
            placed = state_odds(state, race=bool(bets), desert=desert)
        odds = placed
        income = odds.landings.get(action.space, 0.0)
        held = held_value(state.players[me].leg_tiles, odds)
        if bets:
            held += held_overall_value(bets, odds)
        shift = held - base_held
        # moving the tile gives up what it earns where it lies now (in the base odds)
        where = state.players[me].desert
        given_up = base.landings.get(where[0], 0.0) if where else 0.0
        ev = income + shift - given_up
        if words:
            why = _desert_why(income, shift, given_up, where, state, me, bets)
    elif isinstance(action, ReleaseDie):
        ev, why = 1.0, "1 coin for the pyramid tile, for sure." if words else ""
    else:
        assert isinstance(action, BetOverall)
        i = COLOURS.index(action.colour)
        p = float((base.win if action.pile == "winner" else base.lose)[i])  # type: ignore[index]
        others = sum(1 for owner, _ in state.overall[action.pile] if owner != me)
        pay = expected_overall_payout(p, others)
        ev = p * pay - (1.0 - p)
        if words:
            why = overall_bet_words(action.colour, action.pile, p, pay, others)
            why += _from_the_joint(action, bets, pairs)
    return {"action": str(action), "expected": float(ev), "why": why}


def _desert_why(
    income: float,
    shift: float,
    given_up: float,
    where: tuple[int, str] | None,
    state: GameState,
    me: int,
    bets: list[tuple[str, str, int]],
) -> str:
    """The sentence behind a desert placement's figure."""
    yours = [
        w
        for w, held in (("leg tiles", state.players[me].leg_tiles), ("overall bets", bets))
        if held
    ]
    return tile_words(income, shift, yours, given_up, where[0] if where else None)


def _from_the_joint(
    action: BetOverall, bets: list[tuple[str, str, int]], pairs: np.ndarray | None
) -> str:
    """What the joint (winner, loser) odds add to an overall bet's sentence: the camel most
    often at the other end of the race when this card is right, and the chance this card and
    each of the player's cards on the other pile are both right (empty without the joint)."""
    if pairs is None:
        return ""
    i = COLOURS.index(action.colour)
    # row: the winner is this colour; column: the loser is this colour
    given = pairs[i, :] if action.pile == "winner" else pairs[:, i]
    both = []
    for pile, colour, _ in bets:
        if pile == action.pile or colour == action.colour:
            continue
        j = COLOURS.index(colour)
        both.append((colour, pile, float(pairs[i, j] if action.pile == "winner" else pairs[j, i])))
    return joint_words(action.colour, action.pile, COLOURS, [float(x) for x in given], both)
