"""The red team's fixtures: a real hub bridged to the test session's real mosquitto."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.hub._hubkit import Tables, open_tables, start
from tests.hub._mqttkit import bridged


@pytest.fixture
def tables(tmp_path: Path) -> Iterator[Tables]:
    yield from open_tables(tmp_path)


@pytest.fixture
def hub_on_broker(tables: Tables, broker: Any, request: pytest.FixtureRequest) -> Iterator:
    """(session, bridge, base topic): a started Camel Up game, its hub on the broker."""
    for session, bridge in bridged(tables, broker, request, "rt"):
        start(session)
        assert bridge.flush(10)
        yield session, bridge, bridge.base
