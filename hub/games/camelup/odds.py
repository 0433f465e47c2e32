"""Exact Camel Up odds for a position given as plain data.

How the odds are computed
-------------------------
*Leg odds.* With k dice still in the pyramid, the rest of the leg is one of k! * 3^k equally
likely sequences (which die comes out next, and its face 1, 2 or 3; 29,160 for a fresh leg).
Every one of them is played out exactly — no sampling — by the vectorised kernel in
:mod:`hub.games.camelup.legkernel`: the tree of sequences is expanded one level (one die) at a
time as numpy arrays (15, 180, 1,620, 9,720, 29,160 rows), each camel being one small integer
``space * 8 + height`` so a whole level moves in a few array operations. After each level the
rows that reached the same state by different die orders are merged with an integer weight
(:func:`legkernel.run_leg_merged`): a fresh leg's 9,720 rows with one die left are typically
700-2,500 states, so the last level and the lookups on the leaves run on a tenth of the 29,160
leaves, and every count stays an exact integer. The plain odds (without the joint table) go
further: the first k - 2 dice run as a fixed tree (1,620 rows for a fresh leg), and the rows
with two dice left whose movers have no tile within reach are finished by
:func:`racetable.last_two_table` (per colour-free configuration and pair of mover slots, the 18
sequences of the last two rolls already summed). The rows near a tile are merged where
different die orders reached the same state, roll one die, and those with one die left and no
tile in reach are finished by :func:`racetable.last_die_table` (the last roll's three faces
summed); only the rows whose last roll can meet a tile roll it
(:func:`legkernel.run_leg_table_last`). Movement follows the
rules: the mover carries the camels above it and lands on top; an oasis sends the unit one space
on (on top), a mirage one space back and *under* the camels there (also when that is the space
it just left); a tile acts once per landing. When a unit reaches space 17 the race is over: the
remaining dice of that sequence are not rolled, and the ranking at that moment counts (overshoot
kept: further ahead first, then higher in the stack). P(first) and P(second) are the fractions
of sequences each camel ends first or second; P(game ends this leg) the fraction that cross the
line; the expected landings per desert tile sum, over every level, the share of rows landing on it.

*Race odds.* From the end of this leg on, every leg starts with all five dice and no desert tiles,
so the future depends only on the colour-free configuration (the five spaces in rank order, one of
C(20, 5) = 15,504). :mod:`hub.games.camelup.racetable` holds P(win) and P(lose) per rank slot for
each, built once by backward induction with the same kernel (``make race-table``) and shipped as
package data. A position's race odds are the average, over the sequences of the current leg
(played with its tiles), of the table entry of the configuration each ends in — or of the known
result when the race ended during the leg. Future desert tiles are ignored (the usual assumption
of published calculators); the current leg's are exact.

*The race's (winner, loser), jointly.* A second table, built the same way, holds for each
configuration the 5x5 matrix P(slot i wins and slot j loses); averaged over the leg's sequences
like the first, it gives P(w wins and l comes last) for every pair of colours, exactly (its row
sums are the win odds and its column sums the lose odds). 25 lookups per sequence instead of 5,
so it is computed only when asked (``pairs=True``; `pyramid odds` with ``"edition": 1``).

Entry points: :func:`position_odds` (the `pyramid odds` answer as a dict of floats),
:func:`leg_odds` (numpy arrays), :func:`leg_odds_many` (the advisor's hypothetical desert
layouts of one position, in one pass) and
:func:`validate_position`, which raises :class:`PositionError` with a sentence naming the problem.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import legkernel, racetable
from .legkernel import N_CAMELS, encode_key, ranks
from .model import COLOURS

SIDES = {"oasis": 1, "mirage": -1}
LAST_SPACE = 16
MAX_SPACE = legkernel.MAX_SPACE


class PositionError(ValueError):
    """A position that cannot be on the board; the message says what is wrong, in one sentence."""


@dataclass(frozen=True)
class Position:
    """A validated position: integer spaces, colours bottom to top, tiles as +1 / -1."""

    track: dict[int, tuple[str, ...]]
    dice_left: tuple[str, ...]
    desert: dict[int, int]

    @property
    def finished(self) -> bool:
        return any(space > LAST_SPACE for space in self.track)


@dataclass(frozen=True)
class LegOdds:
    """Arrays indexed by colour in COLOURS order (for the advisor: no dict building)."""

    first: np.ndarray  # (5,) P(finishes the leg first)
    second: np.ndarray  # (5,) P(second)
    game_ends: float  # P(a unit crosses the line during this leg)
    landings: dict[int, float]  # expected unit landings per desert tile space
    win: np.ndarray | None = None  # (5,) P(wins the race), when asked for
    lose: np.ndarray | None = None  # (5,) P(loses the race)
    places: np.ndarray | None = None  # (5, 5) P(camel ends the leg in place r), when asked for
    pairs: np.ndarray | None = None  # (5, 5) P(row camel wins the race, column camel loses)


def space_number(raw: object, what: str) -> int:
    """A space given as an int or a numeric string (JSON keys are strings); PositionError naming
    ``what`` if not. Both editions' positions parse spaces this way."""
    if isinstance(raw, bool):
        raise PositionError(f"{what} {raw!r} is not a space number")
    if isinstance(raw, int):
        return raw
    if isinstance(raw, str) and raw.strip().lstrip("+-").isdigit():
        return int(raw)
    raise PositionError(f"{what} {raw!r} is not a space number")


def validate_tiles(
    raw: object,
    track: Mapping[int, object],
    field: str,
    noun: str,
    sides: Mapping[str, int],
) -> dict[int, int]:
    """Track tiles of either edition as {space: effect}, checked against a validated track;
    PositionError if not. field: the input's name ("desert"); noun: what a tile is called
    ("desert tile"); sides: each side's name and effect (+1 / -1).
    The rules are the same in both editions: spaces 2..16, one per space, never under a camel,
    never next to another."""
    names = " or ".join(repr(s) for s in sides)
    if not isinstance(raw, Mapping):
        raise PositionError(f"{field} must be an object mapping spaces to {names}")
    tiles: dict[int, int] = {}
    for raw_space, side in raw.items():
        space = space_number(raw_space, f"{noun} space")
        if side not in sides:
            raise PositionError(
                f"{noun} on space {space} has unknown side {side!r} ({' or '.join(sides)})"
            )
        if space in tiles:
            raise PositionError(f"two {noun}s on space {space}")
        if space == 1:
            raise PositionError(f"a {noun} cannot lie on space 1")
        if not 2 <= space <= LAST_SPACE:
            raise PositionError(f"{noun} space {space} is off the track (2..{LAST_SPACE})")
        if space in track:
            raise PositionError(f"{noun} on space {space} lies under a camel")
        tiles[space] = sides[side]
    for space in tiles:
        if space + 1 in tiles:
            raise PositionError(f"{noun}s on spaces {space} and {space + 1} are adjacent")
    return tiles


def read_stacks(
    track: object,
    camels: tuple[str, ...],
    noun: str,
    unknown: Callable[[object, int], str],
    spaces: range,
    all_on: str,
) -> dict[int, tuple[str, ...]]:
    """A position's track of either edition as {space: camels bottom to top}, each of
    ``camels`` once, on ``spaces``; PositionError if not. The edition's words: ``noun`` for what
    a stack lists, ``unknown(camel, space)`` for a camel it does not have, ``all_on`` for why a
    missing camel is one."""
    if not isinstance(track, Mapping):
        raise PositionError(f"the track must be an object mapping spaces to stacks of {noun}")
    norm: dict[int, tuple[str, ...]] = {}
    seen: dict[str, int] = {}
    for raw_space, stack in track.items():
        space = space_number(raw_space, "track space")
        if space in norm:
            raise PositionError(f"space {space} appears twice on the track")
        if isinstance(stack, str) or not isinstance(stack, Iterable):
            raise PositionError(f"the stack on space {space} must be a list of {noun}")
        stack = tuple(stack)
        for camel in stack:
            if camel not in camels:
                raise PositionError(unknown(camel, space))
            if camel in seen:
                raise PositionError(
                    f"camel {camel} is on the track twice (spaces {seen[camel]} and {space})"
                )
            seen[camel] = space
        if space not in spaces:
            raise PositionError(f"space {space} is off the track (spaces are 1..{LAST_SPACE})")
        if stack:
            norm[space] = stack
    missing = [c for c in camels if c not in seen]
    if missing:
        raise PositionError(f"camel {missing[0]} is missing from the track ({all_on})")
    return norm


def _validate_desert(desert: object, track: Mapping[int, object]) -> dict[int, int]:
    """Desert tiles as {space: +1 | -1}, checked against a validated track; PositionError if not."""
    return validate_tiles(desert, track, "desert", "desert tile", SIDES)


def validate_position(
    track: Mapping[Any, Iterable[str]],
    dice_left: Iterable[str] | None = None,
    desert: Mapping[Any, str] | None = None,
) -> Position:
    """Check a position given as plain data and return it normalised; raise PositionError if not.

    track: {space: [colours bottom -> top]} with spaces 1..16 (17..19 only for the one unit that
    crossed the finish line); dice_left: colours still in the pyramid (default: all five);
    desert: {space: "oasis" | "mirage"} (default: none).
    """
    norm = read_stacks(
        track,
        COLOURS,
        "colours",
        lambda c, space: f"unknown colour {c!r} on space {space} (colours: {', '.join(COLOURS)})",
        range(1, MAX_SPACE + 1),
        "all five must be on it",
    )
    beyond = sorted(s for s in norm if s > LAST_SPACE)
    if len(beyond) > 1:
        raise PositionError(
            f"camels stand on spaces {beyond} past the finish line, but the race stops at the first"
            " crossing"
        )

    if dice_left is None:
        dice = COLOURS
    else:
        if isinstance(dice_left, str) or not isinstance(dice_left, Iterable):
            raise PositionError("dice_left must be a list of colours")
        given = list(dice_left)
        for colour in given:
            if colour not in COLOURS:
                raise PositionError(f"unknown die colour {colour!r} in dice_left")
        dupes = sorted({c for c in given if given.count(c) > 1})
        if dupes:
            raise PositionError(f"die {dupes[0]} is listed twice in dice_left")
        dice = tuple(c for c in COLOURS if c in given)

    tiles = _validate_desert(desert, norm) if desert is not None else {}
    return Position(track=norm, dice_left=dice, desert=tiles)


def _start(position: Position) -> tuple[np.ndarray, list[int]]:
    """Kernel keys (5, 1) with the dice-left camels first, and that camel order (colour indices)."""
    where: dict[str, int] = {}
    for space, stack in position.track.items():
        for height, colour in enumerate(stack):
            where[colour] = encode_key(space, height)
    order = [COLOURS.index(c) for c in position.dice_left]
    order += [i for i in range(N_CAMELS) if i not in order]
    keys = np.array([[where[COLOURS[i]]] for i in order], dtype=legkernel.KEY_DTYPE)
    return keys, order


def odds_of(
    position: Position, race: bool = True, order: bool = False, pairs: bool = False
) -> LegOdds:
    """Exact odds of a validated position (see the module docstring for the method).

    order: also the leg's whole finishing order (P of each camel in each place), three more
    passes over the leaves; off by default so the advisor's calls cost what they did.
    pairs: also the joint distribution of the race's (winner, loser), from the joint table
    (:func:`racetable.load_pairs_table`): 25 lookups per sequence instead of 5, so on demand."""
    keys, cols = _start(position)
    k = 0 if position.finished else len(position.dice_left)
    tiles = legkernel.tile_lookup(position.desert) if position.desert else None
    # the last roll by table where it can be (the joint table below needs every leaf)
    leaves = legkernel.run_leg_table_last(keys, k, tiles)
    n = leaves.sequences
    weight = leaves.weight
    counts = np.zeros((N_CAMELS, N_CAMELS), dtype=np.int64)  # (kernel camel, place): sequences
    ended = int(weight[leaves.ended].sum())
    sums = np.zeros(N_CAMELS, dtype=np.complex128) if race else None
    if weight.size:  # (with the last roll by table, often none)
        rk = ranks(leaves.keys)
        for slot in range(N_CAMELS if order else 2):  # integer counts: exact
            counts[:, slot] = ((rk == slot) * weight).sum(axis=1)
        if sums is not None:
            values = racetable.race_values(leaves.keys, rk, racetable.load_table())
            sums += (values * weight).sum(axis=1)
    last = leaves.last
    if last is not None and last.mover.size:  # each row: one sequence, three faces to go
        table = racetable.last_die_table()
        lrk = ranks(last.keys, buffers="last")
        rows = racetable.last_die_rows(last.keys, lrk, last.mover)
        cell = rows * N_CAMELS + lrk  # (camel, row): the cell of that camel's slot
        # rows merged near a tile stand for several sequences (products and sums, not a
        # matrix product: BLAS threads spin on a busy machine)
        lw = last.weight
        for place in range(N_CAMELS if order else 2):
            hits = np.take(table.places[place], cell)
            counts[:, place] += (hits if lw is None else hits * lw).sum(axis=1)
        ended += int((table.ended[rows] if lw is None else table.ended[rows] * lw).sum())
        if sums is not None:
            got = np.take(table.race, cell)
            sums = sums + (got if lw is None else got * lw.astype(np.float64)).sum(axis=1)
    two = leaves.last_two
    if two is not None and two.movers.shape[1]:  # each row: 18 sequences, two dice to go
        table2 = racetable.last_two_table()
        trk = ranks(two.keys, buffers="two")
        rows2 = racetable.last_two_rows(two.keys, trk, two.movers)
        cell = rows2 * N_CAMELS + trk  # (camel, row): the cell of that camel's slot
        for place in range(N_CAMELS if order else 2):
            counts[:, place] += np.take(table2.places[place], cell).sum(axis=1)
        ended += int(table2.ended[rows2].sum())
        if sums is not None:
            sums = sums + np.take(table2.race, cell).sum(axis=1)
    places = np.empty((N_CAMELS, N_CAMELS))
    places[cols] = counts / n
    first, second = places[:, 0].copy(), places[:, 1].copy()
    win = lose = None
    if sums is not None:
        win = np.empty(N_CAMELS)
        lose = np.empty(N_CAMELS)
        win[cols] = sums.real / n
        lose[cols] = sums.imag / n
    joint = None
    if pairs:  # a lookup per leaf: the leaves merged (the figures above stay the table's)
        merged = legkernel.run_leg_merged(keys, k, tiles)
        mrk = ranks(merged.keys, buffers="merged")
        values = racetable.pair_values(merged.keys, mrk, racetable.load_pairs_table())
        joint = np.empty((N_CAMELS, N_CAMELS))
        joint[np.ix_(cols, cols)] = (values * merged.weight).sum(axis=2) / merged.sequences
    return LegOdds(
        first=first,
        second=second,
        game_ends=ended / n,
        landings={s: float(leaves.landings[s]) for s in sorted(position.desert)},
        win=win,
        lose=lose,
        places=places if order else None,
        pairs=joint,
    )


def leg_odds(
    track: Mapping[Any, Iterable[str]],
    dice_left: Iterable[str] | None = None,
    desert: Mapping[Any, str] | None = None,
    race: bool = False,
) -> LegOdds:
    """Numpy-array odds for the advisor; validates, then computes (race odds only if asked)."""
    return odds_of(validate_position(track, dice_left, desert), race=race)


def leg_odds_many(
    track: Mapping[Any, Iterable[str]],
    dice_left: Iterable[str] | None,
    deserts: Iterable[Mapping[Any, str]],
    race: bool | Sequence[bool] = False,
) -> list[LegOdds]:
    """Leg odds of one position under each desert layout, in one kernel pass.

    Equal, figure for figure, to ``[leg_odds(track, dice_left, d) for d in deserts]``, but the
    tiles every layout shares are rolled out once and each layout only pays for the sequences
    that land on its own extra tiles (:func:`legkernel.run_leg_layouts`): the advisor's ~28
    hypothetical desert placements cost about one leg instead of 28. The track and dice are
    validated once, each layout's tiles with the same rules as :func:`validate_position`.
    race: each layout's race odds too (win and lose), as :func:`odds_of` gives them; or one flag
    per layout, for only some of them (the others cost nothing extra: the advisor asks them for
    the position as it stands, one more layout in the same pass).
    """
    position = validate_position(track, dice_left)
    layouts = [_validate_desert(d, position.track) for d in deserts]
    if not layouts:
        return []
    base = dict(layouts[0])
    for tiles in layouts[1:]:
        base = {s: e for s, e in base.items() if tiles.get(s) == e}
    extras = [{s: e for s, e in tiles.items() if s not in base} for tiles in layouts]
    keys, order = _start(position)
    k = 0 if position.finished else len(position.dice_left)
    flags = [race] * len(layouts) if isinstance(race, bool) else [bool(r) for r in race]
    if len(flags) != len(layouts):
        raise ValueError("race needs one flag per desert layout")
    values = None
    if any(flags):
        table = racetable.load_table()

        def values(leaves: np.ndarray) -> np.ndarray:
            return racetable.race_values(leaves, ranks(leaves), table)

    res = legkernel.run_leg_layouts(keys, k, base, extras, values, np.array(flags, dtype=bool))
    n = res.sequences
    first = np.empty((len(layouts), N_CAMELS))
    second = np.empty((len(layouts), N_CAMELS))
    first[:, order] = res.first / n
    second[:, order] = res.second / n
    ended = (res.ended / n).tolist()
    landings = res.landings.tolist()
    win = lose = None
    if res.race is not None:
        win = np.empty((len(layouts), N_CAMELS))
        lose = np.empty((len(layouts), N_CAMELS))
        win[:, order] = res.race.real / n
        lose[:, order] = res.race.imag / n
    return [
        LegOdds(
            first=first[i],
            second=second[i],
            game_ends=ended[i],
            landings={s: landings[i][s] for s in sorted(tiles)},
            win=None if win is None or not flags[i] else win[i],
            lose=None if lose is None or not flags[i] else lose[i],
        )
        for i, tiles in enumerate(layouts)
    ]


def position_odds(
    track: Mapping[Any, Iterable[str]],
    dice_left: Iterable[str] | None = None,
    desert: Mapping[Any, str] | None = None,
    order: bool = False,
) -> dict[str, Any]:
    """The `pyramid odds` answer for one position, as plain floats keyed by colour and space.

    order: add "leg_order", P(each camel in each place) at the leg's end, and "race_pairs",
    P(the race's winner is w and its loser l) as {w: {l: p}} (the second edition's shape), both
    exact."""
    o = odds_of(validate_position(track, dice_left, desert), race=True, order=order, pairs=order)
    assert o.win is not None and o.lose is not None
    out: dict[str, Any] = {
        "leg": {
            c: {"first": float(o.first[i]), "second": float(o.second[i])}
            for i, c in enumerate(COLOURS)
        },
        "game_ends_this_leg": o.game_ends,
        "race": {
            c: {"win": float(o.win[i]), "lose": float(o.lose[i])} for i, c in enumerate(COLOURS)
        },
        "desert_landings": {str(s): x for s, x in o.landings.items()},
    }
    if o.places is not None:
        out["leg_order"] = {c: [float(x) for x in o.places[i]] for i, c in enumerate(COLOURS)}
    if o.pairs is not None:
        out["race_pairs"] = {
            w: {lo: float(o.pairs[i, j]) for j, lo in enumerate(COLOURS) if j != i}
            for i, w in enumerate(COLOURS)
        }
    return out
