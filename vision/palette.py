"""The dice palette: which colour name each die face colour means, on this table.

Stored as JSON (human-readable, one entry per colour, CIE Lab of the face under balanced light),
because each table's dice, lamp and camera differ: `pyramid calibrate` measures the five dice once
and stores the table's palette; without one, the shipped default (the renderer's dice plus
general names for other dice) is used.

Classification weights lightness less than hue: the lamp's strength changes a face's lightness a
lot and its chroma little. Orange against yellow and white against yellow are decided on a and b.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.board import camel_colours_bgr

CAMEL_UP = ("blue", "green", "orange", "yellow", "white")
# the second edition (2018): five racing camels, then the two crazy camels that run backwards
CAMEL_UP2_RACING = ("blue", "green", "yellow", "red", "purple")
CRAZY_CAMELS = ("black", "white")
CAMEL_UP2 = CAMEL_UP2_RACING + CRAZY_CAMELS
# The crazy camels are the only pair of camels told apart by lightness, not by hue: both are
# neutral. In white-balanced linear light (the markers' white border at 0.85), a white camel's
# faces stay above this even in a stack's shade and black paint stays far below it.
NEUTRAL_SPLIT_Y = 0.09
# and darker than this no hue can be read at all: on the track only black paint is that dark
BLACK_Y = 0.012
PALETTE_VERSION = 1
L_WEIGHT = 0.35  # lightness counts this much against the chroma axes
MAX_DISTANCE = 40.0  # further than this from every entry: no colour name
MIN_MARGIN = 0.2  # (d2 - d1) / (d2 + d1) below this: too close to call
SCALE_PENALTY = 12.0  # cost of assuming the face is lit 2.7x brighter or darker than measured
#: the brightest scale tried on any face; the scales above it (to 2.5, for a dim face) are tried
#: only where they push the face's brightest channel at most ``CLIP_SLACK`` times past 255
BRIGHT_SCALE = 1.8
CLIP_SLACK = 1.15
#: the exposures a face is tried at (``Palette.distances``): 0.55 to ``BRIGHT_SCALE`` in 14 steps
#: of 1.088, and four more steps to 2.5 for a dim face. Why the four: a yellow die in the reveal
#: zone under a dim warm lamp, balanced, is half the palette's brightness (BGR 18, 92, 107), and
#: was named at 0.6-0.78 or not at all
_BRIGHT_STEPS = 14
_SCALES = (0.55 * (BRIGHT_SCALE / 0.55) ** (np.arange(_BRIGHT_STEPS + 5) / _BRIGHT_STEPS)).astype(
    np.float32
)
_DIM_ONLY = np.arange(len(_SCALES)) > _BRIGHT_STEPS  # the scales above ``BRIGHT_SCALE``

# Reference colours (BGR under neutral light) of the shipped default palette. The Camel Up entries
# are the renderer's dice; the others are common dice colours (Marco Polo II: blue, yellow, green,
# red, black).
DEFAULT_BGR: dict[str, tuple[int, int, int]] = {
    **{n: c for n, c in camel_colours_bgr().items() if n in CAMEL_UP},  # written in board.yaml
    "red": (40, 35, 200),
    "black": (35, 35, 35),
    "purple": (130, 40, 110),
}


def camel_colours_rgb(edition: int = 1) -> dict[str, tuple[int, int, int]]:
    """Nominal camel colours (RGB under neutral light) of an edition's camels, in its order:
    the first edition's from board.yaml; the second's racing red and purple and the black
    crazy camel from this module's reference colours, the rest from board.yaml."""
    if edition not in (1, 2):
        raise ValueError(f"Camel Up has editions 1 and 2, not {edition!r}")
    bgr = {**DEFAULT_BGR, **camel_colours_bgr()}
    names = CAMEL_UP if edition == 1 else CAMEL_UP2
    return {n: (bgr[n][2], bgr[n][1], bgr[n][0]) for n in names}


def bgr_to_lab(bgr: Sequence[float]) -> tuple[float, float, float]:
    """CIE Lab (L 0..100) of one BGR colour, via OpenCV's float conversion."""
    px = np.array([[list(bgr)]], np.float32) / 255.0
    lab = cv2.cvtColor(px, cv2.COLOR_BGR2Lab)[0, 0]
    return float(lab[0]), float(lab[1]), float(lab[2])


@dataclass
class Palette:
    """Named reference colours in Lab."""

    colours: dict[str, tuple[float, float, float]]
    source: str = "default"
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.colours:
            raise ValueError("a palette needs at least one colour")
        for name, lab in self.colours.items():
            if not isinstance(name, str) or not name:
                raise ValueError(f"palette colour names must be non-empty strings, got {name!r}")
            if len(lab) != 3 or not all(np.isfinite(v) for v in lab):
                raise ValueError(f"palette colour {name!r} must be three numbers (L, a, b)")

    def restricted(self, names: Iterable[str] | None) -> Palette:
        """Only ``names`` (the colours that can still appear); unknown names are an error."""
        if names is None:
            return self
        names = list(names)
        unknown = [n for n in names if n not in self.colours]
        if unknown:
            raise ValueError(f"colours {unknown} are not in the palette ({sorted(self.colours)})")
        return Palette({n: self.colours[n] for n in names}, self.source, self.meta)

    def classify(self, bgr: Sequence[float]) -> tuple[str | None, float]:
        """(name, confidence) of a balanced BGR face colour; (None, conf) when unsure."""
        return name_by_distance(self.distances(bgr), list(self.colours))

    def distances(self, bgr: Sequence[float]) -> np.ndarray:
        """Distance of a face colour to every entry, forgiving a change of exposure.

        The face is tried at several brightness scales (a dimmer lamp, a shaded side of the
        frame); each scale costs a penalty so white still differs from grey and black. The
        scales above ``BRIGHT_SCALE`` are for a dim face only: where one would push a channel
        well past 255 (``CLIP_SLACK``) it is not tried, as clipped, any bright face is white
        (a glare-washed orange was named white at 0.89 with them tried on every face). Up to
        ``BRIGHT_SCALE`` a face may clip as it always could: a white die a little tinted by the
        white balance is white there.
        """
        obs = np.clip(np.asarray(bgr, np.float32)[None, :] * _SCALES[:, None], 0, 255)
        labs = cv2.cvtColor((obs / 255.0)[None, :, :].astype(np.float32), cv2.COLOR_BGR2Lab)[0]
        refs = np.array(list(self.colours.values()), np.float64)
        w = np.array([L_WEIGHT, 1.0, 1.0])
        d = np.sqrt((((labs[:, None, :] - refs[None, :, :]) * w) ** 2).sum(axis=2))
        d += SCALE_PENALTY * np.abs(np.log(_SCALES))[:, None]
        top = float(np.max(bgr))
        d[_DIM_ONLY & (_SCALES * top > 255.0 * CLIP_SLACK)] = np.inf
        out: np.ndarray = d.min(axis=0)
        return out

    def to_json(self) -> str:
        return (
            json.dumps(
                {
                    "version": PALETTE_VERSION,
                    "source": self.source,
                    "meta": self.meta,
                    "colours": {n: [round(v, 2) for v in lab] for n, lab in self.colours.items()},
                },
                indent=2,
            )
            + "\n"
        )

    @classmethod
    def from_json(cls, text: str, source: str = "json") -> Palette:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"palette {source} is not valid JSON: {exc}") from exc
        if not isinstance(data, Mapping) or not isinstance(data.get("colours"), Mapping):
            raise ValueError(f"palette {source} needs a 'colours' object of name -> [L, a, b]")
        if data.get("version", PALETTE_VERSION) != PALETTE_VERSION:
            raise ValueError(
                f"palette {source} has version {data.get('version')}, expected {PALETTE_VERSION}"
            )
        try:
            colours = {str(k): tuple(float(x) for x in v) for k, v in data["colours"].items()}
        except (TypeError, ValueError) as exc:
            raise ValueError(f"palette {source}: every colour must be [L, a, b]") from exc
        return cls(colours, source, dict(data.get("meta", {})))  # type: ignore[arg-type]


def default_palette() -> Palette:
    return Palette({n: bgr_to_lab(c) for n, c in DEFAULT_BGR.items()}, "default")


def default_path() -> Path:
    """$PYRAMID_HOME/palette.json, else ~/.config/camel-pyramid/palette.json."""
    home = os.environ.get("PYRAMID_HOME")
    if home:
        return Path(home) / "palette.json"
    return Path.home() / ".config" / "camel-pyramid" / "palette.json"


def load_palette(path: str | os.PathLike[str] | None = None) -> Palette:
    """The palette at ``path``; with None, the table's palette if stored, else the default."""
    if path is None:
        p = default_path()
        if not p.exists():
            return default_palette()
    else:
        p = Path(path)
        if not p.is_file():
            raise ValueError(f"palette file {p} does not exist")
    return Palette.from_json(p.read_text(), str(p))


def save_palette(palette: Palette, path: str | os.PathLike[str] | None = None) -> Path:
    p = Path(path) if path is not None else default_path()
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(p.suffix + ".tmp")
    tmp.write_text(palette.to_json())
    tmp.replace(p)  # atomic: a failed write leaves the old palette in place
    return p


def name_by_distance(d: np.ndarray, names: list[str]) -> tuple[str | None, float]:
    """(name, confidence) from distances to ``names``: the nearest, if near and clearly nearer
    than the second (else None). One rule for every reader that names a colour."""
    order = np.argsort(d)
    d1 = float(d[order[0]])
    d2 = float(d[order[1]]) if len(order) > 1 else MAX_DISTANCE * 2
    margin = (d2 - d1) / max(d2 + d1, 1e-6)
    near = float(np.clip(1.0 - d1 / MAX_DISTANCE, 0.0, 1.0))
    conf = float(np.clip(margin / 0.5, 0.0, 1.0)) * (0.5 + 0.5 * near)
    if d1 > MAX_DISTANCE or margin < MIN_MARGIN:
        return None, conf
    return names[int(order[0])], conf
