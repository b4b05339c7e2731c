"""Which tests execute each line of modelscape: recorded once per tree for scripts/mutation.py.

The covering tests run once under coverage.py with pytest-cov's per-test contexts
(``--cov-context=test``), so every executed line is known with the tests that executed it
(setup, call or teardown). A mutant is then run against the tests that execute its lines only:
a test that never reaches the changed expression cannot tell the mutant from the original.
Lines executed outside any test (module bodies at import, class bodies, default values, code
run in a process the tests start) carry no test: a mutant there is run against its package's
whole covering folders.

The map is cached under ``build/mutation/`` by a hash of everything the tests read except the
test modules themselves; each test module has its own hash, so a new or edited test module is
recorded on its own and merged in, and a change anywhere else records everything again. Tests
that fail in the unmutated tree are left out of the map (and named), so they can kill nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = Path(__file__).resolve().parent
CACHE = ROOT / "build" / "mutation"
#: Bumped when the cache's layout changes.
LAYOUT = 1


def environment(folder: Path, **extra: str) -> dict[str, str]:
    """The environment of a test run in the scratch copy ``folder``: its package, this plugin,
    no bytecode written into it, and the Hypothesis profile CI uses (seeded, 50 examples)."""
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join((str(folder), str(SCRIPTS))),
        "PYTHONDONTWRITEBYTECODE": "1",
        "MODELSCAPE_HYPOTHESIS": "ci",
        **extra,
    }


def _is_test_module(relative: str) -> bool:
    name = relative.rsplit("/", 1)[-1]
    return relative.startswith("tests/") and name.startswith("test_") and name.endswith(".py")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _files(copied: Iterable[str]) -> Iterable[tuple[str, Path]]:
    for name in copied:
        top = ROOT / name
        paths = sorted(top.rglob("*")) if top.is_dir() else [top]
        for path in paths:
            skipped = {"__pycache__", ".hypothesis"}.intersection(path.parts)
            if path.is_file() and not skipped:
                yield str(path.relative_to(ROOT)), path


def tree_key(copied: Iterable[str]) -> tuple[str, dict[str, str]]:
    """A hash of everything the tests read but the test modules, and each test module's hash."""
    shared = hashlib.sha256(f"layout {LAYOUT}".encode())
    modules: dict[str, str] = {}
    for relative, path in _files(copied):
        if _is_test_module(relative):
            modules[relative] = _digest(path)
        else:
            shared.update(f"{relative}\0{_digest(path)}\0".encode())
    return shared.hexdigest(), modules


def _under(relative: str, places: Sequence[str]) -> bool:
    return any(
        relative == place or relative.startswith(place.rstrip("/") + "/") for place in places
    )


@dataclass
class CoverageMap:
    """The tests of the covering folders and the lines each executes."""

    #: Node ids in collection order, with the seconds each took under coverage.
    tests: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    #: Test modules recorded, with their hashes.
    modules: dict[str, str] = field(default_factory=dict)
    #: Source file -> line -> indexes into ``tests``.
    lines: dict[str, dict[int, list[int]]] = field(default_factory=dict)
    #: Source file -> lines executed outside any test.
    outside: dict[str, list[int]] = field(default_factory=dict)
    #: Tests that failed in the unmutated tree.
    failing: list[str] = field(default_factory=list)

    def covering(self, path: str, lines: Iterable[int], places: Sequence[str]) -> list[int]:
        """Indexes of the tests under ``places`` that execute any of ``lines`` of ``path``."""
        by_line = self.lines.get(path, {})
        found = {index for line in lines for index in by_line.get(line, ())}
        return sorted(index for index in found if _under(self.tests[index], places))

    def reached_outside(self, path: str, lines: Iterable[int]) -> bool:
        """Whether any of ``lines`` of ``path`` runs outside a test (at import, say)."""
        outside = set(self.outside.get(path, ()))
        return any(line in outside for line in lines)

    def drop_modules(self, modules: Iterable[str]) -> None:
        """Forget the tests of these test modules (before recording them again)."""
        gone = set(modules)
        keep = [i for i, test in enumerate(self.tests) if test.split("::", 1)[0] not in gone]
        renumber = {old: new for new, old in enumerate(keep)}
        self.tests = [self.tests[i] for i in keep]
        self.seconds = [self.seconds[i] for i in keep]
        for by_line in self.lines.values():
            for line, indexes in list(by_line.items()):
                by_line[line] = [renumber[i] for i in indexes if i in renumber]
        self.modules = {name: digest for name, digest in self.modules.items() if name not in gone}
        self.failing = [test for test in self.failing if test.split("::", 1)[0] not in gone]

    def to_json(self) -> dict[str, object]:
        return {
            "tests": self.tests,
            "seconds": self.seconds,
            "modules": self.modules,
            "lines": {path: {str(k): v for k, v in by.items()} for path, by in self.lines.items()},
            "outside": self.outside,
            "failing": self.failing,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> CoverageMap:
        lines = data["lines"]
        assert isinstance(lines, dict)
        return cls(
            tests=list(data["tests"]),  # type: ignore[call-overload]
            seconds=list(data["seconds"]),  # type: ignore[call-overload]
            modules=dict(data["modules"]),  # type: ignore[call-overload]
            lines={path: {int(k): v for k, v in by.items()} for path, by in lines.items()},
            outside=dict(data["outside"]),  # type: ignore[call-overload]
            failing=list(data["failing"]),  # type: ignore[call-overload]
        )


def _record(
    folder: Path, arguments: Sequence[str], into: CoverageMap, packages: Sequence[str]
) -> None:
    """Run ``arguments`` (test places and options) under coverage of ``packages`` in
    ``folder``; merge what they execute into the map."""
    data_file = folder / ".coverage-mutation"
    outcomes_file = folder / ".mutation-outcomes.jsonl"
    for stale in (data_file, outcomes_file):
        stale.unlink(missing_ok=True)
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "mutation_plugin",
        # the addopts' --dist loadgroup makes pytest-cov take the run for a distributed one,
        # whose controller records no per-test contexts
        "--dist",
        "no",
        # Only the packages mutated are traced: the rest (the pages a site build renders, say)
        # then runs at nearly full speed, which decides whether the site tests can be
        # recorded at all (they took over 20 minutes a test traced whole on a loaded machine).
        *(f"--cov=modelscape/{package}" for package in packages),
        "--cov-context=test",
        "--cov-report=",
        *arguments,
    ]
    print(f"recording coverage: {' '.join(arguments)}", flush=True)
    environment_ = environment(
        folder, COVERAGE_FILE=str(data_file), MODELSCAPE_MUTATION_OUTCOMES=str(outcomes_file)
    )
    subprocess.run(command, cwd=folder, env=environment_, capture_output=True, check=False)
    from coverage import CoverageData  # only the recording needs coverage.py

    index: dict[str, int] = {}
    for record in outcomes_file.read_text(encoding="utf-8").splitlines():
        outcome = json.loads(record)
        if not outcome["passed"]:
            into.failing.append(outcome["test"])
            continue
        index[outcome["test"]] = len(into.tests)
        into.tests.append(outcome["test"])
        into.seconds.append(outcome["seconds"])
    data = CoverageData(basename=str(data_file))
    data.read()
    for measured in data.measured_files():
        relative = str(Path(measured).resolve().relative_to(folder.resolve()))
        by_line = into.lines.setdefault(relative, {})
        outside = set(into.outside.get(relative, ()))
        for line, contexts in (data.contexts_by_lineno(measured) or {}).items():
            for context in contexts:
                test = context.rsplit("|", 1)[0] if "|" in context else context
                if not test:
                    outside.add(line)
                elif test in index:
                    by_line.setdefault(line, []).append(index[test])
        into.outside[relative] = sorted(outside)
    for by_line in into.lines.values():
        for line, indexes in by_line.items():
            by_line[line] = sorted(set(indexes))


def _cache_file(shared: str, packages: Sequence[str]) -> Path:
    """The cached map of this tree that measured ``packages`` (or more), else where to put one.

    A map named without packages measured every package."""
    wanted = set(packages)
    for found in sorted(CACHE.glob(f"coverage-{shared[:16]}*.json")):
        named = found.stem.removeprefix(f"coverage-{shared[:16]}").lstrip("-")
        if not named or wanted <= set(named.split("-")):
            return found
    return CACHE / f"coverage-{shared[:16]}-{'-'.join(sorted(packages))}.json"


def load(
    folder: Path,
    groups: Sequence[tuple[Sequence[str], Sequence[str]]],
    copied: Iterable[str],
    *,
    packages: Sequence[str],
) -> CoverageMap:
    """The map of ``packages`` for this tree, recorded in ``folder`` (a scratch copy) where the
    cache lacks it.

    ``groups`` are (places, options) pairs: test folders or modules run together with options
    such as a marker expression. Each set of packages has a map of its own.
    """
    shared, modules = tree_key(copied)
    cache = _cache_file(shared, packages)
    test_map = (
        CoverageMap.from_json(json.loads(cache.read_text(encoding="utf-8")))
        if cache.exists()
        else CoverageMap()
    )
    wanted = {
        name: digest
        for name, digest in modules.items()
        if any(_under(name, places) for places, _ in groups)
    }
    stale = {name for name, digest in wanted.items() if test_map.modules.get(name) != digest}
    # modules gone from the tree; those outside these groups stay for other packages' runs
    removed = set(test_map.modules) - set(modules)
    if not stale and not removed:
        return test_map
    test_map.drop_modules(stale | removed)
    everything = not test_map.modules
    CACHE.mkdir(parents=True, exist_ok=True)
    for places, options in groups:
        mine = sorted(name for name in stale if _under(name, places))
        if mine:
            arguments = [*(places if everything else mine), *options]
            _record(folder, arguments, test_map, packages)
            # saved after each group, so an interrupted recording keeps what it finished
            test_map.modules.update({name: wanted[name] for name in mine})
            cache.write_text(json.dumps(test_map.to_json()), encoding="utf-8")
    if test_map.failing:
        print(f"left out, failing before any mutation: {test_map.failing}", flush=True)
    return test_map
