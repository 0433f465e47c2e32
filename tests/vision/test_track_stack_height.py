"""The stack's height settles doubts that the runs' starts could not.

Each of these spaces abstained though its camels stood in full view, because a run started
where the decoder did not expect a camel's band to start:
- **a blend between two camels** (``_blend_by_height``): a lower camel whose legs are in
  shade starts its run late, and the shaded side of the camel above it (a yellow's side turns
  towards green over a green camel) reads as no colour: the runs start 1.6 bands apart, room
  for a camel between by their starts alone ("an unreadable band between two camels");
- **a camel in front that starts under the space's front** (``FRONT_LOW``/``FRONT_HIGH``):
  the back of a camel on the space in front, reaching up to 1.3 bands over this space's
  base, was taken for this stack's bottom camel ("the lowest band is below the space's front"),
  though the board showed clear above it;
- **a camel set back on its space** (``LEG_LIFT``): its band starts higher over the space's
  base, over a gap seen to be the board, and its top stands as much higher ("the stack stands
  taller than the camels read in it").

Each is settled by the height a hidden camel cannot fake: it stands a band taller. The
guards are the scenes where a camel is hidden, which still abstain. One more rule was tried
and not kept: a stack above the back of a camel in front, no taller than its own camels,
read as sure. Under the changed lamp it read six fewer spaces unsure but missed a bottom
camel four times: the one above it, leaning forward, hid it without standing any taller (the
five-camel rule caught each one). Tuning scenes of ``vision.eval.table``: re-mounted
2,263,000..2,264,999 (and 2,271,000..2,272,999 to confirm), same camera
2,265,000..2,266,999, changed lamp 2,267,000..2,268,999.
"""

from __future__ import annotations

import pytest

from tests.vision._trackkit import assert_space_read
from vision.eval import table as et
from vision.track import FRONT_HIGH, FRONT_LOW, IN_FRONT_END, _camel_in_front


def test_a_camel_in_front_is_known_by_where_it_ends_or_where_it_starts():
    base, band, n = 40, 20.0, 5
    assert _camel_in_front(0, base + (IN_FRONT_END - 0.1) * band, n, base, band)
    # ends higher: only a run that starts under the space's front is a camel in front
    end = base + (FRONT_HIGH - 0.1) * band
    assert not _camel_in_front(0, end, n, base, band)
    assert _camel_in_front(0, end, n, base, band, start=base - (FRONT_LOW + 0.1) * band)
    assert not _camel_in_front(0, end, n, base, band, start=base - (FRONT_LOW - 0.1) * band)
    high = base + (FRONT_HIGH + 0.1) * band
    assert not _camel_in_front(0, high, n, base, band, start=base - 2.0 * band)
    assert not _camel_in_front(n, end, n, base, band, start=0.0)  # the board is no camel


@pytest.mark.parametrize(
    ("seed", "space", "stack", "condition"),
    [
        # blends: a yellow's shaded side over a green; an orange under a yellow
        (2_263_673, 7, ["green", "yellow"], "other"),
        (2_264_727, 8, ["orange", "yellow"], "other"),
        # the back of a blue camel in front from under the front to half a band over the
        # base, an empty space behind it
        (2_264_821, 8, [], "other"),
        # a yellow camel's back with its top face's glint, 1.2 bands over the base
        (2_264_583, 13, [], "other"),
        # the back of a blue camel in front, the stack behind it read above
        (2_264_093, 13, ["orange", "white", "yellow"], "other"),
        # single camels set back on their spaces
        (2_263_259, 1, ["yellow"], "other"),
        (2_264_179, 14, ["blue"], "other"),
    ],
)
def test_a_stack_its_height_vouches_for_is_read(seed, space, stack, condition):
    assert_space_read(seed, space, stack, condition)


@pytest.mark.parametrize(
    ("seed", "space", "condition", "hidden"),
    [
        # a white camel between a green and a yellow, the yellow's overhang over its band:
        # the gap's colour is their blend, but the stack stands half a band taller
        (2_264_949, 6, "other", "white"),
        # a white camel under a blue, showing only as a grey strip: the blue stands too tall
        (2_263_325, 3, "other", "white"),
        # an orange camel under a green, behind the back of a white camel in front
        (2_268_391, 14, "lamp", "orange"),
    ],
)
def test_a_camel_hidden_in_the_height_still_abstains(seed, space, condition, hidden):
    scene = et.render_scene(seed, condition)
    assert hidden in scene.truth.track[space]
    reading = scene.read()
    assert space in reading.uncertain
    assert reading.track.get(space) is None


def test_a_camel_the_column_missed_beside_a_set_back_one_is_left_to_the_game():
    """A white camel under a green one, askew: the column passes beside it, over the board in
    the green's shade, and the green, its band starting 0.8 band up, is read alone as a camel
    set back. The height no longer sees the white, but the white is read on no other space:
    the five-camel rule makes each space it may hide on unsure, this one among them, and
    nothing is read wrong."""
    scene = et.render_scene(2_265_767, "same")
    assert scene.truth.track[1] == ["white", "green"]
    reading = scene.read()
    assert 1 in reading.uncertain
    assert "white" in (reading.spaces[1].why or "")
    for space, stack in reading.track.items():
        assert stack == scene.truth.track.get(space, []), space
