"""Adapters from the watch loop to vision: read a die, every die, the track; find the zone.

Why adapters: vision is pure and returns dataclasses; the loop needs JSON-ready dicts, a JPEG crop
for the hub to show a person, and failures as values (a reading with a ``reason``), never as
exceptions. vision is imported lazily, on first use, so `pyramid watch --help` and the tests of
the loop do not pay for OpenCV's start-up, and a vision module that is missing is reported as a
failed read rather than a crash.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from vision.motion import ZoneWatcher
    from vision.palette import Palette

log = logging.getLogger(__name__)

Box = tuple[int, int, int, int]


class ReadError(RuntimeError):
    """A read that could not be done at all (vision missing, bad zone)."""


def encode_jpeg(image: np.ndarray, quality: int = 85) -> bytes | None:
    """A JPEG of a (small) crop for the hub's prompt; None if the crop is empty."""
    if image is None or image.size == 0:
        return None
    import cv2

    ok, buf = cv2.imencode(".jpg", image, [int(cv2.IMWRITE_JPEG_QUALITY), quality])
    return bytes(buf) if ok else None


def crop(image: np.ndarray, box: Box) -> np.ndarray:
    x, y, w, h = box
    H, W = image.shape[:2]
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
    return image[y0:y1, x0:x1]


#: The margin round a die in the photo a person sees, as a share of the die's side: enough table
#: for the die's edges to show, never so much that the die is small in a phone's thumbnail
#: (vision's own ``crop_box`` adds half the die on each side: the die was a quarter of the photo).
DIE_CROP_MARGIN = 0.18


def die_crop_box(box: Box, shape: tuple[int, ...], margin: float = DIE_CROP_MARGIN) -> Box:
    """The photo of a die a person sees: a square round the die's ``box`` (x, y, w, h, from the
    reading) with ``margin`` of its side on each side, clipped to an image of ``shape``."""
    x, y, w, h = box
    side = max(w, h)
    half = side / 2 + max(side * margin, 3.0)
    cx, cy = x + w / 2, y + h / 2
    height, width = shape[:2]
    x0, y0 = max(int(round(cx - half)), 0), max(int(round(cy - half)), 0)
    x1, y1 = min(int(round(cx + half)), width), min(int(round(cy + half)), height)
    return (x0, y0, max(x1 - x0, 0), max(y1 - y0, 0))


def changed_box(image: np.ndarray, zone: Box, background: np.ndarray | None) -> Box | None:
    """Where the zone differs most from the empty zone (its largest changed patch), in the
    image's pixels; None without a background or when nothing (or nearly everything) changed.

    Only for the photo a person is shown when the reader found no die at all: the tray is big
    and the die small in it, so the photo is cut round what landed. Never used to read."""
    if background is None:
        return None
    import cv2

    part = crop(image, zone)
    if background.shape == image.shape:
        empty = crop(background, zone)
    elif background.shape == part.shape:
        empty = background
    else:
        return None
    if part.size == 0:
        return None
    diff = cv2.absdiff(part, empty)
    mask = ((diff.max(axis=2) if diff.ndim == 3 else diff) > 40).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return None
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    bx, by, bw, bh, area = (int(v) for v in stats[best])
    if area < max(12, 0.0005 * mask.size) or area > 0.5 * mask.size:
        return None
    return (max(zone[0], 0) + bx, max(zone[1], 0) + by, bw, bh)


def failed_die(reason: str, **extra: Any) -> dict[str, Any]:
    """A die reading that says it could not read: the hub turns it into a prompt for a person."""
    return {
        "colour": None,
        "face": None,
        "confidence": 0.0,
        "face_confidence": 0.0,
        "colour_confidence": 0.0,
        "box": None,
        "reason": reason,
        **extra,
    }


def die_to_dict(reading: Any) -> dict[str, Any]:
    """vision.dice.DieReading -> the payload fields the hub's observe_die reads."""
    return {
        "colour": reading.colour,
        "face": reading.face,
        "confidence": round(float(reading.confidence), 4),
        "face_confidence": round(float(getattr(reading, "face_confidence", 0.0)), 4),
        "colour_confidence": round(float(getattr(reading, "colour_confidence", 0.0)), 4),
        "box": [int(v) for v in reading.box],
        "reason": getattr(reading, "reason", None),
    }


def track_to_dict(reading: Any) -> dict[str, Any]:
    """vision.track.TrackReading -> the payload fields the hub's observe_track reads."""
    return {
        "track": {str(k): list(v) for k, v in dict(reading.track).items()},
        "desert": {str(k): v for k, v in dict(getattr(reading, "desert", {}) or {}).items()},
        "confidence": round(float(getattr(reading, "confidence", 0.0)), 4),
        "uncertain": [str(s) for s in getattr(reading, "uncertain", []) or []],
        "reason": getattr(reading, "reason", None),
    }


Gains = tuple[float, float, float]


def vision_read_die(
    image: np.ndarray,
    zone: Box,
    *,
    white_gains: Gains | None = None,
    expected_colours: list[str] | None = None,
    background: np.ndarray | None = None,
    faces: tuple[int, ...] = (1, 2, 3),
    palette: Palette | None = None,
) -> tuple[dict[str, Any], bytes | None]:
    """The one die in the reveal zone, through vision.dice.read_die_in_zone.

    ``white_gains``: from the markers' white borders (:func:`vision_white_gains`), so a warm lamp
    does not turn yellow into orange; ``expected_colours``: the dice still in the pyramid, as the
    hub says (None: any colour); ``background``: the empty zone's colour crop from the same
    stream (the die is what differs from it; without it the reader estimates the surface);
    ``faces``: a Camel Up die shows 1..3, the horse race's 1..6 (the zone reader knows the pip
    layouts of all six; `python -m bench.eval_horse_die` measures the horse race's read);
    ``palette``: the table's taught colours (firmware.palette; None: the shipped ones).
    """
    try:
        from vision.dice import read_die_in_zone
    except ImportError as exc:
        raise ReadError(f"vision.dice is not available: {exc}") from exc
    reading = read_die_in_zone(
        image,
        zone,
        white_gains=white_gains,
        expected_colours=expected_colours,
        background=background,
        faces=faces,
        palette=palette,
    )
    grey = _grey_die_read(image, zone, reading, background, white_gains, expected_colours, palette)
    if grey is not None:
        return grey
    if reading is None:  # the photo: what changed in the tray, else the whole tray
        landed = changed_box(image, zone, background)
        shown = zone if landed is None else die_crop_box(landed, image.shape)
        return failed_die("no die found in the reveal zone"), encode_jpeg(crop(image, shown))
    return die_to_dict(reading), encode_jpeg(crop(image, die_crop_box(reading.box, image.shape)))


def _grey_die_read(
    image: np.ndarray,
    zone: Box,
    reading: Any,
    background: np.ndarray | None,
    white_gains: Gains | None,
    expected_colours: list[str] | None,
    palette: Palette | None,
) -> tuple[dict[str, Any], bytes | None] | None:
    """The second edition's grey die, read by its numeral (vision.dice.greydie), when it may be
    in the zone: the palette has grey and the hub expects it (or expects any die), and the pip
    reader named the die grey or found none (a die without pips is found against the empty
    zone). None: not the grey die's case, the pip reader's reading stands.

    The reading carries ``shade`` (the numeral's ink, black or white, which names the crazy
    camel) with ``shade_confidence``; an abstention says why in ``reason``, and the hub asks a
    person only then."""
    from vision.dice.greydie import GREY, GreyFind, find_grey_die, read_grey_die

    if palette is None or GREY not in palette.colours:
        return None
    if expected_colours is not None and GREY not in expected_colours:
        return None
    if reading is not None and reading.colour != GREY:
        return None
    part = crop(image, zone)
    ox, oy = max(zone[0], 0), max(zone[1], 0)
    if reading is not None:
        x, y, w, h = reading.box
        found: Any = GreyFind((x - ox, y - oy, w, h), float(reading.colour_confidence))
    else:
        empty = background
        if background is not None and background.shape == image.shape:
            empty = crop(background, zone)
        found = find_grey_die(
            part, empty, palette.restricted(expected_colours), white_gains=white_gains
        )
        if not isinstance(found, GreyFind):
            return None  # no grey die either: the pip reader's "no die found" stands
    bx, by, bw, bh = found.box
    got = read_grey_die(part, found.box, white_gains=white_gains)
    box = (ox + bx, oy + by, bw, bh)
    out = {
        "colour": GREY,
        "face": got.face,
        "confidence": round(min(got.confidence, max(found.colour_confidence, 0.0)), 4)
        if got.read
        else 0.0,
        "face_confidence": round(got.face_confidence, 4),
        "colour_confidence": round(found.colour_confidence, 4),
        "shade": None if got.shade is None else got.shade.value,
        "shade_confidence": round(got.shade_confidence, 4),
        "box": [int(v) for v in box],
        "reason": None if got.reason is None else got.reason.sentence,
    }
    return out, encode_jpeg(crop(image, die_crop_box(box, image.shape)))


def vision_read_dice(
    image: np.ndarray,
    *,
    white_gains: Gains | None = None,
    expected_colours: list[str] | None = None,
    palette: Palette | None = None,
) -> list[tuple[dict[str, Any], bytes | None]]:
    """Every die in the frame (the starting roll, a Marco Polo II board), through
    vision.dice.read_dice; ``expected_colours`` narrows the palette (the table's taught one,
    else the shipped one) to the game's dice. Read once, never as a close-up: the table's
    camera is fixed over the board, so its dice are small, and a frame with no die answered
    (a hand over the roll) would otherwise be read four times on the Pi."""
    try:
        from vision.dice import read_dice
    except ImportError as exc:
        raise ReadError(f"vision.dice is not available: {exc}") from exc
    out = []
    for reading in read_dice(
        image,
        white_gains=white_gains,
        expected_colours=expected_colours,
        palette=palette,
        close_ups=False,
    ):
        box = die_crop_box(reading.box, image.shape)
        out.append((die_to_dict(reading), encode_jpeg(crop(image, box))))
    return out


def vision_read_track(image: np.ndarray) -> dict[str, Any]:
    try:
        from vision.track import read_track
    except ImportError as exc:
        raise ReadError(f"vision.track is not available: {exc}") from exc
    return track_to_dict(read_track(image))


def vision_locate_zone(image: np.ndarray) -> Box:
    """The reveal zone's box in this frame, from the board's markers (raises ReadError)."""
    try:
        from vision.board import locate_board, reveal_zone_box
    except ImportError as exc:
        raise ReadError(f"vision.board is not available: {exc}") from exc
    try:
        loc = locate_board(image)
    except ValueError as exc:  # BoardNotFound, with its reason
        raise ReadError(str(exc)) from exc
    box = reveal_zone_box(loc, margin_mm=10.0)
    if box[2] < 8 or box[3] < 8:
        raise ReadError(f"the reveal zone is outside the frame ({box})")
    return box


def vision_white_gains(image: np.ndarray) -> Gains | None:
    """(b, g, r) gains that make the board markers' white borders neutral, or None if the
    markers are not seen. The rule is vision.whitebalance.gains_from_pixels (the brightest half
    of the reference, its median made grey, brightness kept), on the pixels of
    vision.board.marker_white_mask: every visible marker's border at once."""
    from vision.board import BoardNotFound, locate_board, marker_white_mask
    from vision.whitebalance import gains_from_pixels

    try:
        loc = locate_board(image)
    except BoardNotFound:
        return None
    # None: too few pixels, or too dark to balance on
    return gains_from_pixels(image[marker_white_mask(image.shape, loc)])


#: The die watcher's change (0..255, the largest channel's, against the empty zone, after the
#: zone's median change) that makes a pixel part of a die: the level its motion test already
#: trusts between two frames. Why not vision.motion's 30: a white die on the sand-coloured
#: zone stays under 30 at the watcher's thumbnail size in a third of rendered scenes (13 of 40,
#: seeds 201-240; 10 of those 13 read right from the full-resolution cut), so it was never
#: seen to land and the hub got no die at confidence 0.0 after die_timeout_s (issue 14). At 18
#: all 40 are seen; empty zones of other noise draws show no pixel over it.
DIE_CHANGE = 18


def vision_watcher(mode: str, still_frames: int) -> ZoneWatcher:
    """vision.motion's settle machine: ``"die"`` for the reveal zone (a die appears, stops, no
    hand over it: read once; ``DIE_CHANGE``), ``"track"`` for the table (a change, then still
    with no hand)."""
    from vision.motion import ZoneWatcher

    if mode == "die":
        return ZoneWatcher(mode, still_frames, change=DIE_CHANGE)
    return ZoneWatcher(mode, still_frames)


@dataclass
class Readers:
    """What the loop calls to read; tests and the demo may replace any of them."""

    # read_die(image, zone, *, white_gains, expected_colours, background, faces);
    # read_dice(image, *, white_gains, expected_colours)
    read_die: Callable[..., tuple[dict[str, Any], bytes | None]] = vision_read_die
    read_dice: Callable[..., list[tuple[dict[str, Any], bytes | None]]] = vision_read_dice
    read_track: Callable[[np.ndarray], dict[str, Any]] = vision_read_track
    locate_zone: Callable[[np.ndarray], Box] = vision_locate_zone
    watcher: Callable[[str, int], ZoneWatcher] = vision_watcher
    white_gains_of: Callable[[np.ndarray], Gains | None] = vision_white_gains
    timings: dict[str, list[float]] = field(default_factory=dict)

    def warm_up(self) -> None:
        """Import OpenCV and vision now, so that the first die is not slowed by imports."""
        import cv2  # noqa: F401

        for name in ("vision.motion", "vision.dice", "vision.track", "vision.board"):
            try:
                __import__(name)
            except ImportError as exc:
                log.warning("%s is not available yet: %s", name, exc)
        if self.read_die is vision_read_die or self.read_dice is vision_read_dice:
            # the dice readers' learned net and its gates, loaded now: a missing or corrupt
            # model file stops the start with a ModelError naming it (no silent fallback)
            from vision.dice.reader import check_model

            check_model()

    def timed(self, name: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            self.timings.setdefault(name, []).append((time.perf_counter() - t0) * 1000)
            del self.timings[name][:-200]
