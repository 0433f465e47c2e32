"""Odds of a second-edition position given as plain data (the `pyramid odds` answer with
``"edition": 2``).

*Leg odds* are exact: :mod:`.legkernel` plays out every die order and face of the rest of the leg
(5 of the 6 dice leave; the grey die's six results; the crazy-camel exceptions per state;
spectator tiles relative to the unit's direction; crossings either way end the race).

*Race odds* are simulated. The colour-free state space of a leg's start is far too large for the
first edition's backward induction: the seven camels in track order (racing camels in rank order,
so only where the two crazy ones stand in that order matters: 7 x 6 = 42 ways) times the spaces,
a non-increasing sequence of 7 out of 16 (C(22, 7) = 170,544): 7,162,848 states (3,581,424 if
black and white are exchanged, which the grey die's symmetric colours allow), each needing an
exact leg of ~5 ms: about ten hours, and a table of ~140 MB of win/lose values. So the race odds
start from the *exact* end-of-leg distribution of the current leg, draw ``RACE_GAMES`` end states
from it, and play the later legs out in numpy (all six dice, five released, no spectator tiles:
future tiles are unknown, as in the first edition's table). With 10,000 games the standard error
of every probability is at most 0.5 / sqrt(10,000) = 0.005; the answer states it. The generator
is seeded, so one position always gets the same answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from math import sqrt
from typing import Any

import numpy as np

from hub.games.camelup.odds import (  # the same in both editions
    PositionError,
    read_stacks,
    validate_tiles,
)

from . import legkernel as lk
from .model import CAMELS, CRAZY, DICE, GREY, RACING, SPACES

RACE_GAMES = 10_000
RACE_SEED = 2018
TILE_EFFECT = {"cheering": 1, "booing": -1}


@dataclass(frozen=True)
class Position:
    track: dict[int, tuple[str, ...]]
    dice_left: tuple[str, ...]
    spectators: dict[int, int]  # space -> +1 cheering / -1 booing

    @property
    def finished(self) -> bool:
        return any(not 1 <= s <= SPACES for s in self.track)


def _validate_spectators(raw: object, track: Mapping[int, object]) -> dict[int, int]:
    """Spectator tiles as {space: +1 cheering | -1 booing}: the first edition's desert-tile
    rules, and at most eight (one per character)."""
    tiles = validate_tiles(raw, track, "spectators", "spectator tile", TILE_EFFECT)
    if len(tiles) > 8:
        raise PositionError("more spectator tiles than the eight characters own")
    return tiles


def _unknown_camel(camel: object, space: int) -> str:
    if camel == "orange":
        return (
            "orange is a first-edition camel; the second edition races "
            f"{', '.join(RACING)} with crazy {' and '.join(CRAZY)}"
        )
    return f"unknown camel {camel!r} on space {space} (camels: {', '.join(CAMELS)})"


def validate_position(
    track: object, dice_left: object = None, spectators: object = None
) -> Position:
    """Check a second-edition position and return it normalised; raise PositionError if not.

    track: {space: [camels bottom -> top]}, all seven camels once, spaces 1..16 (beyond only for
    the one unit that crossed the line, 17..19 forward or 0..-2 backward); dice_left: dice still
    in the pyramid, racing colours and "grey" (default all six; at least one always stays in);
    spectators: {space: "cheering" | "booing"}.
    """
    norm = read_stacks(
        track,
        CAMELS,
        "camels",
        _unknown_camel,
        range(-2, SPACES + 4),  # one unit may stand past either line: 17..19 or 0..-2
        "all seven, five racing and two crazy, must be on it",
    )
    off = sorted(s for s in norm if not 1 <= s <= SPACES)
    if len(off) > 1:
        raise PositionError(
            f"camels stand on spaces {off} off the track, but the race stops at the first crossing"
        )
    if dice_left is None:
        dice = DICE
    else:
        if isinstance(dice_left, str) or not isinstance(dice_left, Iterable):
            raise PositionError("dice_left must be a list of dice")
        given = list(dice_left)
        for die in given:
            if die in CRAZY:
                raise PositionError(
                    f'there is no {die} die: the grey die moves the crazy camels (write "grey")'
                )
            if die not in DICE:
                raise PositionError(f"unknown die {die!r} in dice_left (dice: {', '.join(DICE)})")
        dupes = sorted({d for d in given if given.count(d) > 1})
        if dupes:
            raise PositionError(f"die {dupes[0]} is listed twice in dice_left")
        if not given:
            raise PositionError("dice_left is empty, but one die always stays in the pyramid")
        dice = tuple(d for d in DICE if d in given)
    tiles = _validate_spectators(spectators, norm) if spectators is not None else {}
    return Position(norm, dice, tiles)


def start_keys(track: Mapping[int, tuple[str, ...]]) -> np.ndarray:
    keys = np.zeros(lk.N_CAMELS, dtype=lk.KEY)
    for space, stack in track.items():
        for height, camel in enumerate(stack):
            keys[CAMELS.index(camel)] = lk.encode_key(space, height)
    return keys


@dataclass(frozen=True)
class Odds:
    """Arrays indexed by racing colour (RACING order)."""

    places: np.ndarray  # (5, 5) P(camel in place r at the leg's end)
    ends_forward: float
    ends_backward: float
    landings: dict[int, float]
    outcome: lk.LegOutcome

    @property
    def first(self) -> np.ndarray:
        return self.places[:, 0]

    @property
    def second(self) -> np.ndarray:
        return self.places[:, 1]

    @property
    def game_ends(self) -> float:
        return self.ends_forward + self.ends_backward


def leg_odds_of(position: Position, merge_last: bool = False, visits: bool = False) -> Odds:
    """Exact leg odds of a validated position."""
    dice = [] if position.finished else [DICE.index(d) for d in position.dice_left]
    out = lk.run_leg(start_keys(position.track), dice, position.spectators, merge_last, visits)
    landings = {s: float(out.landings[s + lk.OFFSET]) for s in sorted(position.spectators)}
    return Odds(out.places, out.ends_forward, out.ends_backward, landings, out)


@dataclass(frozen=True)
class RaceOdds:
    """Simulated race outcome: pairs[w, l] = P(w wins and l loses); its margins win and lose."""

    pairs: np.ndarray
    games: int

    @property
    def win(self) -> np.ndarray:
        out: np.ndarray = self.pairs.sum(axis=1)
        return out

    @property
    def lose(self) -> np.ndarray:
        out: np.ndarray = self.pairs.sum(axis=0)
        return out

    @property
    def standard_error(self) -> float:
        """The largest standard error of any win or lose probability."""
        p = np.concatenate([self.win, self.lose])
        p = np.clip(p, 0.0, 1.0)
        return float(np.sqrt(p * (1 - p) / self.games).max())


def _winner_loser(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rk = keys[: lk.N_RACING]
    return rk.argmax(axis=0), rk.argmin(axis=0)


def play_out(keys: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Play every row (7, n) from the start of a leg to the end of the race; return final keys.

    Later legs: all six dice in the pyramid, five released in a random order, no spectator tiles.
    The rows still racing are kept compact (``work``) and written out when their race ends.
    """
    out = keys.copy()
    work = keys.copy()
    index = np.arange(keys.shape[1])
    no_tiles = lk.tile_table({})
    while index.size:
        order = np.argsort(rng.random((index.size, lk.N_DICE)), axis=1)
        for roll in range(lk.N_DICE - 1):
            if not index.size:
                break
            n = index.size
            die = order[:, roll]
            face = rng.integers(1, 4, size=n, dtype=np.int16)
            grey = die == lk.GREY
            mover = die.astype(np.intp)
            if grey.any():
                shade = np.where(rng.random(int(grey.sum())) < 0.5, lk.BLACK, lk.WHITE)
                mover[grey] = lk.crazy_mover(np.compress(grey, work, axis=1), shade)
            delta = np.where(grey, -face, face)
            s = lk.step(work, mover, delta, no_tiles)
            work = s.keys
            over = s.crossed != 0
            if over.any():
                out[:, index[over]] = work[:, over]
                keep = ~over
                work, index, order = np.compress(keep, work, axis=1), index[keep], order[keep]
    return out


def race_odds_of(leg: lk.LegOutcome, games: int = RACE_GAMES, seed: int = RACE_SEED) -> RaceOdds:
    """Race outcome from the exact end-of-leg distribution, later legs simulated."""
    rng = np.random.default_rng(seed)
    w = leg.final_weight / leg.final_weight.sum()
    pick = rng.choice(w.size, size=games, p=w)
    keys = np.take(leg.final_keys, pick, axis=1)  # C order, unlike final_keys[:, pick]
    running = leg.final_crossed[pick] == 0
    if running.any():
        keys[:, running] = play_out(keys[:, running], rng)
    win, lose = _winner_loser(keys)
    pairs = np.bincount(win * lk.N_RACING + lose, minlength=lk.N_RACING**2)
    return RaceOdds(pairs.reshape(lk.N_RACING, lk.N_RACING) / games, games)


def position_odds(
    track: object, dice_left: object = None, spectators: object = None, race: bool = True
) -> dict[str, Any]:
    """The `pyramid odds` answer for a second-edition position, as plain floats."""
    pos = validate_position(track, dice_left, spectators)
    o = leg_odds_of(pos, merge_last=race)
    out: dict[str, Any] = {
        "edition": 2,
        "leg": {
            c: {"first": float(o.first[i]), "second": float(o.second[i])}
            for i, c in enumerate(RACING)
        },
        "game_ends_this_leg": o.game_ends,
        "ends_by": {"forward": o.ends_forward, "backward": o.ends_backward},
        "spectator_landings": {str(s): x for s, x in o.landings.items()},
        "leg_order": {c: [float(x) for x in o.places[i]] for i, c in enumerate(RACING)},
    }
    if race:
        r = race_odds_of(o.outcome)
        out["race"] = {
            c: {"win": float(r.win[i]), "lose": float(r.lose[i])} for i, c in enumerate(RACING)
        }
        out["race_pairs"] = {
            w: {lo: float(r.pairs[i, j]) for j, lo in enumerate(RACING) if j != i}
            for i, w in enumerate(RACING)
        }
        out["race_method"] = {
            "method": "simulation",
            "games": r.games,
            "standard_error": r.standard_error,
            "max_standard_error": 0.5 / sqrt(r.games),
        }
    return out


__all__ = [
    "GREY",
    "Odds",
    "Position",
    "PositionError",
    "RaceOdds",
    "leg_odds_of",
    "position_odds",
    "race_odds_of",
    "validate_position",
]
