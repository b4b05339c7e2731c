"""Mutation testing: change the code in small ways and see whether the tests notice.

Each *mutant* is one small change to one expression of a package: an arithmetic or comparison
operator swapped (``+``/``-``, ``<``/``<=``, ``==``/``!=``, ``and``/``or``, ``is``/``is not``),
a ``not`` or unary minus dropped, a number moved by one, a boolean flipped. A sample of them
is drawn per package (seeded) and each is run in a scratch copy of the repository (the working
tree is never touched), stopping at the first failing test, under the Hypothesis profile CI
uses. A mutant is *killed* when a test fails or times out, and *survives* when every test passes.

A mutant runs only against the tests that execute its lines (scripts/mutation_coverage.py
records which, once per tree, and caches the map under build/): among its package's covering
tests (COVERING below), those that run the changed expression. One in code that runs outside
any test (a module body at import, say) runs against the whole covering folders; one that no
test executes at all is a survivor without running anything, and is listed as *unreached*.

Some mutants change nothing a caller could observe (an equivalent mutant: ``x >= 0`` for
``x > 0`` where x is never 0, a tolerance nobody reaches). They are listed with the reason in
``scripts/mutation-equivalent.json`` after review, and left out of the score, which is the
share of the other mutants killed, per package and overall, with its 95% interval.

    python scripts/mutation.py [--per-package 60] [--packages stats,analysis,pages]
                               [--seed 0] [--jobs 1] [--list] [--only TEXT] [--whole]

``--only`` runs the drawn mutants whose id contains the text (repeatable); ``--whole`` runs each
against its package's whole covering folders, as before the coverage map. Mutants inside
f-strings (messages), annotations and docstrings are never drawn: they change what is said,
not what is computed.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from mutation_coverage import CoverageMap, environment, load
from mutation_score import ERROR, KILLED, SURVIVED, UNREACHED, print_scores

ROOT = Path(__file__).resolve().parents[1]
EQUIVALENT = Path(__file__).with_name("mutation-equivalent.json")
#: The tests that cover each package; the browser and validator tests are left out for speed
#: (they check the same pages the other page tests read).
COVERING: dict[str, tuple[str, ...]] = {
    "stats": ("tests/stats",),
    "analysis": ("tests/analysis", "tests/report"),
    "records": ("tests/records", "tests/results", "tests/store", "tests/analysis"),
    "store": ("tests/store", "tests/execution"),
    "execution": ("tests/execution",),
    # the site's browser tests (marked slow) check pages the other site tests also read
    "site": ("tests/site", "-m", "not slow"),
    "pages": (
        "tests/pages/test_charts.py",
        "tests/pages/test_page.py",
        "tests/pages/test_report_page.py",
        "tests/pages/test_scenario_page.py",
        "tests/pages/test_cli_page.py",
    ),
}
#: What the scratch copy needs to run the tests.
COPIED = (
    "modelscape",
    "tests",
    "content",
    "themes",
    ".github",
    "pyproject.toml",
    "README.md",
    "CHANGELOG.md",
)

_BINARY = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Pow: ast.Mult,
    ast.BitAnd: ast.BitOr,
    ast.BitOr: ast.BitAnd,
    ast.Mod: ast.FloorDiv,
}
_COMPARE = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
_SYMBOL = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Pow: "**",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.Mod: "%",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.And: "and",
    ast.Or: "or",
}


@dataclass(frozen=True)
class Mutant:
    """One change: where, what, and the node path that finds it again in a fresh parse."""

    package: str
    path: str
    line: int
    column: int
    change: str
    #: The index of the node in the file's ast.walk order.
    node: int
    #: For comparisons, which operator of a chained comparison.
    position: int = 0
    #: The lines a test must execute to reach the change: the expression's own and the first
    #: line of the statement holding it.
    reached_by: tuple[int, ...] = ()

    @property
    def id(self) -> str:
        """A stable name: file, place and change."""
        return f"{self.path}:{self.line}:{self.column}: {self.change}"


def _typing_only(node: ast.AST) -> bool:
    """An ``if TYPE_CHECKING:`` block, or a TypeVar, cast or Literal: read by type checkers."""
    if isinstance(node, ast.If):
        return "TYPE_CHECKING" in ast.unparse(node.test)
    if isinstance(node, ast.Call):
        return ast.unparse(node.func).endswith(("TypeVar", "cast", "Literal"))
    return False


def _skipped_nodes(tree: ast.AST) -> set[int]:
    """Nodes never mutated: inside f-strings, annotations, docstrings or TYPE_CHECKING."""
    skipped: set[int] = set()

    def skip(node: ast.AST | None) -> None:
        if node is not None:
            skipped.update(id(inner) for inner in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            skip(node)
        elif isinstance(node, ast.AnnAssign | ast.arg):
            skip(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            skip(node.returns)
        elif _typing_only(node):
            skip(node)
    return skipped


def _sites(package: str, path: Path) -> Iterator[Mutant]:
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    skipped = _skipped_nodes(tree)
    relative = str(path.relative_to(ROOT))
    statement_of: dict[int, int] = {}
    for outer in ast.walk(tree):
        if isinstance(outer, ast.stmt):
            for inner in ast.walk(outer):
                # ast.walk goes outside in, so the innermost statement is written last
                statement_of[id(inner)] = outer.lineno
    for index, node in enumerate(ast.walk(tree)):
        if id(node) in skipped:
            continue
        where = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        end = getattr(node, "end_lineno", None) or where[0]
        reached = tuple(sorted({statement_of.get(id(node), where[0]), *range(where[0], end + 1)}))

        def mutant(
            change: str,
            position: int = 0,
            at: tuple[int, int] = where,
            node: int = index,
            lines: tuple[int, ...] = reached,
        ) -> Mutant:
            return Mutant(package, relative, at[0], at[1], change, node, position, lines)

        if isinstance(node, ast.BinOp | ast.AugAssign) and type(node.op) in _BINARY:
            old, new = _SYMBOL[type(node.op)], _SYMBOL[_BINARY[type(node.op)]]
            yield mutant(f"{old} -> {new}")
        elif isinstance(node, ast.Compare):
            for position, op in enumerate(node.ops):
                if type(op) in _COMPARE:
                    old, new = _SYMBOL[type(op)], _SYMBOL[_COMPARE[type(op)]]
                    yield mutant(f"{old} -> {new}", position)
        elif isinstance(node, ast.BoolOp):
            old = _SYMBOL[type(node.op)]
            yield mutant(f"{old} -> {'or' if old == 'and' else 'and'}")
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not | ast.USub):
            yield mutant(f"drop {'not' if isinstance(node.op, ast.Not) else 'unary -'}")
        elif isinstance(node, ast.Constant) and type(node.value) in (bool, int, float):
            value = node.value
            if isinstance(value, bool):
                yield mutant(f"{value} -> {not value}")
            else:
                yield mutant(f"{value!r} -> {value + 1!r}")


def _mutate(source: str, mutant: Mutant) -> str:
    """The source with one mutant applied (the file re-rendered by ast.unparse)."""
    tree = ast.parse(source)
    node = list(ast.walk(tree))[mutant.node]
    if isinstance(node, ast.BinOp | ast.AugAssign):
        node.op = _BINARY[type(node.op)]()
    elif isinstance(node, ast.Compare):
        node.ops[mutant.position] = _COMPARE[type(node.ops[mutant.position])]()
    elif isinstance(node, ast.BoolOp):
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif isinstance(node, ast.UnaryOp):
        replacement = copy.deepcopy(node.operand)
        for parent in ast.walk(tree):
            for field, value in ast.iter_fields(parent):
                if value is node:
                    setattr(parent, field, replacement)
                elif isinstance(value, list):
                    value[:] = [replacement if item is node else item for item in value]
    elif isinstance(node, ast.Constant):
        node.value = not node.value if isinstance(node.value, bool) else node.value + 1
    else:
        raise AssertionError(f"cannot apply {mutant.id}")
    return ast.unparse(ast.fix_missing_locations(tree))


def draw(packages: list[str], per_package: int, seed: int) -> list[Mutant]:
    """Up to ``per_package`` mutants of each package, drawn uniformly over its sites."""
    chosen: list[Mutant] = []
    for package in packages:
        sites = [
            site
            for path in sorted((ROOT / "modelscape" / package).rglob("*.py"))
            for site in _sites(package, path)
        ]
        rng = random.Random(f"{seed}:{package}")
        picked = sites if len(sites) <= per_package else rng.sample(sites, per_package)
        chosen.extend(sorted(picked, key=lambda m: (m.path, m.line, m.column, m.change)))
    return chosen


def _scratch() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="modelscape-mutation-"))
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, folder / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, folder / name)
    return folder


def _places(package: str) -> tuple[list[str], list[str]]:
    """The test folders or modules covering ``package``, and the options they run with."""
    places: list[str] = []
    options: list[str] = []
    arguments = iter(COVERING[package])
    for argument in arguments:
        if argument.startswith("-"):
            options.extend((argument, next(arguments)))
        else:
            places.append(argument)
    return places, options


def _groups(packages: list[str]) -> list[tuple[list[str], list[str]]]:
    """The covering places of ``packages``, each once, gathered by the options they run with."""
    gathered: dict[tuple[str, ...], list[str]] = {}
    for package in packages:
        places, options = _places(package)
        group = gathered.setdefault(tuple(options), [])
        group.extend(place for place in places if place not in group)
    return [(places, list(options)) for options, places in gathered.items()]


@dataclass(frozen=True)
class Plan:
    """How one mutant is run: against these tests, the whole folders, or not at all."""

    tests: tuple[str, ...]
    timeout: float
    whole: bool = False


def _plan(mutant: Mutant, test_map: CoverageMap | None, whole_seconds: float) -> Plan:
    places, _ = _places(mutant.package)
    if test_map is None or (
        not test_map.covering(mutant.path, mutant.reached_by, places)
        and test_map.reached_outside(mutant.path, mutant.reached_by)
    ):
        return Plan((), 3 * whole_seconds + 60, whole=True)
    chosen = test_map.covering(mutant.path, mutant.reached_by, places)
    seconds = sum(test_map.seconds[index] for index in chosen)
    return Plan(tuple(test_map.tests[index] for index in chosen), 3 * seconds + 60)


def _pytest(folder: Path, package: str, plan: Plan) -> str:
    """Run the plan's tests in ``folder``: killed, survived or error (a selection that failed)."""
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"]
    extra: dict[str, str] = {}
    if plan.whole:
        command.extend(COVERING[package])
    else:
        keep = folder / ".mutation-keep.txt"
        keep.write_text("\n".join(plan.tests), encoding="utf-8")
        modules = sorted({test.split("::", 1)[0] for test in plan.tests})
        command.extend(["-p", "mutation_plugin", *modules])
        extra["MODELSCAPE_MUTATION_KEEP"] = str(keep)
    try:
        done = subprocess.run(
            command,
            cwd=folder,
            env=environment(folder, **extra),
            capture_output=True,
            timeout=plan.timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return KILLED
    # 1: a test failed; 2: interrupted, as when a collected module fails to import; 3: an
    # internal error, as when a hook (the conftest's) raises. 4 and 5 (usage error, nothing
    # collected) mean the selection went wrong, which says nothing about the mutant.
    if done.returncode in (1, 2, 3):
        return KILLED
    return SURVIVED if done.returncode == 0 else ERROR


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packages", default="stats,analysis,records,store,execution,site,pages")
    parser.add_argument("--per-package", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--list", action="store_true", help="Only list the drawn mutants.")
    parser.add_argument("--only", action="append", default=[], help="Run ids containing this.")
    parser.add_argument("--whole", action="store_true", help="Run whole covering folders.")
    arguments = parser.parse_args()
    packages = arguments.packages.split(",")
    unknown = [p for p in packages if p not in COVERING]
    if unknown:
        parser.error(f"unknown packages {unknown}; choose from {sorted(COVERING)}")
    mutants = draw(packages, arguments.per_package, arguments.seed)
    if arguments.only:
        mutants = [m for m in mutants if any(text in m.id for text in arguments.only)]
    if arguments.list:
        for mutant in mutants:
            print(mutant.id)
        return
    equivalent: dict[str, str] = (
        json.loads(EQUIVALENT.read_text(encoding="utf-8")) if EQUIVALENT.exists() else {}
    )
    _warn_of_stale(equivalent, packages)
    folders = [_scratch() for _ in range(max(1, arguments.jobs))]
    try:
        test_map = (
            None
            if arguments.whole
            else load(folders[0], _groups(packages), COPIED, packages=packages)
        )
        # the whole folders' time, for the timeout of a mutant run against them
        whole_seconds = sum(test_map.seconds) if test_map else 3600.0
        outcomes = _run_all(mutants, equivalent, folders, test_map, whole_seconds)
    finally:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
    print_scores(packages, mutants, outcomes, equivalent)


def stale(equivalent: dict[str, str], packages: list[str]) -> list[str]:
    """The reviewed equivalents of ``packages`` that name no mutant of this tree.

    An id names a place (file, line, column) and a change: once the code around it moves, the
    review no longer applies to anything, and the mutant it was about is drawn again under
    another id, to be reviewed again.
    """
    every = {m.id for m in draw(packages, sys.maxsize, 0)}
    mine = tuple(f"modelscape/{package}/" for package in packages)
    return sorted(name for name in equivalent if name.startswith(mine) and name not in every)


def _warn_of_stale(equivalent: dict[str, str], packages: list[str]) -> None:
    found = stale(equivalent, packages)
    if found:
        print(
            f"{len(found)} reviewed equivalents name no mutant of this tree (their code moved"
            f" or changed), e.g. {found[0]!r}: a moved one is drawn again under a new id",
            flush=True,
        )


def _run_all(
    mutants: list[Mutant],
    equivalent: dict[str, str],
    folders: list[Path],
    test_map: CoverageMap | None,
    whole_seconds: float,
) -> dict[str, str]:
    """Run every mutant not known to be equivalent, ``len(folders)`` at a time."""
    free = list(folders)
    outcomes: dict[str, str] = {}
    lock = threading.Lock()
    print(f"{len(mutants)} mutants", flush=True)

    def run(mutant: Mutant) -> None:
        plan = _plan(mutant, test_map, whole_seconds)
        started = time.perf_counter()
        if not plan.tests and not plan.whole:
            outcome = UNREACHED
        else:
            with lock:
                folder = free.pop()
            try:
                target = folder / mutant.path
                original = target.read_text(encoding="utf-8")
                try:
                    target.write_text(_mutate(original, mutant), encoding="utf-8")
                    outcome = _pytest(folder, mutant.package, plan)
                finally:
                    target.write_text(original, encoding="utf-8")
            finally:
                with lock:
                    free.append(folder)
        outcomes[mutant.id] = outcome
        against = "whole folders" if plan.whole else f"{len(plan.tests)} tests"
        mark = "killed" if outcome == KILLED else outcome.upper()
        seconds = time.perf_counter() - started
        print(f"{mark:9} {mutant.id}  ({against}, {seconds:.0f} s)", flush=True)

    with ThreadPoolExecutor(max_workers=len(folders)) as pool:
        list(pool.map(run, [m for m in mutants if m.id not in equivalent]))
    return outcomes


if __name__ == "__main__":
    main()
