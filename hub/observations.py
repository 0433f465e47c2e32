"""What every game shares about the camera's observations: their kinds, the confidence threshold.

Why this is all that is left here: judging a reading is a game's business (each game's
:class:`hub.games_glue.Driver` does it: ``observe_die``, ``observe_track``, ``observe_dice``),
but which observations exist, which hub command each one is, and how sure a reading must be
before the hub plays it without asking a person are the same for every game and every door
(the firmware's sinks, the session's :meth:`~hub.session.TableSession.observe`).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

__all__ = [
    "DIE_CONFIDENCE_THRESHOLD",
    "OBSERVATION_COMMANDS",
    "DieFrame",
    "crop_bytes",
    "frame_doubt",
]

#: A die reading is played without asking a person when its confidence is at least this.
#: Chosen with the product's reader (vision.dice.zone) from data, the two together: the zone
#: reader's confidence is calibrated so that 0.80 falls where no wrong answer was seen
#: (``python -m vision.eval.dice_zone --scenes 500 --board-scenes 200`` and a held-out seed
#: range: every wrong answer had a raw score of 0.46 or less, mapped below 0.68; 96 % of the
#: right ones in the dice scenes and 99 % of those cut from the full resolution are accepted;
#: see vision/dice/zone.py's docstring). A wrong die played is the one error the table must not
#: make (a person has to notice and undo it), so the threshold errs towards asking. The session's
#: default ``threshold`` (hub.session.DEFAULT_THRESHOLD) is this value.
DIE_CONFIDENCE_THRESHOLD = 0.80


class DieFrame(StrEnum):
    """Which frame a die reading was read from (``frame`` in ``observe_die``; a reading from
    older firmware has none and is judged as before).

    Why the hub must know: the reveal zone cut from the camera's full-resolution stream shows a
    die at ~70 px, the watched 1280x720 preview at ~20 px. When the full-resolution cut shows no
    die (taken a moment off the still frames), the watch reads the still preview frame instead,
    and that read is not sure at any confidence: on 2,000 fresh rendered scenes it read one die
    wrong at 0.93, where the full-resolution cut read none wrong (issue 14)."""

    FULL = "full"  # the zone cut from the full-resolution stream
    PREVIEW = "preview"  # the watched frame: the camera has no full-resolution stream
    PREVIEW_FALLBACK = "preview_fallback"  # the watched frame: the full-resolution cut failed


def frame_doubt(reading: Mapping[str, Any]) -> str | None:
    """Why a die reading may not be played without a person because of the frame it was read
    from (a preview fallback, see :class:`DieFrame`), else None. Every game's judge of a die
    adds it to its problems, so the reading opens the game's usual prompt.

    >>> frame_doubt({"frame": "preview_fallback"})
    'read from the preview frame (the full-resolution cut showed no die)'
    >>> frame_doubt({"frame": "full"}) is None and frame_doubt({}) is None
    True
    """
    if reading.get("frame") == DieFrame.PREVIEW_FALLBACK:
        return "read from the preview frame (the full-resolution cut showed no die)"
    return None


#: An observation's kind (what the firmware saw) -> the hub command that takes it. The one copy:
#: the firmware's sinks send ``request/<command>`` with it, the session's ``observe`` maps with it.
OBSERVATION_COMMANDS: dict[str, str] = {
    "release": "observe_release",
    "die": "observe_die",
    "track": "observe_track",
    "dice": "observe_dice",
    "status": "observe_status",
}


def crop_bytes(p: Mapping[str, Any]) -> bytes | None:
    """The crop of a reading: raw bytes in-process, base64 text over MQTT/HTTP; None if none."""
    raw = p.get("crop_jpeg")
    if isinstance(raw, bytes | bytearray):
        return bytes(raw) or None
    text = raw if isinstance(raw, str) else p.get("crop_b64")
    if isinstance(text, str) and text:
        try:
            return base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            return None
    return None
