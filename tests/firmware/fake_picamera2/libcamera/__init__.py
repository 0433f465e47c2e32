"""A stand-in for libcamera's Python bindings: the few names the firmware uses (ColorSpace and
its presets, Transform, controls.AfModeEnum), with libcamera's own string forms.

Why: picamera2 checks that a configuration's ``colour_space`` is a libcamera ``ColorSpace``; the
firmware asks for Rec.709 by name and decodes by the colour space the camera reports. Put the
folder above this one on ``sys.path`` with the picamera2 stand-in.
"""

from __future__ import annotations

import enum
from typing import Any

__all__ = ["ColorSpace", "Transform", "controls"]


class ColorSpace:
    """libcamera::ColorSpace: primaries, transfer function, YCbCr encoding and range, each an
    enum as the bindings have them (``cs.ycbcrEncoding.name == "Rec709"``); ``str()`` as the
    bindings print it: ``<libcamera.ColorSpace 'Rec709'>`` (ColorSpace::toString inside)."""

    class Primaries(enum.Enum):
        Raw = 0
        Smpte170m = 1
        Rec709 = 2
        Rec2020 = 3

    class TransferFunction(enum.Enum):
        Linear = 0
        Srgb = 1
        Rec709 = 2

    class YcbcrEncoding(enum.Enum):
        None_ = 0
        Rec601 = 1
        Rec709 = 2
        Rec2020 = 3

    class Range(enum.Enum):
        Full = 0
        Limited = 1

    def __init__(
        self,
        primaries: Any,
        transferFunction: Any,
        ycbcrEncoding: Any,  # noqa: N803
        range: Any,
    ) -> None:  # noqa: A002 - the bindings' keyword
        self.primaries, self.transferFunction = primaries, transferFunction
        self.ycbcrEncoding, self.range = ycbcrEncoding, range

    @staticmethod
    def Sycc() -> ColorSpace:  # noqa: N802 - libcamera's names
        cs = ColorSpace
        return cs(
            cs.Primaries.Rec709, cs.TransferFunction.Srgb, cs.YcbcrEncoding.Rec601, cs.Range.Full
        )

    @staticmethod
    def Smpte170m() -> ColorSpace:  # noqa: N802
        cs = ColorSpace
        return cs(
            cs.Primaries.Smpte170m,
            cs.TransferFunction.Rec709,
            cs.YcbcrEncoding.Rec601,
            cs.Range.Limited,
        )

    @staticmethod
    def Rec709() -> ColorSpace:  # noqa: N802
        cs = ColorSpace
        return cs(
            cs.Primaries.Rec709,
            cs.TransferFunction.Rec709,
            cs.YcbcrEncoding.Rec709,
            cs.Range.Limited,
        )

    def _key(self) -> tuple[Any, ...]:
        return (self.primaries, self.transferFunction, self.ycbcrEncoding, self.range)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ColorSpace) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def toString(self) -> str:  # noqa: N802 - a preset's name, else its four parts
        presets = {
            ColorSpace.Sycc()._key(): "sYCC",
            ColorSpace.Smpte170m()._key(): "SMPTE170M",
            ColorSpace.Rec709()._key(): "Rec709",
        }
        return presets.get(self._key(), "/".join(k.name for k in self._key()))

    def __str__(self) -> str:
        return f"<libcamera.ColorSpace '{self.toString()}'>"

    __repr__ = __str__


class Transform:
    def __init__(self, hflip: int = 0, vflip: int = 0) -> None:
        self.hflip, self.vflip = hflip, vflip


class _Controls:
    class AfModeEnum(enum.IntEnum):
        Manual = 0
        Auto = 1
        Continuous = 2


controls = _Controls()
