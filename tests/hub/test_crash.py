"""Kill -9 the hub at random moments of a seeded simulated game; the finished game must equal
the same seeded game played without a kill, event for event (the bench does 50 kills)."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hub import simtable
from hub.session import TableSession
from hub.store import Store

REPO = Path(__file__).resolve().parents[2]


def reference_log(tmp: Path, seed: str) -> list[dict]:
    s = TableSession("sim", Store(tmp / "ref.db"), odds=False, advice=False)
    simtable.play(s, seed)
    return simtable.comparable_log(s)


def run_with_kills(
    db: Path, seed: str, kills: int, rng: random.Random, delay: float = 0.004
) -> list[int]:
    """Run the simulated table in a subprocess, SIGKILL it ``kills`` times, let it finish.

    Returns the log's last seq at each kill (where in the game each one struck)."""
    cmd = [
        sys.executable,
        "-m",
        "hub.simtable",
        "--db",
        str(db),
        "--seed",
        seed,
        "--delay",
        str(delay),
    ]
    done = 0
    at: list[int] = []
    while True:
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        ready = proc.stdout.readline()
        assert ready.startswith("ready"), ready
        if done < kills:
            time.sleep(rng.uniform(0.0, 0.15))
            proc.kill()  # SIGKILL: no cleanup, maybe in the middle of a commit
            proc.wait()
            done += 1
            at.append(Store(db).last_seq("sim"))
            continue
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0, out
        return at


@pytest.mark.slow
def test_killed_hub_finishes_the_same_game(tmp_path: Path) -> None:
    seed = "crash-7"
    want = reference_log(tmp_path, seed)
    db = tmp_path / "killed.db"
    at = run_with_kills(db, seed, kills=4, rng=random.Random(7))
    s = TableSession("sim", Store(db), odds=False, advice=False)
    got = simtable.comparable_log(s)
    assert len(at) == 4 and any(0 < seq < len(want) for seq in at), at  # kills struck mid-game
    assert s.game is not None and s.game.finished
    assert got == want
