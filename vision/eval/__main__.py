"""`make eval-vision`: the accuracy figures of the dice reader and the track reader.

Each part lives in its own module (vision.eval.dice, vision.eval.track, and vision.eval.table:
the track on realistic tables after their set-up) with a ``main(argv)``
that prints its report; this module runs both so one command gives every figure.
"""

from __future__ import annotations

import importlib
import sys


def main(argv: list[str] | None = None) -> int:
    status = 0
    for name in ("vision.eval.dice", "vision.eval.track", "vision.eval.table"):
        module = importlib.import_module(name)
        status |= int(module.main(list(argv or [])) or 0)
    return status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
