"""Vectorised Monte Carlo playouts of the rest of a race: where each horse ends on the podium.

Why simulation: a race from the start is ~10 rounds of 5 rolls with a free choice of horse for
each roll; exact enumeration is out of reach, and the advice only needs a few tenths of a point of
precision. All playouts advance together as numpy arrays, so thousands cost milliseconds.

The playout policy (stated with every figure): the rest of the race is run with every remaining
roll given to a uniformly random not-yet-moved horse. Under that policy each horse's move in a
round is an independent fair die, and the order of moves only decides who arrives first among
horses crossing the line in the same round; both are sampled exactly that way here.

Only the podium is sampled. A token's points depend only on its circle and its horse's place, so
the points of tokens already on the board follow exactly from the sampled podium.
"""

from __future__ import annotations

import numpy as np

from hub.games.horserace.state import State


def sample_places(state: State, samples: int, seed: int = 0,
                  forced: tuple[int, int] | None = None) -> np.ndarray:
    """``samples`` playouts of the rest of the current race; returns int8 array (samples, horses)
    of each horse's podium place (1..podium size), 0 for a horse that does not place.

    ``forced`` = (horse index, face): that horse moves first, by that face (the roll in hand),
    then the rest of the round and race follow the random policy. The same ``seed`` gives the same
    random draws whatever ``forced`` is (common random numbers), so the difference between two
    choices is measured far more precisely than either value alone.
    """
    s = state.settings
    n_h, length, k = len(state.horses), s.track_length, s.podium_size
    rng = np.random.default_rng(seed)
    pos = np.tile(np.asarray(state.positions, dtype=np.int32), (samples, 1))
    places = np.zeros((samples, n_h), dtype=np.int8)
    racing = np.ones((samples, n_h), dtype=bool)
    for i, h in enumerate(state.podium):
        places[:, h] = i + 1
        racing[:, h] = False
    count = np.full(samples, len(state.podium), dtype=np.int32)

    def step(moving: np.ndarray, faces: np.ndarray, keys: np.ndarray) -> None:
        nonlocal pos
        active = moving & (count < k)[:, None]
        new = pos + faces * active
        cross = active & (new >= length)
        if cross.any():
            kk = np.where(cross, keys, np.inf)
            rank = (kk[:, None, :] < kk[:, :, None]).sum(axis=2)   # earlier movers arrive first
            place = count[:, None] + rank + 1
            got = cross & (place <= k)
            places[got] = place[got]
            count[:] += cross.sum(axis=1)
            racing[cross] = False
        pos = new

    # the rest of the current round: the horses not yet moved (and the forced one first)
    unmoved = np.zeros(n_h, dtype=bool)
    unmoved[state.unmoved()] = True
    faces = rng.integers(1, 7, size=(samples, n_h), dtype=np.int32)
    keys = rng.random((samples, n_h))
    if forced is not None:
        fh, face = forced
        faces[:, fh] = face
        keys[:, fh] = -1.0
    step(racing & unmoved, faces, keys)     # (in the betting phase no horse has moved yet)
    for _ in range(length + 1):              # each round moves every racing horse >= 1 space
        if (count >= k).all():
            break
        faces = rng.integers(1, 7, size=(samples, n_h), dtype=np.int32)
        keys = rng.random((samples, n_h))
        step(racing.copy(), faces, keys)
    return places


def token_points(state: State, places: np.ndarray) -> np.ndarray:
    """Points per playout and player (samples, players) from the tokens already on the board."""
    table = np.zeros((state.settings.podium_size + 1, state.settings.column_size))
    table[1:] = np.asarray(state.settings.score_table)
    pts = np.zeros((places.shape[0], len(state.players)))
    for h, column in enumerate(state.columns):
        for slot, p in enumerate(column):
            pts[:, p] += table[places[:, h], slot]
    return pts


def mean_and_error(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column means and their standard errors (sample std / sqrt(n))."""
    n = x.shape[0]
    if n < 2:
        return x.mean(axis=0), np.full(x.shape[1:], np.inf)
    return x.mean(axis=0), x.std(axis=0, ddof=1) / np.sqrt(n)
