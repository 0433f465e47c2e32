"""From a camera frame's die readings to assistant actions (pure)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hub.games.marcopolo2.dice import Box, RoundReading, assign_readings
from hub.games.marcopolo2.engine import ReadDice, State


def actions_from_readings(
    state: State,
    readings: Sequence[Any],
    boards: Mapping[str, Box] | None = None,
    min_confidence: float = 0.5,
    expected_dice: int | None = None,
) -> tuple[list[ReadDice], RoundReading]:
    """One ``ReadDice`` per player whose dice were read completely, and the sorted reading: its
    ``needs_person`` list is what the dashboard asks a person to confirm. Incomplete players get
    no action, since an unread die would make the total, and so the compensation, wrong."""
    sorted_ = assign_readings(readings, state.colours, boards, min_confidence, expected_dice)
    actions = [
        ReadDice(p, tuple(sorted(d.faces)), tuple(sorted(d.black)))
        for p, d in sorted_.players.items()
        if d.complete and (d.faces or d.black)
    ]
    return actions, sorted_
