"""Odds and advice of a position, computed in a worker process.

Why a process: exact leg odds and the advisor take tens of milliseconds of CPU after every move
(seconds on a slow Pi at the start of a game). In the hub's own process that CPU time holds the
GIL while the next die reading is on its way to the log and the broker, and the event path slows
down by as much. In a worker process the event path never waits for the odds, and a Pi's second
core does the sums. If the worker cannot start or dies, the odds are computed in-process instead:
slower, never missing.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from hub.games.kinds import DEFAULT_GAME
from hub.games_glue import driver

log = logging.getLogger(__name__)

__all__ = ["compute", "DerivedWorker"]


def compute(
    state: Any, player: str | None, odds: bool, advice: bool, kind: str = DEFAULT_GAME
) -> dict[str, Any]:
    """{"odds": ..., "advice": ...} of a game's state (pure; runs in the worker or inline):
    what the game's driver derives (``Driver.derived``; none for a game with nothing to advise).
    ``kind`` travels instead of the driver so the worker process imports only that game."""
    return driver(kind).derived(state, player, odds, advice)


def _warm() -> bool:
    """Load the odds tables in the worker before the first real position arrives."""
    try:
        from hub.games.camelup import Game

        g = Game.new(["a", "b"], seed=0)
        compute(g.state, g.current_player, True, True)
    except Exception:  # warming is an optimisation only
        return False
    return True


def _worker_start(parent: int) -> None:
    """In the odds worker at its start: end with the hub (``die_with_parent``), and leave Ctrl-C
    to the hub. The terminal sends SIGINT to the whole process group; the worker, interrupted
    in its wait for work, printed a KeyboardInterrupt traceback and the hub logged it as dead,
    while the hub itself was stopping cleanly and closes the worker anyway."""
    from hub.mqtt.broker import die_with_parent

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent)


class DerivedWorker:
    """One worker process shared by the sessions of a hub process.

    Once :meth:`close` d it stays closed: a snapshot still being made by another thread while the
    hub stops computes its odds in-process. Before, such a late call started a new worker as the
    interpreter was exiting, which failed with a traceback on every Ctrl-C that came mid-move
    ("cannot schedule new futures after interpreter shutdown")."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self.failed = False
        self._closed = False

    def _get(self) -> ProcessPoolExecutor | None:
        with self._lock:
            if self._pool is None and not self.failed and not self._closed:
                try:
                    ctx = multiprocessing.get_context("spawn")  # no forked threads or sockets
                    # the worker asks Linux to end it when the hub dies, even by kill -9: no
                    # orphan (its resource tracker goes with it)
                    self._pool = ProcessPoolExecutor(
                        max_workers=1,
                        mp_context=ctx,
                        initializer=_worker_start,
                        initargs=(os.getpid(),),
                    )
                    self._pool.submit(_warm)
                except Exception:
                    log.exception("cannot start the odds worker: odds run in-process")
                    self.failed = True
            return self._pool

    def start(self) -> DerivedWorker:
        self._get()
        return self

    def compute(
        self,
        state: Any,
        player: str | None,
        odds: bool,
        advice: bool,
        kind: str = DEFAULT_GAME,
        timeout: float = 60.0,
    ) -> dict[str, Any]:
        pool = self._get()
        if pool is not None:
            try:
                future = pool.submit(compute, state, player, odds, advice, kind)
            except RuntimeError:  # shut down meanwhile (close(), or the interpreter exiting)
                return compute(state, player, odds, advice, kind)
            try:
                return future.result(timeout)
            except BrokenProcessPool:
                log.error("the odds worker died: odds run in-process from now on")
                with self._lock:
                    self.failed, self._pool = True, None
        return compute(state, player, odds, advice, kind)

    def close(self) -> None:
        with self._lock:
            pool, self._pool, self._closed = self._pool, None, True
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
