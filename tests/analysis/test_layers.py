"""The layers of a run's numbers import downward only: records, analysis, results, report.

Read from the source (every import, including those under ``TYPE_CHECKING`` and inside
functions), so that a lazy import cannot hide a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import modelscape

PACKAGE = Path(modelscape.__file__).resolve().parent
#: Lowest first: each may import those before it, never one after it.
LAYERS = ("records", "analysis", "results", "report")
#: What sits above all of them, and none of them may import.
ABOVE = ("pages", "site", "cli", "scenario", "builder")


def _modules() -> dict[str, Path]:
    found = {}
    for file in PACKAGE.rglob("*.py"):
        parts = file.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = file
    return found


def _imports(file: Path, modules: dict[str, Path]) -> set[str]:
    """The modelscape modules a file imports, by their module names."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names] + [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            if not name.startswith("modelscape."):
                continue
            while name not in modules:
                name = name.rpartition(".")[0]
            if name != "modelscape":
                found.add(name)
    return found


def _layer(module: str) -> str:
    """The subpackage (or top-level module) a module belongs to."""
    return module.split(".")[1] if "." in module else ""


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(file, modules) - {name} for name, file in modules.items()}


def test_no_layer_imports_one_above_it() -> None:
    upward = []
    for module, imported in _graph().items():
        if _layer(module) not in LAYERS:
            continue
        level = LAYERS.index(_layer(module))
        for target in imported:
            layer = _layer(target)
            higher = layer in LAYERS and LAYERS.index(layer) > level
            if higher or layer in ABOVE:
                upward.append(f"{module} -> {target}")
    assert upward == []


def test_no_import_cycle_among_the_layers() -> None:
    graph = _graph()
    inside = {m: {t for t in ts if _layer(t) in LAYERS} for m, ts in graph.items()}
    inside = {m: ts for m, ts in inside.items() if _layer(m) in LAYERS}
    cycles = []
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(inside.get(module, ())):
            if state.get(target) == 1:
                cycles.append(" -> ".join([*path[path.index(target) :], target]))
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(inside):
        if module not in state:
            visit(module, [module])
    assert cycles == []
