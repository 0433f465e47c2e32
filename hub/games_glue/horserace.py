"""The camera at a horse race: a die reading becomes a roll, a track reading the horse it went to.

Pure: readings and the state in, a decision out; the session logs it. The rule is the same as
Camel Up's: the hub never guesses. A die the camera is not sure of (no face, a face off the die,
a confidence under the table's threshold) becomes a person prompt; a track that does not show
exactly one not-yet-moved horse advanced by the roll is reported as a mismatch, and the roller
(or anyone with the PIN) gives the roll to a horse on the dashboard.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hub.games.common import IllegalAction
from hub.games.horserace import Roll, State, assignment_from_track, roll_from_die
from hub.games.horserace.camera import positions_from_reading
from hub.games.horserace.settings import DIE_FACES

__all__ = ["TrackDecision", "judge_roll", "judge_track"]


def judge_roll(reading: Mapping[str, Any], threshold: float) -> tuple[Roll | None, list[str]]:
    """(the roll, []) for a reading the hub may play, else (None, the problems in sentences)."""
    face = reading.get("face")
    conf = reading.get("confidence")
    problems: list[str] = []
    if face is None:
        problems.append("the camera read no face" + (f" ({reading['reason']})"
                                                     if reading.get("reason") else ""))
    elif not isinstance(face, int) or isinstance(face, bool) or not 1 <= face <= DIE_FACES:
        problems.append(f"a die shows 1 to {DIE_FACES}, not {face!r}")
    if conf is None:
        problems.append("the reading has no confidence")
    elif conf < threshold:
        problems.append(f"confidence {conf:.2f} is below {threshold:.2f}")
    if problems:
        return None, problems
    try:
        return roll_from_die(reading, threshold), []
    except IllegalAction as exc:  # the engine's own doubt
        return None, [str(exc)]


@dataclass(frozen=True)
class TrackDecision:
    """``kind``: "assign" (play ``action``), "match" (the track is as the game says),
    "waiting" (a roll in hand, no horse moved yet) or "mismatch" (``differences``)."""

    kind: str
    action: Any = None
    differences: list[str] = field(default_factory=list)


def _seen(reading: Mapping[Any, Any]) -> dict[str, int]:
    try:
        return positions_from_reading(reading)
    except (TypeError, ValueError):
        raise IllegalAction("bad_track", "a track reading is {space: [horses]} or "
                            "{horse: space} with whole-number spaces") from None


def judge_track(state: State, track: Mapping[Any, Any],
                uncertain: list[Any] | None = None) -> TrackDecision:
    """What a still track means for the game. ``uncertain`` spaces (the reader's doubts) make
    anything but a plain match a mismatch: a doubtful space is never read as a move."""
    seen = _seen(track)
    length = state.settings.track_length
    differs = []
    for h, horse in enumerate(state.horses):
        if h in state.podium:
            continue
        now = min(seen.get(horse, length), length)
        before = min(state.positions[h], length)
        if now != before:
            differs.append(f"{horse}: the game has {before}, the camera saw {now}")
    unknown = sorted(set(seen) - set(state.horses))
    differs += [f"{h} is not a horse of this race" for h in unknown]
    if not differs:
        return TrackDecision("waiting" if state.roll is not None else "match")
    if uncertain:
        return TrackDecision("mismatch", differences=[
            *differs, f"the camera is unsure of space(s) {', '.join(map(str, uncertain))}"])
    if state.roll is None or state.phase != "running" or state.finished:
        return TrackDecision("mismatch", differences=differs)
    try:
        return TrackDecision("assign", action=assignment_from_track(state, seen))
    except IllegalAction as exc:
        return TrackDecision("mismatch", differences=[str(exc)])
