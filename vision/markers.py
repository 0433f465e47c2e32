"""The board's ArUco markers as images and as a printable A4 sheet at true size.

Why true size matters: board.yaml says the markers' black squares are ``size`` mm; the homography
maps those millimetres to pixels, so a sheet printed at "fit to page" would scale the whole board.
The sheet carries a 100 mm check bar to measure after printing, and each marker's id and its top
edge, so it is glued the right way round.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.board import BoardGeometry, load_geometry
from vision.pdf import A4_MM, Page, write_pdf

__all__ = ["marker_image", "marker_sheet_pdf"]


def marker_image(
    geometry: BoardGeometry,
    marker_id: int,
    module_px: int = 20,
    border_modules: float | None = None,
) -> np.ndarray:
    """Marker ``marker_id`` as a grey uint8 image: black square of (bits+2) modules plus the
    white border of board.yaml (in modules, rounded), ``module_px`` pixels per module."""
    if marker_id not in geometry.marker_centres:
        raise ValueError(
            f"marker {marker_id} is not on the board (ids {sorted(geometry.marker_centres)})"
        )
    d = geometry.aruco_dictionary()
    cells = d.markerSize + 2
    black = cv2.aruco.generateImageMarker(d, marker_id, cells * module_px, borderBits=1)
    if border_modules is None:
        border_modules = geometry.marker_border / (geometry.marker_size / cells)
    b = int(round(border_modules * module_px))
    out = np.full((black.shape[0] + 2 * b, black.shape[1] + 2 * b), 255, np.uint8)
    out[b : b + black.shape[0], b : b + black.shape[1]] = black
    return out


def marker_sheet_pdf(geometry: BoardGeometry | None = None, size_mm: float | None = None) -> bytes:
    """An A4 PDF with every board marker at ``size_mm`` (default: board.yaml's), ids, cut lines."""
    geo = geometry or load_geometry()
    size = float(size_mm if size_mm is not None else geo.marker_size)
    border = geo.marker_border * size / geo.marker_size
    outer = size + 2 * border
    page_w, page_h = A4_MM
    margin, gap_x, gap_y = 15.0, 12.0, 22.0
    cols = max(1, int((page_w - 2 * margin + gap_x) // (outer + gap_x)))
    rows = max(1, int((page_h - 2 * margin - 30 + gap_y) // (outer + gap_y)))
    if size <= 0 or outer > page_w - 2 * margin:
        raise ValueError(f"a {size} mm marker does not fit on an A4 sheet")
    ids = sorted(geo.marker_centres)
    pages: list[Page] = []
    per_page = cols * rows
    d = geo.aruco_dictionary()
    cells = d.markerSize + 2
    for start in range(0, len(ids), per_page):
        page = Page()
        page.text(
            margin,
            margin,
            f"Camel Pyramid board markers ({geo.dictionary}), "
            f"black square {size:g} mm. Print at 100 % (no 'fit to page').",
            9,
        )
        page.line(margin, margin + 6, margin + 100, margin + 6, 0.5)
        page.line(margin, margin + 4.5, margin, margin + 7.5, 0.5)
        page.line(margin + 100, margin + 4.5, margin + 100, margin + 7.5, 0.5)
        page.text(margin + 103, margin + 7.5, "this bar must measure 100 mm", 8)
        for k, mid in enumerate(ids[start : start + per_page]):
            r, c = divmod(k, cols)
            x = margin + c * (outer + gap_x)
            y = margin + 22 + r * (outer + gap_y)
            img = marker_image(geo, mid, module_px=1, border_modules=0)
            assert img.shape[0] == cells
            page.image(img, x + border, y + border, size, size)
            page.rect(x, y, outer, outer, 0.25, dash_mm=2.0)  # cut line: the white border's edge
            cx, cy = geo.marker_centres[mid]
            page.text(
                x,
                y + outer + 5,
                f"id {mid}  -  at board ({cx:g}, {cy:g}) mm  -  the edge marked ^ is its top",
                8,
            )
            page.text(x + outer / 2 - 1.5, y - 1.5, "^", 9)
        pages.append(page)
    return write_pdf(pages)
