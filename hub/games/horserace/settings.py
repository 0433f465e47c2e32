"""The horse-race ruleset's settings: what the seed leaves to the table.

The seed (Walter Müller's horse-race betting game, Italian rules) does not give the track length,
its score table is garbled at two values, and it does not say who starts the next race. All three
are settings here with the defaults of ``docs/rules/horse-race.md``:

- ``track_length`` 30: a horse starts on space 0 and finishes when it reaches or passes space 30.
- ``score_table``: one row per podium place, one column per circle of a horse's bet column (top
  first). The default second-place row is 24, 17, 12, 9, 8 — the seed is unreadable at 12 and 9;
  they follow the pattern of the other rows. The number of rows is the podium size (3) and the
  row length is the number of circles in each horse's column (5).
- ``next_starter``: the seed's two house rules, "leader" (most points starts the next race;
  a tie goes to the tied player first clockwise after the previous race's starter) or "rotate"
  (the next player clockwise from the previous race's starter; with as many races as players
  every player starts one).
- ``horses``: the five horse colours. The default is the Camel Up colours so the same wooden
  pieces and the same track reader serve both games.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hub.games.common import IllegalAction

DEFAULT_HORSES: tuple[str, ...] = ("blue", "green", "orange", "yellow", "white")
DEFAULT_SCORE_TABLE: tuple[tuple[int, ...], ...] = (
    (32, 22, 16, 12, 10),
    (24, 17, 12, 9, 8),
    (16, 11, 8, 6, 5),
)
TOKENS_PER_PLAYER = 3
DIE_FACES = 6
MIN_PLAYERS, MAX_PLAYERS = 2, 5
NEXT_STARTER_RULES = ("leader", "rotate")


@dataclass(frozen=True)
class Settings:
    """One ruleset. Immutable so a state can hold it and the log can restate it exactly."""

    track_length: int = 30
    score_table: tuple[tuple[int, ...], ...] = DEFAULT_SCORE_TABLE
    races: int = 1
    next_starter: str = "leader"
    horses: tuple[str, ...] = field(default=DEFAULT_HORSES)
    tokens: int = TOKENS_PER_PLAYER

    @property
    def podium_size(self) -> int:
        return len(self.score_table)

    @property
    def column_size(self) -> int:
        return len(self.score_table[0])

    def validate(self) -> Settings:
        """Refuse a ruleset the engine cannot play, with a sentence saying what is wrong."""

        def bad(msg: str) -> IllegalAction:
            return IllegalAction("bad_settings", msg)

        if not isinstance(self.track_length, int) or self.track_length < 1:
            raise bad(
                f"The track length must be a whole number of spaces >= 1, "
                f"not {self.track_length!r}."
            )
        if not isinstance(self.races, int) or self.races < 1:
            raise bad(f"A game has at least one race, not {self.races!r}.")
        if self.next_starter not in NEXT_STARTER_RULES:
            raise bad(
                f"Who starts the next race must be one of {NEXT_STARTER_RULES}, "
                f"not {self.next_starter!r}."
            )
        if len(self.horses) < 2 or len(set(self.horses)) != len(self.horses):
            raise bad("The horses must be at least two distinct names.")
        for h in self.horses:
            if not isinstance(h, str) or not h or any(c in h for c in ":,; "):
                raise bad(f"Horse name {h!r} must be a word without ':', ',' or ';'.")
        rows = self.score_table
        if not rows or not all(rows) or len({len(r) for r in rows}) != 1:
            raise bad("The score table needs one or more rows of the same non-zero length.")
        if any(not isinstance(v, int) or v < 0 for r in rows for v in r):
            raise bad("Score table values must be whole numbers >= 0.")
        if self.podium_size > len(self.horses):
            raise bad("The podium cannot have more places than there are horses.")
        if not isinstance(self.tokens, int) or self.tokens < 1:
            raise bad("Each player needs at least one bet token.")
        return self

    def to_json(self) -> dict[str, Any]:
        return {
            "track_length": self.track_length,
            "score_table": [list(r) for r in self.score_table],
            "races": self.races,
            "next_starter": self.next_starter,
            "horses": list(self.horses),
            "tokens": self.tokens,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Settings:
        known = {"track_length", "score_table", "races", "next_starter", "horses", "tokens"}
        unknown = set(data) - known
        if unknown:
            raise IllegalAction("bad_settings", f"Unknown setting(s): {sorted(unknown)}.")
        kw: dict[str, Any] = dict(data)
        if "score_table" in kw:
            kw["score_table"] = tuple(tuple(r) for r in kw["score_table"])
        if "horses" in kw:
            kw["horses"] = tuple(kw["horses"])
        return cls(**kw).validate()
