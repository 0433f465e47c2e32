"""`pyramid odds`: exact Camel Up leg and race odds for JSON positions, one per line.

    $ echo '{"track": {"1": ["blue"], "2": ["green", "orange"], "3": ["yellow", "white"]}}' \\
        | pyramid odds

Each input line is ``{"track": {"3": ["blue", "green"], ...}, "dice_left": [...],
"desert": {"5": "mirage"}}`` (camels bottom to top; dice_left defaults to all five, desert to
none). Each output line is the answer of :func:`hub.games.camelup.odds.position_odds`, or
``{"error": "<what is wrong>", "line": n}``; either way the next line is still answered, and the
output is flushed after every line so the command can sit behind a pipe.

With ``"edition": 2`` the line is a second-edition position (Camel Up 2018): ``{"edition": 2,
"track": {"1": ["red", "blue"], "14": ["white"], "16": ["black"], ...}, "dice_left": [...,
"grey"], "spectators": {"5": "booing"}}``, answered by
:func:`hub.games.camelup2.odds.position_odds` (exact leg odds, simulated race odds with their
standard error). No edition is the first edition, answered exactly as before; ``"edition": 1``
adds the leg's whole finishing order (``"leg_order"``: P of each camel in each place, exact) and
the joint distribution of the race's winner and loser (``"race_pairs"``: ``{winner: {loser: p}}``,
the second edition's shape, exact).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from hub.commands._jsonlines import serve_lines
from hub.games.camelup.odds import PositionError, position_odds
from hub.games.camelup.racetable import TableMissing

KEYS = {"track", "dice_left", "desert"}
KEYS_2 = {"edition", "track", "dice_left", "spectators"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--indent", type=int, default=None, help="pretty-print answers (breaks one-per-line)"
    )


def answer(data: dict[str, Any]) -> dict[str, Any]:
    """The answer to one position (a decoded JSON object), or raise PositionError."""
    edition = data.get("edition", 1)
    if edition == 2 and not isinstance(edition, bool):
        from hub.games.camelup2.odds import position_odds as second_edition

        unknown = sorted(set(data) - KEYS_2)
        if unknown:
            raise PositionError(
                f"unknown field {unknown[0]!r} (second-edition fields: edition, "
                "track, dice_left, spectators)"
            )
        if "track" not in data:
            raise PositionError('the position has no "track"')
        return second_edition(data["track"], data.get("dice_left"), data.get("spectators"))
    if edition != 1 or isinstance(edition, bool):
        raise PositionError(f"edition must be 1 or 2, not {edition!r}")
    unknown = sorted(set(data) - KEYS - {"edition"})
    if unknown:
        raise PositionError(f"unknown field {unknown[0]!r} (fields: track, dice_left, desert)")
    if "track" not in data:
        raise PositionError('the position has no "track"')
    # "edition": 1 given explicitly asks for the additions beyond today's answer (the leg's whole
    # finishing order); without it the answer is exactly what it always was
    return position_odds(
        data["track"], data.get("dice_left"), data.get("desert"), order="edition" in data
    )


def run(args: argparse.Namespace) -> int:
    try:  # both editions refuse a position with the same PositionError
        serve_lines(answer, (PositionError,), indent=args.indent)
    except TableMissing as exc:
        print(f"pyramid odds: {exc}", file=sys.stderr)
        return 1
    return 0
