"""A minimal PDF writer: pages with grey images placed at exact sizes, lines and labels.

Why our own: the marker sheet needs only images at true size, a dashed cut line and a few words
of Helvetica (one of PDF's 14 standard fonts, so nothing is embedded). A PDF library would be a
heavy dependency for that; this is ~100 lines of the PDF 1.4 format, and the tests read the
result back (sizes, and the markers decoded from the embedded images).

Units: millimetres in the API, points (1/72 inch) in the file.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np

__all__ = ["A4_MM", "Page", "write_pdf"]

A4_MM = (210.0, 297.0)
PT_PER_MM = 72.0 / 25.4


def _pt(mm: float) -> str:
    return f"{mm * PT_PER_MM:.3f}"


@dataclass
class Page:
    """One page; coordinates in mm from the page's top-left corner."""

    size_mm: tuple[float, float] = A4_MM
    images: list[tuple[np.ndarray, float, float, float, float]] = field(default_factory=list)
    ops: list[str] = field(default_factory=list)

    def _y(self, y_mm: float) -> float:
        return self.size_mm[1] - y_mm  # PDF's origin is bottom-left

    def image(self, grey: np.ndarray, x: float, y: float, w: float, h: float) -> None:
        """Place an 8-bit grey image with its top-left corner at (x, y), ``w`` x ``h`` mm."""
        if grey.dtype != np.uint8 or grey.ndim != 2:
            raise ValueError("image must be a 2-D uint8 (grey) array")
        self.images.append((grey, x, y, w, h))

    def line(
        self,
        x0: float,
        y0: float,
        x1: float,
        y1: float,
        width: float = 0.2,
        dash_mm: float | None = None,
    ) -> None:
        dash = f"[{_pt(dash_mm)} {_pt(dash_mm)}] 0 d" if dash_mm else "[] 0 d"
        self.ops.append(
            f"{dash} {_pt(width)} w {_pt(x0)} {_pt(self._y(y0))} m {_pt(x1)} {_pt(self._y(y1))} l S"
        )

    def rect(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        width: float = 0.2,
        dash_mm: float | None = None,
    ) -> None:
        for a, b in (
            ((x, y), (x + w, y)),
            ((x + w, y), (x + w, y + h)),
            ((x + w, y + h), (x, y + h)),
            ((x, y + h), (x, y)),
        ):
            self.line(a[0], a[1], b[0], b[1], width, dash_mm)

    def text(self, x: float, y: float, s: str, size_pt: float = 10.0) -> None:
        """Helvetica text with its baseline starting at (x, y) mm. ASCII only."""
        if not s.isascii():
            raise ValueError("the marker sheet's text must be ASCII")
        esc = s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        self.ops.append(f"BT /F1 {size_pt:.1f} Tf {_pt(x)} {_pt(self._y(y))} Td ({esc}) Tj ET")


def write_pdf(pages: list[Page]) -> bytes:
    """Serialise ``pages`` to PDF 1.4 bytes (Flate-compressed images and contents)."""
    objs: list[bytes] = []

    def add(body: bytes) -> int:
        objs.append(body)
        return len(objs)

    catalog = add(b"")  # filled at the end
    pages_id = add(b"")
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    kids = []
    for page in pages:
        xobjs = []
        content = []
        for k, (img, x, y, w, h) in enumerate(page.images):
            data = zlib.compress(np.ascontiguousarray(img).tobytes(), 9)
            hdr = (
                f"<< /Type /XObject /Subtype /Image /Width {img.shape[1]} /Height "
                f"{img.shape[0]} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter "
                f"/FlateDecode /Interpolate false /Length {len(data)} >>"
            ).encode()
            oid = add(hdr + b"\nstream\n" + data + b"\nendstream")
            xobjs.append(f"/Im{k} {oid} 0 R")
            content.append(f"q {_pt(w)} 0 0 {_pt(h)} {_pt(x)} {_pt(page._y(y + h))} cm /Im{k} Do Q")
        content += page.ops
        stream = zlib.compress("\n".join(content).encode("ascii"), 9)
        cid = add(
            f"<< /Length {len(stream)} /Filter /FlateDecode >>".encode()
            + b"\nstream\n"
            + stream
            + b"\nendstream"
        )
        res = f"<< /Font << /F1 {font} 0 R >> /XObject << {' '.join(xobjs)} >> >>"
        pid = add(
            f"<< /Type /Page /Parent {pages_id} 0 R /MediaBox [0 0 {_pt(page.size_mm[0])} "
            f"{_pt(page.size_mm[1])}] /Resources {res} /Contents {cid} 0 R >>".encode()
        )
        kids.append(pid)
    objs[catalog - 1] = f"<< /Type /Catalog /Pages {pages_id} 0 R >>".encode()
    objs[pages_id - 1] = (
        f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] /Count {len(kids)} >>"
    ).encode()
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objs, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objs) + 1} /Root {catalog} 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    ).encode()
    return bytes(out)
