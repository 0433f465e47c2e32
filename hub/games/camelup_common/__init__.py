"""What both editions of Camel Up share, written once: the board's constants and the overall
piles' payouts (``model``), whose turn it is, the refusals worded alike, an overall bet and the
game-over reveal (``rules``), the tile rules' refusals (``tiles``), the state folds both
editions make alike (``state``), the shared parts and secrets of the views (``views``) and the
game's shell: a new game, its start event, replay, the player to move (``game``).

Each edition keeps its own rules, state and words where they differ and passes them here as
values: its camels, its tile (:class:`TileRules`: the first edition's desert tile, the second's
spectator tile), its cards (:class:`Hand`), its handlers and folds. Nothing here asks which
edition it is, and nothing here imports an edition.
"""

from .game import CamelUpGame, check_stacks
from .rules import (
    Event,
    Hand,
    Handler,
    bad_face,
    bad_notation,
    decide,
    game_over,
    not_notation,
    overall_bet,
    player_to_move,
    roll_rng,
)
from .state import (
    Seats,
    fold_event,
    game_over_folded,
    overall_after,
    top_taken,
    track_after_move,
    track_from,
    turn_done,
    with_player,
)
from .tiles import TileRules, tile_moved, tile_placements, tile_refusal
from .views import piles_view, public_event, seats_view, with_all_secrets, with_own_secrets

__all__ = [
    "CamelUpGame",
    "Event",
    "Hand",
    "Handler",
    "Seats",
    "TileRules",
    "bad_face",
    "bad_notation",
    "check_stacks",
    "decide",
    "fold_event",
    "game_over",
    "game_over_folded",
    "not_notation",
    "overall_after",
    "overall_bet",
    "piles_view",
    "player_to_move",
    "public_event",
    "roll_rng",
    "seats_view",
    "tile_moved",
    "tile_placements",
    "tile_refusal",
    "top_taken",
    "track_after_move",
    "track_from",
    "turn_done",
    "with_all_secrets",
    "with_own_secrets",
    "with_player",
]
