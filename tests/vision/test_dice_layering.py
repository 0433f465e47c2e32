"""vision.dice is layered: its modules import each other at the top only, without a cycle, and
none reaches into another's private names.

Why a test: a cycle hidden behind an import inside a function (the reader and the full-frame path
once called five private functions of each other that way) works until someone moves a line;
this fails at once instead.
"""

from __future__ import annotations

import ast
from pathlib import Path

DICE = Path(__file__).resolve().parents[2] / "vision" / "dice"


def _modules() -> dict[str, ast.Module]:
    return {p.stem: ast.parse(p.read_text(), str(p)) for p in sorted(DICE.glob("*.py"))}


def _dice_imports(tree: ast.AST) -> set[str]:
    """The vision.dice modules a tree imports (``from vision.dice import x`` names module x)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "vision.dice":
                out |= {a.name for a in node.names if (DICE / f"{a.name}.py").is_file()}
            elif node.module.startswith("vision.dice."):
                out.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            out |= {a.name.split(".")[2] for a in node.names if a.name.startswith("vision.dice.")}
    return out


def test_no_import_inside_a_function() -> None:
    for name, tree in _modules().items():
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = [n for n in ast.walk(fn) if isinstance(n, ast.Import | ast.ImportFrom)]
                assert not inner, f"vision/dice/{name}.py: {fn.name} imports inside its body"


def test_the_modules_import_each_other_without_a_cycle() -> None:
    graph = {name: _dice_imports(tree) - {name} for name, tree in _modules().items()}
    graph.pop("__init__")
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
    assert {"reasons", "reading", "pippath", "fullframe", "zone"} <= done


def test_no_module_uses_another_modules_private_names() -> None:
    mods = _modules()
    for name, tree in mods.items():
        aliases = {
            a.asname or a.name
            for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom) and n.module == "vision.dice"
            for a in n.names
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("vision."):
                bad = [a.name for a in node.names if a.name.startswith("_")]
                assert not bad, f"vision/dice/{name}.py imports private {bad} from {node.module}"
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr.startswith("_")
            ):
                raise AssertionError(f"vision/dice/{name}.py uses {node.value.id}.{node.attr}")
