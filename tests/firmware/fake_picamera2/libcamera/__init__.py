"""A stand-in for libcamera's Python bindings: the few names the firmware uses (ColorSpace and
its presets, Transform, controls.AfModeEnum), with libcamera's own string forms.

Why: picamera2 checks that a configuration's ``colour_space`` is a libcamera ``ColorSpace``; the
firmware asks for Rec.709 by name and decodes by the colour space the camera reports. Put the
folder above this one on ``sys.path`` with the picamera2 stand-in.
"""

from __future__ import annotations

import enum

__all__ = ["ColorSpace", "Transform", "controls"]


class ColorSpace:
    """libcamera::ColorSpace: primaries, transfer function, YCbCr encoding and range."""

    def __init__(self, primaries: str, transfer: str, ycbcr: str, range_: str) -> None:
        self.primaries, self.transferFunction = primaries, transfer
        self.ycbcrEncoding, self.range = ycbcr, range_

    @staticmethod
    def Sycc() -> ColorSpace:  # noqa: N802 - libcamera's names
        return ColorSpace("Rec709", "Srgb", "Rec601", "Full")

    @staticmethod
    def Smpte170m() -> ColorSpace:  # noqa: N802
        return ColorSpace("Smpte170m", "Rec709", "Rec601", "Limited")

    @staticmethod
    def Rec709() -> ColorSpace:  # noqa: N802
        return ColorSpace("Rec709", "Rec709", "Rec709", "Limited")

    def _key(self) -> tuple[str, str, str, str]:
        return (self.primaries, self.transferFunction, self.ycbcrEncoding, self.range)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ColorSpace) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __str__(self) -> str:  # ColorSpace::toString: a preset's name, else its four parts
        presets = {
            ColorSpace.Sycc()._key(): "sYCC",
            ColorSpace.Smpte170m()._key(): "SMPTE170M",
            ColorSpace.Rec709()._key(): "Rec709",
        }
        return presets.get(self._key(), "/".join(self._key()))

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
