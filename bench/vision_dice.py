"""Dice reader timings: one die in the reveal zone of a 1280x720 frame, and five dice full-frame.

One core (OpenCV told to use one thread), medians and 95th percentiles over rendered frames.
The Pi 4 figure is an estimate, not a measurement: this machine's time times PI4_FACTOR, a
single-core Cortex-A72 at 1.5 GHz being taken as about 4x slower than one core of a current x86
server on OpenCV filtering and numpy work (an assumption to check on a real Pi with this same
suite: `make bench` there).
"""

from __future__ import annotations

import time

import cv2
import numpy as np

PI4_FACTOR = 4.0
ZONE = (560, 260, 200, 200)  # x, y, w, h of a reveal zone in a 1280x720 frame


def _stats(ms: list[float]) -> dict:
    a = np.array(ms)
    return {"median_ms": round(float(np.median(a)), 2), "p95_ms": round(float(np.percentile(a, 95)), 2),
            "runs": len(ms)}


def run() -> dict:
    from vision.dice import read_dice, read_die_in_zone
    from vision.render.dice import draw_die, make_background, render_dice_scene
    from vision.render.effects import EffectParams, apply_effects

    cv2.setNumThreads(1)
    zone_ms: list[float] = []
    zone_right = 0
    for s in range(60):
        rng = np.random.default_rng(s)
        frame = make_background(rng, (1280, 720))
        x, y, w, h = ZONE
        face = int(rng.integers(1, 4))
        draw_die(frame, (x + w / 2 + rng.uniform(-30, 30), y + h / 2 + rng.uniform(-30, 30)),
                 float(rng.uniform(50, 80)), "yellow", face, rng)
        frame = apply_effects(frame, EffectParams.sample(rng, (1280, 720)), rng)
        t0 = time.perf_counter()
        r = read_die_in_zone(frame, ZONE)
        zone_ms.append(1000 * (time.perf_counter() - t0))
        zone_right += r is not None and r.face == face
    full_ms: list[float] = []
    for s in range(30):
        img, _ = render_dice_scene(np.random.default_rng(s), size=(1280, 720))
        t0 = time.perf_counter()
        read_dice(img)
        full_ms.append(1000 * (time.perf_counter() - t0))
    zone = _stats(zone_ms)
    full = _stats(full_ms)
    return {
        "zone_read_1280x720": {**zone, "zone_px": list(ZONE[2:]), "faces_right": zone_right},
        "full_frame_five_dice_1280x720": full,
        "pi4_estimate": {
            "zone_median_ms": round(zone["median_ms"] * PI4_FACTOR, 1),
            "full_frame_median_ms": round(full["median_ms"] * PI4_FACTOR, 1),
            "method": f"this machine's one-core median x {PI4_FACTOR} (assumed A72/x86 ratio, "
                      "not measured on a Pi)",
        },
    }
