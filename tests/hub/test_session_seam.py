"""Nothing outside hub/session.py touches a TableSession's private names, and the session is the
size of a log, prompt and undo engine.

Why a test: hub.requests once reached into ``session._lock`` and ``_players()``, and the MQTT
bridge read ``session._engine_batches`` for the leg tallies; each worked until the session
changed, and the dashboard took the lock by name (``getattr(session, "_lock", ...)``), which an
attribute scan alone does not see. The dispatcher, the observations, the read side, the start,
the dashboard and the bridge now use the public API (``lock``, ``need_game``,
``live_engine_seqs``, ``commit_parts``, ...). The private names are read from the class
itself, so a new one is covered without editing this test.
"""

from __future__ import annotations

import ast
from pathlib import Path

from hub.session import TableSession

REPO = Path(__file__).resolve().parents[2]


def _private_names() -> set[str]:
    """Every ``_name`` the session defines: its methods and the attributes it sets on self."""
    tree = ast.parse((REPO / "hub" / "session.py").read_text())
    names = {n for n in vars(TableSession) if n.startswith("_") and not n.startswith("__")}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            names.add(node.attr)
    return names


def test_no_module_uses_the_sessions_private_names() -> None:
    private = _private_names()
    assert {"_commit", "_lock", "_engine_batches"} <= private  # the scan sees the session
    offenders = []
    for root in ("hub", "firmware"):
        for path in sorted((REPO / root).rglob("*.py")):
            if path == REPO / "hub" / "session.py":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                # another object's attribute of that name (``x._lock`` where x is not self)
                if (
                    isinstance(node, ast.Attribute)
                    and node.attr in private
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
                ):
                    offenders.append(f"{path.relative_to(REPO)}:{node.lineno} .{node.attr}")
                # the same reached by name: ``getattr(session, "_lock", ...)``
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "hasattr", "setattr")
                    and len(node.args) >= 2
                    and isinstance(node.args[1], ast.Constant)
                    and node.args[1].value in private
                ):
                    offenders.append(
                        f"{path.relative_to(REPO)}:{node.lineno} {node.args[1].value!r}"
                    )
    assert offenders == []


def test_the_session_is_about_the_size_of_its_one_job() -> None:
    lines = len((REPO / "hub" / "session.py").read_text().splitlines())
    assert lines <= 400, f"hub/session.py has {lines} lines: move what is not the log engine out"
