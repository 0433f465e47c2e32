"""firmware.palette: the watch uses the table's taught palette when there is one, says so, and a
bad file changes nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from firmware.palette import TablePalette
from hub.wire import PaletteSource

pytest.importorskip("vision.palette")


def _taught(path: Path, **colours: tuple[float, float, float]) -> None:
    """A palette file as `pyramid calibrate` stores it: the shipped colours, some replaced."""
    from vision.palette import Palette, default_palette, save_palette

    save_palette(Palette({**default_palette().colours, **colours}, "calibrated"), path)


def test_no_file_is_the_shipped_palette_then_a_taught_file_is_used(tmp_path: Path) -> None:
    path = tmp_path / "palette.json"
    pal = TablePalette(path)
    assert pal.current() is None  # vision's readers then use the shipped palette
    assert pal.status().fields() == {
        "palette": PaletteSource.DEFAULT,
        "palette_file": None,
        "palette_error": None,
    }
    _taught(path, orange=(60.0, 50.0, 60.0))
    got = pal.current()
    assert got is not None and got.colours["orange"] == (60.0, 50.0, 60.0)
    assert pal.status().fields() == {
        "palette": PaletteSource.TABLE,
        "palette_file": str(path),
        "palette_error": None,
    }


def test_a_changed_file_is_reloaded_a_bad_one_changes_nothing_a_removed_one_is_forgotten(
    tmp_path: Path,
) -> None:
    path = tmp_path / "palette.json"
    _taught(path, orange=(60.0, 50.0, 60.0))
    pal = TablePalette(path)
    assert pal.current() is not None and pal.current().colours["orange"][0] == 60.0
    _taught(path, orange=(55.0, 45.0, 58.0))  # taught again while the service runs
    os.utime(path, ns=(1, 2))  # a new modification time, whatever the clock's resolution
    assert pal.current().colours["orange"][0] == 55.0
    path.write_text("{not json")  # a half-written or hand-edited file
    kept = pal.current()
    assert kept is not None and kept.colours["orange"][0] == 55.0  # the last good one stays
    st = pal.status()
    assert st.source is PaletteSource.TABLE and st.error and "not valid JSON" in st.error
    path.unlink()
    assert pal.current() is None and pal.status().source is PaletteSource.DEFAULT


def test_a_bad_file_at_start_leaves_the_shipped_palette_and_says_why(tmp_path: Path) -> None:
    path = tmp_path / "palette.json"
    path.write_text('{"version": 1, "colours": {"blue": [1, 2]}}')
    pal = TablePalette(path)
    assert pal.current() is None
    st = pal.status()
    assert st.source is PaletteSource.DEFAULT and st.file is None
    assert st.error and "[L, a, b]" in st.error or "three numbers" in (st.error or "")


def test_the_default_place_is_where_pyramid_calibrate_stores_it(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("PYRAMID_HOME", str(tmp_path))
    from vision.palette import default_path

    assert TablePalette().path == default_path() == tmp_path / "palette.json"
    assert TablePalette("").path == tmp_path / "palette.json"
