"""The settle state machine over rendered frame sequences of the reveal zone and the track."""

from __future__ import annotations

import numpy as np
import pytest

from vision.board import load_geometry, locate_board, reveal_zone_box
from vision.motion import State, ZoneWatcher
from vision.render.board import render_board_scene
from vision.render.dice import draw_die
from vision.render.effects import add_noise
from vision.render.hands import draw_hand


@pytest.fixture(scope="module")
def table():
    """One board frame (no effects) and the reveal zone's box grown by a margin."""
    geo = load_geometry()
    img, _ = render_board_scene(
        np.random.default_rng(4), track={3: ["blue"]}, desert={}, geometry=geo, effects=False
    )
    loc = locate_board(img, geo)
    return img, reveal_zone_box(loc, geo, margin_mm=25)


class Film:
    """Builds frames: the empty zone, a die somewhere in it, a hand over it; sensor noise."""

    def __init__(self, table):
        self.base, (self.x, self.y, self.w, self.h) = table
        self.rng = np.random.default_rng(0)

    def frame(self, die=None, hand=None):
        # drawn on the zone's crop only: the same pixels the watcher sees, at a fraction of the cost
        img = self.base[self.y : self.y + self.h, self.x : self.x + self.w].copy()
        if die is not None:
            (dx, dy), colour = die
            draw_die(
                img,
                (dx * self.w, dy * self.h),
                22,
                colour,
                2,
                np.random.default_rng(1),
                angle=20,
                shadow=True,
            )
        if hand is not None:
            draw_hand(img, np.random.default_rng(2), (hand[0] * self.w, hand[1] * self.h), 1.3)
        return add_noise(img, self.rng, 2.0)


def run(watcher, frames):
    reads = []
    for i, f in enumerate(frames):
        t = watcher.update(f)
        if t is not None and t.read:
            reads.append(i)
    return reads


def test_one_die_released_is_read_exactly_once(table):
    film = Film(table)
    w = ZoneWatcher("die", still_frames=4)
    frames = [film.frame() for _ in range(3)]  # empty
    frames += [film.frame(hand=(0.5, 0.3 + 0.05 * i)) for i in range(3)]  # hand comes in
    frames += [film.frame(die=((0.3 + 0.05 * i, 0.5), "blue")) for i in range(3)]  # rolling
    frames += [film.frame(die=((0.45, 0.5), "blue")) for _ in range(12)]  # at rest
    reads = run(w, frames)
    assert len(reads) == 1 and reads[0] >= 9 + 4  # not before N still frames after it stopped
    assert w.state == State.HELD


def test_never_reads_under_a_hand_even_a_still_one(table):
    film = Film(table)
    w = ZoneWatcher("die", still_frames=3)
    frames = [film.frame() for _ in range(2)]
    # the die lands while a hand stays still over it for many frames
    frames += [film.frame(die=((0.5, 0.5), "green"), hand=(0.5, 0.45)) for _ in range(10)]
    assert run(w, frames) == []
    assert w.hand


def test_a_die_that_stays_is_not_read_again_a_new_one_is(table):
    film = Film(table)
    w = ZoneWatcher("die", still_frames=3)
    frames = [film.frame() for _ in range(2)]
    frames += [film.frame(die=((0.4, 0.5), "yellow")) for _ in range(6)]  # read 1
    frames += [film.frame(die=((0.4, 0.5), "yellow"), hand=(0.4, 0.4)) for _ in range(3)]
    frames += [film.frame(die=((0.4, 0.5), "yellow")) for _ in range(6)]  # stays: no read
    frames += [film.frame(hand=(0.4, 0.4)) for _ in range(2)]  # picked up
    frames += [film.frame() for _ in range(3)]  # empty again
    frames += [film.frame(die=((0.6, 0.5), "orange")) for _ in range(6)]  # read 2
    reads = run(w, frames)
    assert len(reads) == 2, reads
    assert 2 + 3 <= reads[0] < 8 and reads[1] >= 22


def test_track_mode_reads_after_a_move_once_hands_are_gone():
    geo = load_geometry()
    pose_rng = np.random.default_rng(30)
    from vision.render.board import sample_pose

    pose = sample_pose(pose_rng, geo)

    def shot(track):
        img, _ = render_board_scene(
            np.random.default_rng(1), track=track, desert={}, pose=pose, geometry=geo, effects=False
        )
        return img

    before = shot({2: ["blue"], 5: ["green"]})
    after = shot({4: ["blue"], 5: ["green"]})
    noise = np.random.default_rng(7)

    def frame(base, hand=None):
        img = base.copy()
        if hand is not None:
            c = pose.project(np.array(geo.space_centres[hand]), 0.0)[0]
            draw_hand(img, np.random.default_rng(hand), (float(c[0]), float(c[1])), 1.2)
        return add_noise(img, noise, 2.0)

    frames = [frame(before) for _ in range(2)]  # settled
    frames += [frame(before, hand=s) for s in (2, 3, 4)]  # a hand moves the camel
    frames += [frame(after) for _ in range(6)]  # gone, still
    frames += [frame(after) for _ in range(4)]  # nothing more happens
    w = ZoneWatcher("track", still_frames=3)
    reads = run(w, frames)
    assert len(reads) == 1 and reads[0] >= 5 + 3 - 1


def test_rejects_bad_arguments():
    with pytest.raises(ValueError):
        ZoneWatcher("dice")
    with pytest.raises(ValueError):
        ZoneWatcher(still_frames=0)
    w = ZoneWatcher()
    with pytest.raises(ValueError):
        w.update(np.zeros((0, 0), np.uint8))


def test_track_hand_flag_drops_once_the_hand_has_left_even_if_the_table_changed():
    """The demo's lost track reads: the frame the reference was taken from and the frames after
    the move differed over the whole table (the renderer drew the table anew when the leg's
    desert tiles went back; at a real table: a lamp switched on, the camera nudged). That global
    difference touches every border, so the watcher called it a hand for as long as it lasted —
    the hand flag stayed up after the hand had left, and the move was only read at the loop's
    timeout. A "hand" that does not move at all for ``stale_frames`` is the table itself."""
    geo = load_geometry()
    from vision.render.board import sample_pose

    pose = sample_pose(np.random.default_rng(30), geo)

    def shot(track):
        img, _ = render_board_scene(
            np.random.default_rng(1), track=track, desert={}, pose=pose, geometry=geo, effects=False
        )
        return img

    before = shot({2: ["blue"], 5: ["green"]})
    after = shot({4: ["blue"], 5: ["green"]})
    lamp_on = np.clip(after.astype(np.int16) + 45, 0, 255).astype(np.uint8)  # the whole table
    noise = np.random.default_rng(7)

    def frame(base, hand=None):
        img = base.copy()
        if hand is not None:
            c = pose.project(np.array(geo.space_centres[hand]), 0.0)[0]
            draw_hand(img, np.random.default_rng(hand), (float(c[0]), float(c[1])), 1.2)
        return add_noise(img, noise, 2.0)[::4, ::4]  # the loop's quarter-size table

    w = ZoneWatcher("track", still_frames=3)
    assert w.stale_frames == 9
    frames = [frame(before) for _ in range(2)]  # settled: the reference
    frames += [frame(lamp_on if s == 4 else before, hand=s) for s in (2, 3, 4)]  # the move
    hand_gone = len(frames)
    frames += [frame(lamp_on) for _ in range(20)]  # the hand has left; the lamp stays on
    hands, reads = [], []
    for i, f in enumerate(frames):
        t = w.update(f)
        hands.append(w.hand)
        if t is not None and t.read:
            reads.append(i)
    assert any(hands[2:hand_gone])  # the hand was seen while it was there
    # ...and dropped after stale_frames without motion (not at the loop's timeout)
    assert not any(hands[hand_gone + w.stale_frames :]), hands
    assert len(reads) == 1 and hand_gone + w.stale_frames <= reads[0] <= hand_gone + 15, reads
    assert w.state in (State.HELD, State.EMPTY)


def test_a_white_die_on_a_light_zone_is_seen_in_colour_not_only_in_grey():
    """A die whose grey level is the zone's (a white die on a sand-coloured zone under a warm
    lamp) still differs in a channel: the watcher must see it land and read it once."""
    base = np.zeros((120, 200, 3), np.uint8)
    base[:] = (150, 205, 235)  # sand: grey ~207
    die = base.copy()
    die[50:72, 90:112] = (228, 206, 200)  # a die of nearly the same grey, far bluer
    import cv2

    g = lambda im: cv2.cvtColor(im, cv2.COLOR_BGR2GRAY).astype(int)  # noqa: E731
    assert abs(g(die)[60, 100] - g(base)[60, 100]) < 30  # grey alone could not tell it
    noise = np.random.default_rng(3)
    frames = [add_noise(base, noise, 2.0) for _ in range(3)]
    frames += [add_noise(die, noise, 2.0) for _ in range(8)]
    w = ZoneWatcher("die", still_frames=3)
    reads = run(w, frames)
    assert len(reads) == 1 and reads[0] >= 3 + 3 - 1


def test_stale_frames_must_not_be_shorter_than_still_frames():
    with pytest.raises(ValueError, match="stale_frames"):
        ZoneWatcher("track", still_frames=5, stale_frames=2)


def test_a_die_watcher_takes_a_change_of_the_whole_zones_light_for_no_die():
    """A light switched on over the zone (the ring at a release) shifts every pixel alike; a die
    covers a few per cent of the zone. In die mode the zone's median change is taken off, so a
    lit empty zone is neither a die nor a hand, and a die on the lit zone is still seen."""
    base = np.zeros((120, 200, 3), np.uint8)
    base[:] = (120, 160, 185)
    noise = np.random.default_rng(5)
    lit = np.clip(base.astype(int) + (35, 40, 45), 0, 255).astype(np.uint8)
    die = lit.copy()
    die[50:72, 90:112] = (60, 60, 200)
    w = ZoneWatcher("die", still_frames=3)
    frames = [add_noise(base, noise, 2.0) for _ in range(3)]
    frames += [add_noise(lit, noise, 2.0) for _ in range(6)]  # the light comes on: no die
    assert run(w, frames) == [] and w.state == State.EMPTY and not w.hand
    reads = run(w, [add_noise(die, noise, 2.0) for _ in range(6)])
    assert len(reads) == 1 and not w.hand
