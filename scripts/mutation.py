"""Mutation testing: change the code in small ways and see whether the tests notice.

Each *mutant* is one small change to one expression of a package: an arithmetic or comparison
operator swapped (``+``/``-``, ``<``/``<=``, ``==``/``!=``, ``and``/``or``, ``is``/``is not``),
a ``not`` or unary minus dropped, a number moved by one, a boolean flipped. A sample of them
is drawn per package (seeded), and each is run against the tests that cover its package in a
scratch copy of the repository (the working tree is never touched). A mutant is *killed* when
a test fails or times out, and *survives* when every test passes.

Some mutants change nothing a caller could observe (an equivalent mutant: ``x >= 0`` for
``x > 0`` where x is never 0, a tolerance nobody reaches). They are listed with the reason in
``scripts/mutation-equivalent.json`` after review, and left out of the score, which is the
share of the other mutants killed, per package and overall.

    python scripts/mutation.py [--per-package 60] [--packages stats,analysis,pages]
                               [--seed 0] [--jobs 1] [--list]

Mutants inside f-strings (messages), annotations and docstrings are never drawn: they change
what is said, not what is computed.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

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
    for index, node in enumerate(ast.walk(tree)):
        if id(node) in skipped:
            continue
        where = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))

        def mutant(
            change: str, position: int = 0, at: tuple[int, int] = where, node: int = index
        ) -> Mutant:
            return Mutant(package, relative, at[0], at[1], change, node, position)

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


def _pytest(folder: Path, package: str, timeout: float) -> tuple[bool, float]:
    """Whether the covering tests pass in ``folder``, and how long they took."""
    # The examples CI runs (tests/support/examples.py): a mutant is killed or not by the suite
    # as CI runs it, not by the few examples of the dev profile.
    environment = {
        **os.environ,
        "PYTHONPATH": str(folder),
        "PYTHONDONTWRITEBYTECODE": "1",
        "MODELSCAPE_HYPOTHESIS": "ci",
    }
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-x",
                "-q",
                "-p",
                "no:cacheprovider",
                *COVERING[package],
            ],
            cwd=folder,
            env=environment,
            capture_output=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return False, time.perf_counter() - started
    return done.returncode == 0, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packages", default="stats,analysis,records,store,execution,site,pages")
    parser.add_argument("--per-package", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--list", action="store_true", help="Only list the drawn mutants.")
    arguments = parser.parse_args()
    packages = arguments.packages.split(",")
    unknown = [p for p in packages if p not in COVERING]
    if unknown:
        parser.error(f"unknown packages {unknown}; choose from {sorted(COVERING)}")
    mutants = draw(packages, arguments.per_package, arguments.seed)
    if arguments.list:
        for mutant in mutants:
            print(mutant.id)
        return
    equivalent: dict[str, str] = (
        json.loads(EQUIVALENT.read_text(encoding="utf-8")) if EQUIVALENT.exists() else {}
    )
    folders = [_scratch() for _ in range(max(1, arguments.jobs))]
    baseline: dict[str, float] = {}
    for package in packages:
        passed, seconds = _pytest(folders[0], package, timeout=3600)
        if not passed:
            sys.exit(f"the covering tests of {package} fail before any mutation")
        baseline[package] = seconds
    print(f"{len(mutants)} mutants; baseline seconds: {baseline}", flush=True)
    free = list(folders)
    outcomes: dict[Mutant, bool] = {}

    def run(mutant: Mutant) -> None:
        folder = free.pop()
        try:
            target = folder / mutant.path
            original = target.read_text(encoding="utf-8")
            try:
                target.write_text(_mutate(original, mutant), encoding="utf-8")
                passed, _ = _pytest(folder, mutant.package, 3 * baseline[mutant.package] + 30)
            finally:
                target.write_text(original, encoding="utf-8")
            outcomes[mutant] = not passed
            mark = "killed" if not passed else "SURVIVED"
            print(f"{mark:8} {mutant.id}", flush=True)
        finally:
            free.append(folder)

    try:
        with ThreadPoolExecutor(max_workers=len(folders)) as pool:
            list(pool.map(run, [m for m in mutants if m.id not in equivalent]))
    finally:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
    _print_scores(packages, mutants, outcomes, equivalent)


def _print_scores(
    packages: list[str],
    mutants: list[Mutant],
    outcomes: dict[Mutant, bool],
    equivalent: dict[str, str],
) -> None:
    print()
    header = f"{'package':<10} {'drawn':>5} {'equivalent':>10} {'killed':>6} {'survived':>8} score"
    print(header)
    print("-" * len(header))
    totals = [0, 0, 0, 0]
    for package in packages:
        mine = [m for m in mutants if m.package == package]
        excluded = sum(1 for m in mine if m.id in equivalent)
        killed = sum(1 for m in mine if outcomes.get(m) is True)
        survived = sum(1 for m in mine if outcomes.get(m) is False)
        tested = killed + survived
        score = f"{killed / tested:.1%}" if tested else "—"
        print(f"{package:<10} {len(mine):>5} {excluded:>10} {killed:>6} {survived:>8} {score}")
        counts = (len(mine), excluded, killed, survived)
        totals = [a + b for a, b in zip(totals, counts, strict=True)]
    tested = totals[2] + totals[3]
    overall = f"{totals[2] / tested:.1%}" if tested else "—"
    print(f"{'overall':<10} {totals[0]:>5} {totals[1]:>10} {totals[2]:>6} {totals[3]:>8} {overall}")
    survivors = [m for m in mutants if outcomes.get(m) is False]
    if survivors:
        print("\nsurviving mutants:")
        for mutant in survivors:
            print(f"  {mutant.id}")
    if equivalent:
        used = [m for m in mutants if m.id in equivalent]
        if used:
            print("\nleft out as equivalent:")
            for mutant in used:
                print(f"  {mutant.id}: {equivalent[mutant.id]}")


if __name__ == "__main__":
    main()
