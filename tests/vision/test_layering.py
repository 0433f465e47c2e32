"""vision's top-level modules (the board, the track, the table set-up, their light) are layered:
they import each other at the top only, without a cycle, and none uses another's private names.

Why a test: vision/table.py and vision/track.py once imported each other inside functions, the
set-up calling four private helpers of the track reader; that works until someone moves a line.
The light and the empty board's look now live in vision/board_light.py and vision/background.py,
below both. Imports under ``if TYPE_CHECKING:`` are annotations only and do not count.
(vision/dice has its own test: tests/vision/test_dice_layering.py.)
"""

from __future__ import annotations

import ast
from pathlib import Path

VISION = Path(__file__).resolve().parents[2] / "vision"


def _modules() -> dict[str, ast.Module]:
    """The modules the Pi runs (the evaluation tools are the package vision/eval/, apart)."""
    return {p.stem: ast.parse(p.read_text(), str(p)) for p in sorted(VISION.glob("*.py"))}


def _run_time_imports(tree: ast.Module) -> list[ast.ImportFrom | ast.Import]:
    """Import statements outside ``if TYPE_CHECKING:`` blocks."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom) and id(n) not in skip
    ]


def _top_level_targets(node: ast.Import | ast.ImportFrom) -> set[str]:
    """The vision top-level modules (``vision.x`` with x.py beside this package) imported."""
    if isinstance(node, ast.ImportFrom):
        names = [node.module or ""]
    else:
        names = [a.name for a in node.names]
    out: set[str] = set()
    for name in names:
        parts = name.split(".")
        if len(parts) >= 2 and parts[0] == "vision" and (VISION / f"{parts[1]}.py").is_file():
            out.add(parts[1])
    if isinstance(node, ast.ImportFrom) and node.module == "vision":
        out |= {a.name for a in node.names if (VISION / f"{a.name}.py").is_file()}
    return out


def test_no_vision_import_inside_a_function() -> None:
    for name, tree in _modules().items():
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = [
                    n
                    for n in ast.walk(fn)
                    if isinstance(n, ast.Import | ast.ImportFrom) and _top_level_targets(n)
                ]
                assert not inner, f"vision/{name}.py: {fn.name} imports vision inside its body"


def test_the_modules_import_each_other_without_a_cycle() -> None:
    graph = {
        name: set().union(*(_top_level_targets(n) for n in _run_time_imports(tree))) - {name}
        for name, tree in _modules().items()
    }
    done: set[str] = set()

    def visit(node: str, path: tuple[str, ...]) -> None:
        assert node not in path, f"import cycle: {' -> '.join((*path, node))}"
        if node in done:
            return
        for nxt in sorted(graph.get(node, set())):
            visit(nxt, (*path, node))
        done.add(node)

    for name in sorted(graph):
        visit(name, ())
    # the test looks at the modules it is about: the set-up imports the reader, not back
    assert "track" in graph["table"] and "table" not in graph["track"]
    assert {"board_light", "background"} <= graph["track"] & graph["table"]


def test_no_module_uses_another_modules_private_names() -> None:
    for name, tree in _modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("vision"):
                bad = [a.name for a in node.names if a.name.startswith("_")]
                assert not bad, f"vision/{name}.py imports private {bad} from {node.module}"
