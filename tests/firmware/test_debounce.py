"""Our own debounce: a bounce burst is one change; a press is seen at once in lockout mode."""

from __future__ import annotations

import threading
import time

import pytest

from firmware.debounce import Change, DebounceFilter, Debouncer

HOLD = 0.040


def burst(f: DebounceFilter, start: float, levels: list[bool], step: float = 0.002) -> list:
    return [c for i, lv in enumerate(levels) if (c := f.feed(lv, start + i * step))]


def test_lockout_accepts_the_first_edge_and_ignores_the_bounce() -> None:
    f = DebounceFilter(HOLD, mode="lockout")
    changes = burst(f, 1.0, [True, False, True, False, True])
    assert changes == [Change(True, 1.0)]
    assert f.poll(1.0 + 0.008 + HOLD) is None  # ended pressed: nothing more
    assert f.stable is True


def test_lockout_release_after_a_short_tap_is_not_lost() -> None:
    f = DebounceFilter(HOLD, mode="lockout")
    burst(f, 1.0, [True, False])  # pressed then released within the bounce window
    assert f.deadline() == pytest.approx(1.002 + HOLD)
    change = f.poll(1.002 + HOLD)
    assert change is not None and change.level is False


def test_hold_waits_for_the_level_to_hold() -> None:
    f = DebounceFilter(HOLD, mode="hold")
    assert burst(f, 1.0, [True, False, True]) == []
    assert f.poll(1.004 + HOLD / 2) is None
    change = f.poll(1.004 + HOLD)
    assert change == Change(True, 1.0)  # dated at the burst's first edge


def test_hold_ignores_a_lone_spike() -> None:
    f = DebounceFilter(HOLD, mode="hold")
    burst(f, 1.0, [True, False], step=0.0001)
    assert f.poll(2.0) is None and f.stable is False


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="mode"):
        DebounceFilter(HOLD, mode="fast")
    with pytest.raises(ValueError, match="negative"):
        DebounceFilter(-1)


def test_debouncer_thread_reports_each_real_change_once() -> None:
    got: list[Change] = []
    done = threading.Event()

    def on_change(c: Change) -> None:
        got.append(c)
        if len(got) == 2:
            done.set()

    d = Debouncer(0.02, on_change, mode="lockout")
    try:
        for lv in (True, False, True, False, True):  # press with bounce
            d.edge(lv)
        time.sleep(0.06)
        for lv in (False, True, False):  # release with bounce
            d.edge(lv)
        assert done.wait(1.0)
        time.sleep(0.05)
        assert [c.level for c in got] == [True, False]
    finally:
        d.close()
