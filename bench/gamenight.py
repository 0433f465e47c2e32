"""Game night's figures (issue 13): how soon a newcomer's `make demo` is clickable, how soon the
table's page paints on a phone-class CPU, how heavy the page is, and `pyramid simulate`'s wall.

- ``demo_clickable_s``: a warm `make demo` (the venv exists: `pyramid demo`, MQTT on, the default
  speed) from the process start to the dashboard's page live in Chromium with its first game on
  it and a button to tap. Target <= 5 s.
- ``first_paint_x4_ms``: the table page of a game in play, Chromium's CPU throttled x4 (DevTools'
  Emulation.setCPUThrottlingRate), first contentful paint; ``live_x4_ms`` until the stream is
  live and the board is drawn. Target <= 1500 ms.
- ``page_bytes``: the table page's own JavaScript and CSS (the static files index.html loads),
  raw and gzipped. Target <= 150 KB.
- ``simulate_1000_s``: `pyramid simulate --games 1000 --players 4 --bots advisor,random`, wall
  time on this machine (every core). Target <= 60 s.
"""

from __future__ import annotations

import gzip
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
STATIC = REPO / "hub" / "dashboard" / "static"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


TEMPLATE = REPO / "hub" / "dashboard" / "templates" / "index.html"


def page_files() -> list[Path]:
    """The JavaScript and CSS the table's page loads: the static files its template names and
    the games' own scripts (their drivers', hub.dashboard.app.game_scripts); the set-up page's
    own files, also in static/, are not part of the table's page."""
    import re

    from hub.dashboard.app import game_scripts

    names = re.findall(r"filename='([^']+\.(?:js|css))'", TEMPLATE.read_text()) + game_scripts()
    files = [STATIC / n for n in dict.fromkeys(names)]
    missing = [f.name for f in files if not f.exists()]
    if missing or not files:
        raise RuntimeError(f"the table's page names static files that are not there: {missing}")
    return files


def page_bytes() -> dict[str, int]:
    files = page_files()
    raw = sum(p.stat().st_size for p in files)
    gz = sum(len(gzip.compress(p.read_bytes())) for p in files)
    return {"page_bytes": raw, "page_bytes_gzip": gz, "page_files": len(files)}


READY = (
    "document.body.dataset.conn === 'live' && document.querySelectorAll('.space .camel').length > 0"
)


def _wait(page: Any, expression: str, timeout: float = 60.0) -> None:
    """Poll ``expression`` (the page's CSP refuses wait_for_function's eval)."""
    end = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > end:
            raise TimeoutError(expression)
        time.sleep(0.01)


def _browser() -> tuple[Any, Any]:
    from playwright.sync_api import sync_playwright

    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    pw = sync_playwright().start()
    return pw, pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)


def first_paint(runs: int = 5) -> dict[str, float]:
    from hub.dashboard import create_app
    from hub.dashboard.server import ServerThread
    from hub.session import TableSession
    from hub.store import Store

    tmp = tempfile.TemporaryDirectory()
    store = Store(Path(tmp.name) / "bench.db")
    session = TableSession("bench", store, pin="2468", odds=False, advice=False)
    session.start_game(["Ann", "Bob", "Cy", "Di"], seed=5)
    for action in ("leg:blue", "desert:7:oasis", "roll", "leg:green", "roll", "roll"):
        who = session.game.current_player
        session.request("action", {"player": who, "action": action}, {"pin": "2468"})
    paints, lives = [], []
    pw, browser = _browser()
    try:
        with ServerThread(create_app(session)) as srv:
            for _ in range(runs):
                context = browser.new_context(viewport={"width": 390, "height": 844})
                page = context.new_page()
                cdp = context.new_cdp_session(page)
                cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
                page.goto(srv.url + "/")
                _wait(page, READY)
                live = page.evaluate("performance.now()")
                fcp = page.evaluate(
                    "(performance.getEntriesByName('first-contentful-paint')[0]"
                    " || {}).startTime || null"
                )
                if fcp is not None:
                    paints.append(float(fcp))
                lives.append(float(live))
                context.close()
    finally:
        browser.close()
        pw.stop()
        session.close()
        store.close()
        tmp.cleanup()
    return {
        "first_paint_x4_ms": round(statistics.median(paints), 1) if paints else -1.0,
        "live_x4_ms": round(statistics.median(lives), 1),
        "first_paint_runs": runs,
    }


def demo_clickable(runs: int = 3) -> dict[str, float]:
    from hub.mqtt.broker import free_port

    times = []
    pw, browser = _browser()
    try:
        for _ in range(runs):
            port = free_port()
            t0 = time.monotonic()
            proc = subprocess.Popen(
                [
                    str(REPO / ".venv" / "bin" / "pyramid"),
                    "demo",
                    "--http-host",
                    "127.0.0.1",
                    "--http-port",
                    str(port),
                    "--pin",
                    "2468",
                    "--db",
                    str(Path(tempfile.mkdtemp()) / "demo.db"),
                ],
                cwd=REPO,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            try:
                assert proc.stdout is not None
                for line in proc.stdout:
                    if line.startswith("game "):  # the first game is on the table
                        break
                page = browser.new_page()
                page.goto(f"http://127.0.0.1:{port}/")
                _wait(page, READY)
                times.append(time.monotonic() - t0)
                page.close()
            finally:
                proc.terminate()
                proc.wait(30)
    finally:
        browser.close()
        pw.stop()
    return {
        "demo_clickable_s": round(statistics.median(times), 2),
        "demo_clickable_max_s": round(max(times), 2),
        "demo_runs": runs,
    }


def simulate_wall(games: int = 1000) -> dict[str, float]:
    t0 = time.monotonic()
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "hub.cli",
            "simulate",
            "--games",
            str(games),
            "--players",
            "4",
            "--bots",
            "advisor,random",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.monotonic() - t0
    return {
        "simulate_1000_s": round(wall, 1),
        "simulate_games": games,
        "simulate_cores": os.cpu_count() or 1,
        "simulate_ok": "games" in out.stdout,
    }


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    out.update(page_bytes())
    out.update(first_paint())
    out.update(demo_clickable())
    out.update(simulate_wall())
    return out


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
