"""The newcomer's command line: `pyramid advise` on the README's example (the hub's own state),
`pyramid simulate` in worker processes, `pyramid games` finding the demo's log, and the demo's
port choice when the default one is busy."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

from firmware.cli.demo import free_port_from
from hub.games.camelup.simulate import simulate

REPO = Path(__file__).resolve().parents[2]


def _pyramid(*args: str, cwd: Path = REPO, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hub.cli", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_advise_reads_the_readmes_example_which_is_the_hubs_state() -> None:
    example = REPO / "docs" / "examples" / "position.json"
    readme = (REPO / "README.md").read_text()
    assert "pyramid advise --top 3 < docs/examples/position.json" in readme
    state = json.loads(example.read_text())
    assert "game" in state and "seq" in state  # the hub's state, not a bare view
    out = _pyramid("advise", "--top", "3", stdin=example.read_text())
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["player"] == state["game"]["current_player"]
    assert len(answer["actions"]) == 3
    # the bare view gives the same answer
    bare = _pyramid("advise", "--top", "3", stdin=json.dumps(state["game"]))
    assert json.loads(bare.stdout) == answer


def test_simulate_in_worker_processes_gives_the_serial_answer() -> None:
    seen: list[tuple[int, int]] = []
    serial = simulate(["advisor", "random"], 4, seed=3).summary()
    parallel = simulate(
        ["advisor", "random"], 4, seed=3, processes=2, progress=lambda d, n: seen.append((d, n))
    ).summary()
    assert parallel == serial
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_simulate_prints_no_progress_bar_when_not_on_a_terminal() -> None:
    out = _pyramid(
        "simulate", "--games", "2", "--players", "2", "--bots", "random", "--processes", "2"
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr == "" and "2 games" in out.stdout


def test_games_finds_the_demos_log_or_says_where_it_looks(tmp_path: Path) -> None:
    missing = _pyramid("games", cwd=tmp_path)  # no log here: it names both places
    assert missing.returncode == 2
    assert "var/hub.db" in missing.stderr and "var/demo.db" in missing.stderr
    from hub.bus import EventBus
    from hub.session import TableSession
    from hub.store import Store

    (tmp_path / "var").mkdir()
    store = Store(tmp_path / "var" / "demo.db")
    bus = EventBus("demo")
    try:
        TableSession("demo", store, bus, odds=False, advice=False).start_game(
            ["Ada", "Bo"], game="horserace", seed=1
        )
    finally:
        bus.close()
        store.close()
    env_out = subprocess.run(
        [sys.executable, "-m", "hub.cli", "games", "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )
    assert env_out.returncode == 0, env_out.stderr
    (row,) = [json.loads(x) for x in env_out.stdout.splitlines()]
    assert row["table"] == "demo" and row["kind"] == "horserace" and row["db"] == "var/demo.db"


def test_a_busy_default_port_moves_to_the_next_free_one() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        got = free_port_from("127.0.0.1", port, tries=20)
        assert got is not None and got > port
    assert free_port_from("127.0.0.1", port, tries=1) in (port, None)
