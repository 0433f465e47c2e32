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
from typing import Any

__all__ = ["DIE_CONFIDENCE_THRESHOLD", "OBSERVATION_COMMANDS", "crop_bytes"]

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
