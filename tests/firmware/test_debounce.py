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


def test_a_burst_stretched_by_a_loaded_machine_is_still_one_press() -> None:
    """Edges up to 35 ms apart (each inside the 40 ms window) over 160 ms: one press."""
    f = DebounceFilter(HOLD, mode="lockout")
    t, changes = 1.0, []
    for i, gap in enumerate([0.0, 0.035, 0.001, 0.030, 0.020, 0.035, 0.039]):
        t += gap
        if c := f.feed(i % 2 == 0, t):
            changes.append(c)
    assert changes == [Change(True, 1.0)]
    assert f.poll(t + HOLD) is None and f.stable is True


class FakeClock:
    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_debouncer_thread_reports_each_real_change_once() -> None:
    """Dated edges (no reliance on how fast this thread runs); the timer thread reports the
    release of a short tap once the fake clock has moved past the window."""
    got: list[Change] = []
    done = threading.Event()
    clock = FakeClock(1.0)

    def on_change(c: Change) -> None:
        got.append(c)
        if len(got) == 4:
            done.set()

    d = Debouncer(0.02, on_change, mode="lockout", clock=clock)
    try:
        for i, lv in enumerate((True, False, True, False, True)):  # press with bounce
            d.edge(lv, 1.0 + i * 0.001)
        for i, lv in enumerate((False, True, False)):  # release with bounce, 100 ms later
            d.edge(lv, 1.1 + i * 0.001)
        clock.t = 2.005
        d.edge(True, 2.0)  # a short tap: released inside the window
        d.edge(False, 2.005)
        time.sleep(0.05)
        assert [c.level for c in got] == [True, False, True]  # the release waits for quiet
        clock.t = 2.1
        assert done.wait(2.0)
        time.sleep(0.05)
        assert got == [
            Change(True, 1.0),
            Change(False, 1.1),
            Change(True, 2.0),
            Change(False, 2.005),
        ]
    finally:
        d.close()
