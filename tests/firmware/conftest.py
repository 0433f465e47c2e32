"""The firmware's tests never see this machine's taught palette (firmware.palette looks in
$PYRAMID_HOME, else ~/.config/camel-pyramid): each test gets an empty home of its own."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _own_pyramid_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYRAMID_HOME", str(tmp_path_factory.mktemp("pyramid-home")))
