"""From what the camera sees to horse-race actions (pure: readings in, actions out).

The die reader gives the face of each roll: that is ``Roll(face)``. The track reader gives where
each horse stands; after a roll exactly one not-yet-moved horse should have advanced by the roll,
and that is ``Assign(horse)``. Horses do not stack in this game and several may share a space, so
a reading is simply a space per horse (a Camel Up style {space: [colours]} map is accepted too:
the order within a space is ignored). A horse past the finish is off the track: absent from the
reading, or at any space >= the track length.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hub.games.common import IllegalAction
from hub.games.horserace.actions import Assign, Roll
from hub.games.horserace.state import State


def roll_from_die(reading: Mapping[str, Any], min_confidence: float = 0.5) -> Roll:
    """A die reading ({"face", "confidence", ...}) as a roll, or IllegalAction("uncertain") when
    a person should look (no face, or below the confidence threshold)."""
    face = reading.get("face")
    conf = reading.get("confidence", 1.0)
    if face is None or conf is None or conf < min_confidence:
        raise IllegalAction("uncertain", "The camera is not sure of the die; please confirm it.")
    return Roll(int(face))


def positions_from_reading(reading: Mapping[Any, Any]) -> dict[str, int]:
    """Normalise a track reading to {horse: space}: accepts {horse: space} or {space: [horses]}."""
    out: dict[str, int] = {}
    for key, value in reading.items():
        if isinstance(value, Sequence) and not isinstance(value, str):
            for horse in value:
                out[str(horse)] = int(key)
        else:
            out[str(key)] = int(value)
    return out


def assignment_from_track(state: State, reading: Mapping[Any, Any]) -> Assign:
    """The horse the roll in hand was given to, judged from the track seen after the move.

    Refuses (reason ``track_mismatch``) unless exactly one horse differs from the engine's
    positions and it is a not-yet-moved horse advanced by exactly the roll; the message says
    what differs so the dashboard can ask a person."""
    if state.roll is None:
        raise IllegalAction("no_roll", "No roll in hand: read the die first.")
    seen = positions_from_reading(reading)
    unknown = sorted(set(seen) - set(state.horses))
    if unknown:
        raise IllegalAction("track_mismatch", f"The camera saw unknown horse(s) {unknown}.")
    length = state.settings.track_length
    changed = []
    for h, horse in enumerate(state.horses):
        if h in state.podium:
            continue
        now = seen.get(horse, length)  # absent: it left the track over the line
        before = state.positions[h]
        if min(now, length) != min(before, length):
            changed.append((horse, before, now))
    if len(changed) != 1:
        what = "; ".join(f"{h}: expected {b}, saw {n}" for h, b, n in changed) or "no horse moved"
        raise IllegalAction(
            "track_mismatch", f"Expected one horse to move by {state.roll}: {what}."
        )
    horse, before, now = changed[0]
    h = state.horses.index(horse)
    target = before + state.roll
    if h in state.moved:
        raise IllegalAction(
            "track_mismatch", f"The {horse} horse moved but has already moved this round."
        )
    if min(now, length) != min(target, length):
        raise IllegalAction(
            "track_mismatch",
            f"The {horse} horse went from {before} to {now}, "
            f"but the roll is {state.roll} (expected {min(target, length)}).",
        )
    return Assign(horse)
