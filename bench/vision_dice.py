"""Dice reader timings: the die in the reveal zone (the product path) and five dice full-frame.

One core (OpenCV told to use one thread); medians and 95th percentiles of wall time and of the
process's CPU time (this machine is shared: CPU time is the figure less disturbed by load).
The zone read is measured on rendered board scenes as the firmware reads them
(``vision.render.zone``): in the 1280x720 preview (die ~20 px) and in the zone cut from the
4608x2592 full-resolution frame (die ~70 px), with the empty zone as background and the markers'
white balance. The Pi 4 figure is an estimate, not a measurement: this machine's CPU time times
PI4_FACTOR, a single-core Cortex-A72 at 1.5 GHz being taken as about 4x slower than one core of a
current x86 server on OpenCV filtering and numpy work (to check on a real Pi: `make bench`).
"""

from __future__ import annotations

import time

import cv2
import numpy as np

from vision.palette import CAMEL_UP as COLOURS

PI4_FACTOR = 4.0


def _stats(ms: list[float]) -> dict:
    a = np.array(ms)
    return {
        "median_ms": round(float(np.median(a)), 2),
        "p95_ms": round(float(np.percentile(a, 95)), 2),
        "runs": len(ms),
    }


def _timed(fn, *a, **k):  # type: ignore[no-untyped-def]
    t, c = time.perf_counter(), time.process_time()
    r = fn(*a, **k)
    return r, 1000 * (time.perf_counter() - t), 1000 * (time.process_time() - c)


def run() -> dict:
    from vision.board import locate_board, marker_white_mask, reveal_zone_box
    from vision.dice import read_dice, read_die_in_zone
    from vision.dice.colour import gains_from_mask
    from vision.render.dice import render_dice_scene
    from vision.render.zone import render_zone_scene

    cv2.setNumThreads(1)
    res: dict = {}
    acc = {k: {"wall": [], "cpu": [], "right": 0, "wrong": 0} for k in ("preview", "full")}
    n = 40
    for s in range(n):
        rng = np.random.default_rng(50_000 + s)
        colour, face = COLOURS[s % 5], int(rng.integers(1, 4))
        z = render_zone_scene(rng, (colour, face))
        loc = locate_board(z.preview)
        gains = gains_from_mask(z.preview, marker_white_mask(z.preview.shape, loc))
        cases = {
            "preview": (z.preview, reveal_zone_box(loc, margin_mm=10.0), z.preview_empty),
            "full": (z.zone, (0, 0, z.zone.shape[1], z.zone.shape[0]), z.zone_empty),
        }
        for key, (img, box, empty) in cases.items():
            for _ in range(3):  # repeated: the median of a loaded machine's timings
                r, wall, cpu = _timed(
                    read_die_in_zone, img, box, white_gains=gains, background=empty
                )
                acc[key]["wall"].append(wall)
                acc[key]["cpu"].append(cpu)
            acc[key]["right"] += r is not None and (r.face, r.colour) == (face, colour)
            acc[key]["wrong"] += r is not None and (
                r.face not in (None, face) or r.colour not in (None, colour)
            )
    for key, name in (
        ("preview", "zone_read_preview_1280x720"),
        ("full", "zone_read_full_res_4608x2592"),
    ):
        a = acc[key]
        res[name] = {
            "wall": _stats(a["wall"]),
            "cpu": _stats(a["cpu"]),
            "zone_px": None,
            "scenes": n,
            "right": a["right"],
            "wrong": a["wrong"],
        }
        res[name].pop("zone_px")
    full_ms: list[float] = []
    for s in range(20):
        img, _ = render_dice_scene(np.random.default_rng(s), size=(1280, 720))
        _, wall, _ = _timed(read_dice, img, close_ups=False)  # as the table reads a frame
        full_ms.append(wall)
    full = _stats(full_ms)
    res["full_frame_five_dice_1280x720"] = full
    # the setup roll as vision.eval.dice reads it: 640x480, white balance from the white patch,
    # among Camel Up's five colours, once (never as a close-up), as the table reads it
    from vision.palette import CAMEL_UP
    from vision.whitebalance import gains_from_patch

    wall_ms, cpu_ms = [], []
    for s in range(20):
        img, truth = render_dice_scene(np.random.default_rng(100_000 + s))
        gains = gains_from_patch(img, truth.white_patch)
        _, wall, cpu = _timed(
            read_dice, img, white_gains=gains, expected_colours=CAMEL_UP, close_ups=False
        )
        wall_ms.append(wall)
        cpu_ms.append(cpu)
    res["full_frame_five_dice_640x480"] = {"wall": _stats(wall_ms), "cpu": _stats(cpu_ms)}
    res.update(_learned())
    zcpu = res["zone_read_full_res_4608x2592"]["cpu"]["median_ms"]
    res["pi4_estimate"] = {
        "zone_full_res_median_ms": round(zcpu * PI4_FACTOR, 1),
        "full_frame_median_ms": round(full["median_ms"] * PI4_FACTOR, 1),
        "method": f"this machine's one-core median (CPU time for the zone) x {PI4_FACTOR} "
        "(assumed A72/x86 ratio, not measured on a Pi)",
    }
    return res


def _learned() -> dict:
    """The learned net, one core: ms per die (one crop at a time, a frame's five at once, and
    one crop over all its views as an unsure die's is read), a 12 MP photo (4000x3000, five
    dice) read whole by ``read_dice``, a 12 MP close-up of two large dice, and the model's
    size."""
    from vision.dice.classifier import (
        META_FILE,
        MODEL_FILE,
        DieClassifier,
        die_crop,
        load_classifier,
    )
    from vision.render.dice import render_dice_scene

    clf = load_classifier()
    img, truth = render_dice_scene(np.random.default_rng(7))
    crops = np.stack(
        [
            die_crop(img, x + w / 2, y + h / 2, max(w, h))
            for x, y, w, h in (d.box for d in truth.dice)
        ]
    )
    # every crop over all its views, however sure its first view (``classifier.SURE``): the
    # cost of a die the net is unsure of, the worst case per die
    unsure = DieClassifier(MODEL_FILE, META_FILE, sure=1.01)
    one: dict[str, list[float]] = {"wall": [], "cpu": []}
    five: dict[str, list[float]] = {"wall": [], "cpu": []}
    worst: dict[str, list[float]] = {"wall": [], "cpu": []}
    for _ in range(60):
        _, wall, cpu = _timed(clf.classify, crops[:1])
        one["wall"].append(wall)
        one["cpu"].append(cpu)
        _, wall, cpu = _timed(clf.classify, crops)
        five["wall"].append(wall / len(crops))
        five["cpu"].append(cpu / len(crops))
        _, wall, cpu = _timed(unsure.classify, crops[:1])
        worst["wall"].append(wall)
        worst["cpu"].append(cpu)
    # five dice of 180-320 px, as a phone photo of a table shows them: one read
    photo = _photos_12mp(
        60_000, [((600.0 + 700 * k, 800.0 + 300 * (k % 3)), (180, 320)) for k in range(5)]
    )
    # a close-up: two dice of about a third of the frame's short side, which the frame's own
    # read misses and the reader reads again on canvases (``reader.close_up``): the worst case,
    # four reads of the frame
    close = _photos_12mp(61_000, [((1200.0 + 1600 * k, 1500.0), (900, 1100)) for k in range(2)])
    return {
        "classifier_ms_per_die_one_crop": {k: _stats(v) for k, v in one.items()},
        "classifier_ms_per_die_five_crops": {k: _stats(v) for k, v in five.items()},
        "classifier_ms_per_die_all_views": {k: _stats(v) for k, v in worst.items()},
        "photo_12mp_read_whole_4000x3000": photo,
        "photo_12mp_close_up_4000x3000": close,
        "classifier_model_kib": round(MODEL_FILE.stat().st_size / 1024, 1),
    }


def _photos_12mp(seed0: int, dice: list[tuple[tuple[float, float], tuple[float, float]]]) -> dict:
    """Three rendered 12 MP photos (4000x3000, seeds ``seed0``..+2), each with one die of
    Camel Up's colours, in order, per (centre, side range) of ``dice``, read whole by
    ``read_dice``: wall and CPU times, the dice drawn and the faces answered."""
    from vision.dice import read_dice
    from vision.render.dice import draw_die, make_background

    times: dict[str, list[float]] = {"wall": [], "cpu": []}
    answered = 0
    for s in range(3):
        rng = np.random.default_rng(seed0 + s)
        frame = make_background(rng, (4000, 3000))
        for colour, (centre, (lo, hi)) in zip(COLOURS, dice, strict=False):
            draw_die(
                frame, centre, float(rng.uniform(lo, hi)), colour, int(rng.integers(1, 7)), rng
            )
        found, wall, cpu = _timed(read_dice, frame)
        answered += sum(d.face is not None for d in found)
        times["wall"].append(wall)
        times["cpu"].append(cpu)
    return {
        **{k: _stats(v) for k, v in times.items()},
        "dice": 3 * len(dice),
        "faces_answered": answered,
    }
