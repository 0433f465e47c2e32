"""A JSON-lines loop shared by `pyramid odds` and `pyramid advise`.

One JSON object per input line, one answer per output line, flushed at once. A bad line gets an
error object naming the problem and the loop goes on: one typo must not end a session.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import IO, Any


def serve_lines(
    answer: Callable[[dict[str, Any]], dict[str, Any]],
    errors: tuple[type[BaseException], ...],
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
    indent: int | None = None,
) -> int:
    """Answer every non-blank line; errors in ``errors`` become error lines. Returns how
    many lines were answered with an error."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    failed = 0
    for n, line in enumerate(stdin, start=1):
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            out = (
                answer(request)
                if isinstance(request, dict)
                else {
                    "error": f"line {n} must be one JSON object, not {type(request).__name__}",
                    "line": n,
                }
            )
        except json.JSONDecodeError as exc:
            out = {
                "error": f"line {n} is not valid JSON: {exc.msg} at column {exc.colno}",
                "line": n,
            }
        except errors as exc:
            out = {"error": str(exc), "line": n}
        except (KeyError, TypeError, ValueError) as exc:
            out = {"error": f"line {n}: {type(exc).__name__}: {exc}", "line": n}
        failed += "error" in out
        stdout.write(json.dumps(out, indent=indent) + "\n")
        stdout.flush()
    return failed
