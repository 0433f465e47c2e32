"""QR codes of the players' own links, drawn locally by segno (no web service, no internet)."""

from __future__ import annotations

import io

import segno

__all__ = ["qr_svg", "qr_text"]


def qr_text(url: str) -> str:
    """``url`` as a QR code drawn with block characters, for a terminal (the demo prints it)."""
    buf = io.StringIO()
    segno.make(url, error="m", micro=False).terminal(out=buf, compact=True, border=2)
    return buf.getvalue()


def qr_svg(url: str, *, scale: int = 4, title: str = "scan to open your own link") -> str:
    """An inline SVG (no XML declaration) encoding ``url``; error correction M survives a
    phone camera at an angle over a table.

    >>> qr_svg("http://pyramid.local/p/abc").startswith("<svg")
    True
    """
    buf = io.BytesIO()
    segno.make(url, error="m", micro=False).save(
        buf,
        kind="svg",
        scale=scale,
        border=2,
        xmldecl=False,
        svgns=True,
        nl=False,
        omitsize=True,
        title=title,
    )
    return buf.getvalue().decode("utf-8")
