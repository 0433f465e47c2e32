"""Run every benchmark suite and write bench/results.json.

Each suite is a module in this folder with a ``run() -> dict`` function. Timings are medians and
percentiles over repeated runs on this machine; they belong here, never in timed tests, because
shared machines are noisy.
"""

from __future__ import annotations

import importlib
import json
import platform
import sys
import time
import traceback
from pathlib import Path

SUITES = [
    "bench.camelup_odds",
    "bench.camelup_advisor",
    "bench.camelup2",
    "bench.vision_dice",
    "bench.vision_greydie",
    "bench.vision_track",
    "bench.vision_table",
    "bench.hub",
    "bench.dashboard",
    "bench.firmware",
    "bench.othergames",
    "bench.demo",
    "bench.gamenight",
    "bench.delivery",
]


def main(argv: list[str] | None = None) -> int:
    wanted = argv if argv is not None else sys.argv[1:]
    known = [name.rsplit(".", 1)[1] for name in SUITES]
    unknown = [w for w in wanted if w not in known]
    if unknown:
        # a typo or a --help must not run nothing and still rewrite the results' date
        print(f"usage: python -m bench.run [SUITE ...]; unknown: {' '.join(unknown)}")
        print(f"suites: {' '.join(known)}")
        return 2
    out_path = Path(__file__).with_name("results.json")
    previous = json.loads(out_path.read_text()) if out_path.exists() else {}
    results: dict = dict(previous.get("suites", {}))
    failed = False
    for name in SUITES:
        short = name.rsplit(".", 1)[1]
        if wanted and short not in wanted:
            continue
        print(f"== {short}", flush=True)
        t0 = time.perf_counter()
        try:
            module = importlib.import_module(name)
            results[short] = module.run()
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            print(f"   (no suite {name} yet)")
            continue
        except Exception:  # one broken suite must not hide the others' figures
            traceback.print_exc()
            results[short] = {"error": traceback.format_exc(limit=3)}
            failed = True
        results[short]["_seconds"] = round(time.perf_counter() - t0, 1)
        print(json.dumps(results[short], indent=2), flush=True)
    report = {
        "machine": {
            "python": platform.python_version(),
            "processor": platform.machine(),
            "system": platform.platform(),
        },
        "written": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "suites": results,
    }
    out_path.write_text(json.dumps(report, indent=2) + "\n")
    print(f"written {out_path}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
