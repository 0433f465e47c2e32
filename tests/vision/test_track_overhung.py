"""Three doubts about a space read with confidence, and camels the game places.

- The top camel of a tall stack that abstains shows at the base of the space behind it, and was
  read there as a camel standing on that space (``track._overhung``).
- A space read empty while something neither board nor camel colour stands on it a camel or
  two up (a yellow camel under glare read as sand, the blue one on it in its shade read as no
  colour at all): it abstains (``track.STRAY_WHY``).
- A space that abstains on something of no colour at its base still says which camel colours
  its runs saw above it, so that the game can place the one camel read nowhere else there;
  and with camels seen a band or two over it, the base is where the camel left goes.

The scenes are tuning scenes of ``vision.eval.table`` (seeds 2,186,000..2,189,999) where each
rule fires; before it, each was a confident wrong read or an abstention."""

from __future__ import annotations

import numpy as np

from tests.vision._trackkit import assert_space_read, without_washed_end
from vision import track
from vision.eval import table as et
from vision.track_global import SpaceReading


def test_the_top_camel_of_an_unsure_stack_is_not_read_on_the_space_behind_it():
    scene = et.render_scene(2_188_393)
    reading = scene.read()
    # the yellow camel on top of space 6's four showed at space 7's base: read there, before
    assert scene.truth.track[6] == ["green", "blue", "orange", "yellow"]
    assert 7 not in scene.truth.track
    assert 6 in reading.uncertain and 7 in reading.uncertain
    assert reading.spaces[7].why == track.OVERHUNG_WHY
    assert 7 not in reading.track
    assert reading.track[4] == ["white"]


def test_the_stack_in_front_must_have_seen_that_camel_standing_on_its_own():
    r = SpaceReading(
        [], 0.0, True, "x", runs_seen=(("blue", 43.0), ("yellow", 60.0)), camel_reach=30.0
    )
    assert track._stacked(r) == {"yellow"}
    # a run far above the one below it is a camel behind, seen over the stack
    far = SpaceReading(
        [], 0.0, True, "x", runs_seen=(("blue", 43.0), ("green", 104.0)), camel_reach=30.0
    )
    assert track._stacked(far) == set()
    # a lone run may be the stack's own camel or one behind it: no evidence either way
    lone = SpaceReading([], 0.0, True, "x", runs_seen=(("green", 100.0),), camel_reach=30.0)
    assert track._stacked(lone) == set()


def test_a_lone_camel_behind_an_unsure_stack_that_did_not_see_it_is_kept():
    scene = et.render_scene(2_188_393)
    reading = scene.read()
    spaces = dict(reading.spaces)
    # the stack in front saw no yellow: the read behind it stands
    spaces[6] = SpaceReading([], 0.0, True, "x", runs_seen=(("blue", 43.0), ("orange", 68.0)))
    spaces[7] = SpaceReading(["yellow"], 0.95)
    out = track._overhung(spaces, reading.location, scene.geometry)
    assert out[7].camels == ["yellow"] and not out[7].uncertain
    # it did: space 7 abstains
    spaces[6] = SpaceReading(
        [], 0.0, True, "x", runs_seen=(("orange", 68.0), ("yellow", 82.0)), camel_reach=40.0
    )
    out = track._overhung(spaces, reading.location, scene.geometry)
    assert out[7].uncertain and out[7].why == track.OVERHUNG_WHY
    # but not the space in front of it (farther from the camera reaches over nothing)
    spaces[7] = SpaceReading(
        [], 0.0, True, "x", runs_seen=(("orange", 68.0), ("yellow", 82.0)), camel_reach=40.0
    )
    spaces[6] = SpaceReading(["yellow"], 0.95)
    cam = reading.location.pose.centre[:2]
    d6, d7 = (np.linalg.norm(cam - np.asarray(scene.geometry.space_centres[s])) for s in (6, 7))
    assert d6 < d7
    out = track._overhung(spaces, reading.location, scene.geometry)
    assert out[6].camels == ["yellow"] and not out[6].uncertain


def test_an_empty_read_with_something_standing_a_camel_up_abstains(monkeypatch):
    # with the washed end the blue camel's bands are read and the game places it: the scene
    # no longer takes this path
    without_washed_end(monkeypatch)
    scene = et.render_scene(2_187_615)
    reading = scene.read()
    assert scene.truth.track[14] == ["blue"]
    # before: read empty, and spaces 2, 9 and 11 were "blue not seen: may be here"
    assert reading.uncertain == [14]
    assert reading.spaces[14].why == track.STRAY_WHY
    for s in (2, 9, 11):
        assert reading.track[s] == scene.truth.track[s]


def test_the_one_camel_left_is_placed_where_its_runs_saw_it_above_a_base_of_no_colour(
    monkeypatch,
):
    # with the washed end the orange camel's base is read as orange and the game need not
    # place it: the scene no longer takes this path
    without_washed_end(monkeypatch)
    # before: "something neither camel nor board covers the base of the space"
    assert_space_read(2_187_098, 7, ["orange"])
    reading = et.render_scene(2_187_098).read()
    assert reading.spaces[7].inferred


def test_a_base_of_no_colour_under_camels_is_where_the_camel_left_goes():
    # a blue camel in its own shade reads as no colour under the white (and green) on it; with
    # every other space read, the game's one camel left goes in that band
    # before: "something neither camel nor board covers the base of the space"
    assert_space_read(2_189_199, 1, ["blue", "white"])
    assert_space_read(2_189_369, 16, ["blue", "white", "green"])
    reading = et.render_scene(2_189_369).read()
    assert reading.spaces[16].inferred
