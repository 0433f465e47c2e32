"""Hub benchmarks: MQTT latency, 200 tables through one mosquitto, RSS of a hub, kill -9 x50.

    python -m bench.run hub          # all of them -> bench/results.json
    python -m bench.hub latency      # one part, printed

Figures (targets from issue 4):
- ``latency``: a die reading entering the hub (``session.observe("die")``) -> its ``die_read``
  event at an MQTT subscriber through a real mosquitto on loopback; p95 < 20 ms.
- ``tables``: 200 simulated tables (2 processes of 100 sessions + bridges, one driver thread each,
  a third process subscribing to ``camelup/+/event``) at full speed: every event arrives, in seq
  order per table; subscriber-side latency (event logged -> received) percentiles.
- ``rss``: resident memory of one table's hub (session + MQTT bridge + dashboard app, after a
  whole simulated game with odds); target < 120 MB.
- ``kills``: kill -9 the simulated table's hub at 50 random moments across seeded games; each
  finished game must equal the same seeded game played without a kill, event for event.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    if not s:
        return float("nan")
    k = min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))
    return s[k]


def _summary_ms(values: list[float]) -> dict[str, float]:
    ms = [v * 1000 for v in values]
    return {
        "n": len(ms),
        "p50_ms": round(_pct(ms, 50), 2),
        "p95_ms": round(_pct(ms, 95), 2),
        "p99_ms": round(_pct(ms, 99), 2),
        "max_ms": round(max(ms), 2) if ms else None,
        "mean_ms": round(statistics.fmean(ms), 2) if ms else None,
    }


# -- die read -> MQTT subscriber ------------------------------------------------------------------


def latency(reads: int = 300, odds: bool = True, pause: float = 0.1) -> dict[str, Any]:
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    from hub.mqtt.bridge import MqttBridge
    from hub.mqtt.broker import EmbeddedBroker
    from hub.session import TableSession
    from hub.store import Store

    tmp = Path(tempfile.mkdtemp(prefix="bench-hub-"))
    arrived: dict[int, float] = {}
    cond = threading.Condition()

    def on_message(client: Any, userdata: Any, msg: Any) -> None:
        t = time.perf_counter()
        ev = json.loads(msg.payload)
        if ev["event_type"] == "die_read":
            with cond:
                arrived[ev["seq"]] = t
                cond.notify_all()

    from hub.derived import DerivedWorker

    worker = DerivedWorker().start() if odds else None
    with EmbeddedBroker() as broker:
        session = TableSession("lat", Store(tmp / "hub.db"), odds=odds, advice=odds, derived=worker)
        bridge = MqttBridge(session, broker.url, state_odds=odds).start()
        assert bridge.wait_connected(10)
        sub = mqtt.Client(CallbackAPIVersion.VERSION2)
        subscribed = threading.Event()
        sub.on_message = on_message
        sub.on_subscribe = lambda *a: subscribed.set()
        from hub.mqtt.access import Role

        _login(sub, broker.url_for(Role.READER))
        sub.connect("127.0.0.1", broker.port)
        sub.subscribe("camelup/lat/event", 1)
        sub.loop_start()
        subscribed.wait(10)
        rng = random.Random(1)
        samples: list[float] = []
        while len(samples) < reads:
            if not session.active:
                session.start_game(["Ann", "Bob", "Cy"], seed=len(samples), abandon=True)
            state = session.game.state  # type: ignore[union-attr]
            reading = {
                "colour": rng.choice(list(state.dice_left)),
                "face": rng.choice((1, 2, 3)),
                "confidence": 0.97,
            }
            before = session.seq
            t0 = time.perf_counter()
            answer = session.observe("die", reading)
            assert answer["ok"] and "events" in answer, answer
            seq = before + 1  # the die_read is the first event of the batch
            with cond:
                if not cond.wait_for(lambda s=seq: s in arrived, 10):
                    raise RuntimeError(f"die_read seq {seq} never reached the subscriber")
                samples.append(arrived[seq] - t0)
            time.sleep(pause)  # a table releases a die every few seconds, not back to back
        sub.disconnect()
        sub.loop_stop()
        bridge.stop()
    if worker is not None:
        worker.close()
    return {
        "die_read_to_subscriber": _summary_ms(samples),
        "with_odds": odds,
        "odds_in": "worker process" if odds else None,
        "target_p95_ms": 20,
    }


def store_append(n: int = 200) -> dict[str, Any]:
    """One durable commit of the event log (WAL, synchronous=FULL: an fsync): the floor under
    every latency above."""
    from hub.store import Store

    store = Store(Path(tempfile.mkdtemp(prefix="bench-store-")) / "hub.db")
    times = []
    for i in range(n):
        t0 = time.perf_counter()
        store.append("t", "g", [("hub", {"type": "x", "i": i})])
        times.append(time.perf_counter() - t0)
    return {"append_one_event": _summary_ms(times)}


# -- 200 tables -------------------------------------------------------------------------------


def _login(client: Any, url: str) -> None:
    """Set the user and password of ``url`` on a paho client (the broker refuses anonymous)."""
    from hub.mqtt.bridge import parse_broker_url

    cfg = parse_broker_url(url)
    if cfg.username:
        client.username_pw_set(cfg.username, cfg.password)


def _tables_worker(url: str, first: int, count: int, seconds: float, db_dir: str) -> None:
    """Child process: ``count`` tables, each a session + bridge, driven round-robin."""
    from hub import simtable
    from hub.mqtt.bridge import MqttBridge
    from hub.session import TableSession
    from hub.store import Store

    sessions, bridges = [], []
    for i in range(first, first + count):
        s = TableSession(
            f"b{i:03d}", Store(Path(db_dir) / f"b{i:03d}.db"), odds=False, advice=False
        )
        sessions.append(s)
        bridges.append(
            MqttBridge(s, url, discovery_prefix=None, state_odds=False, mark_interval=5.0).start()
        )
    for b in bridges:
        assert b.wait_connected(30)
    print("ready", flush=True)
    sys.stdin.readline()  # the parent says go once every worker is connected
    deadline = time.monotonic() + seconds
    games = 0
    while time.monotonic() < deadline:
        for s in sessions:
            if not s.active:
                s.start_game(simtable.PLAYERS, seed=f"{s.table_id}/{games}", abandon=True)
                games += 1
            simtable.step(s, f"{s.table_id}/{games}")
    for b in bridges:
        b.flush(60)
    print(json.dumps({"last": {s.table_id: s.seq for s in sessions}, "games": games}), flush=True)
    for b in bridges:
        b.stop(2)


def _tables_subscriber(url: str, out_path: str) -> None:
    """Child process: receive every table's events; record (table, seq, latency)."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    rows: list[tuple[str, int, float]] = []
    subscribed = threading.Event()

    def on_message(client: Any, userdata: Any, msg: Any) -> None:
        now = time.time()
        ev = json.loads(msg.payload)
        rows.append((ev["table"], ev["seq"], now - ev["ts"]))

    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-league")
    c.on_message = on_message
    c.on_subscribe = lambda *a: subscribed.set()
    _login(c, url)
    c.connect("127.0.0.1", int(url.rsplit(":", 1)[1]))
    c.subscribe("camelup/+/event", 1)
    c.loop_start()
    subscribed.wait(10)
    print("ready", flush=True)
    sys.stdin.readline()  # parent: all sent, wait for the tail then write
    last_n, quiet = -1, 0
    while quiet < 10:
        time.sleep(0.2)
        quiet = quiet + 1 if len(rows) == last_n else 0
        last_n = len(rows)
    Path(out_path).write_text(json.dumps(rows))
    print("done", flush=True)
    c.loop_stop()


def tables(n_tables: int = 200, processes: int = 2, seconds: float = 15.0) -> dict[str, Any]:
    from hub.mqtt.broker import EmbeddedBroker

    tmp = Path(tempfile.mkdtemp(prefix="bench-tables-"))
    with EmbeddedBroker() as broker:

        def spawn(*args: Any) -> subprocess.Popen[str]:
            return subprocess.Popen(
                [sys.executable, "-m", "bench.hub", *map(str, args)],
                cwd=REPO,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )

        from hub.mqtt.access import Role

        sub = spawn("_subscriber", broker.url_for(Role.READER), tmp / "rows.json")
        assert sub.stdout.readline().strip() == "ready"  # type: ignore[union-attr]
        per = n_tables // processes
        workers = [
            spawn("_worker", broker.url, i * per, per, seconds, tmp) for i in range(processes)
        ]
        for w in workers:
            line = w.stdout.readline().strip()  # type: ignore[union-attr]
            assert line == "ready", line
        t0 = time.monotonic()
        for w in workers:
            w.stdin.write("go\n")  # type: ignore[union-attr]
            w.stdin.flush()  # type: ignore[union-attr]
        results = [json.loads(w.stdout.readline()) for w in workers]  # type: ignore[union-attr]
        elapsed = time.monotonic() - t0
        for w in workers:
            w.wait(60)
        sub.stdin.write("go\n")  # type: ignore[union-attr]
        sub.stdin.flush()  # type: ignore[union-attr]
        sub.stdout.readline()  # type: ignore[union-attr]
        sub.wait(30)
    last: dict[str, int] = {}
    for r in results:
        last.update(r["last"])
    rows = json.loads((tmp / "rows.json").read_text())
    per_table: dict[str, list[int]] = {}
    lat: list[float] = []
    for table, seq, dt in rows:
        per_table.setdefault(table, []).append(seq)
        lat.append(dt)
    lost = duplicates = out_of_order = 0
    for table, final in last.items():
        seqs = per_table.get(table, [])
        seen = set(seqs)
        lost += sum(1 for s in range(1, final + 1) if s not in seen)
        duplicates += len(seqs) - len(seen)
        kept = [s for i, s in enumerate(seqs) if s not in seqs[:i]] if len(seqs) < 5000 else seqs
        out_of_order += sum(1 for a, b in zip(kept, kept[1:], strict=False) if b < a)
    total = sum(last.values())
    return {
        "tables": len(last),
        "processes": processes,
        "seconds": round(elapsed, 1),
        "events": total,
        "events_per_s": round(total / elapsed, 1),
        "games_started": sum(r["games"] for r in results),
        "received": len(rows),
        "lost": lost,
        "duplicates": duplicates,
        "out_of_order": out_of_order,
        "subscriber_latency": _summary_ms(lat),
    }


# -- RSS of one table's hub -------------------------------------------------------------------


def _rss_child() -> None:
    from hub import simtable
    from hub.derived import DerivedWorker
    from hub.mqtt.bridge import MqttBridge
    from hub.mqtt.broker import EmbeddedBroker
    from hub.session import TableSession
    from hub.store import Store

    tmp = Path(tempfile.mkdtemp(prefix="bench-rss-"))
    worker = DerivedWorker().start()  # as `pyramid hub` runs it
    with EmbeddedBroker() as broker:
        session = TableSession("rss", Store(tmp / "hub.db"), odds=True, advice=True, derived=worker)
        bridge = MqttBridge(session, broker.url).start()
        bridge.wait_connected(10)
        dashboard = None
        try:
            from hub.dashboard import create_app

            dashboard = create_app(session)
        except Exception as exc:  # the dashboard is optional for this figure
            print(f"no dashboard: {exc}", file=sys.stderr)
        for seed in range(3):
            if session.active:
                break
            simtable.play(session, f"rss-{seed}")
            session.snapshot()  # odds and advice of the final positions, as a page would ask
            session.start_game(simtable.PLAYERS, seed=f"rss-next-{seed}", abandon=True)
        for _ in range(30):  # a page asking for the snapshot (odds + advice) while playing
            simtable.step(session, "rss-live")
            session.snapshot()
        bridge.flush(10)

        def rss_mb(pid: str) -> float:
            status = Path(f"/proc/{pid}/status").read_text()
            kb = int(next(ln.split()[1] for ln in status.splitlines() if ln.startswith("VmRSS")))
            return round(kb / 1024, 1)

        pool = worker._pool  # noqa: SLF001
        worker_pids = [str(p) for p in (pool._processes if pool else {})]  # noqa: SLF001
        # VmHWM, not ru_maxrss: Linux carries ru_maxrss across exec, so a child of a big bench
        # process would report the parent's peak (216 MB once, for a 52 MB hub)
        status = Path("/proc/self/status").read_text()
        peak_kb = int(next(ln.split()[1] for ln in status.splitlines() if ln.startswith("VmHWM")))
        hub_mb = rss_mb("self")
        odds_mb = sum(rss_mb(pid) for pid in worker_pids)
        print(
            json.dumps(
                {
                    "hub_process_rss_mb": hub_mb,
                    "odds_worker_rss_mb": odds_mb,
                    "rss_mb": round(hub_mb + odds_mb, 1),
                    "hub_process_peak_rss_mb": round(peak_kb / 1024, 1),
                    "dashboard": dashboard is not None,
                    "events": session.seq,
                }
            )
        )
        bridge.stop()
        worker.close()


def rss() -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "bench.hub", "_rss"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return {**result, "target_mb": 120}


# -- kill -9 x50 ------------------------------------------------------------------------------


def kills(total: int = 50, seed: int = 50) -> dict[str, Any]:
    from hub import simtable
    from hub.session import TableSession
    from hub.store import Store

    rng = random.Random(seed)
    tmp = Path(tempfile.mkdtemp(prefix="bench-kills-"))
    done = games = mismatches = 0
    mid_game = 0
    restart_s: list[float] = []
    while done < total:
        game_seed = f"kill-{games}"
        ref = TableSession("sim", Store(tmp / f"ref{games}.db"), odds=False, advice=False)
        simtable.play(ref, game_seed)
        want = simtable.comparable_log(ref)
        db = tmp / f"killed{games}.db"
        cmd = [
            sys.executable,
            "-m",
            "hub.simtable",
            "--db",
            str(db),
            "--seed",
            game_seed,
            "--delay",
            "0.01",
        ]
        while True:
            t0 = time.perf_counter()
            proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, text=True)
            line = proc.stdout.readline()  # type: ignore[union-attr]
            restart_s.append(time.perf_counter() - t0)
            if not line.startswith("ready"):
                raise RuntimeError(f"the hub did not come back: {line!r}")
            before = Store(db).last_seq("sim")
            if done < total and before < len(want):
                time.sleep(rng.uniform(0.0, 0.12))
                proc.kill()
                proc.wait()
                done += 1
                if 0 < Store(db).last_seq("sim") < len(want):  # the game was on, not over
                    mid_game += 1
                continue
            proc.communicate(timeout=300)
            break
        got = simtable.comparable_log(TableSession("sim", Store(db), odds=False, advice=False))
        mismatches += got != want
        games += 1
    return {
        "kills": done,
        "kills_mid_game": mid_game,
        "games": games,
        "games_equal_to_unkilled": games - mismatches,
        "mismatches": mismatches,
        "restart_to_ready": _summary_ms(restart_s),
    }


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, fn in (
        ("store", store_append),
        ("latency", latency),
        ("latency_no_odds", lambda: latency(200, odds=False)),
        ("tables", tables),
        ("rss", rss),
        ("kills", kills),
    ):
        t0 = time.perf_counter()
        try:
            out[name] = fn()
        except Exception as exc:  # one broken part must not hide the others' figures
            out[name] = {"error": f"{type(exc).__name__}: {exc}"}
        out[name]["_seconds"] = round(time.perf_counter() - t0, 1)
    return out


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    if what == "_worker":
        _tables_worker(
            sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
        )
    elif what == "_subscriber":
        _tables_subscriber(sys.argv[2], sys.argv[3])
    elif what == "_rss":
        _rss_child()
    else:
        fns = {
            "store": store_append,
            "latency": latency,
            "tables": tables,
            "rss": rss,
            "kills": kills,
        }
        result = run() if what == "all" else fns[what]()
        print(json.dumps(result, indent=2))
    os._exit(0)
