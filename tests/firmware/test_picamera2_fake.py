"""PiCamera2Source against a stand-in picamera2 (tests/firmware/fake_picamera2) that refuses what
the real one refuses: the two YUV420 streams configured from the ``[camera]`` section and decoded
with the camera's colour space, the reveal zone cut from the full-resolution buffer through a
mapping, manual focus, the stream plan against the camera memory, and exposure locked only with
the ring light on."""

from __future__ import annotations

import errno
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

import firmware.picamera as picam_mod
from firmware.camera_fault import CameraFault
from firmware.config import ConfigError, load_config
from firmware.frames import CameraError, PiCamera2Source, open_source
from firmware.picamera import MIB, ycbcr_of, yuv420_to_bgr

FAKE = Path(__file__).with_name("fake_picamera2")


@pytest.fixture()
def picam(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(FAKE))
    for name in ("picamera2", "libcamera"):
        sys.modules.pop(name, None)
    import picamera2

    assert Path(picamera2.__file__).parent.parent == FAKE  # the stand-in, never a real one
    rng = np.random.default_rng(5)
    full = cv2.resize(
        rng.integers(0, 255, (27, 48, 3), dtype=np.uint8), (960, 540), interpolation=cv2.INTER_CUBIC
    )
    full[270:300, 480:520] = (20, 40, 230)  # a "die": red, 40x30 full-resolution px
    monkeypatch.setattr(picamera2.Picamera2, "film", staticmethod(lambda: full))
    monkeypatch.setattr(picamera2.Picamera2, "sensor_resolution", (960, 720))  # a 4:3 sensor
    for attr, value in (
        ("model", "imx708"),
        ("platform", "vc4"),
        ("cma_bytes", None),
        ("fail_open", None),
    ):
        monkeypatch.setattr(picamera2.Picamera2, attr, value)
    picamera2.Picamera2.instances.clear()
    # a Pi 4 with Bookworm's default CMA (512 MiB), not this machine's /proc
    (tmp_path / "meminfo").write_text(
        "MemTotal: 1900000 kB\nCmaTotal: 524288 kB\nCmaFree: 480000 kB\n"
    )
    (tmp_path / "model").write_bytes(b"Raspberry Pi 4 Model B Rev 1.5\0")
    monkeypatch.setattr(picam_mod, "MEMINFO", tmp_path / "meminfo")
    monkeypatch.setattr(picam_mod, "MODEL", tmp_path / "model")
    yield picamera2, full
    for name in ("picamera2", "libcamera"):
        sys.modules.pop(name, None)


def _config(tmp_path: Path, text: str):
    p = tmp_path / "table.toml"
    p.write_text(
        '[camera]\nkind = "picamera2"\nwidth = 320\nheight = 180\nfps = 60\nwarmup_s = 0.2\n' + text
    )
    return load_config(p)


def test_the_config_opens_two_streams_and_the_zone_is_cut_from_the_full_one(
    picam, tmp_path
) -> None:
    picamera2, full = picam
    cfg = _config(tmp_path, "")  # full_resolution by default, full_size [] = the sensor's
    with open_source(cfg.camera) as src:
        assert isinstance(src, PiCamera2Source)
        cam = picamera2.Picamera2.instances[-1]
        # the sensor's 960x720 cut to the preview's 16:9: 960x540; lores at the preview's size
        assert cam.camera_config["main"]["size"] == (960, 540)
        assert cam.camera_config["main"]["format"] == "YUV420"
        assert cam.camera_config["lores"]["size"] == (320, 180)
        assert str(cam.camera_config["colour_space"]) == "<libcamera.ColorSpace 'Rec709'>"
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
        assert scale == 3.0 and zone.shape == (90, 120, 3)
        # exactly the pixels of the whole buffer decoded, then cut: planes cut on even edges
        buf = picamera2.encode_i420(
            full, cam.camera_config["colour_space"], cam.camera_config["main"]["stride"]
        )
        from firmware.picamera import i420_planes

        whole = yuv420_to_bgr(*i420_planes(buf, (960, 540)), src.ycbcr)
        assert np.array_equal(zone, whole[240:330, 450:570])
        assert np.abs(zone.astype(int) - full[240:330, 450:570]).mean() < 4  # the scene
        assert zone.flags.c_contiguous and not np.shares_memory(zone, full)
        assert cam.requests == 2 and cam.released == 2  # the buffer went back at once
        assert src.capture_zone((400, 10, 20, 20)) is None  # outside the frame


def test_an_explicit_full_size_and_full_resolution_off(picam, tmp_path) -> None:
    picamera2, _ = picam
    with open_source(_config(tmp_path, "full_size = [960, 540]\n").camera) as src:
        assert picamera2.Picamera2.instances[-1].camera_config["main"]["size"] == (960, 540)
        assert src.capture_zone((0, 0, 10, 10))[0].shape == (30, 30, 3)
    with open_source(_config(tmp_path, "full_resolution = false\n").camera) as src:
        cam = picamera2.Picamera2.instances[-1]
        assert (
            cam.camera_config["main"]["size"] == (320, 180) and cam.camera_config["lores"] is None
        )
        assert cam.camera_config["main"]["format"] == "YUV420"
        assert src.capture_zone((0, 0, 10, 10)) is None  # the loop reads the preview
        assert src.read().shape == (180, 320, 3)


# --- colour --------------------------------------------------------------------------------------

# the Camel Up colours as a lit die shows them (BGR), and how far apart the reader keeps them
PATCHES = {
    "yellow": (40, 215, 235),
    "blue": (200, 110, 30),
    "orange": (30, 120, 240),
    "green": (60, 170, 50),
    "white": (235, 235, 235),
}


def _chroma(bgr: np.ndarray) -> np.ndarray:
    """(r, g) chromaticity: colour without brightness."""
    v = bgr.reshape(-1, 3).astype(float).mean(0)
    return v[::-1][:2] / max(v.sum(), 1e-9)


@pytest.mark.parametrize("colour", sorted(PATCHES))
def test_yuv_is_decoded_with_the_cameras_colour_space_not_opencvs_bt601(picam, colour) -> None:
    picamera2, _ = picam
    from libcamera import ColorSpace

    patch = np.zeros((16, 16, 3), np.uint8)
    patch[:] = PATCHES[colour]
    buf = picamera2.encode_i420(patch, ColorSpace.Rec709())  # what the ISP writes
    from firmware.picamera import i420_planes

    ours = yuv420_to_bgr(*i420_planes(buf, (16, 16)), ycbcr_of(ColorSpace.Rec709()))
    assert np.abs(ours.astype(int) - patch).max() <= 2
    opencv = cv2.cvtColor(np.ascontiguousarray(buf[:, :16].reshape(24, 16)), cv2.COLOR_YUV2BGR_I420)
    # OpenCV's BT.601 matrix moves saturated colours (issue 14: yellow and blue)
    ours_shift = np.abs(_chroma(ours) - _chroma(patch)).max()
    cv_shift = np.abs(_chroma(opencv) - _chroma(patch)).max()
    assert ours_shift < 0.003
    if colour in ("yellow", "blue", "orange"):
        assert cv_shift > 0.01, cv_shift


def test_colour_space_names_decode_or_refuse() -> None:
    assert ycbcr_of("Rec709").kr == pytest.approx(0.2126) and not ycbcr_of("Rec709").full_range
    assert ycbcr_of("sYCC").full_range and ycbcr_of("sYCC").kr == pytest.approx(0.299)
    assert ycbcr_of("Rec709/Rec709/Rec709/Full").full_range
    assert ycbcr_of("<libcamera.ColorSpace 'Rec709'>").kr == pytest.approx(0.2126)
    with pytest.raises(ValueError, match="unknown colour space"):
        ycbcr_of("Rec709/Rec709/Bogus/Full")


# --- the stand-in refuses what picamera2 refuses ---


def test_the_stand_in_is_strict_like_picamera2(picam) -> None:
    picamera2, _ = picam
    from libcamera import ColorSpace

    cam = picamera2.Picamera2()
    rgb_lores = cam.create_video_configuration(
        main={"size": (960, 540), "format": "YUV420"},
        lores={"size": (320, 180), "format": "RGB888"},
    )
    with pytest.raises(RuntimeError, match="lores stream must be YUV"):
        cam.configure(rgb_lores)  # a Pi 4's ISP
    picamera2.Picamera2.platform = "pisp"
    cam.configure(rgb_lores)  # a Pi 5's may
    bad = cam.create_video_configuration(main={"size": (960, 540)})
    bad["colour_space"] = "Rec709"
    with pytest.raises(RuntimeError, match="Colour space has incorrect type"):
        cam.configure(bad)
    with pytest.raises(RuntimeError, match="even"):
        cam.configure(cam.create_video_configuration(main={"size": (961, 540)}))
    with pytest.raises(RuntimeError, match="may not exceed"):
        cam.configure(
            cam.create_video_configuration(main={"size": (320, 180)}, lores={"size": (640, 360)})
        )
    assert (
        str(cam.create_video_configuration(main={"size": (640, 480)})["colour_space"])
        == "<libcamera.ColorSpace 'SMPTE170M'>"
    )  # picamera2's default below 1280x720
    with pytest.raises(RuntimeError, match="LensPosition is ignored unless AfMode"):
        cam.set_controls({"LensPosition": 2.0})
    cam.set_controls({"AfMode": 0, "LensPosition": 2.0})
    picamera2.Picamera2.model = "imx219"
    fixed = picamera2.Picamera2()
    with pytest.raises(RuntimeError, match="AfMode is not advertised"):
        fixed.set_controls({"AfMode": 0})
    assert isinstance(ColorSpace.Rec709(), ColorSpace)


def test_focus_is_manual_at_the_arms_distance_on_a_camera_module_3(picam, tmp_path) -> None:
    picamera2, _ = picam
    from firmware.geometry import default_lens_position

    with open_source(_config(tmp_path, "").camera) as src:
        cam = picamera2.Picamera2.instances[-1]
        assert cam.controls["AfMode"] == 0  # manual
        assert cam.controls["LensPosition"] == pytest.approx(default_lens_position())
        assert 1.2 < src.lens_position < 2.0  # ~0.67 m from the lens to the reveal zone
        src.focus(2.5)  # the set-up adjusts it
        assert cam.controls["LensPosition"] == 2.5
    with open_source(_config(tmp_path, "lens_position = 1.8\n").camera):
        assert picamera2.Picamera2.instances[-1].controls["LensPosition"] == 1.8


def test_a_fixed_focus_camera_gets_no_focus_controls(picam, tmp_path) -> None:
    picamera2, _ = picam
    picamera2.Picamera2.model = "imx219"  # Camera Module 2: picamera2 would refuse AfMode
    with open_source(_config(tmp_path, "").camera) as src:
        assert src.lens_position is None
        assert "AfMode" not in picamera2.Picamera2.instances[-1].controls or all(
            "AfMode" not in c for c in picamera2.Picamera2.instances[-1].set_log
        )


# --- memory --------------------------------------------------------------------------------------


def test_the_stream_plan_fits_the_cma_or_steps_down(picam, tmp_path) -> None:
    picamera2, _ = picam
    picamera2.Picamera2.sensor_resolution = (4608, 2592)
    picamera2.Picamera2.film = staticmethod(lambda: np.full((2592, 4608, 3), 100, np.uint8))
    text = '[camera]\nkind = "picamera2"\nwidth = 1280\nheight = 720\nfps = 30\nwarmup_s = 0.1\n'
    (tmp_path / "t.toml").write_text(text)
    cfg = load_config(tmp_path / "t.toml").camera
    src = PiCamera2Source((1280, 720), 30, 0.1, full_size="sensor")
    cam = picamera2.Picamera2.instances[-1]
    try:
        assert src.plan.name == "full" and cam.camera_config["main"]["size"] == (4608, 2592)
        assert cam.camera_config["buffer_count"] == 3
        # what the plan says it needs is what the stand-in allocated, and it fits 512 MiB
        assert src.plan.camera_bytes() == cam.buffer_bytes < 150 * MIB
    finally:
        src.close()
    # a Pi 4 whose CMA is 64 MiB (no KMS overlay): the half-resolution plan
    (tmp_path / "meminfo").write_text("CmaTotal: 65536 kB\nCmaFree: 60000 kB\n")
    picamera2.Picamera2.cma_bytes = 60000 * 1024
    with open_source(cfg) as src:
        assert src.plan.name == "half" and src.notes and "too much" in src.notes[0]
        assert picamera2.Picamera2.instances[-1].camera_config["main"]["size"] == (2304, 1296)
    # a CMA that is smaller than /proc/meminfo said: the allocation fails, named as such
    (tmp_path / "meminfo").write_text("CmaTotal: 524288 kB\nCmaFree: 480000 kB\n")
    with pytest.raises(CameraError) as info:
        open_source(cfg)
    assert info.value.fault is CameraFault.OUT_OF_MEMORY
    assert isinstance(info.value.__cause__, OSError) and info.value.__cause__.errno == errno.ENOMEM


def test_a_pi5_takes_camera_buffers_from_system_memory(picam, tmp_path) -> None:
    picamera2, _ = picam
    (tmp_path / "model").write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    (tmp_path / "meminfo").write_text("CmaTotal: 65536 kB\nCmaFree: 60000 kB\n")
    picamera2.Picamera2.platform = "pisp"
    with open_source(_config(tmp_path, "").camera) as src:
        assert src.platform == "pisp" and src.plan.name == "full" and not src.notes


# --- exposure under the ring light ---


class Ring:
    """The ring light as firmware.devices.LightRing behaves (holds beat off())."""

    def __init__(self) -> None:
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        from firmware.devices import LightRing
        from hardware.pinmap import LightRingPins

        self.factory = MockFactory(pin_class=MockPWMPin)
        self.ring = LightRing(LightRingPins(18), pin_factory=self.factory)

    def close(self) -> None:
        self.ring.close()
        self.factory.close()


@pytest.fixture()
def ring():
    r = Ring()
    yield r.ring
    r.close()


def test_exposure_is_locked_only_with_the_ring_on_and_again_after_a_reopen(
    picam, tmp_path, ring
) -> None:
    picamera2, _ = picam
    # the room is dim; the ring lights the table four times as bright; and its white is
    # neutral where the room's lamp is warm (other colour gains)
    picamera2.Picamera2.scene = staticmethod(
        lambda: (1.0, (1.6, 1.6)) if ring.is_on else (0.25, (1.2, 2.3))
    )
    cfg = _config(tmp_path, "").camera
    for attempt in range(2):  # the first open, then a reopen (the supervisor's)
        ring.off()  # the watch loop keeps the ring off while idle
        lit_at_lock: list[bool] = []
        cam_cls = picamera2.Picamera2
        original = cam_cls.set_controls

        def spy(self, controls, _orig=original, _seen=lit_at_lock):
            if controls.get("AeEnable") is False:
                _seen.append(ring.is_on)
            _orig(self, controls)

        cam_cls.set_controls = spy
        try:
            with open_source(cfg, lamp=ring) as src:
                cam = cam_cls.instances[-1]
                assert lit_at_lock == [True], attempt  # locked once, with the ring on
                assert src.locked.converged
                # the exposure the ring asks for (12 ms -> 10 ms, a whole flicker period), not
                # the dim room's 48 ms; the ring's white balance, not the lamp's
                assert cam.controls["ExposureTime"] == 10000
                assert cam.controls["AnalogueGain"] < 1.5  # the dim room would need 4.8
                assert cam.controls["ColourGains"] == pytest.approx((1.6, 1.6), abs=0.05)
                assert not ring.is_on  # given back to the loop, which had it off
        finally:
            cam_cls.set_controls = original


def test_without_a_ring_the_lock_is_under_the_light_there_is(picam, tmp_path) -> None:
    picamera2, _ = picam
    picamera2.Picamera2.scene = staticmethod(lambda: (0.25, (1.2, 2.3)))
    with open_source(_config(tmp_path, "").camera):
        cam = picamera2.Picamera2.instances[-1]
        # the dim room's 48 ms: one frame at 60 fps holds one 10 ms period, the gain makes up
        assert cam.controls["ExposureTime"] == 10000 and cam.controls["AnalogueGain"] > 4


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("full_size = [4608]\n", r"full_size: \[4608\] must be \[\]"),
        ("full_size = [200, 100]\n", r"at least the watched frames' 320x180"),
        ("full_size = [4608, 3456]\n", r"4608x3456 must have the aspect ratio of width x height"),
        ('full_resolution = "yes"\n', r"full_resolution: expected true or false"),
        ("lens_position = 20\n", r"lens_position"),
    ],
)
def test_bad_camera_settings_are_a_clear_error(tmp_path, text: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        _config(tmp_path, text)


def test_full_stream_size_keeps_the_previews_aspect_ratio() -> None:
    from firmware.frames import full_stream_size

    assert full_stream_size((4608, 2592), (1280, 720)) == (4608, 2592)  # Camera Module 3
    assert full_stream_size((3280, 2464), (1280, 720)) == (3280, 1844)  # Module 2: 4:3 sensor
    with pytest.raises(ValueError):
        full_stream_size((0, 10), (1280, 720))


@pytest.mark.parametrize("size", [(1280, 720), (94, 62), (7, 5)])
def test_yuv_decode_is_byte_identical_to_upsample_merge_transform(size) -> None:
    """The in-place decode (no full-size temporaries: the watch's memory) gives exactly what
    upsampling each chroma plane with INTER_NEAREST, merging and transforming gives; odd sizes
    take that general path."""
    w, h = size
    rng = np.random.default_rng(w * h)
    y = rng.integers(0, 256, (h, w), np.uint8)
    u = rng.integers(0, 256, ((h + 1) // 2, (w + 1) // 2), np.uint8)
    v = rng.integers(0, 256, u.shape, np.uint8)
    ycbcr = ycbcr_of("Rec709")
    uu = cv2.resize(u, (w, h), interpolation=cv2.INTER_NEAREST)
    vv = cv2.resize(v, (w, h), interpolation=cv2.INTER_NEAREST)
    reference = cv2.transform(cv2.merge([y, uu, vv]), ycbcr.matrix())
    planes = (y.copy(), u.copy(), v.copy())
    ours = yuv420_to_bgr(y, u, v, ycbcr)
    assert ours.shape == (h, w, 3) and ours.dtype == np.uint8
    assert np.array_equal(ours, reference)
    # it writes only its own output, never the camera's planes
    assert all(np.array_equal(a, b) for a, b in zip(planes, (y, u, v), strict=True))


def test_the_decode_writes_into_a_spare_frame_when_it_fits() -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 256, (72, 128), np.uint8)
    u = rng.integers(0, 256, (36, 64), np.uint8)
    v = rng.integers(0, 256, (36, 64), np.uint8)
    ycbcr = ycbcr_of("Rec709")
    fresh = yuv420_to_bgr(y, u, v, ycbcr)
    spare = np.full((72, 128, 3), 7, np.uint8)
    into = yuv420_to_bgr(y, u, v, ycbcr, out=spare)
    assert into is spare and np.array_equal(into, fresh)
    for wrong in (np.zeros((72, 127, 3), np.uint8), np.zeros((72, 128, 3), np.float32)):
        other = yuv420_to_bgr(y, u, v, ycbcr, out=wrong)
        assert other is not wrong and np.array_equal(other, fresh)


def test_the_pi_camera_reads_into_the_frame_it_is_given(picam, tmp_path) -> None:
    src = open_source(_config(tmp_path, "").camera)
    try:
        first = src.read()
        assert first is not None
        asked: list[int] = []

        def spare() -> np.ndarray:
            asked.append(1)
            return first

        again = src.read_into(spare)
        assert again is first and asked == [1]  # decoded into it: no new frame made
        assert np.array_equal(again, src.read())
    finally:
        src.close()
