"""The colour of a die's body, read from its lit top face, and what colour its pips are.

Why the top face only: the side faces are the same paint in shade (darker, and on a white die
grey), the pips are black or white, the table shows round the body. Between the pips' and the
side faces' grey levels lies the top face; its median is robust to a glint or a stray pixel.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.dice.reasons import Reason, Why
from vision.palette import Palette
from vision.whitebalance import balance_colour
from vision.whitebalance import gains_from_mask as gains_from_mask  # its old home: re-exported

# Pips lighter than the face (white pips) on these dice; dark pips on the others (orange,
# yellow, white). As on real Camel Up dice and the renderer's.
LIGHT_PIPS = frozenset({"blue", "green", "red", "black", "purple"})


def top_face_pixels(bgr: np.ndarray, mask: np.ndarray, side: float) -> np.ndarray:
    """N x 3 BGR pixels of the lit top face: the body's inner pixels whose grey lies between
    the darkest (pips or side faces) and brightest (pips or glints) parts."""
    e = int(round(0.3 * side)) | 1  # keep off the rim (bevel, blur halo, JPEG chroma bleed)
    inner = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (e, e)))
    if int(inner.sum()) < 20:
        inner = mask
    px = bgr[inner > 0]
    if len(px) == 0:
        return px.reshape(0, 3)
    grey = px.astype(np.float32) @ np.array([0.114, 0.587, 0.299], np.float32)
    lo, hi = np.percentile(grey, (35, 88))
    sel = (grey >= lo) & (grey <= hi)
    return px[sel] if int(sel.sum()) >= 5 else px


def classify_face_colour(
    bgr: np.ndarray, mask: np.ndarray, side: float, palette: Palette, gains: Sequence[float] | None
) -> tuple[str | None, float, tuple[float, float, float], Reason | None]:
    """(colour or None, confidence, balanced BGR of the top face, reason if None)."""
    px = top_face_pixels(bgr, mask, side)
    if len(px) == 0:
        return None, 0.0, (0.0, 0.0, 0.0), Reason(Why.NO_FACE_PIXELS, "no face pixels")
    med = np.median(px.astype(np.float32), axis=0)
    bal = balance_colour(med, gains)
    if max(bal) < 30:
        return None, 0.0, bal, Reason(Why.FACE_TOO_DARK, "die face is too dark to name its colour")
    name, conf = palette.classify(bal)
    if name is None:
        return (
            None,
            conf,
            bal,
            Reason(
                Why.COLOUR_AMBIGUOUS, f"colour is between palette entries (confidence {conf:.2f})"
            ),
        )
    return name, conf, bal, None


def dark_pips(colour: str | None, face_bgr: Sequence[float]) -> bool | None:
    """True if the pips are darker than the face; None if the colour is unknown (try both)."""
    if colour is None:
        return None
    return colour not in LIGHT_PIPS
