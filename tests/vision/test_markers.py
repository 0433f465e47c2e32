"""The printable marker sheet: true size, every board id readable from the PDF's own images."""

from __future__ import annotations

import re
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.board import load_geometry
from vision.markers import marker_image, marker_sheet_pdf

REPO = Path(__file__).resolve().parents[2]
PT_PER_MM = 72 / 25.4


def _images_and_placements(pdf: bytes):
    """(grey images, [(w_pt, h_pt)]) of a PDF written by vision.pdf: read back the hard way."""
    images = []
    for m in re.finditer(rb"/Width (\d+) /Height (\d+) .*?/Length (\d+) >>\nstream\n", pdf):
        w, h, n = (int(v) for v in m.groups())
        data = zlib.decompress(pdf[m.end() : m.end() + n])
        images.append(np.frombuffer(data, np.uint8).reshape(h, w))
    sizes = []
    for m in re.finditer(rb"/Length (\d+) /Filter /FlateDecode >>\nstream\n", pdf):
        n = int(m.group(1))
        content = zlib.decompress(pdf[m.end() : m.end() + n]).decode()
        sizes += [
            (float(a), float(b))
            for a, b in re.findall(r"q ([\d.]+) 0 0 ([\d.]+) [\d.]+ [\d.]+ cm /Im\d+ Do Q", content)
        ]
    return images, sizes


def _decode(grey: np.ndarray, geo) -> int | None:
    big = cv2.resize(grey, None, fx=20, fy=20, interpolation=cv2.INTER_NEAREST)
    big = cv2.copyMakeBorder(big, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
    det = cv2.aruco.ArucoDetector(geo.aruco_dictionary(), cv2.aruco.DetectorParameters())
    _, ids, _ = det.detectMarkers(big)
    return None if ids is None else int(ids.ravel()[0])


def test_sheet_is_a4_with_every_marker_at_true_size():
    geo = load_geometry()
    pdf = marker_sheet_pdf(geo)
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    assert b"/MediaBox [0 0 595.276 841.890]" in pdf
    images, sizes = _images_and_placements(pdf)
    assert sorted(_decode(img, geo) for img in images) == sorted(geo.marker_centres)
    assert sizes and all(abs(w - geo.marker_size * PT_PER_MM) < 0.01 and w == h for w, h in sizes)


def test_size_option_changes_the_printed_size():
    geo = load_geometry()
    _, sizes = _images_and_placements(marker_sheet_pdf(geo, 30))
    assert sizes and all(abs(w - 30 * PT_PER_MM) < 0.01 for w, _ in sizes)
    with pytest.raises(ValueError, match="does not fit"):
        marker_sheet_pdf(geo, 400)


def test_marker_image_has_its_white_border():
    geo = load_geometry()
    img = marker_image(geo, 2, module_px=10)
    b = int(round(geo.marker_border / (geo.marker_size / 6) * 10))
    assert img.shape == (60 + 2 * b, 60 + 2 * b)
    assert img[:b].min() == 255 and img[b : b + 10, b : b + 10].max() == 0
    with pytest.raises(ValueError, match="not on the board"):
        marker_image(geo, 42)


def test_cli_writes_the_pdf(tmp_path):
    out = tmp_path / "m.pdf"
    r = subprocess.run(
        [sys.executable, "-m", "hub.cli", "markers", "--out", str(out), "--size-mm", "40"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert out.read_bytes().startswith(b"%PDF")
    assert "markers.size: 50" in r.stderr  # tells the user to update board.yaml
    bad = subprocess.run(
        [sys.executable, "-m", "hub.cli", "markers", "--out", str(out), "--size-mm", "500"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert bad.returncode == 2
