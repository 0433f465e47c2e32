"""JSON from the outside (MQTT payloads, HTTP bodies), parsed with limits and a clear error.

Why: ``json.loads`` of ``[[[[...]]]]`` nested 100,000 deep raises RecursionError (a traceback on
the MQTT side, a 500 over HTTP), and a huge payload costs memory before any check sees it. Both
doors use :func:`loads`, which measures the nesting with a linear scan first (brackets inside
strings do not count) and raises :class:`JsonError` (a ValueError) with a sentence.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["JsonError", "MAX_DEPTH", "MAX_BYTES", "loads", "depth"]

MAX_DEPTH = 32
MAX_BYTES = 1024 * 1024


class JsonError(ValueError):
    """Not acceptable JSON; ``reason`` is a machine code (bad_json, too_deep, too_large)."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON ``text`` (strings skipped)."""
    deepest = level = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            level += 1
            deepest = max(deepest, level)
        elif ch in "]}":
            level -= 1
    return deepest


def loads(raw: bytes | str, *, max_depth: int = MAX_DEPTH, max_bytes: int = MAX_BYTES) -> Any:
    """Parse ``raw`` or raise :class:`JsonError` saying what is wrong with it."""
    if len(raw) > max_bytes:
        raise JsonError(
            f"the message is too large ({len(raw)} bytes; at most {max_bytes})", "too_large"
        )
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes | bytearray) else raw
    except UnicodeDecodeError as exc:
        raise JsonError(f"the message is not UTF-8 text: {exc}", "bad_json") from None
    if depth(text) > max_depth:
        raise JsonError(f"the JSON is nested too deeply (at most {max_depth} levels)", "too_deep")
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise JsonError(f"the message is not JSON: {exc}", "bad_json") from None
