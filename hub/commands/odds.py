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
import json
import sys
from typing import IO

from hub.games.camelup.odds import PositionError, position_odds
from hub.games.camelup.racetable import TableMissing

KEYS = {"track", "dice_left", "desert"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--indent", type=int, default=None, help="pretty-print answers (breaks one-per-line)"
    )


def answer(line: str) -> dict:
    """The answer to one input line (a position), or raise PositionError / ValueError."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise PositionError(
            f"the line is not valid JSON ({exc.msg} at column {exc.colno})"
        ) from None
    if not isinstance(data, dict):
        raise PositionError('a position must be a JSON object with a "track"')
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise PositionError(f"unknown field {unknown[0]!r} (fields: track, dice_left, desert)")
    if "track" not in data:
        raise PositionError('the position has no "track"')
    return position_odds(data["track"], data.get("dice_left"), data.get("desert"))


def serve(lines: IO[str], out: IO[str], indent: int | None = None) -> int:
    """Answer every non-blank line of `lines` on `out`; returns the number of error lines."""
    errors = 0
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            result = answer(line)
        except PositionError as exc:
            result = {"error": str(exc), "line": n}
            errors += 1
        out.write(json.dumps(result, indent=indent) + "\n")
        out.flush()
    return errors


def run(args: argparse.Namespace) -> int:
    try:
        serve(sys.stdin, sys.stdout, args.indent)
    except TableMissing as exc:
        print(f"pyramid odds: {exc}", file=sys.stderr)
        return 1
    return 0
