#!/usr/bin/env python3
"""Build the Camel Up race tables (`make race-table`) into hub/games/camelup/data/.

race_table.npz: P(win) and P(lose) per rank slot for each of the 15,504 colour-free start-of-leg
positions; race_pairs.npz: P(slot i wins and slot j loses), the joint of the two. Both by backward
induction with the vectorised leg kernel (see hub/games/camelup/racetable.py). The build time is
stored in each file so the benchmark can report it without rebuilding.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hub.games.camelup import racetable  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=racetable.TABLE_PATH, help="output .npz")
    parser.add_argument("--batch", type=int, default=48, help="start positions per kernel run")
    parser.add_argument(
        "--pairs-out",
        type=Path,
        default=racetable.PAIRS_PATH,
        help="output .npz of the joint (winner, loser) table",
    )
    parser.add_argument(
        "--only",
        choices=["both", "marginals", "pairs"],
        default="both",
        help="which table(s) to build",
    )
    args = parser.parse_args(argv)

    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] > 2 or done == total:
            last[0] = now
            print(f"  {done:>6} / {total} positions", flush=True)

    if args.only in ("both", "marginals"):
        t0 = time.perf_counter()
        win, lose = racetable.build_table(batch=args.batch, progress=progress)
        seconds = time.perf_counter() - t0
        racetable.save_table(win, lose, args.out, seconds)
        size = args.out.stat().st_size
        print(
            f"race table: {racetable.N_CONFIGS} positions in {seconds:.1f} s -> {args.out} "
            f"({size / 1024:.0f} KiB)"
        )
    if args.only in ("both", "pairs"):
        t0 = time.perf_counter()
        # 25 cells per leaf instead of 5: a smaller batch keeps the arrays near 50 MB
        pairs = racetable.build_pairs_table(batch=max(1, args.batch // 6), progress=progress)
        seconds = time.perf_counter() - t0
        racetable.save_pairs_table(pairs, args.pairs_out, seconds)
        size = args.pairs_out.stat().st_size
        print(
            f"joint table: {racetable.N_CONFIGS} positions in {seconds:.1f} s -> "
            f"{args.pairs_out} ({size / 1024:.0f} KiB)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
