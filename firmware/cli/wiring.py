"""`pyramid wiring`: draw the wiring diagram (SVG) from hardware/pinmap.yaml.

`pyramid wiring --out hardware/wiring.svg` refreshes the committed drawing after the pin map
changed; `--check` tells whether the committed drawing is still what the pin map gives (exit 1
if not), for CI and for a builder who wonders whether the picture is current.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from firmware.wiring import wiring_svg
from hardware.pinmap import PinMapError, default_pinmap_path, load_pinmap


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--pinmap", type=Path, default=None, help="pin map YAML (default: hardware/pinmap.yaml)"
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="write the SVG here (default: standard output)"
    )
    parser.add_argument(
        "--readme",
        type=Path,
        default=None,
        help="also rewrite the wiring table in this build guide (between its markers)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="do not write: exit 1 if --out (and --readme) differ from fresh",
    )


def run(args: argparse.Namespace) -> int:
    source = args.pinmap or default_pinmap_path()
    try:
        pinmap = load_pinmap(source)
    except PinMapError as exc:
        print(f"pyramid wiring: {exc.source} is not a usable pin map:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  - {problem}", file=sys.stderr)
        return 2
    for warning in pinmap.warnings():
        print(f"pyramid wiring: warning: {warning}", file=sys.stderr)
    svg = wiring_svg(pinmap)
    readme = getattr(args, "readme", None)
    if readme is not None:
        from firmware.wiring import replace_table, wiring_table

        try:
            current_md = readme.read_text(encoding="utf-8")
            fresh_md = replace_table(current_md, wiring_table(pinmap))
        except (OSError, ValueError) as exc:
            print(f"pyramid wiring: {readme}: {exc}", file=sys.stderr)
            return 1
        if args.check:
            if current_md != fresh_md:
                print(
                    f"pyramid wiring: the wiring table in {readme} is out of date with "
                    f"{source}; run `pyramid wiring --readme {readme}`",
                    file=sys.stderr,
                )
                return 1
        elif current_md != fresh_md:
            readme.write_text(fresh_md, encoding="utf-8")
            print(f"wrote the wiring table of {readme} from {source}", file=sys.stderr)
        if args.out is None:
            if args.check:
                print(f"{readme} matches {source}")
            return 0

    if args.check:
        if args.out is None:
            print("pyramid wiring: --check needs --out FILE to compare with", file=sys.stderr)
            return 2
        try:
            current = args.out.read_text(encoding="utf-8")
        except OSError as exc:
            print(f"pyramid wiring: cannot read {args.out}: {exc.strerror}", file=sys.stderr)
            return 1
        if current != svg:
            print(
                f"pyramid wiring: {args.out} is out of date with {source}; run "
                f"`pyramid wiring --out {args.out}`",
                file=sys.stderr,
            )
            return 1
        print(f"{args.out} matches {source}")
        return 0

    if args.out is None:
        sys.stdout.write(svg)
        return 0
    try:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(svg, encoding="utf-8")
    except OSError as exc:
        print(f"pyramid wiring: cannot write {args.out}: {exc.strerror}", file=sys.stderr)
        return 1
    print(f"wrote {args.out} from {source}", file=sys.stderr)
    return 0
