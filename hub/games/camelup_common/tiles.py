"""The tile each player may put on the track (the first edition's desert tile, the second's
spectator tile): the rules of where it may go, written once, with the one rule in which the
editions differ passed as a value (:class:`TileRules`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hub.games.common import IllegalAction

from .model import SPACES

__all__ = ["TileRules", "tile_moved", "tile_placements", "tile_refusal"]


@dataclass(frozen=True)
class TileRules:
    """An edition's tile: its name and sides, the refusal codes, and the one rule in which the
    editions differ. ``turn_over_in_place``: the own tile may be turned to its other side where
    it lies (first edition's desert tile); otherwise it may only move to a different space
    (second edition's spectator tile: the rulebook's "a different space")."""

    name: str
    sides: tuple[str, ...]  # the first is the one named first in its refusal
    goes_on: str  # the end of the "holds a camel" sentence: where tiles go instead
    turn_over_in_place: bool
    off_track: str
    space_one: str
    on_camel: str
    occupied: str
    adjacent: str
    own_here: str

    def own_here_sentence(self, space: int, side: str) -> str:
        if self.turn_over_in_place:
            return f"Your tile already lies on space {space} with the {side} side up."
        return (
            f"Your tile already lies on space {space}; "
            "a tile can only be moved to a different space."
        )

    def own_here_refused(self, here_side: str, side: str) -> bool:
        """Whether the owner's tile lying on the space with ``here_side`` up forbids placing it
        there with ``side`` up."""
        return not self.turn_over_in_place or here_side == side


def tile_refusal(
    rules: TileRules,
    tiles: Mapping[int, tuple[str, int]],
    track: Mapping[int, tuple[str, ...]],
    names: Sequence[str],
    owner: int,
    space: object,
    side: str,
) -> IllegalAction | None:
    """Why player ``owner`` may not put their tile on ``space`` with ``side`` up, or None.

    ``tiles``: {space: (side, owner)} of the tiles on the track. The own tile is picked up
    first, so where it lay blocks nothing but itself."""
    if side not in rules.sides:
        return IllegalAction(
            "bad_action",
            f"A {rules.name} tile shows {rules.sides[0]} or {rules.sides[1]}, not {side!r}.",
        )
    if not isinstance(space, int) or isinstance(space, bool) or not 1 <= space <= SPACES:
        return IllegalAction(
            rules.off_track, f"Space {space!r} is not on the track (spaces 1 to {SPACES})."
        )
    if space == 1:
        return IllegalAction(rules.space_one, f"A {rules.name} tile may not go on space 1.")
    if track.get(space):
        return IllegalAction(
            rules.on_camel,
            f"Space {space} holds a camel; {rules.name} tiles go on {rules.goes_on}.",
        )
    here = tiles.get(space)
    if here is not None and here[1] != owner:
        return IllegalAction(
            rules.occupied, f"Space {space} already holds {names[here[1]]}'s {rules.name} tile."
        )
    if here is not None and rules.own_here_refused(here[0], side):
        return IllegalAction(rules.own_here, rules.own_here_sentence(space, side))
    for near in (space - 1, space + 1):
        other = tiles.get(near)
        if other is not None and other[1] != owner:
            return IllegalAction(
                rules.adjacent,
                f"Space {space} is next to {names[other[1]]}'s tile on space {near}.",
            )
    return None


def tile_placements(
    rules: TileRules,
    tiles: Mapping[int, tuple[str, int]],
    track: Mapping[int, tuple[str, ...]],
    me: int,
) -> list[tuple[int, str]]:
    """The (space, side) placements :func:`tile_refusal` lets ``me`` make, space by space and
    side by side, without building a refusal for each of the others (legal_actions runs on
    every bot turn; a test keeps the two in step)."""
    out = []
    for space in range(2, SPACES + 1):
        if track.get(space):
            continue
        here = tiles.get(space)
        if here is not None and here[1] != me:
            continue
        before, after = tiles.get(space - 1), tiles.get(space + 1)
        if (before is not None and before[1] != me) or (after is not None and after[1] != me):
            continue
        out += [
            (space, side)
            for side in rules.sides
            if here is None or not rules.own_here_refused(here[0], side)
        ]
    return out


def tile_moved(
    tiles: Mapping[int, tuple[str, int]], owner: int, space: int, side: str
) -> dict[int, tuple[str, int]]:
    """The tiles on the track after ``owner`` put theirs on ``space`` with ``side`` up (the own
    tile is picked up from wherever it lay)."""
    out = {s: v for s, v in tiles.items() if v[1] != owner}
    out[space] = (side, owner)
    return out
