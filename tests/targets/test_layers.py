"""The parts of :mod:`modelscape.targets` sit in layers, the protocol below everything that
uses it, and no cycle joins them: checked on the source, every import counted (at the top,
inside a function, or lazily), except those made only for type checking.

The layers, bottom up: the protocol (and what the runner and readers of outputs share with it),
the registry, then callable, reference and provider targets side by side, then resolution,
which alone knows every way of making a target. Execution uses the protocol and nothing that
makes a target.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import modelscape

PACKAGE = Path(modelscape.__file__).parent
#: The modules every layer may import: the protocol, answer shapes, cleaning, the call's clock
#: and the lifecycle of a run's targets.
PROTOCOL = (
    "modelscape.targets.protocol",
    "modelscape.targets._shape",
    "modelscape.targets._cleaning",
    "modelscape.targets._clock",
    "modelscape.targets._lifecycle",
)
REGISTRY = ("modelscape.targets.registry",)
CALLABLE = ("modelscape.targets._callable",)
REFERENCE = (
    "modelscape.targets._reference",
    "modelscape.targets._oracle",
    "modelscape.targets._reference_kinds",
)
PROVIDERS = ("modelscape.targets.providers",)
RESOLVE = ("modelscape.targets._resolve",)
EXECUTION = ("modelscape.execution",)
# The package itself holds no import outside TYPE_CHECKING; importing it names no layer, so
# the parts below must name the module they mean.
PACKAGE_ITSELF = ("modelscape.targets",)
#: Each part, and what it may not import.
FORBIDDEN = {
    PROTOCOL: (
        *PACKAGE_ITSELF,
        *REGISTRY,
        *CALLABLE,
        *REFERENCE,
        *PROVIDERS,
        *RESOLVE,
        *EXECUTION,
    ),
    REGISTRY: (*PACKAGE_ITSELF, *CALLABLE, *REFERENCE, *PROVIDERS, *RESOLVE, *EXECUTION),
    CALLABLE: (*PACKAGE_ITSELF, *REFERENCE, *PROVIDERS, *RESOLVE, *EXECUTION),
    REFERENCE: (*PACKAGE_ITSELF, *CALLABLE, *PROVIDERS, *RESOLVE, *EXECUTION),
    PROVIDERS: (*PACKAGE_ITSELF, *CALLABLE, *REFERENCE, *RESOLVE, *EXECUTION),
    RESOLVE: (*PACKAGE_ITSELF, *EXECUTION),
    EXECUTION: (*PACKAGE_ITSELF, *REGISTRY, *CALLABLE, *REFERENCE, *PROVIDERS, *RESOLVE),
}
# Modules below execution that read target outputs: of the targets package they import the
# protocol layer only.
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


def exact(module: str, part: tuple[str, ...]) -> bool:
    """Whether ``module`` belongs to ``part``; the package itself only when named alone."""
    return any(module == p or (p not in PACKAGE_ITSELF and within(module, p)) for p in part)


def test_no_part_of_targets_imports_one_it_must_not() -> None:
    found = [
        f"{module} imports {imported}"
        for module, imported_set in graph().items()
        for part, forbidden in FORBIDDEN.items()
        if exact(module, part)
        for imported in imported_set
        if exact(imported, forbidden)
    ]
    assert found == []


def test_the_check_sees_a_forbidden_import() -> None:
    assert exact("modelscape.targets.providers.openai", PROVIDERS)
    assert exact("modelscape.targets._resolve", FORBIDDEN[PROVIDERS])
    assert exact("modelscape.targets", FORBIDDEN[EXECUTION])
    assert not exact("modelscape.targets.protocol", FORBIDDEN[EXECUTION])


def test_readers_of_outputs_import_the_protocol_from_below() -> None:
    found = [
        f"{module} imports {imported}"
        for module, imported_set in graph().items()
        if any(within(module, lower) for lower in LOWER)
        for imported in imported_set
        if (within(imported, "modelscape.targets") and not exact(imported, PROTOCOL))
        or exact(imported, EXECUTION)
    ]
    assert found == []


def test_no_import_cycle_among_the_modules_of_targets() -> None:
    edges = {
        module: {i for i in imported if within(i, "modelscape.targets") or exact(i, EXECUTION)}
        for module, imported in graph().items()
        if within(module, "modelscape.targets") or exact(module, EXECUTION)
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
