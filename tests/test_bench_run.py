"""The bench runner refuses names it does not know, before it measures or writes anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import run


def test_an_unknown_suite_is_refused_and_the_results_file_is_untouched(
    capsys: pytest.CaptureFixture[str],
) -> None:
    results = Path(run.__file__).with_name("results.json")
    before = results.read_bytes() if results.exists() else None
    assert run.main(["--help", "no_such_suite"]) == 2
    out = capsys.readouterr().out
    assert "unknown: --help no_such_suite" in out
    assert "camelup_odds" in out  # the known suites are listed
    after = results.read_bytes() if results.exists() else None
    assert after == before
