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


def test_the_measured_environments_libraries_leave_the_page_cache_before_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A venv installed minutes before a run counted 126-129 MB against 93-95 MB read back from
    the disk (the same code): its libraries sat in the page cache in large folios. The bench
    drops the measured environment's libraries, as it drops the camera stand-in's buffers."""
    import os

    from bench import firmware

    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    libs = venv / "lib" / "python3.11" / "site-packages"
    (libs / "cv2").mkdir(parents=True)
    for name in ("cv2/cv2.abi3.so", "numpy.libs.so.0", "module.py"):
        (libs / name).write_bytes(b"x")
    (tmp_path / "pi").mkdir()
    (tmp_path / "pi" / "main.i420").write_bytes(b"y")
    dropped: list[str] = []
    real_open = os.open

    def remember(path: os.PathLike[str] | str, flags: int, *a: int) -> int:
        dropped.append(Path(path).name)
        return real_open(path, flags, *a)

    monkeypatch.setattr(os, "open", remember)
    firmware._drop_from_page_cache(tmp_path, str(venv / "bin" / "python"))
    assert sorted(dropped) == ["cv2.abi3.so", "main.i420", "numpy.libs.so.0"]
