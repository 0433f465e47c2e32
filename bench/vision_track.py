"""Speed of the track reader on 1280x720 rendered frames (target: under 40 ms on one core).

Why these numbers: the watch loop reads the track after every move; the reader must keep up with
a Pi's camera without a second core. We time the full read (marker detection, pose, white
balance, all 16 spaces, tiles, the five-camel rule), the read with a cached board location (a
fixed camera: detect the markers once, then reuse), and the marker detection alone, on frames
with the camera as the build guide places it (vision.render.board.AS_BUILT_TILT_DEG, the
evaluation's headline range); the full read is also timed on the steeper stress range's frames.
OpenCV is pinned to one thread.

Pi 4 estimate: not measured here (no Pi). We scale by a factor of 4 (range 3..5) for a Cortex-A72
at 1.5 GHz against one core of this machine, the usual ratio for single-threaded OpenCV/NumPy work
(NEON vs AVX2, lower clock, smaller caches). Measure on the Pi with `make bench` to replace it.
"""

from __future__ import annotations

import time

import cv2
import numpy as np

from vision.board import detect_markers, load_geometry, locate_board
from vision.render.board import AS_BUILT_TILT_DEG, STRESS_TILT_DEG, render_board_scene, sample_pose
from vision.track import read_track

PI4_FACTOR = 4.0


def _times(fn, frames, repeat: int = 3) -> tuple[list[float], list[float]]:
    wall, cpu = [], []
    for _ in range(repeat):
        for f in frames:
            t0, c0 = time.perf_counter(), time.process_time()
            fn(f)
            wall.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
    return wall, cpu


def _frames(geo, tilt_deg: tuple[float, float], n: int = 20) -> list[np.ndarray]:
    """Seeds 9000.. with the pose's tilt range passed explicitly (not the renderer's default)."""
    out = []
    for s in range(n):
        rng = np.random.default_rng(9000 + s)
        pose = sample_pose(rng, geo, tilt_deg=tilt_deg)
        out.append(render_board_scene(rng, pose=pose, geometry=geo)[0])
    return out


def run() -> dict:
    cv2.setNumThreads(1)
    geo = load_geometry()
    frames = _frames(geo, AS_BUILT_TILT_DEG)
    stress = _frames(geo, STRESS_TILT_DEG)
    read_track(frames[0], geo)  # warm caches
    full_w, full_c = _times(lambda f: read_track(f, geo), frames)
    locs = {id(f): locate_board(f, geo) for f in frames}
    cached_w, cached_c = _times(lambda f: read_track(f, geo, location=locs[id(f)]), frames)
    mark_w, mark_c = _times(lambda f: detect_markers(f, geo), frames)
    stress_w, stress_c = _times(lambda f: read_track(f, geo), stress)

    def stats(w: list[float], c: list[float]) -> dict:
        return {
            "median_ms": round(float(np.median(w)), 2),
            "p90_ms": round(float(np.percentile(w, 90)), 2),
            "cpu_median_ms": round(float(np.median(c)), 2),
        }

    full = stats(full_w, full_c)
    return {
        "frame": "1280x720 rendered board, camera as built (tilt 33..42.5 deg), 1 OpenCV thread",
        "read_track_full": full,
        "read_track_full_stress_poses": stats(stress_w, stress_c),
        "read_track_cached_location": stats(cached_w, cached_c),
        "detect_markers": stats(mark_w, mark_c),
        "target_ms": 40,
        "pi4_estimate_ms": round(full["cpu_median_ms"] * PI4_FACTOR, 1),
        "pi4_estimate_note": f"x{PI4_FACTOR:g} (3..5) of this machine's CPU time; an estimate",
    }


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
