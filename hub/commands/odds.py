"""`pyramid odds`: exact Camel Up leg and race odds for JSON positions, one per line.

    $ echo '{"track": {"1": ["blue"], "2": ["green", "orange"], "3": ["yellow", "white"]}}' \\
        | pyramid odds

Each input line is ``{"track": {"3": ["blue", "green"], ...}, "dice_left": [...],
"desert": {"5": "mirage"}}`` (camels bottom to top; dice_left defaults to all five, desert to
none). Each output line is the answer of :func:`hub.games.camelup.odds.position_odds`, or
``{"error": "<what is wrong>", "line": n}``; either way the next line is still answered, and the
output is flushed after every line so the command can sit behind a pipe.
"""

from __future__ import annotations

import argparse
import sys

from hub.commands._jsonlines import serve_lines
from hub.games.camelup.odds import PositionError, position_odds
from hub.games.camelup.racetable import TableMissing

KEYS = {"track", "dice_left", "desert"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--indent", type=int, default=None, help="pretty-print answers (breaks one-per-line)"
    )


def answer(data: dict) -> dict:
    """The answer to one position (a decoded JSON object), or raise PositionError."""
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise PositionError(f"unknown field {unknown[0]!r} (fields: track, dice_left, desert)")
    if "track" not in data:
        raise PositionError('the position has no "track"')
    return position_odds(data["track"], data.get("dice_left"), data.get("desert"))


def run(args: argparse.Namespace) -> int:
    try:
        serve_lines(answer, (PositionError,), indent=args.indent)
    except TableMissing as exc:
        print(f"pyramid odds: {exc}", file=sys.stderr)
        return 1
    return 0
