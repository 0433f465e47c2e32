"""A camera with a steeper tone curve: saturated paint in shade keeps its hue.

Under the darker probe (``Probe.DARK``, gamma 1.4) a camel's shaded side falls to a linear
brightness a grey would be read as "too dark for a hue" at, though nearly all its light is in
one channel. The set-up (``vision.table._has_hue``) and the reader (``track._classify``) judge
darkness by the strongest channel: the set-up learns the paint of the side, not the sheen on
top, and the reader names the side. Tuning scenes 2,180,000..2,180,299 of ``vision.eval.table``.
"""

from __future__ import annotations

import numpy as np

from vision.eval import table as et
from vision.render.probes import Probe
from vision.table import HUE_FLOOR, _has_hue
from vision.track_global import TOP_WORD


def test_the_set_up_learns_a_green_camels_paint_under_a_darker_curve():
    scene = et.render_scene(2_180_071, "same", probe=Probe.DARK)
    assert scene.profile is not None
    b, g, r = scene.profile.camels["green"].chroma
    # the paint (its side: nearly all green); before, the sheen on its top, a sand-like olive
    assert g > 0.75 and b < 0.05, (b, g, r)


def test_a_lone_green_camel_is_read_under_a_darker_curve():
    scene = et.render_scene(2_180_071, "same", probe=Probe.DARK)
    reading = scene.read()
    assert scene.truth.track[6] == ["green"]
    assert 6 not in reading.uncertain, reading.spaces[6].why
    assert reading.track[6] == ["green"]


def test_a_dark_saturated_sample_has_a_hue_and_a_grey_as_dark_does_not():
    geo = et.render_scene(2_180_071).geometry
    green = np.array([[0.0005, 0.009, 0.0008]])  # b, g, r: a camel's side in shade
    grey = np.array([[0.0035, 0.0035, 0.0035]])  # the same sum, no hue
    # about as bright (0.0103 against 0.0105): the old floor on the sum, 0.02, dropped both
    assert abs(green.sum() - grey.sum()) < 1e-3 and green.sum() < 0.02
    assert _has_hue(green, geo)[0] and not _has_hue(grey, geo)[0]
    assert green.max() > HUE_FLOOR > grey.max()


def test_the_reader_names_a_dark_saturated_sample_and_not_a_grey_as_dark():
    from vision import track

    pal = track._Palette(
        names=["blue", "white", "board"],
        chroma=np.array([[0.96, 0.03, 0.01], [0.30, 0.34, 0.36], [0.06, 0.38, 0.56]], np.float32),
        radius=np.array([0.08, 0.075, 0.075], np.float32),
    )
    blue = np.array([0.0089, 0.0006, 0.0001])  # mean 0.0032: a blue side in shade
    grey = np.array([0.0031, 0.0032, 0.0033])  # the same mean, no hue
    cls, _ = track._classify(pal, np.stack([blue, grey]), dark=0.004)
    assert list(cls) == [0, 3]  # blue; unknown (len(names))


def test_two_stacks_ending_in_no_colour_are_not_split_by_their_runs():
    # a mirage tile unread on space 5 (its white waves run like a white camel), the white
    # camel on top of space 7's yellow unread: split as the runs read them, both were wrong
    scene = et.render_scene(2_180_126, "same", probe=Probe.DARK)
    reading = scene.read()
    assert scene.truth.track[7] == ["yellow", "white"] and 5 not in scene.truth.track
    for space in (5, 7):
        assert space in reading.uncertain
        assert TOP_WORD in (reading.spaces[space].why or "")


def test_sand_named_a_camel_colour_as_the_set_up_saw_it_is_no_camel():
    # under the darker curve the sand's grain on space 1 is named yellow sample by sample,
    # all of it as the empty board showed it there: read as a yellow camel before, which took
    # the yellow from the stack on space 2
    scene = et.render_scene(2_181_081, "same", probe=Probe.DARK)
    reading = scene.read()
    assert 1 not in scene.truth.track
    assert reading.track.get(1) is None
    assert reading.track[2] == scene.truth.track[2] == ["yellow", "green", "orange"]
