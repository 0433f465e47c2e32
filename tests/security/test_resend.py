"""Nothing lost, nothing applied twice, with the real firmware sink and hub bridge on a real
mosquitto: readings sent 0.3 s after a broker restart (the broker has forgotten the hub's
subscription until the hub reconnects) and while the hub is away are resent by the firmware
until answered, and each is logged once; a reading published twice is applied once. A small
slice of ``make bench``'s delivery figures (bench/delivery.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import delivery

pytestmark = [pytest.mark.security, pytest.mark.broker]


def test_readings_after_broker_restarts_are_resent_until_answered(tmp_path: Path, broker) -> None:
    got = delivery.broker_restarts(broker, tmp_path, restarts=2, per=2)
    assert got["all_answered"], got
    assert got["lost"] == 0 and got["applied_twice"] == 0, got


def test_readings_while_the_hub_restarts_are_applied_once(tmp_path: Path, broker) -> None:
    got = delivery.hub_restarts(broker, tmp_path, restarts=2, per=2)
    assert got["all_answered"] and got["lost"] == 0 and got["applied_twice"] == 0, got


def test_a_reading_sent_twice_is_applied_once(tmp_path: Path, broker) -> None:
    got = delivery.send_twice(broker, tmp_path, n=5)
    assert got["lost"] == 0 and got["applied_twice"] == 0, got
    assert got["answers"] == 10 and got["replayed_answers"] == 5, got
