"""`pyramid advise`: rank the legal actions of the player to move, one JSON position per line.

Input: the hub's state as it publishes it on `camelup/<table>/state` (the view is its "game"), or
the view alone (players, holdings, track, desert, dice_left, leg_tiles, overall,
current_player), optionally with "race_cards": the cards still in the mover's hand. Example:
`pyramid advise < docs/examples/position.json`. Output: {"player": name, "actions": [{"action",
"expected", "why"}, ...]} best first.
"""

from __future__ import annotations

import argparse
from typing import Any

from hub.commands._jsonlines import serve_lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--top", type=int, default=0, help="print only the best N actions")


def run(args: argparse.Namespace) -> int:
    from hub.games.camelup import IllegalAction
    from hub.games.camelup.advisor import advise
    from hub.games.camelup.odds import PositionError
    from hub.games.camelup.views import state_from_view

    def answer(view: dict[str, Any]) -> dict[str, Any]:
        if "track" not in view and isinstance(view.get("game"), dict):
            view = view["game"]  # the hub's whole state: its view is the game
        if "track" not in view:
            raise ValueError("the position needs a track")
        state = state_from_view(view, view.get("race_cards"))
        mover = state.players[state.current or 0].name
        return {"player": mover, "actions": advise(state, limit=args.top or None)}

    serve_lines(answer, (IllegalAction, PositionError))
    return 0
