"""The five-camel rule across the track: complete or refuse space readings with what the others say.

Why: each space is first read on its own (vision.track), and a space whose bands are too thin or
too dark to name abstains. But the game fixes a hard fact the frame alone lets us use: the five
camels are always all on the track, each exactly once. So when every other space is read with
confidence, the colours not seen anywhere must be on the one space that abstained, and its
stack is one ordering of them. That is still only a hypothesis until the space's own pixels
agree: ``fit_stack`` checks each camel-high band of its column against the colour the ordering
puts there (nearer that colour than every other camel colour and the board, by a margin), and a
completion is made only when exactly one ordering fits. The rule also works the other way: a
colour read on two spaces is wrong on at least one (both become uncertain), and a colour read
nowhere while no space abstains means some stack lost a camel — it is put back only where it
alone fits, else the spaces it might be hiding under become uncertain.

Never completed: a space whose abstention is about something in front of it (a hand, a sleeve,
a stack hiding it, glare), nor any space while another one is uncertain. Vision stays pure: the
rule is a fact of the game, not state from the hub; ``all_camels=False`` turns it off for a
board being set up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import combinations, permutations

import numpy as np

__all__ = ["Column", "FitRef", "SpaceReading", "fit_stack", "resolve"]


@dataclass(frozen=True)
class SpaceReading:
    """One space: camels bottom to top, how sure, and why not if unsure.

    ``resolvable``: the abstention is about the colour of bands in the stack itself, so the
    five-camel rule may complete it; ``inferred``: the camels were completed that way."""

    camels: list[str]
    confidence: float
    uncertain: bool = False
    why: str | None = None
    resolvable: bool = False
    inferred: bool = False


@dataclass(frozen=True)
class Column:
    """One space's samples up the vertical line at its stack's front (see vision.track).

    ``lin``: white-balanced linear BGR per sample, bottom to top; ``base``: index of the board's
    surface; ``band``: samples per camel height; ``top_face``: samples the top camel's top face
    adds above its side."""

    lin: np.ndarray
    base: int
    band: float
    top_face: float


@dataclass(frozen=True)
class FitRef:
    """The colours a band may be: the camels' chromaticities (in ``names`` order), their
    acceptance radii, and the board's own colours as the frame shows them."""

    names: list[str]
    camel: np.ndarray  # len(names) x 3
    radius: np.ndarray  # len(names)
    board: np.ndarray  # m x 3


MARGIN = 1.5  # a band must be this much nearer its colour than to any other camel or the board
REACH = 2.0  # ... and within this many acceptance radii of it


def _chroma(lin: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = lin.sum(axis=-1, keepdims=True) + 1e-6
    return lin / s, s[..., 0] / 3.0


def fit_stack(col: Column, stack: list[str], ref: FitRef) -> float | None:
    """How clearly ``col`` shows ``stack`` (bottom to top): the smallest margin over its bands
    (>= MARGIN), best over small shifts of the base; None when some band does not show its
    colour. An empty stack fits trivially (1.0): nothing to check.

    Why a model and not run lengths: blur blends 5-8 px bands into their neighbours, so no
    single sample may be clearly one colour, but the middle half of a band of known height at
    a known place, averaged, is; and the candidates say which colour each band must be."""
    n = len(stack)
    if n == 0:
        return 1.0
    idx = [ref.names.index(c) for c in stack]
    band = col.band
    cs = np.concatenate([np.zeros((1, 3)), np.cumsum(col.lin, axis=0, dtype=np.float64)])
    total = len(col.lin)
    shifts = np.arange(-0.5 * band, 0.5 * band + 1e-6, max(band / 8.0, 1.0))
    starts = col.base + shifts[:, None] + np.arange(n)[None] * band  # shifts x n
    ends = starts + band
    ends[:, -1] += col.top_face  # the top camel shows its top face above its side
    trim = 0.25 * band
    lo = np.round(starts + trim).astype(np.int64)
    hi = np.round(ends - trim).astype(np.int64)
    inside = (lo >= 0) & (hi <= total) & (hi - lo >= 1)
    lo, hi = np.clip(lo, 0, total), np.clip(hi, 0, total)
    mean = (cs[hi] - cs[lo]) / np.maximum(hi - lo, 1)[..., None]
    ch, y = _chroma(mean)
    d_camel = np.linalg.norm(ch[..., None, :] - ref.camel, axis=-1)  # shifts x n x 5
    d_board = np.linalg.norm(ch[..., None, :] - ref.board, axis=-1).min(axis=-1)
    own = np.take_along_axis(d_camel, np.array(idx)[None, :, None], axis=-1)[..., 0]
    others = d_camel.copy()
    others[:, np.arange(n), idx] = np.inf
    nearest_other = np.minimum(others.min(axis=-1), d_board)
    limit = REACH * ref.radius[idx][None] * (1.0 + 0.01 / np.maximum(y, 0.002))
    ok = inside & (own <= limit) & (nearest_other >= MARGIN * own) & (y >= 0.003)
    good = ok.all(axis=1)
    if not good.any():
        return None
    margin = (nearest_other / np.maximum(own, 1e-6)).min(axis=1)
    return float(margin[good].max())


def _orderings(fixed: list[str], extra: list[str]) -> Iterator[list[str]]:
    """Every stack that keeps ``fixed`` in order and adds ``extra`` in any order anywhere."""
    n = len(fixed) + len(extra)
    for slots in combinations(range(n), len(extra)):
        for perm in permutations(extra):
            out: list[str] = []
            fi = iter(fixed)
            pi = iter(perm)
            for i in range(n):
                out.append(next(pi) if i in slots else next(fi))
            yield out


def resolve(
    spaces: dict[int, SpaceReading],
    colours: list[str],
    fits: Callable[[int, list[str]], float | None],
    *,
    no_camels: set[int] | frozenset[int] = frozenset(),
    max_stack: int = 5,
    all_camels: bool = True,
) -> dict[int, SpaceReading]:
    """The readings after the five-camel rule (a new dict; the input is not changed).

    ``fits(space, stack)`` says whether the space's own pixels show ``stack`` (None: no);
    ``no_camels``: spaces that cannot hold a camel (a desert tile lies there)."""
    out = dict(spaces)
    where: dict[str, list[int]] = {}
    for s, r in out.items():
        for c in r.camels if not r.uncertain else []:
            where.setdefault(c, []).append(s)
    for c, on in where.items():
        if len(on) > 1:
            for s in on:
                out[s] = SpaceReading([], 0.0, True, f"{c} seen on spaces {on}")
    if not all_camels:
        return out
    unsure = [s for s, r in out.items() if r.uncertain]
    seen = {c for r in out.values() if not r.uncertain for c in r.camels}
    missing = [c for c in colours if c not in seen]
    if len(unsure) == 1:
        s = unsure[0]
        if not out[s].resolvable or len(missing) > max_stack:
            return out
        found = [st for st in _orderings([], missing) if fits(s, st) is not None]
        if len(found) == 1:
            why = "the camel colours seen nowhere else" if found[0] else "all five camels elsewhere"
            out[s] = SpaceReading(found[0], 0.5, why=why, inferred=True)
        return out
    if unsure or not missing:
        return out
    # no space abstained, yet a camel is seen nowhere: a stack lost it (a band read as its
    # neighbour's seam, or the lowest camel dark against its shadow)
    homes = []
    for s, r in out.items():
        if s in no_camels or len(r.camels) + len(missing) > max_stack:
            continue
        for st in _orderings(r.camels, missing):
            if fits(s, st) is not None:
                homes.append((s, st))
    places = {s for s, _ in homes}
    if len(homes) == 1:
        s, st = homes[0]
        out[s] = SpaceReading(st, 0.5, why="a camel seen nowhere else fits here", inferred=True)
    else:
        for s in places:
            out[s] = SpaceReading([], 0.0, True, f"{', '.join(missing)} not seen: may be here")
    return out
