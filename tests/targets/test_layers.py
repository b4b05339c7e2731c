"""The target protocol sits below everything that uses it, and no cycle joins the packages of
targets: checked on the source, every import counted (at the top, inside a function, or
lazily), except those made only for type checking."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import modelscape

PACKAGE = Path(modelscape.__file__).parent
# The four packages of targets, and what each may not import.
FORBIDDEN = {
    "modelscape.target": ("modelscape.execution", "modelscape.providers", "modelscape.targets"),
    "modelscape.execution": ("modelscape.providers", "modelscape.targets"),
    "modelscape.providers": ("modelscape.execution", "modelscape.targets"),
    "modelscape.targets": ("modelscape.execution", "modelscape.providers"),
}
# Modules below execution that read target outputs: they import the protocol from
# modelscape.target, never from a package above them.
LOWER = ("modelscape.answers", "modelscape.measures", "modelscape.results", "modelscape.store")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(path: Path) -> Iterator[str]:
    """Every modelscape module ``path`` imports, anywhere but under ``if TYPE_CHECKING``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _type_checking(node):
            skipped.update(id(inner) for child in node.body for inner in ast.walk(child))
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith("modelscape"))
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").startswith("modelscape")
        ):
            yield str(node.module)


def graph() -> dict[str, set[str]]:
    return {module_name(p): set(imports(p)) for p in PACKAGE.rglob("*.py")}


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_no_package_of_targets_imports_one_it_must_not() -> None:
    found = [
        f"{module} imports {imported}"
        for module, imported_set in graph().items()
        for package, forbidden in FORBIDDEN.items()
        if within(module, package)
        for imported in imported_set
        if any(within(imported, f) for f in forbidden)
    ]
    assert found == []


def test_readers_of_outputs_import_the_protocol_from_below() -> None:
    found = [
        f"{module} imports {imported}"
        for module, imported_set in graph().items()
        if any(within(module, lower) for lower in LOWER)
        for imported in imported_set
        if any(within(imported, upper) for upper in FORBIDDEN if upper != "modelscape.target")
    ]
    assert found == []


def test_no_import_cycle_among_the_modules_of_targets() -> None:
    edges = {
        module: {i for i in imported if any(within(i, p) for p in FORBIDDEN)}
        for module, imported in graph().items()
        if any(within(module, p) for p in FORBIDDEN)
    }
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        for nxt in sorted(edges.get(module, ())):
            if nxt in path:
                cycles.append([*path[path.index(nxt) :], nxt])
            elif nxt not in done:
                visit(nxt, [*path, nxt])
        done.add(module)

    done: set[str] = set()
    for start in sorted(edges):
        if start not in done:
            visit(start, [start])
    # A package's __init__ importing its own modules is not a cycle of concern: an edge to
    # it from one of its modules is only how "from package import name" is spelled.
    real = [c for c in cycles if not any(within(c[i], c[i + 1]) for i in range(len(c) - 1))]
    assert real == []
