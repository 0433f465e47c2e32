"""Where `pyramid calibrate` takes its snapshots from: a small frame-source interface.

Why an interface: on the Pi the running watch service owns the camera and the ring light, so
the set-up must never open the camera itself; it asks that service for a frame. Here are the
sources that need no service (an image file, a replay of frames for tests); the service's
transport registers its own scheme with ``register_source`` (e.g. ``watch:`` ->
a source that asks the watch service for a lit frame), and ``open_source`` picks by the spec's
scheme. A spec without a scheme is an image file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

__all__ = [
    "FrameSource",
    "FrameSourceError",
    "ImageFileSource",
    "ReplaySource",
    "open_source",
    "register_source",
]


class FrameSourceError(OSError):
    """No frame could be had from the source; ``str(err)`` says why."""


class FrameSource(Protocol):
    """Gives one still BGR frame per ``snapshot()`` (lit as for play, if the source can)."""

    def snapshot(self) -> np.ndarray: ...

    def close(self) -> None: ...


class ImageFileSource:
    """A frame saved to a file (PNG, JPEG): every snapshot is that image."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def snapshot(self) -> np.ndarray:
        if not self.path.is_file():
            raise FrameSourceError(f"{self.path}: no such file")
        data = np.fromfile(str(self.path), np.uint8)
        img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
        if img is None:
            raise FrameSourceError(f"{self.path}: not an image")
        return np.asarray(img)

    def close(self) -> None:
        return None


class ReplaySource:
    """Frames given in advance, one per snapshot, in order (tests; a recorded session)."""

    def __init__(self, frames: Sequence[np.ndarray]) -> None:
        self._frames = list(frames)
        self._next = 0

    def snapshot(self) -> np.ndarray:
        if self._next >= len(self._frames):
            raise FrameSourceError(f"the replay has no frame left ({len(self._frames)} given)")
        frame = self._frames[self._next]
        self._next += 1
        return frame

    def close(self) -> None:
        self._next = len(self._frames)


_SCHEMES: dict[str, Callable[[str], FrameSource]] = {
    "file": lambda rest: ImageFileSource(rest),
}


def register_source(scheme: str, factory: Callable[[str], FrameSource]) -> None:
    """Plug in a transport: ``open_source("SCHEME:rest")`` then calls ``factory("rest")``."""
    if not scheme.isidentifier():
        raise ValueError(f"frame source scheme {scheme!r} must be a plain word")
    _SCHEMES[scheme] = factory


def open_source(spec: str) -> FrameSource:
    """The source named by ``spec``: ``SCHEME:rest`` for a registered scheme, else a file."""
    scheme, sep, rest = spec.partition(":")
    if sep and scheme in _SCHEMES and len(scheme) > 1:  # "C:\\..." is a drive, not a scheme
        return _SCHEMES[scheme](rest)
    return ImageFileSource(spec)
