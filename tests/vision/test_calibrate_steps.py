"""`pyramid calibrate STEP`: the set-up on the command line, from image files and a replay."""

from __future__ import annotations

import contextlib
import io
import json

import cv2
import numpy as np
import pytest

from hub.cli import main
from vision.cli.frames import FrameSourceError, ReplaySource, open_source, register_source
from vision.eval.table import SETUP_TILES, _setup_view
from vision.render.table import make_table, render_table_scene

ORDER = ["green", "blue", "white", "orange", "yellow"]


def _run(*argv: str) -> tuple[int, dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["calibrate", *argv])
    return code, json.loads(out.getvalue().strip().splitlines()[-1])


@pytest.fixture(scope="module")
def frames(tmp_path_factory):
    table = make_table(100_002)  # a tuning table
    pose, kelvin, _, rng = _setup_view(table)
    d = tmp_path_factory.mktemp("frames")
    empty, t_empty = render_table_scene(table, rng, {}, {}, kelvin=kelvin, pose=pose)
    camels, _ = render_table_scene(
        table,
        rng,
        {i + 1: [c] for i, c in enumerate(ORDER)},
        dict(SETUP_TILES),
        kelvin=kelvin,
        pose=pose,
    )
    play_track = {4: ["yellow", "green"], 10: ["blue"], 14: ["white", "orange"]}
    play, _ = render_table_scene(table, rng, play_track, {7: "oasis"}, kelvin=kelvin, pose=pose)
    paths = {}
    for name, img in (("empty", empty), ("camels", camels), ("play", play)):
        paths[name] = d / f"{name}.png"
        cv2.imwrite(str(paths[name]), img)
    return paths, t_empty, play_track, d


def test_the_steps_set_a_table_up_and_the_reader_uses_it(frames, tmp_path):
    paths, truth, play_track, _ = frames
    prof = str(tmp_path / "table.json")
    code, out = _run("markers", "--frame", str(paths["empty"]), "--table", prof)
    assert code == 0 and sorted(out["markers"]["cards"]) == ["0", "1", "2", "3"]
    overlay = tmp_path / "overlay.png"
    code, out = _run(
        "track", "--frame", str(paths["empty"]), "--table", prof, "--overlay", str(overlay)
    )
    assert code == 0 and "next" in out and overlay.exists()  # a proposal, nothing saved yet
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in truth.board_corners)
    code, out = _run("track", "--frame", str(paths["empty"]), "--table", prof, "--corners", corners)
    assert code == 0 and 55 < out["cell_mm"] < 82
    code, out = _run(
        "camels", "--frame", str(paths["camels"]), "--table", prof, "--order", ",".join(ORDER)
    )
    assert code == 0 and sorted(out["camels"]) == sorted(ORDER)
    code, out = _run(
        "tiles", "--frame", str(paths["camels"]), "--table", prof, "--oasis", "8", "--mirage", "12"
    )
    assert code == 0 and sorted(out["tiles"]) == ["mirage", "oasis"]
    read = io.StringIO()
    with contextlib.redirect_stdout(read):
        assert main(["read-track", "--table", prof, "--json", str(paths["play"])]) == 0
    got = json.loads(read.getvalue())
    assert got["track"] == {str(k): v for k, v in play_track.items()}
    assert got["desert"] == {"7": "oasis"}
    code, out = _run(
        "refine",
        "--frame",
        str(paths["play"]),
        "--table",
        prof,
        "--track",
        json.dumps({str(k): v for k, v in play_track.items()}),
    )
    assert code == 0 and out["refinement"] == 1
    code, out = _run("undo", "--table", prof)
    assert code == 0 and out["log_length"] == 0
    code, out = _run("undo", "--table", prof)
    assert code == 1 and out["code"] == "nothing_to_undo"


def test_a_refused_step_leaves_the_file_untouched(frames, tmp_path):
    paths, truth, _, _ = frames
    prof = tmp_path / "table.json"
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in truth.board_corners)
    assert (
        _run("track", "--frame", str(paths["empty"]), "--table", str(prof), "--corners", corners)[0]
        == 0
    )
    before = prof.read_bytes()
    # the empty board: no camel where the person was told to put them
    code, out = _run(
        "camels", "--frame", str(paths["empty"]), "--table", str(prof), "--order", ",".join(ORDER)
    )
    assert code == 1 and out["code"] == "camel_not_found"
    off = " ".join(f"{x + 3000:.1f},{y:.1f}" for x, y in truth.board_corners)
    code, out = _run(
        "track", "--frame", str(paths["empty"]), "--table", str(prof), "--corners", off
    )
    assert code == 1 and out["code"] == "overlay_off_frame"
    code, out = _run("markers", "--frame", str(tmp_path / "missing.png"), "--table", str(prof))
    assert code == 1 and "no such file" in out["error"]
    assert prof.read_bytes() == before


def test_frame_sources_plug_in_by_scheme(frames):
    paths, _, _, _ = frames
    img = open_source(str(paths["empty"])).snapshot()
    replay = ReplaySource([img, img[:, ::-1].copy()])
    register_source("replaytest", lambda rest: replay)
    src = open_source("replaytest:anything")
    assert np.array_equal(src.snapshot(), img)
    src.snapshot()
    with pytest.raises(FrameSourceError, match="no frame left"):
        src.snapshot()
    with pytest.raises(ValueError):
        register_source("not a word", lambda rest: replay)


def test_camels_from_the_confirmed_setup_roll_on_the_command_line(frames, tmp_path):
    paths, truth, play_track, _ = frames
    prof = str(tmp_path / "table.json")
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in truth.board_corners)
    code, _ = _run("track", "--frame", str(paths["empty"]), "--table", prof, "--corners", corners)
    assert code == 0
    # the play frame's stacks, as a person confirmed them, teach the three camels in it
    stacks = json.dumps({str(k): v for k, v in play_track.items()})
    code, out = _run("camels", "--frame", str(paths["play"]), "--table", prof, "--track", stacks)
    assert code == 0, out
    assert sorted(out["camels"]) == sorted(c for s in play_track.values() for c in s)
    code, out = _run("camels", "--frame", str(paths["play"]), "--table", prof, "--track", "{3: x}")
    assert code == 1 and out["code"] == "bad_order"
