"""`pyramid markers [--out markers.pdf] [--size-mm N]`: a printable A4 sheet of the board markers.

Print at 100 % and check the 100 mm bar; glue each marker where its label says (board.yaml).
A size other than board.yaml's is allowed, but then board.yaml's `markers.size` must be changed
to match, or the board will be measured wrongly.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default="markers.pdf", metavar="PDF", help="default markers.pdf")
    parser.add_argument(
        "--size-mm",
        type=float,
        default=None,
        metavar="N",
        help="side of each marker's black square in mm (default: board.yaml's)",
    )
    parser.add_argument(
        "--board", metavar="YAML", help="board geometry (default hardware/board.yaml)"
    )


def run(args: argparse.Namespace) -> int:
    from vision.board import load_geometry
    from vision.markers import marker_sheet_pdf

    geo = load_geometry(args.board)
    if args.size_mm is not None and not 10 <= args.size_mm <= 170:
        print(f"pyramid markers: --size-mm {args.size_mm} is outside 10..170 mm", file=sys.stderr)
        return 2
    pdf = marker_sheet_pdf(geo, args.size_mm)
    Path(args.out).write_bytes(pdf)
    size = args.size_mm or geo.marker_size
    print(f"wrote {args.out}: {len(geo.marker_centres)} markers, {size:g} mm, A4")
    if args.size_mm is not None and args.size_mm != geo.marker_size:
        print(
            f"note: board.yaml says markers.size: {geo.marker_size:g}; change it to {size:g}",
            file=sys.stderr,
        )
    return 0
