"""What each audience may see of a state, as JSON-safe dicts.

Overall bets are secret until the game ends: the public view shows how many cards lie on each
pile and whose they are, never their colours. ``public_event`` redacts events the same way before
they leave the hub.
"""

from __future__ import annotations

from typing import Any

from hub.games.camelup_common import (
    piles_view,
    public_event,
    seats_view,
    with_all_secrets,
    with_own_secrets,
)

from .model import COLOURS, PILES
from .state import RACE_CARDS, GameState

__all__ = [
    "full_view",
    "own_state",
    "player_view",
    "public_event",
    "public_state",
    "public_view",
    "state_from_view",
]


def public_view(state: GameState) -> dict[str, Any]:
    names = state.names
    return {
        "game": "camelup",
        **seats_view(state),
        "desert": {
            str(s): {"side": side, "owner": names[o]}
            for s, (side, o) in sorted(state.desert.items())
        },
        "dice_left": list(state.dice_left),
        "dice_rolled": [{"colour": c, "face": f, "player": names[i]} for c, f, i in state.rolled],
        "leg_tiles": {c: list(state.leg_piles[c]) for c in COLOURS},
        "pyramid_tiles_left": len(state.dice_left),
        "holdings": {
            p.name: {
                "money": p.money,
                "leg_tiles": [{"colour": c, "value": v} for c, v in p.leg_tiles],
                "pyramid_tiles": p.pyramid_tiles,
                "desert": None if p.desert is None else {"space": p.desert[0], "side": p.desert[1]},
                "race_cards_left": len(p.race_cards),
            }
            for p in state.players
        },
        **piles_view(state),
    }


def player_view(state: GameState, name: str) -> dict[str, Any]:
    """The public view plus what ``name`` alone knows: their race cards and their bets' colours."""
    return with_own_secrets(public_view(state), state, name, RACE_CARDS)


def full_view(state: GameState) -> dict[str, Any]:
    """Everything, secrets included: for the hub's own use and for after the game."""
    return with_all_secrets(public_view(state), state, RACE_CARDS)


def state_from_view(view: dict[str, Any], race_cards: list[str] | None = None) -> GameState:
    """A GameState from a public view (or any dict of its shape), for `pyramid advise`.

    Missing parts take their start-of-leg defaults. Overall bets in a public view carry no colour,
    so the piles are rebuilt with a placeholder colour: only their counts and owners matter to the
    advisor. ``race_cards`` are the cards still in the hand of the player to move, when known.
    """
    from .game import check_players, check_track
    from .state import PlayerState

    names = check_players(view.get("players") or list(view.get("holdings", {})))
    holdings = view.get("holdings", {})
    mover = view.get("current_player", names[0])
    if mover not in names:
        raise ValueError(f"current_player {mover!r} is not one of the players")
    players = []
    for name in names:
        h = holdings.get(name, {})
        desert = h.get("desert")
        cards = frozenset(COLOURS)
        if name == mover and race_cards is not None:
            cards = frozenset(race_cards)
        players.append(
            PlayerState(
                name=name,
                money=int(h.get("money", 3)),
                leg_tiles=tuple((t["colour"], int(t["value"])) for t in h.get("leg_tiles", [])),
                pyramid_tiles=int(h.get("pyramid_tiles", 0)),
                desert=None if not desert else (int(desert["space"]), desert["side"]),
                race_cards=cards,
            )
        )
    desert_map: dict[int, tuple[str, int]] = {}
    for space, tile in view.get("desert", {}).items():
        side, owner = (tile, None) if isinstance(tile, str) else (tile["side"], tile.get("owner"))
        desert_map[int(space)] = (side, names.index(owner) if owner in names else -1)
    dice_left = tuple(c for c in COLOURS if c in view.get("dice_left", COLOURS))
    piles = {c: tuple(view.get("leg_tiles", {}).get(c, (5, 3, 2))) for c in COLOURS}
    overall = {
        pile: tuple(
            (names.index(b["player"]), b.get("colour", "?"))
            for b in view.get("overall", {}).get(pile, [])
        )
        for pile in PILES
    }
    if view.get("me") == mover and view.get("my_bets"):
        overall = _own_colours(overall, names.index(mover), view["my_bets"])
    return GameState(
        players=tuple(players),
        track=check_track(view["track"]),
        current=names.index(mover),
        dice_left=dice_left,
        leg_piles=piles,
        desert=desert_map,
        overall=overall,
        leg=int(view.get("leg", 1)),
    )


def _own_colours(
    overall: dict[str, tuple[tuple[int, str], ...]], me: int, my_bets: list[dict[str, str]]
) -> dict[str, tuple[tuple[int, str], ...]]:
    """The piles with the mover's own cards coloured from a player view's ``my_bets`` (listed
    pile by pile in the order placed), so the advisor can value the bets already placed."""
    out = {}
    for pile, cards in overall.items():
        mine = iter([b["colour"] for b in my_bets if b.get("pile") == pile])
        out[pile] = tuple((i, next(mine, c)) if i == me and c == "?" else (i, c) for i, c in cards)
    return out


def public_state(state: GameState) -> GameState:
    """The state as the whole table knows it: every hand holds all five race cards and the cards
    on the overall piles show no colour.

    Advice shown on the shared screen is computed from this, so it cannot give away which race
    cards the player to move has already played (its bets are rated as if any colour were still
    in hand; the player's own phone knows better).
    """
    from dataclasses import replace

    players = tuple(replace(p, race_cards=frozenset(COLOURS)) for p in state.players)
    overall = {pile: tuple((i, "?") for i, _ in state.overall[pile]) for pile in PILES}
    return replace(state, players=players, overall=overall)


def own_state(state: GameState, name: str) -> GameState:
    """The state as player ``name`` knows it: their own race cards and bet colours, every other
    hand full and the other players' cards on the piles colourless (for their own advice)."""
    from dataclasses import replace

    me = state.index(name)
    players = tuple(
        p if i == me else replace(p, race_cards=frozenset(COLOURS))
        for i, p in enumerate(state.players)
    )
    overall = {
        pile: tuple((i, c if i == me else "?") for i, c in state.overall[pile]) for pile in PILES
    }
    return replace(state, players=players, overall=overall)
