"""A plain, obviously-correct enumerator of Camel Up odds with exact fractions.

Written from the rules, independently of the numpy kernel, to cross-check it: the track is a
dict of stacks (lists, bottom to top), moves are list slicing, and every die order and face is
enumerated recursively, memoised on the (track, dice left) state. It is also the "straightforward
memoised Python enumerator" the benchmark times as the anchor the fast kernel must beat.

Race odds recurse over legs: at the end of a leg the desert tiles go back and a fresh leg with all
five dice starts. That is only fast enough near the finish line, which is how the tests use it.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

COLOURS = ("blue", "green", "orange", "yellow", "white")
FINISH = 17

Track = tuple[tuple[int, tuple[str, ...]], ...]  # sorted (space, stack bottom->top), no empties
Desert = tuple[tuple[int, int], ...]  # sorted (space, +1 oasis / -1 mirage)


def freeze_track(track: dict[int, list[str]]) -> Track:
    return tuple(sorted((int(s), tuple(st)) for s, st in track.items() if st))


def freeze_desert(desert: dict[int, str]) -> Desert:
    return tuple(sorted((int(s), 1 if side == "oasis" else -1) for s, side in desert.items()))


def move(track: Track, colour: str, face: int, desert: Desert) -> tuple[Track, int | None]:
    """Move `colour` and the camels on it by `face`: the new track and the tile landed on."""
    stacks = {s: list(st) for s, st in track}
    src = next(s for s, st in stacks.items() if colour in st)
    at = stacks[src].index(colour)
    unit = stacks[src][at:]
    stacks[src] = stacks[src][:at]
    target = src + face
    tiles = dict(desert)
    landed = None
    if target in tiles:
        landed = target
        target += tiles[target]
        if tiles[landed] < 0:  # mirage: back one, underneath
            stacks[target] = unit + stacks.get(target, [])
            return freeze_track(stacks), landed
    stacks[target] = stacks.get(target, []) + unit
    return freeze_track(stacks), landed


def ranking(track: Track) -> list[str]:
    """Colours from leader to last: further ahead first, then higher in the stack."""
    order = []
    for _space, stack in sorted(track, reverse=True):
        order.extend(reversed(stack))
    return order


def race_over(track: Track) -> bool:
    return any(s >= FINISH for s, _ in track)


@cache
def leg(track: Track, dice: tuple[str, ...], desert: Desert, states: bool = True) -> tuple:
    """Exact leg outcome from here: (first, second, ends, landings, end_states).

    first/second: {colour: Fraction}; ends: Fraction; landings: {space: Fraction};
    end_states: {track: Fraction} distribution of the track at leg end or race end (only
    collected when `states`, which race odds need and leg odds do not).
    """
    if not dice or race_over(track):
        order = ranking(track)
        return (
            {order[0]: Fraction(1)},
            {order[1]: Fraction(1)},
            Fraction(int(race_over(track))),
            {},
            {track: Fraction(1)} if states else {},
        )
    first: dict[str, Fraction] = {}
    second: dict[str, Fraction] = {}
    ends = Fraction(0)
    landings: dict[int, Fraction] = {}
    end_states: dict[Track, Fraction] = {}
    p = Fraction(1, 3 * len(dice))
    for colour in dice:
        rest = tuple(d for d in dice if d != colour)
        for face in (1, 2, 3):
            nxt, landed = move(track, colour, face, desert)
            if landed is not None:
                landings[landed] = landings.get(landed, Fraction(0)) + p
            f, s, e, lnd, st = leg(nxt, rest, desert, states)
            for c, q in f.items():
                first[c] = first.get(c, Fraction(0)) + p * q
            for c, q in s.items():
                second[c] = second.get(c, Fraction(0)) + p * q
            ends += p * e
            for sp, q in lnd.items():
                landings[sp] = landings.get(sp, Fraction(0)) + p * q
            for t, q in st.items():
                end_states[t] = end_states.get(t, Fraction(0)) + p * q
    return first, second, ends, landings, end_states


@cache
def race(track: Track) -> tuple[dict[str, Fraction], dict[str, Fraction]]:
    """P(win), P(lose) per colour from the start of a fresh leg with no desert tiles."""
    if race_over(track):
        order = ranking(track)
        return {order[0]: Fraction(1)}, {order[-1]: Fraction(1)}
    *_, states = leg(track, COLOURS, ())
    win: dict[str, Fraction] = {}
    lose: dict[str, Fraction] = {}
    for t, q in states.items():
        w, lo = race(t)
        for c, x in w.items():
            win[c] = win.get(c, Fraction(0)) + q * x
        for c, x in lo.items():
            lose[c] = lose.get(c, Fraction(0)) + q * x
    return win, lose


@cache
def race_pairs(track: Track) -> dict[tuple[str, str], Fraction]:
    """P(winner, loser) pairs from the start of a fresh leg with no desert tiles (as race())."""
    if race_over(track):
        order = ranking(track)
        return {(order[0], order[-1]): Fraction(1)}
    *_, states = leg(track, COLOURS, ())
    out: dict[tuple[str, str], Fraction] = {}
    for t, q in states.items():
        for pair, x in race_pairs(t).items():
            out[pair] = out.get(pair, Fraction(0)) + q * x
    return out


def reference_odds(
    track: dict[int, list[str]],
    dice_left: list[str],
    desert: dict[int, str],
    with_race: bool = False,
) -> dict:
    """The odds of a position as exact fractions, in the shape of `pyramid odds` (keys as str)."""
    t = freeze_track(track)
    d = freeze_desert(desert)
    dice = tuple(c for c in COLOURS if c in dice_left)
    first, second, ends, landings, states = leg(t, dice, d, with_race)
    out = {
        "leg": {
            c: {"first": first.get(c, Fraction(0)), "second": second.get(c, Fraction(0))}
            for c in COLOURS
        },
        "game_ends_this_leg": ends,
        "desert_landings": {str(s): landings.get(s, Fraction(0)) for s, _ in d},
    }
    if with_race:
        win: dict[str, Fraction] = {}
        lose: dict[str, Fraction] = {}
        for end, q in states.items():
            w, lo = race(end)
            for c, x in w.items():
                win[c] = win.get(c, Fraction(0)) + q * x
            for c, x in lo.items():
                lose[c] = lose.get(c, Fraction(0)) + q * x
        out["race"] = {
            c: {"win": win.get(c, Fraction(0)), "lose": lose.get(c, Fraction(0))} for c in COLOURS
        }
        pairs: dict[tuple[str, str], Fraction] = {}
        places = {c: [Fraction(0)] * len(COLOURS) for c in COLOURS}
        for end, q in states.items():
            for place, c in enumerate(ranking(end)):
                places[c][place] += q
            for pair, x in race_pairs(end).items():
                pairs[pair] = pairs.get(pair, Fraction(0)) + q * x
        out["race_pairs"] = {
            w: {lo: pairs.get((w, lo), Fraction(0)) for lo in COLOURS if lo != w} for w in COLOURS
        }
        out["leg_order"] = places
    return out


def clear_caches() -> None:
    """Forget memoised states (the benchmark times a cold enumeration)."""
    leg.cache_clear()
    race.cache_clear()
    race_pairs.cache_clear()
