"""Frame sources: replay of a folder, an image and a video; rendered frames; clear errors."""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware.config import CameraConfig
from firmware.frames import (
    CameraError,
    PiCamera2Source,
    RenderedSource,
    ReplaySource,
    open_source,
)


def write_frames(folder: Path, n: int = 3) -> list[np.ndarray]:
    frames = []
    for i in range(n):
        img = np.full((48, 64, 3), 40 * (i + 1), np.uint8)
        img[:, :, 2] = 200  # red channel: checks that no one swaps B and R
        cv2.imwrite(str(folder / f"f{i:02d}.png"), img)
        frames.append(img)
    return frames


def test_replay_folder_in_name_order_and_loops(tmp_path: Path) -> None:
    frames = write_frames(tmp_path)
    (tmp_path / "notes.txt").write_text("not an image")
    with ReplaySource(tmp_path, fps=None) as src:
        got = [src.read() for _ in range(4)]
    for a, b in zip(got[:3], frames, strict=True):
        assert np.array_equal(a, b)
    assert np.array_equal(got[3], frames[0])  # looped
    assert got[0][0, 0, 2] == 200


def test_replay_without_loop_ends(tmp_path: Path) -> None:
    write_frames(tmp_path, 2)
    src = ReplaySource(tmp_path, fps=None, loop=False)
    assert src.read() is not None and src.read() is not None
    assert src.read() is None


def test_replay_is_paced_like_a_camera(tmp_path: Path) -> None:
    write_frames(tmp_path, 1)
    src = ReplaySource(tmp_path / "f00.png", fps=50)
    t0 = time.monotonic()
    for _ in range(6):
        src.read()
    assert time.monotonic() - t0 >= 0.09  # 5 periods of 20 ms at least


def test_replay_video(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    if not writer.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG video")
    for i in range(5):
        writer.write(np.full((48, 64, 3), 50 * i, np.uint8))
    writer.release()
    with ReplaySource(path, fps=None) as src:
        got = [src.read() for _ in range(7)]
    assert all(g is not None and g.shape == (48, 64, 3) for g in got)
    assert got[4].mean() > got[0].mean() + 100
    assert abs(float(got[5].mean()) - float(got[0].mean())) < 10  # looped to the start


def test_replay_errors_are_clear(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="no such folder"):
        ReplaySource(tmp_path / "missing")
    with pytest.raises(CameraError, match="no images"):
        ReplaySource(tmp_path)
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"not a png")
    with pytest.raises(CameraError, match="not a readable image"):
        ReplaySource(bad, fps=None).read()


def test_rendered_source() -> None:
    calls = iter(range(3))
    src = RenderedSource(lambda: np.full((8, 8, 3), next(calls), np.uint8), fps=None)
    assert [int(src.read()[0, 0, 0]) for _ in range(3)] == [0, 1, 2]


def test_open_source_from_config(tmp_path: Path) -> None:
    write_frames(tmp_path, 1)
    src = open_source(CameraConfig(kind="replay", path=str(tmp_path), fps=100))
    assert isinstance(src, ReplaySource) and src.read().shape == (48, 64, 3)


def test_picamera2_missing_is_a_clear_error() -> None:
    try:
        import picamera2  # noqa: F401

        pytest.skip("picamera2 is installed here")
    except ImportError:
        pass
    with pytest.raises(CameraError, match="python3-picamera2"):
        PiCamera2Source()


@pytest.mark.parametrize(
    ("exposure_us", "gain", "mains_hz", "want_us", "want_gain"),
    [
        (14_000, 2.0, 50, 10_000, 2.8),  # nearest whole 10 ms; the gain keeps the brightness
        (26_000, 1.0, 50, 30_000, 1.0),  # longer: the gain may not drop below 1
        (3_000, 4.0, 50, 10_000, 1.2),  # a bright room: one period at least
        (45_000, 1.5, 50, 30_000, 2.25),  # no longer than a frame at 30 fps (33.3 ms)
        (14_000, 2.0, 60, 16_667, 1.68),  # 60 Hz mains: 8.33 ms periods
        (40_000, 1.0, 60, 25_000, 1.6),  # three 8.33 ms periods: four would fill the frame
    ],
)
def test_exposure_is_a_whole_number_of_flicker_periods(
    exposure_us, gain, mains_hz, want_us, want_gain
) -> None:
    from firmware.frames import flicker_free_exposure

    exposure, new_gain = flicker_free_exposure(exposure_us, gain, mains_hz, 1_000_000 / 30)
    assert exposure == want_us and new_gain == pytest.approx(want_gain, abs=0.01)
    period = 1_000_000 / (2 * mains_hz)
    assert abs(exposure / period - round(exposure / period)) < 1e-3


def test_flicker_refuses_other_mains() -> None:
    from firmware.frames import flicker_free_exposure

    with pytest.raises(ValueError, match="50 or 60"):
        flicker_free_exposure(10_000, 1.0, 55, 33_333)
