"""Exact leg odds of the second edition: every die order and face of the rest of the leg, level
by level in numpy, with rows that reach the same state merged.

A fresh leg releases 5 of the 6 dice in a random order; a racing die shows 1-3, the grey die one
of six results (black or white numeral, 1-3). That is 720 die orders and 320,760 equally weighted
(order, faces) sequences. The kernel walks them one level (one die) at a time: each row is a
distinct state (the seven camels' keys and the dice already out) with its probability; after each
level, rows with equal state are merged (their futures are the same), which keeps the levels small
(a fresh leg's ~321k sequences pass through a few thousand states per level). A level is built
from its *moves* (a row and a die, or a row and a crazy camel for the grey die), each moved with
its three faces at once, so what depends only on the row and the mover is computed once; the end
rows are tallied by their whole finishing order (one of 120), not camel by camel.

Encoding: each camel is ``(space + OFFSET) << 3 | height``; a bigger key is farther along, so a
unit is the camels on the mover's space with a key at least the mover's, and ranking is the order
of the racing camels' keys. OFFSET keeps the spaces of a unit carried backward over the line
(0, -1, -2) positive, so those camels rank last with no special case.

Moves follow :func:`hub.games.camelup2.model.move_camel` exactly (the tests check the two against
each other and against a plain exact-fraction enumerator): a racing unit moves +face, a crazy one
-face; a spectator tile acts relative to the unit's direction (cheering on and on top, booing back
and under everything there); a unit leaving the track ends the race and the row becomes final.
The grey die's camel follows the two exceptions, per row.

This module knows no colour names: integer arrays in and out. :mod:`.odds` wraps it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations

import numpy as np

N_RACING = 5
N_CAMELS = 7
BLACK, WHITE = 5, 6  # camel indices of the crazy camels
GREY = 5  # die index of the grey die (dice 0..4 are the racing camels')
N_DICE = 6
OFFSET = 3
SPACES = 16
LOW, HIGH = 1 + OFFSET, SPACES + OFFSET  # the board, in offset spaces
TILE_SLOTS = 32
KEY = np.int16


def encode_key(space: int, height: int) -> int:
    return ((space + OFFSET) << 3) | height


def decode_space(key: int) -> int:
    return (key >> 3) - OFFSET


def tile_table(tiles: dict[int, int]) -> np.ndarray:
    """Per offset space: +1 cheering, -1 booing, 0 none."""
    t = np.zeros(TILE_SLOTS, dtype=KEY)
    for space, effect in tiles.items():
        t[space + OFFSET] = effect
    return t


@dataclass
class Stepped:
    keys: np.ndarray  # (7, m)
    crossed: np.ndarray  # (m,) int8: 0 on the track, 1 forward, -1 backward
    dest: np.ndarray  # (m,) offset space the unit reached before any tile
    tile: np.ndarray  # (m,) tile effect met there


def step(
    keys: np.ndarray, mover: np.ndarray, delta: int | np.ndarray, tiles: np.ndarray
) -> Stepped:
    """Move camel ``mover[r]`` of every row r by ``delta`` (or ``delta[r]``; its sign is the
    unit's own direction).

    keys: (7, m) int16. The unit is the mover and every camel above it; it lands on top, or under
    after a booing tile (under everything at the end space, also the camels it just left).
    """
    m = keys.shape[1]
    mk = keys[mover, np.arange(m)]
    sp = keys >> 3
    pos = mk >> 3
    in_unit = (sp == pos) & (keys >= mk)
    dest = pos + delta
    tile = tiles[dest]
    if isinstance(delta, np.ndarray):
        final = dest + np.where(delta > 0, tile, -tile)
    else:
        final = dest + tile if delta > 0 else dest - tile
    under = tile < 0
    others = (sp == final) & ~in_unit
    # the unit's bottom goes to the top of the final space (or to height 0 under a booing
    # tile, the camels there lifted by the unit's size); the unit and the others are disjoint
    shift = (final << 3) - mk + _count_rows(others) * ~under
    lift = _count_rows(in_unit) * under
    new = keys + in_unit * shift + others * lift
    crossed = (final > HIGH).view(np.int8) - (final < LOW).view(np.int8)
    return Stepped(new, crossed, dest, tile)


def crazy_forced(keys: np.ndarray) -> np.ndarray:
    """Per row, the crazy camel an exception makes the grey die move whatever its numeral's
    colour, or -1 where none applies (then the colour names it):

    a. exactly one crazy camel carries racing camels (anywhere above it): that one;
    b. else one sits directly on the other: the top one.
    """
    b, w = keys[BLACK], keys[WHITE]
    sb, sw = b >> 3, w >> 3
    carries_b = np.zeros(keys.shape[1], dtype=bool)
    carries_w = np.zeros(keys.shape[1], dtype=bool)
    for row in keys[:N_RACING]:  # row by row: a reduce over the short axis is slower
        sp = row >> 3
        carries_b |= (sp == sb) & (row > b)
        carries_w |= (sp == sw) & (row > w)
    same = sb == sw
    pick = np.full(keys.shape[1], -1, dtype=np.intp)
    pick[same & (w - b == 1)] = WHITE
    pick[same & (b - w == 1)] = BLACK
    only = carries_b ^ carries_w
    pick[only & carries_b] = BLACK
    pick[only & carries_w] = WHITE
    return pick


def crazy_mover(keys: np.ndarray, shade: int | np.ndarray) -> np.ndarray:
    """Per row, the crazy camel the grey die moves when its numeral names ``shade`` (one camel
    index for every row, or one per row): the exceptions of :func:`crazy_forced`, else the
    named one."""
    forced = crazy_forced(keys)
    return np.where(forced < 0, shade, forced)


def _count_rows(mask: np.ndarray) -> np.ndarray:
    """Per column, how many of the seven rows are True (row by row: a reduce over the short
    axis 0 is ten times slower here, measured)."""
    out: np.ndarray = mask[0].astype(KEY)
    for row in mask[1:]:
        out += row
    return out


@dataclass
class LegOutcome:
    """The exact distribution of the leg's end.

    places: (5, 5) P(racing camel i ends the leg in place r); ends: P(race ends this leg) by
    forward and backward crossing; landings: per offset space, expected unit landings on a tile;
    final_keys / final_weight / final_crossed: every distinct end state with its probability (the
    race odds start from them).
    """

    places: np.ndarray
    ends_forward: float
    ends_backward: float
    landings: np.ndarray
    final_keys: np.ndarray
    final_weight: np.ndarray
    final_crossed: np.ndarray
    pairs: np.ndarray = field(default_factory=lambda: np.zeros((N_RACING, N_RACING)))
    visits: np.ndarray = field(default_factory=lambda: np.zeros(TILE_SLOTS))


def _merge(
    keys: np.ndarray, used: np.ndarray, weight: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows with equal keys and dice out have the same future: one row each, weights added."""
    packed = used.astype(np.int64)
    for row in keys:  # 6 + 7 * 8 = 62 bits
        packed <<= 8
        packed |= row
    order = np.argsort(packed)
    ordered = packed[order]
    new = np.empty(packed.size, dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    if starts.size == packed.size:
        return keys, used, weight
    keep = order[starts]
    group = np.cumsum(new) - 1
    w = np.bincount(group, weights=weight[order], minlength=starts.size)
    return np.take(keys, keep, axis=1), used[keep], w  # C order, unlike keys[:, keep]


def _canonical(
    keys: np.ndarray, weight: np.ndarray, crossed: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The end states merged and in one fixed order (crossing, then keys): the race simulation
    draws from them by index, so its answer must not depend on the order in which the kernel
    happened to produce them."""
    packed = (crossed + 1).astype(np.int64)
    for row in keys:  # 2 + 7 * 8 = 58 bits
        packed <<= 8
        packed |= row
    order = np.argsort(packed, kind="stable")
    ordered = packed[order]
    new = np.empty(packed.size, dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    keep = order[starts]
    w = np.bincount(np.cumsum(new) - 1, weights=weight[order], minlength=starts.size)
    return np.take(keys, keep, axis=1), w, crossed[keep]


@dataclass
class Moves:
    """The unit moves of one level, one per (row, die) and per (row, grey shade) where the shade
    matters: the faces are not in it, so what depends only on the row and the mover (which
    camels ride along) is found once for its three (or six) children."""

    parent: np.ndarray  # (M,) row index
    mover: np.ndarray  # (M,) camel index
    sign: np.ndarray  # (M,) int16: +1 a racing die, -1 the grey die
    prob: np.ndarray  # (M,) probability of each of its three faces
    used: np.ndarray  # (M,) uint8: dice out after it


def _moves(keys: np.ndarray, used: np.ndarray, dice_left: list[int], left: int) -> Moves:
    """Every row rolls each die it still has; the grey die once per crazy camel it may move.

    A grey result whose camel does not depend on the numeral's colour (an exception applies)
    is one move with both colours' probability."""
    parent: list[np.ndarray] = []
    mover: list[np.ndarray] = []
    sign: list[np.ndarray] = []
    prob: list[np.ndarray] = []
    out: list[np.ndarray] = []
    for d in dice_left:
        sel = np.flatnonzero((used >> d) & 1 == 0)
        if sel.size == 0:
            continue
        u = used[sel] | np.uint8(1 << d)
        if d == GREY:
            forced = crazy_forced(np.take(keys, sel, axis=1))
            differ = forced < 0
            p_one = 1.0 / (left * 6)
            black = sel[differ]
            parent += [sel, black]
            mover += [np.where(differ, BLACK, forced), np.full(black.size, WHITE, dtype=np.intp)]
            sign.append(np.full(sel.size + int(differ.sum()), -1, dtype=KEY))
            prob += [np.where(differ, p_one, 2 * p_one), np.full(int(differ.sum()), p_one)]
            out += [u, u[differ]]
        else:
            parent.append(sel)
            mover.append(np.full(sel.size, d, dtype=np.intp))
            sign.append(np.ones(sel.size, dtype=KEY))
            prob.append(np.full(sel.size, 1.0 / (left * 3)))
            out.append(u)
    return Moves(
        np.concatenate(parent),
        np.concatenate(mover),
        np.concatenate(sign),
        np.concatenate(prob),
        np.concatenate(out),
    )


_FACES = np.array((1, 2, 3), dtype=KEY)[:, None]  # (3, 1)


def step_faces(keys: np.ndarray, mover: np.ndarray, sign: np.ndarray, tiles: np.ndarray) -> Stepped:
    """:func:`step` for the three faces of every move at once: row ``f * m + r`` of the result
    is row r of ``keys`` moving camel ``mover[r]`` by ``sign[r] * (f + 1)``.

    Why it is cheaper than :func:`step` on three times the rows: the unit (which camels ride)
    depends on the row and the mover only, so it is found once per move and broadcast over the
    faces; and the rare landings on a booing tile (the unit goes under) are redone afterwards
    by :func:`step`, so the common path only ever puts the unit on top.
    """
    m = keys.shape[1]
    mk = keys[mover, np.arange(m)]
    sp = keys >> 3
    pos = mk >> 3
    in_unit = (sp == pos) & (keys >= mk)  # (7, m)
    dest = pos + sign * _FACES  # (3, m)
    tile = tiles[dest]
    final = dest + sign * tile
    # on top: the unit's bottom goes to the height of the final space's stack (the unit is
    # never there itself unless a booing tile sent it back, and those are redone below);
    # camel by camel, so no (7, 3, m) array of comparisons is ever built
    height = (sp[0] == final).astype(KEY)
    for row in sp[1:]:
        height += row == final
    shift = (final << 3) - mk + height
    new = np.multiply(in_unit[:, None, :], shift, dtype=KEY)  # (7, 3, m)
    new += keys[:, None, :]
    new = new.reshape(N_CAMELS, -1)
    crossed = (final > HIGH).view(np.int8) - (final < LOW).view(np.int8)
    tile = tile.ravel()
    under = np.flatnonzero(tile < 0)
    if under.size:
        r = under % m
        redo = step(
            np.take(keys, r, axis=1), mover[r], sign[r] * (under // m + 1).astype(KEY), tiles
        )
        new[:, under] = redo.keys
    return Stepped(new, crossed.ravel(), dest.ravel(), tile)


def _order_codes(keys: np.ndarray) -> np.ndarray:
    """Per row, the racing camels' finishing order as one number: sum of place_i * 5**i.

    Camel i's place is how many racing camels are ahead of it; each pair (i, j) adds 5**i to
    the code if j is ahead, else 5**j. Ten comparisons of two rows each, no (5, 5, n) array."""
    rk = keys[:N_RACING]
    code = np.full(keys.shape[1], sum(5**j * j for j in range(N_RACING)), dtype=KEY)
    for i in range(N_RACING):
        for j in range(i + 1, N_RACING):
            # start from "i ahead of j" for every pair (that sum is the constant above)
            code += (rk[j] > rk[i]) * KEY(5**i - 5**j)
    return code


def _order_table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The 120 valid order codes, and for each its (place, pair) indicator rows: per code, which
    (camel, place) cells and which (first, second) cell it adds to."""
    codes, places, pairs = [], [], []
    for order in permutations(range(N_RACING)):  # order[r] = the camel in place r
        place = [0] * N_RACING
        for r, camel in enumerate(order):
            place[camel] = r
        codes.append(sum(p * 5**i for i, p in enumerate(place)))
        cell = np.zeros((N_RACING, N_RACING))
        cell[np.arange(N_RACING), place] = 1
        places.append(cell.ravel())
        pair = np.zeros(N_RACING * N_RACING)
        pair[order[0] * N_RACING + order[1]] = 1
        pairs.append(pair)
    return np.array(codes, dtype=np.intp), np.array(places), np.array(pairs)


_CODES, _CODE_PLACES, _CODE_PAIRS = _order_table()


def _order_sums(keys: np.ndarray, weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(5, 5) P(camel i in place r) and (5, 5) P(i first and j second) of weighted end rows:
    one bincount over the finishing orders, then each order's weight spread by table."""
    per_order = np.bincount(_order_codes(keys), weights=weight, minlength=5**N_RACING)[_CODES]
    places = (per_order @ _CODE_PLACES).reshape(N_RACING, N_RACING)
    pairs = (per_order @ _CODE_PAIRS).reshape(N_RACING, N_RACING)
    return places, pairs


def run_leg(
    start: np.ndarray,
    dice_left: list[int],
    tiles: dict[int, int],
    merge_last: bool = False,
    want_visits: bool = False,
) -> LegOutcome:
    """Exact distribution of the rest of the leg from one position.

    start: (7,) keys; dice_left: die indices still in the pyramid (the leg releases all but one);
    tiles: {space: +1 cheering | -1 booing}. merge_last: merge equal end states too and put them
    in a fixed order (fewer rows for the race simulation to draw from, and the same draws
    whatever the kernel's internal order; the leg odds do not need it). want_visits: also the
    expected number of unit landings on every space (``visits``), tile or not: the advisor's
    quick estimate of what a spectator tile there would earn (exact for the first landing).

    Each level expands every (row, die) move with its three faces at once (:func:`step_faces`),
    then merges the rows that reached the same state.
    """
    table = tile_table(tiles)
    keys = np.asarray(start, dtype=KEY).reshape(N_CAMELS, 1)
    used = np.array([sum(1 << d for d in range(N_DICE) if d not in dice_left)], dtype=np.uint8)
    weight = np.ones(1)
    landings = np.zeros(TILE_SLOTS)
    visits = np.zeros(TILE_SLOTS)
    done_keys: list[np.ndarray] = []
    done_w: list[np.ndarray] = []
    done_x: list[np.ndarray] = []
    rolls = max(0, len(dice_left) - 1)
    for depth in range(rolls):
        if not weight.size:
            break
        left = len(dice_left) - depth
        mv = _moves(keys, used, dice_left, left)
        s = step_faces(np.take(keys, mv.parent, axis=1), mv.mover, mv.sign, table)
        weight = np.tile(weight[mv.parent] * mv.prob, len(_FACES))
        used = np.tile(mv.used, len(_FACES))
        hit = s.tile != 0
        if hit.any():
            landings += np.bincount(s.dest[hit], weights=weight[hit], minlength=TILE_SLOTS)
        if want_visits:
            visits += np.bincount(s.dest, weights=weight, minlength=TILE_SLOTS)[:TILE_SLOTS]
        keys = s.keys
        over = s.crossed != 0
        if over.any():
            done_keys.append(np.compress(over, keys, axis=1))
            done_w.append(weight[over])
            done_x.append(s.crossed[over])
            on = ~over
            keys, used, weight = np.compress(on, keys, axis=1), used[on], weight[on]
        if weight.size and depth < rolls - 1:  # the end rows: see _canonical
            keys, used, weight = _merge(keys, used, weight)
    done_keys.append(keys)
    done_w.append(weight)
    done_x.append(np.zeros(weight.size, np.int8))
    fk = np.concatenate(done_keys, axis=1)
    fw = np.concatenate(done_w)
    fx = np.concatenate(done_x)
    places, pairs = _order_sums(fk, fw)
    if merge_last:
        fk, fw, fx = _canonical(fk, fw, fx)
    return LegOutcome(
        places=places,
        ends_forward=float(fw[fx > 0].sum()),
        ends_backward=float(fw[fx < 0].sum()),
        landings=landings,
        pairs=pairs,
        visits=visits,
        final_keys=fk,
        final_weight=fw,
        final_crossed=fx,
    )
