"""Shared helper for the track reader's scene tests: one space of a rendered table read."""

from __future__ import annotations

from vision.eval import table as et


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
