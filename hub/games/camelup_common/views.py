"""What each audience may see of either edition's game, as JSON-safe dicts: the parts of a
public view both editions show alike (the seats and track, the overall piles without colours),
an event as everyone may see it, and the secrets a player's own view or the full view adds.

Each edition's ``views`` lays out its own tiles, dice and holdings between the shared parts.
"""

from __future__ import annotations

from typing import Any

from .model import PILES
from .rules import Hand

__all__ = [
    "piles_view",
    "public_event",
    "seats_view",
    "with_all_secrets",
    "with_own_secrets",
]


def seats_view(state: Any) -> dict[str, Any]:
    """The head of a public view: the players, whose turn it is, who started the leg, the leg
    and the track (camels bottom to top)."""
    names = state.names
    return {
        "players": list(names),
        "current_player": None if state.current is None else names[state.current],
        "starting_player": names[state.starting],
        "leg": state.leg,
        "track": {str(s): list(st) for s, st in sorted(state.track.items())},
    }


def piles_view(state: Any) -> dict[str, Any]:
    """The tail of a public view: whose cards lie on each overall pile (never their colours),
    whether the game is over and its result."""
    names = state.names
    return {
        "overall": {pile: [{"player": names[i]} for i, _ in state.overall[pile]] for pile in PILES},
        "finished": state.finished,
        "result": state.result,
    }


def public_event(event: dict[str, Any]) -> dict[str, Any]:
    """An event as everyone may see it: an overall bet without its colour."""
    if event.get("type") == "overall_bet_placed":
        return {k: v for k, v in event.items() if k != "colour"}
    return dict(event)


def with_own_secrets(view: dict[str, Any], state: Any, name: str, hand: Hand) -> dict[str, Any]:
    """A public ``view`` plus what ``name`` alone knows: their cards and their bets' colours."""
    me = state.index(name)
    view["me"] = name
    view[hand.key] = [c for c in hand.camels if c in hand.of(state.players[me])]
    view["my_bets"] = [
        {"pile": pile, "colour": c} for pile in PILES for i, c in state.overall[pile] if i == me
    ]
    return view


def with_all_secrets(view: dict[str, Any], state: Any, hand: Hand) -> dict[str, Any]:
    """A public ``view`` plus every secret: for the hub's own use and for after the game."""
    view["overall"] = {
        pile: [{"player": state.players[i].name, "colour": c} for i, c in state.overall[pile]]
        for pile in PILES
    }
    for p in state.players:
        view["holdings"][p.name][hand.key] = [c for c in hand.camels if c in hand.of(p)]
    return view
