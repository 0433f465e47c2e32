"""What each audience may see of a second-edition state, as JSON-safe dicts.

Finish cards on the piles are secret until the game ends (the public view shows whose they are,
never their colours); partnerships are public.
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

from .model import RACING
from .state import FINISH_CARDS, GameState

__all__ = ["full_view", "player_view", "public_event", "public_view"]


def public_view(state: GameState) -> dict[str, Any]:
    names = state.names
    return {
        "game": "camelup2",
        "edition": 2,
        **seats_view(state),
        "spectators": {
            str(s): {"side": side, "owner": names[o]}
            for s, (side, o) in sorted(state.spectators.items())
        },
        "dice_left": list(state.dice_left),
        "dice_rolled": [
            {
                "die": r.die,
                "face": r.face,
                "shade": r.shade,
                "player": names[r.player],
                "camel": r.camel,
                "why": r.why,
            }
            for r in state.rolled
        ],
        "leg_tickets": {c: list(state.leg_stacks[c]) for c in RACING},
        "pyramid_tickets_left": len(state.dice_left) - 1,
        "holdings": {
            p.name: {
                "money": p.money,
                "leg_tickets": [{"colour": c, "value": v} for c, v in p.leg_tickets],
                "pyramid_tickets": p.pyramid_tickets,
                "spectator": None
                if p.spectator is None
                else {"space": p.spectator[0], "side": p.spectator[1]},
                "finish_cards_left": len(p.finish_cards),
                "partner": None if p.partner is None else names[p.partner],
            }
            for p in state.players
        },
        "partner_play": state.partner_play,
        **piles_view(state),
    }


def player_view(state: GameState, name: str) -> dict[str, Any]:
    """The public view plus what ``name`` alone knows: their finish cards and bets' colours."""
    return with_own_secrets(public_view(state), state, name, FINISH_CARDS)


def full_view(state: GameState) -> dict[str, Any]:
    """Everything, secrets included: for the hub's own use and for after the game."""
    return with_all_secrets(public_view(state), state, FINISH_CARDS)
