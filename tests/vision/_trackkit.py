"""Shared helper for the track reader's scene tests: one space of a rendered table read."""

from __future__ import annotations

import pytest

from vision import track
from vision.eval import table as et


def without_washed_end(monkeypatch: pytest.MonkeyPatch) -> None:
    """Read with each learnt camel colour's washed-out end off (``track.washed_end`` keeps the
    colour where it was learnt), as the reader was before it.

    Why: a scene test of one of the reader's mechanisms (the game's completion of a stack, a
    stray band) needs a scene that takes that path. Some of those scenes are now read
    another way, or a neighbouring space now abstains for another reason and the game no
    longer decides; the mechanism still stands and is still tested on the scene as it read."""
    monkeypatch.setattr(track, "PALE_REACH", 1.0)


def assert_space_read(
    seed: int, space: int, stack: list[str], condition: str = "same", edition: int = 1
) -> None:
    """Scene ``seed`` of ``vision.eval.table`` (set up under ``condition``) is read, and its
    ``space`` holds ``stack`` (bottom first) both in truth and, not marked uncertain, as read."""
    scene = et.render_scene(seed, condition, edition=edition)
    reading = scene.read()
    assert reading.ok, reading.reason
    assert scene.truth.track.get(space, []) == stack
    assert space not in reading.uncertain, reading.spaces[space].why
    assert reading.track.get(space, []) == stack
