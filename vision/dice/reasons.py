"""Why a die reader vetoed or abstained: a stable code for code, a sentence for people.

Why values and not sentences: a reader that decides by matching words in its own messages
changes what it reads when a message is reworded. Every veto and abstention of the dice readers
is a ``Reason``: ``code`` (a ``Why``) is what code and tests compare; ``sentence`` is what a
person reads on the dashboard, and may name the measured values. The model is the hub's
``IllegalAction(reason, sentence)`` and python-chess's error family, whose type says what went
wrong and whose message says it to a person.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class Why(StrEnum):
    """What kept a reader from a frame, a face or a colour. The values are stable codes."""

    # the frame as a whole (``DiceReport``)
    FRAME_BLACK = "frame_black"
    FRAME_UNIFORM = "frame_uniform"
    NO_DIE = "no_die"
    PRINTED_TEXT = "printed_text"
    NO_PIPS = "no_pips"
    NO_PIPS_BLURRED = "no_pips_blurred"
    NO_PIP_PATTERN = "no_pip_pattern"
    # the pip path's face: its group of pips and where they lie
    PIPS_NOT_A_FACE = "pips_not_a_face"
    POOR_FIT = "poor_fit"
    PIPS_BLURRED = "pips_blurred"
    LONE_PIP_OFF_CENTRE = "lone_pip_off_centre"
    LONE_BLOB_TOO_LARGE = "lone_blob_too_large"
    FACE_COLOUR_REACH = "face_colour_reach"
    MISSED_PIP_SPOT = "missed_pip_spot"
    PIP_NEARBY = "pip_nearby"
    STRAY_PIP = "stray_pip"
    # the pip path's face against the die's body
    PIPS_OFF_BODY_CENTRE = "pips_off_body_centre"
    BLOB_TOO_LARGE_FOR_BODY = "blob_too_large_for_body"
    LONE_PIP_TOO_SMALL = "lone_pip_too_small"
    FACE_SMALL_FOR_BODY = "face_small_for_body"
    FACE_OUTSIDE_FRAME = "face_outside_frame"
    # two reads of one die
    COUNTS_DISAGREE = "counts_disagree"
    NO_FACE = "no_face"
    # marks found by the body's own colour
    MARKS_TOO_FAINT = "marks_too_faint"
    MARKS_DIFFER_IN_SIZE = "marks_differ_in_size"
    TOO_MANY_MARKS = "too_many_marks"
    MARKS_NOT_A_FACE = "marks_not_a_face"
    LONE_MARK_OFF_CENTRE = "lone_mark_off_centre"
    MARKS_SPAN_WRONG = "marks_span_wrong"
    TWO_MARKS_OFF_CENTRE = "two_marks_off_centre"
    DIE_TOO_SMALL_FOR_MARKS = "die_too_small_for_marks"
    # a die read alone at a common scale (the reveal zone, a body's crop)
    BODY_TOO_SMALL = "body_too_small"
    DIE_TOO_SMALL = "die_too_small"
    NO_PIPS_STAND_OUT = "no_pips_stand_out"
    STREAK = "streak"
    NO_PIP_BLOB = "no_pip_blob"
    COUNT_NOT_A_FACE = "count_not_a_face"
    BLOB_TOO_LARGE = "blob_too_large"
    PIPS_UNLIKE = "pips_unlike"
    LAYOUT = "layout"
    DARK_PATCH = "dark_patch"
    SPOT_BESIDE_PIPS = "spot_beside_pips"
    # the learned net (``learned``)
    LEARNED_UNSURE = "learned_unsure"
    LEARNED_DISAGREES = "learned_disagrees"
    # the colour
    COLOUR_AMBIGUOUS = "colour_ambiguous"
    NO_FACE_PIXELS = "no_face_pixels"
    FACE_TOO_DARK = "face_too_dark"
    COLOUR_POLARITY = "colour_polarity"
    COLOUR_FAR = "colour_far"
    COLOUR_UNTRUSTED = "colour_untrusted"


@dataclass(frozen=True)
class Reason:
    """One veto or abstention: ``code`` decides, ``sentence`` explains (``str()`` gives it)."""

    code: Why
    sentence: str

    def __str__(self) -> str:
        return self.sentence

    def to_json(self) -> dict[str, str]:
        return {"code": self.code.value, "sentence": self.sentence}


Reasons = tuple[Reason, ...]

#: the codes that doubt a die's colour, not its face: a reading names no colour exactly when
#: one of them says why (``DieReading.reasons``)
COLOUR_CODES = frozenset(
    {
        Why.COLOUR_AMBIGUOUS,
        Why.NO_FACE_PIXELS,
        Why.FACE_TOO_DARK,
        Why.COLOUR_POLARITY,
        Why.COLOUR_FAR,
        Why.COLOUR_UNTRUSTED,
    }
)


def sentence_of(reasons: Iterable[Reason]) -> str | None:
    """The reasons as one sentence, "; "-joined (None when there are none): what people read."""
    return "; ".join(r.sentence for r in reasons) or None


def has_any(reasons: Iterable[Reason], codes: frozenset[Why]) -> bool:
    """Whether any of ``reasons`` has one of ``codes``."""
    return any(r.code in codes for r in reasons)
