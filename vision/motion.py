"""Motion and settling: when is a zone of the frame worth reading?

Why a state machine: a die is read once, after it has stopped, and never while a hand is over
it; the track is read after a move, once hands are gone and nothing moves. Reading every frame
would read dice in flight, hands as camels, and the same die many times.

Pure: the caller (the firmware's watch loop) crops the zone from each frame and calls
``update(crop)``; the machine keeps only small grey thumbnails. No clock: "still" is counted in
frames, so tests can drive it with rendered sequences.

Two modes:
- ``ZoneWatcher(mode="die")`` for the reveal zone. The reference is the empty zone (the first
  frame, or ``set_background``). EMPTY -> MOVING (something appeared) -> STILL for N frames with
  no hand -> READ (emitted once). After a read it waits for the zone to be EMPTY again before it
  can read another die: a die that stays is not read twice, a new die after the zone emptied is.
- ``ZoneWatcher(mode="track")`` for the track. The reference is the last settled frame. A change
  -> MOVING -> still for N frames with no hand and different from the reference -> READ, and the
  new frame becomes the reference.

A hand is told from a die by where it is: an arm reaches in from outside, so the changed region
touches the zone's border; a die lies inside it. A change that covers more of the zone than a die
can is a hand (or a sleeve) too.

In track mode a "hand" that has not moved at all for ``stale_frames`` frames is not a hand: a
hand over the board trembles, but a change of the table itself (a lamp switched on, the camera
nudged, a cloth under the board pulled straight) differs from the reference everywhere, touches
every border and then lies still. Without this the flag stayed up after the hand had left and
the move was only read at the loop's timeout. (The die watcher keeps the strict rule: a die must
never be read under a still hand; the watch loop re-takes its empty zone when idle instead.)

Differences are taken in colour (the largest of the three channels' differences), not in grey: a
white die on a sand-coloured zone, or a yellow camel on a yellow-brown space, changes the blue
channel a lot and the grey level hardly at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import cv2
import numpy as np

__all__ = ["State", "Transition", "ZoneWatcher"]


class State(StrEnum):
    EMPTY = "empty"  # die mode: nothing in the zone; track mode: settled, already read
    MOVING = "moving"
    STILL = "still"  # nothing moves, but not yet for N frames (or a hand is there)
    READ = "read"  # emitted once; then HELD until the zone changes back
    HELD = "held"


@dataclass(frozen=True)
class Transition:
    """A change of state; ``read`` is True exactly on the frame the caller should read."""

    old: State
    new: State
    frame: int
    read: bool = False
    hand: bool = False

    def __str__(self) -> str:
        return f"{self.old.value}->{self.new.value}@{self.frame}" + (" READ" if self.read else "")


class ZoneWatcher:
    """Feed it the zone's crop of every frame; it says when to read. See the module docstring.

    ``still_frames``: frames without motion needed before a read. ``motion``: change (0..255,
    the largest channel's) of one pixel between frames that counts as motion. ``change``: the
    same, against the reference, that counts as "different from the reference". ``max_object``:
    the largest share of the zone one object that is not a hand may cover (a die is far smaller
    than the zone). ``stale_frames`` (track mode; default 3 x ``still_frames``): frames without
    any motion after which a border-touching change is taken for the table, not a hand.
    """

    def __init__(
        self,
        mode: str = "die",
        still_frames: int = 5,
        *,
        motion: float = 18.0,
        change: int = 30,
        min_object: float = 0.002,
        max_object: float = 0.25,
        size: int = 96,
        stale_frames: int | None = None,
    ) -> None:
        if mode not in ("die", "track"):
            raise ValueError(f"mode is 'die' or 'track', not {mode!r}")
        if still_frames < 1:
            raise ValueError("still_frames must be at least 1")
        if stale_frames is not None and stale_frames < still_frames:
            raise ValueError("stale_frames must be at least still_frames")
        self.mode = mode
        self.still_frames = still_frames
        self.motion = motion
        self.change = change
        self.min_object = min_object
        self.max_object = max_object
        self.size = size
        self.state = State.EMPTY
        self.frame = -1
        self.reference: np.ndarray | None = None
        self._prev: np.ndarray | None = None
        self._still = 0
        self.quiet_frames = 0  # frames in a row without any motion (the caller may read it)
        self.stale_frames = stale_frames if stale_frames is not None else 3 * still_frames
        self.hand = False

    # --- helpers ------------------------------------------------------------------------
    def _thumb(self, crop: np.ndarray) -> np.ndarray:
        if not isinstance(crop, np.ndarray) or crop.ndim not in (2, 3) or crop.size == 0:
            raise ValueError(f"expected an image crop, got {getattr(crop, 'shape', type(crop))}")
        h, w = crop.shape[:2]
        scale = self.size / max(h, w)
        small = cv2.resize(
            crop, (max(int(w * scale), 8), max(int(h * scale), 8)), interpolation=cv2.INTER_AREA
        )
        return cv2.GaussianBlur(small, (3, 3), 0).astype(np.int16)

    @staticmethod
    def _diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Per pixel, the largest channel's absolute difference (see the module docstring)."""
        d: np.ndarray = np.abs(a - b)
        out: np.ndarray = d.max(axis=2) if d.ndim == 3 else d
        return out

    def set_background(self, crop: np.ndarray) -> None:
        """The empty zone (die mode) or the settled track (track mode)."""
        self.reference = self._thumb(crop)

    def _foreground(self, t: np.ndarray) -> np.ndarray:
        assert self.reference is not None
        if self.reference.shape != t.shape:
            raise ValueError("the zone crop changed size: call set_background again")
        if self.mode == "die" and t.ndim == 3:
            # die mode: the zone's median change is the light's, not a die's (a die covers a
            # few per cent of the zone): the ring switched on at a release, a lamp, a cloud.
            # Taken off, so that ``change`` can be low enough for a white die on a light zone
            d = t - self.reference
            d -= np.median(d.reshape(-1, d.shape[2]), axis=0).astype(np.int16)
            fg: np.ndarray = (np.abs(d).max(axis=2) > self.change).astype(np.uint8)
            return fg
        return (self._diff(t, self.reference) > self.change).astype(np.uint8)

    def _is_hand(self, fg: np.ndarray) -> bool:
        share = float(fg.mean())
        if share > self.max_object:
            return True
        n, lab, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
        h, w = fg.shape
        min_px = max(3, int(self.min_object * fg.size))
        for i in range(1, n):
            x, y, bw, bh, area = stats[i]
            if area < min_px:
                continue
            if x == 0 or y == 0 or x + bw >= w or y + bh >= h:
                return True  # reaches in from outside the zone: an arm
        return False

    # --- the machine --------------------------------------------------------------------
    def update(self, crop: np.ndarray) -> Transition | None:
        """One frame of the zone. Returns a Transition when the state changes, else None."""
        t = self._thumb(crop)
        self.frame += 1
        if self.reference is None:
            self.reference = t  # first frame: the empty zone / the settled track
            self._prev = t
            return None
        # motion: enough pixels changed a lot since the last frame (a mean would miss a small
        # die rolling through a large zone; sensor noise changes many pixels a little)
        moving = (
            self._prev is not None
            and self._prev.shape == t.shape
            and int(np.count_nonzero(self._diff(t, self._prev) > self.motion))
            >= max(3, int(0.3 * self.min_object * t.shape[0] * t.shape[1]))
        )
        self._prev = t
        self.quiet_frames = 0 if moving else self.quiet_frames + 1
        fg = self._foreground(t)
        present = float(fg.mean()) >= self.min_object
        hand = present and self._is_hand(fg)
        if hand and self.mode == "track" and self.quiet_frames >= self.stale_frames:
            hand = False  # nothing has moved for long: the table changed, no hand is there
        self.hand = hand
        old = self.state
        new = old
        read = False
        if moving or self.hand:
            self._still = 0
        else:
            self._still += 1
        if old in (State.READ, State.HELD):
            if self.mode == "die":
                new = State.EMPTY if not present and not moving else State.HELD
            else:
                new = State.MOVING if (moving or present) else State.HELD
                if new == State.HELD:
                    new = State.EMPTY
        elif not present and not moving:
            new = State.EMPTY
        elif moving or self.hand:
            new = State.MOVING
        elif self._still >= self.still_frames:
            new, read = State.READ, True
        else:
            new = State.STILL
        if read and self.mode == "track":
            self.reference = t  # the settled track is the new "nothing happened"
        if new == State.READ and old == State.READ:
            new = State.HELD
        if new == old:
            return None
        self.state = new
        return Transition(old, new, self.frame, read, self.hand)
