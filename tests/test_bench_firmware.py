"""The Pi page's table of the watch's memory is the bench's measured figures, nothing else."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bench.firmware import MODES, memory_table

REPO = Path(__file__).resolve().parents[1]
BLOCK = re.compile(
    r"<!-- watch-memory: python -m bench\.firmware --memory-table -->\n"
    r"(.*?)\n<!-- /watch-memory -->",
    re.S,
)


def _suite() -> dict:
    return json.loads((REPO / "bench" / "results.json").read_text())["suites"]["firmware"]


def test_the_pi_pages_memory_table_is_the_committed_bench_results() -> None:
    page = (REPO / "docs" / "running-on-the-pi.md").read_text()
    found = BLOCK.search(page)
    assert found, "docs/running-on-the-pi.md has no watch-memory block"
    assert found.group(1) == memory_table(_suite()), (
        "the page's table differs from bench/results.json: paste the output of "
        "`python -m bench.firmware --memory-table`"
    )


def test_the_table_has_every_mode_and_refuses_missing_figures() -> None:
    suite = _suite()
    table = memory_table(suite).splitlines()
    assert [row.split(" | ")[0].strip("| ") for row in table[2:]] == list(MODES)
    del suite["watch_process_pinned_setup"]
    with pytest.raises(ValueError, match="watch_process_pinned_setup"):
        memory_table(suite)
