"""A small settle detector: "nothing has moved for N frames", by frame differencing.

Why it is here: the loop needs to know when a die has stopped rolling and when hands have left
the track. vision.motion owns the full machine (empty -> moving -> still, never reading under a
hand); this one is what the loop uses when vision's is not installed, and it keeps per-frame work
tiny: the zone is shrunk to at most 64 pixels wide in grey before comparing.
"""

from __future__ import annotations

import numpy as np

SMALL_WIDTH = 64


def shrink(zone: np.ndarray) -> np.ndarray:
    """Grey, at most SMALL_WIDTH wide, as int16 (so differences do not wrap)."""
    import cv2

    gray = cv2.cvtColor(zone, cv2.COLOR_BGR2GRAY) if zone.ndim == 3 else zone
    h, w = gray.shape[:2]
    if w > SMALL_WIDTH:
        gray = cv2.resize(gray, (SMALL_WIDTH, max(1, round(h * SMALL_WIDTH / w))),
                          interpolation=cv2.INTER_AREA)
    return gray.astype(np.int16)


class StillnessDetector:
    """``update(zone) -> True`` once, on the frame that completes ``still_frames`` still frames.

    ``require_motion``: only count stillness after motion was seen (the track after a die was
    read: the camel has to be moved first). ``seed`` gives the frame before the event, so the
    first frame after it can already be compared.
    """

    def __init__(self, still_frames: int, *, require_motion: bool = False,
                 threshold: float = 4.0) -> None:
        if still_frames < 1:
            raise ValueError("still_frames must be at least 1")
        self.still_frames = still_frames
        self.require_motion = require_motion
        self.threshold = threshold  # mean absolute grey difference that counts as motion
        self._prev: np.ndarray | None = None
        self._still = 0
        self.seen_motion = False
        self.fired = False
        self.last_diff = 0.0

    def seed(self, zone: np.ndarray | None) -> None:
        self._prev = None if zone is None else shrink(zone)

    def update(self, zone: np.ndarray) -> bool:
        small = shrink(zone)
        prev, self._prev = self._prev, small
        if self.fired:
            return False
        if prev is None or prev.shape != small.shape:
            self._still = 0
            return False
        self.last_diff = float(np.abs(small - prev).mean())
        if self.last_diff > self.threshold:
            self.seen_motion = True
            self._still = 0
            return False
        if self.require_motion and not self.seen_motion:
            return False
        self._still += 1
        if self._still >= self.still_frames:
            self.fired = True
            return True
        return False
