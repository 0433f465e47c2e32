"""Exact leg odds of the second edition: every die order and face of the rest of the leg, level
by level in numpy, with rows that reach the same state merged.

A fresh leg releases 5 of the 6 dice in a random order; a racing die shows 1-3, the grey die one
of six results (black or white numeral, 1-3). That is 720 die orders and 320,760 equally weighted
(order, faces) sequences. The kernel walks them one level (one die) at a time: each row is a
distinct state (the seven camels' keys and the dice already out) with its probability; after each
level, rows with equal state are merged (their futures are the same), which keeps the levels small
(a fresh leg's ~321k sequences pass through a few thousand states per level).

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
        final = dest + tile * np.sign(delta).astype(KEY)
    else:
        final = dest + tile if delta > 0 else dest - tile
    under = tile < 0
    others = (sp == final) & ~in_unit
    n_final = np.add.reduce(others.view(np.int8), axis=0, dtype=KEY)
    usize = np.add.reduce(in_unit.view(np.int8), axis=0, dtype=KEY)
    base = np.where(under, 0, n_final).astype(KEY)
    unit_new = keys - mk + (final << 3) + base
    lifted = keys + others * np.where(under, usize, 0).astype(KEY)
    new = np.where(in_unit, unit_new, lifted).astype(KEY)
    crossed = np.where(final > HIGH, 1, np.where(final < LOW, -1, 0)).astype(np.int8)
    return Stepped(new, crossed, dest, tile)


def crazy_mover(keys: np.ndarray, shade: int) -> np.ndarray:
    """Per row, the crazy camel the grey die moves when its numeral names ``shade``.

    a. exactly one crazy camel carries racing camels (anywhere above it): that one;
    b. else one sits directly on the other: the top one; c. else the named one.
    """
    b, w = keys[BLACK], keys[WHITE]
    sp = keys[:N_RACING] >> 3
    rk = keys[:N_RACING]
    carries_b = ((sp == (b >> 3)) & (rk > b)).any(axis=0)
    carries_w = ((sp == (w >> 3)) & (rk > w)).any(axis=0)
    same = (b >> 3) == (w >> 3)
    b_on_w = same & (b - w == 1)
    w_on_b = same & (w - b == 1)
    pick = np.full(keys.shape[1], shade, dtype=np.intp)
    pick[w_on_b] = WHITE
    pick[b_on_w] = BLACK
    only = carries_b ^ carries_w
    pick[only & carries_b] = BLACK
    pick[only & carries_w] = WHITE
    return pick


def racing_ranks(keys: np.ndarray) -> np.ndarray:
    """(5, m) place of each racing camel (0 = leader): how many racing camels are ahead."""
    rk = keys[:N_RACING]
    out: np.ndarray = np.add.reduce(
        (rk[:, None, :] > rk[None, :, :]).view(np.int8), axis=0, dtype=np.int8
    )
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


def _merge(
    keys: np.ndarray, used: np.ndarray, weight: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    packed = used.astype(np.int64)
    for row in keys:
        packed = (packed << 8) | row.astype(np.int64)
    uniq, first, inverse = np.unique(packed, return_index=True, return_inverse=True)
    if uniq.size == packed.size:
        return keys, used, weight
    w = np.bincount(inverse.ravel(), weights=weight, minlength=uniq.size)
    return keys[:, first], used[first], w


def run_leg(start: np.ndarray, dice_left: list[int], tiles: dict[int, int]) -> LegOutcome:
    """Exact distribution of the rest of the leg from one position.

    start: (7,) keys; dice_left: die indices still in the pyramid (the leg releases all but one);
    tiles: {space: +1 cheering | -1 booing}.
    """
    table = tile_table(tiles)
    keys = np.asarray(start, dtype=KEY).reshape(N_CAMELS, 1)
    used = np.array([sum(1 << d for d in range(N_DICE) if d not in dice_left)], dtype=np.uint8)
    weight = np.ones(1)
    landings = np.zeros(TILE_SLOTS)
    done_keys: list[np.ndarray] = []
    done_w: list[np.ndarray] = []
    done_x: list[np.ndarray] = []
    rolls = max(0, len(dice_left) - 1)
    for depth in range(rolls):
        left = len(dice_left) - depth
        out_k: list[np.ndarray] = []
        out_u: list[np.ndarray] = []
        out_w: list[np.ndarray] = []
        for d in dice_left:
            sel = np.flatnonzero((used >> d) & 1 == 0)
            if sel.size == 0:
                continue
            k, w = keys[:, sel], weight[sel]
            u = used[sel] | np.uint8(1 << d)
            if d == GREY:
                movers = [crazy_mover(k, BLACK), crazy_mover(k, WHITE)]
                signs, p = -1, 1.0 / (left * 6)
            else:
                movers = [np.full(sel.size, d, dtype=np.intp)]
                signs, p = 1, 1.0 / (left * 3)
            cw = w * p
            for mover in movers:
                for face in (1, 2, 3):
                    s = step(k, mover, signs * face, table)
                    hit = s.tile != 0
                    if hit.any():
                        landings += np.bincount(s.dest[hit], weights=cw[hit], minlength=TILE_SLOTS)
                    over = s.crossed != 0
                    if over.any():
                        done_keys.append(s.keys[:, over])
                        done_w.append(cw[over])
                        done_x.append(s.crossed[over])
                        on = ~over
                        out_k.append(s.keys[:, on])
                        out_u.append(u[on])
                        out_w.append(cw[on])
                    else:
                        out_k.append(s.keys)
                        out_u.append(u)
                        out_w.append(cw)
        keys = np.concatenate(out_k, axis=1) if out_k else np.zeros((N_CAMELS, 0), KEY)
        used = np.concatenate(out_u) if out_u else np.zeros(0, np.uint8)
        weight = np.concatenate(out_w) if out_w else np.zeros(0)
        if keys.shape[1]:
            keys, used, weight = _merge(keys, used, weight)
    done_keys.append(keys)
    done_w.append(weight)
    done_x.append(np.zeros(weight.size, np.int8))
    fk = np.concatenate(done_keys, axis=1)
    fw = np.concatenate(done_w)
    fx = np.concatenate(done_x)
    rk = racing_ranks(fk)
    places = np.zeros((N_RACING, N_RACING))
    for i in range(N_RACING):
        places[i] = np.bincount(rk[i], weights=fw, minlength=N_RACING)
    return LegOutcome(
        places=places,
        ends_forward=float(fw[fx > 0].sum()),
        ends_backward=float(fw[fx < 0].sum()),
        landings=landings,
        final_keys=fk,
        final_weight=fw,
        final_crossed=fx,
    )
