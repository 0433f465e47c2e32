"""What each audience may see of a state, as JSON-safe dicts.

Overall bets are secret until the game ends: the public view shows how many cards lie on each
pile and whose they are, never their colours. ``public_event`` redacts events the same way before
they leave the hub.
"""

from __future__ import annotations

from typing import Any

from .model import COLOURS, PILES
from .state import GameState


def public_view(state: GameState) -> dict[str, Any]:
    names = state.names
    return {
        "game": "camelup",
        "players": list(names),
        "current_player": None if state.current is None else names[state.current],
        "starting_player": names[state.starting],
        "leg": state.leg,
        "track": {str(s): list(st) for s, st in sorted(state.track.items())},
        "desert": {str(s): {"side": side, "owner": names[o]}
                   for s, (side, o) in sorted(state.desert.items())},
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
        "overall": {pile: [{"player": names[i]} for i, _ in state.overall[pile]]
                    for pile in PILES},
        "finished": state.finished,
        "result": state.result,
    }


def player_view(state: GameState, name: str) -> dict[str, Any]:
    """The public view plus what ``name`` alone knows: their race cards and their bets' colours."""
    view = public_view(state)
    me = state.index(name)
    view["me"] = name
    view["race_cards"] = [c for c in COLOURS if c in state.players[me].race_cards]
    view["my_bets"] = [{"pile": pile, "colour": c}
                       for pile in PILES for i, c in state.overall[pile] if i == me]
    return view


def full_view(state: GameState) -> dict[str, Any]:
    """Everything, secrets included: for the hub's own use and for after the game."""
    view = public_view(state)
    view["overall"] = {pile: [{"player": state.players[i].name, "colour": c}
                              for i, c in state.overall[pile]] for pile in PILES}
    for p in state.players:
        view["holdings"][p.name]["race_cards"] = [c for c in COLOURS if c in p.race_cards]
    return view


def public_event(event: dict[str, Any]) -> dict[str, Any]:
    """An event as everyone may see it: an overall bet without its colour."""
    if event.get("type") == "overall_bet_placed":
        return {k: v for k, v in event.items() if k != "colour"}
    return dict(event)
