"""A plain exact-fraction enumerator of second-edition leg odds, written from the rules page.

Independent of the numpy kernel: lists and dicts, every die order and face enumerated recursively
with ``fractions.Fraction``, memoised on (track, dice left). Its movement is its own (not the
engine's ``move_camel``), so a shared misreading of the rules would have to be made twice.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

RACING = ("blue", "green", "yellow", "red", "purple")
CRAZY = ("black", "white")

Track = tuple[tuple[int, tuple[str, ...]], ...]
Tiles = tuple[tuple[int, int], ...]


def freeze(track: dict[int, list[str]] | dict[int, tuple[str, ...]]) -> Track:
    return tuple(sorted((int(s), tuple(st)) for s, st in track.items() if st))


def where(track: Track, camel: str) -> tuple[int, int]:
    for space, stack in track:
        if camel in stack:
            return space, stack.index(camel)
    raise KeyError(camel)


def which_crazy(track: Track, shade: str) -> str:
    stacks = dict(track)
    carrying = []
    for c in CRAZY:
        s, h = where(track, c)
        if any(x in RACING for x in stacks[s][h + 1 :]):
            carrying.append(c)
    if len(carrying) == 1:
        return carrying[0]
    sb, hb = where(track, "black")
    sw, hw = where(track, "white")
    if sb == sw and hb == hw + 1:
        return "black"
    if sb == sw and hw == hb + 1:
        return "white"
    return shade


def move(track: Track, camel: str, face: int, tiles: Tiles) -> tuple[Track, int | None, int]:
    """(new track, tile space landed on or None, +1/-1 crossed forward/backward or 0)."""
    direction = -1 if camel in CRAZY else 1
    stacks = {s: list(st) for s, st in track}
    src, at = where(track, camel)
    unit = stacks[src][at:]
    stacks[src] = stacks[src][:at]
    target = src + direction * face
    tile_map = dict(tiles)
    landed = None
    under = False
    if 1 <= target <= 16 and target in tile_map:
        landed = target
        if tile_map[target] > 0:
            target += direction
        else:
            target -= direction
            under = True
    if under:
        stacks[target] = unit + stacks.get(target, [])
    else:
        stacks[target] = stacks.get(target, []) + unit
    crossed = 1 if target > 16 else -1 if target < 1 else 0
    return freeze(stacks), landed, crossed


def ranking(track: Track) -> list[str]:
    order: list[str] = []
    for _space, stack in sorted(track, reverse=True):
        order.extend(c for c in reversed(stack) if c in RACING)
    return order


Result = tuple[dict[tuple[str, int], Fraction], Fraction, Fraction, dict[int, Fraction]]


@cache
def leg(track: Track, dice: tuple[str, ...], rolls: int, tiles: Tiles) -> Result:
    """(P(camel, place), P(ends forward), P(ends backward), expected landings per tile)."""
    if rolls == 0:
        return (
            {(c, r): Fraction(1) for r, c in enumerate(ranking(track))},
            Fraction(0),
            Fraction(0),
            {},
        )
    places: dict[tuple[str, int], Fraction] = {}
    fwd = bwd = Fraction(0)
    land: dict[int, Fraction] = {}
    outcomes = []
    for die in dice:
        rest = tuple(d for d in dice if d != die)
        if die == "grey":
            for shade in CRAZY:
                for face in (1, 2, 3):
                    camel = which_crazy(track, shade)
                    outcomes.append((Fraction(1, len(dice) * 6), camel, face, rest))
        else:
            for face in (1, 2, 3):
                outcomes.append((Fraction(1, len(dice) * 3), die, face, rest))
    for p, camel, face, rest in outcomes:
        new, landed, crossed = move(track, camel, face, tiles)
        if landed is not None:
            land[landed] = land.get(landed, Fraction(0)) + p
        if crossed:
            sub = leg(new, (), 0, tiles)
            if crossed > 0:
                fwd += p
            else:
                bwd += p
        else:
            sub = leg(new, rest, rolls - 1, tiles)
            fwd += p * sub[1]
            bwd += p * sub[2]
            for s, x in sub[3].items():
                land[s] = land.get(s, Fraction(0)) + p * x
        for key, x in sub[0].items():
            places[key] = places.get(key, Fraction(0)) + p * x
    return places, fwd, bwd, land


def leg_odds(
    track: dict[int, list[str]], dice_left: list[str], spectators: dict[int, str]
) -> Result:
    tiles = tuple(
        sorted((int(s), 1 if side == "cheering" else -1) for s, side in spectators.items())
    )
    return leg(freeze(track), tuple(dice_left), len(dice_left) - 1, tiles)
