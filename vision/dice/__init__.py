"""Read dice from a camera frame: where each die is, its face (by pips) and its colour.

Pure: a numpy BGR image in, ``DieReading`` dataclasses out. See ``reader`` for the pipeline.
"""

from vision.dice.reader import (
    DiceReport,
    DieReading,
    read_dice,
    read_dice_report,
    read_die_in_zone,
)
from vision.dice.reasons import Reason, Why

__all__ = [
    "DiceReport",
    "DieReading",
    "Reason",
    "Why",
    "read_dice",
    "read_dice_report",
    "read_die_in_zone",
]
