"""PiCamera2Source against a stand-in picamera2 (tests/firmware/fake_picamera2): the two streams
configured from the ``[camera]`` section, the watched frames from lores, and the reveal zone cut
from the full-resolution buffer through a mapping, never a copy of the whole frame."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware.config import ConfigError, load_config

FAKE = Path(__file__).with_name("fake_picamera2")


@pytest.fixture()
def picam(monkeypatch):
    monkeypatch.syspath_prepend(str(FAKE))
    sys.modules.pop("picamera2", None)
    import picamera2

    assert Path(picamera2.__file__).parent.parent == FAKE  # the stand-in, never a real one
    rng = np.random.default_rng(5)
    full = cv2.resize(rng.integers(0, 255, (27, 48, 3), dtype=np.uint8), (960, 540),
                      interpolation=cv2.INTER_CUBIC)
    full[270:300, 480:520] = (20, 40, 230)  # a "die": red, 40x30 full-resolution px
    monkeypatch.setattr(picamera2.Picamera2, "film", staticmethod(lambda: full))
    monkeypatch.setattr(picamera2.Picamera2, "sensor_resolution", (960, 720))  # a 4:3 sensor
    picamera2.Picamera2.instances.clear()
    yield picamera2, full
    sys.modules.pop("picamera2", None)


def _config(tmp_path: Path, text: str):
    p = tmp_path / "table.toml"
    p.write_text('[camera]\nkind = "picamera2"\nwidth = 320\nheight = 180\nfps = 60\n'
                 "warmup_s = 0\n" + text)
    return load_config(p)


def test_the_config_opens_two_streams_and_the_zone_is_cut_from_the_full_one(picam,
                                                                           tmp_path) -> None:
    from firmware.frames import PiCamera2Source, open_source

    picamera2, full = picam
    cfg = _config(tmp_path, "")  # full_resolution by default, full_size [] = the sensor's
    with open_source(cfg.camera) as src:
        assert isinstance(src, PiCamera2Source)
        cam = picamera2.Picamera2.instances[-1]
        # the sensor's 960x720 cut to the preview's 16:9: 960x540; lores at the preview's size
        assert cam.camera_config["main"]["size"] == (960, 540)
        assert cam.camera_config["lores"]["size"] == (320, 180)
        assert cam.controls["AeEnable"] is False and cam.controls["ExposureTime"] % 10000 == 0
        frame = src.read()
        assert frame.shape == (180, 320, 3)
        assert cam.requests == 1 and cam.released == 1  # lores mapped, the buffer given back
        small = cv2.resize(full, (320, 180), interpolation=cv2.INTER_AREA)
        # the lores image through YUV420 (chroma at half resolution): the same picture, in BGR
        assert np.abs(frame.reshape(-1, 3).mean(0) - small.reshape(-1, 3).mean(0)).max() < 3
        b, g, r = frame[92:98, 163:171].reshape(-1, 3).mean(0)
        assert r > 150 and b < 80  # the red die stays red: channels not swapped
        zone, scale = src.capture_zone((150, 80, 40, 30))
        assert scale == 3.0
        assert np.array_equal(zone, full[240:330, 450:570])  # exact pixels, full resolution
        assert zone.flags.c_contiguous and not np.shares_memory(zone, full)
        assert cam.requests == 2 and cam.released == 2  # the buffer went back at once
        assert src.capture_zone((400, 10, 20, 20)) is None  # outside the frame


def test_an_explicit_full_size_and_full_resolution_off(picam, tmp_path) -> None:
    from firmware.frames import open_source

    picamera2, _ = picam
    with open_source(_config(tmp_path, "full_size = [960, 540]\n").camera) as src:
        assert picamera2.Picamera2.instances[-1].camera_config["main"]["size"] == (960, 540)
        assert src.capture_zone((0, 0, 10, 10))[0].shape == (30, 30, 3)
    with open_source(_config(tmp_path, "full_resolution = false\n").camera) as src:
        cam = picamera2.Picamera2.instances[-1]
        assert cam.camera_config["main"]["size"] == (320, 180) and "lores" not in cam.camera_config
        assert src.capture_zone((0, 0, 10, 10)) is None  # the loop reads the preview
        assert src.read().shape == (180, 320, 3)


@pytest.mark.parametrize(("text", "expected"), [
    ("full_size = [4608]\n", r"full_size: \[4608\] must be \[\]"),
    ("full_size = [200, 100]\n", r"at least the watched frames' 320x180"),
    ("full_size = [4608, 3456]\n", r"4608x3456 must have the aspect ratio of width x height"),
    ('full_resolution = "yes"\n', r"full_resolution: expected true or false"),
])
def test_bad_full_size_is_a_clear_error(tmp_path, text: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        _config(tmp_path, text)


def test_full_stream_size_keeps_the_previews_aspect_ratio() -> None:
    from firmware.frames import full_stream_size

    assert full_stream_size((4608, 2592), (1280, 720)) == (4608, 2592)  # Camera Module 3
    assert full_stream_size((3280, 2464), (1280, 720)) == (3280, 1844)  # Module 2: 4:3 sensor
    with pytest.raises(ValueError):
        full_stream_size((0, 10), (1280, 720))
