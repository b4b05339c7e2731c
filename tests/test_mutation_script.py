"""The parts of scripts/mutation.py a score rests on: the interval, which lines a mutant needs
a test to execute, and which tests the coverage map gives it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import mutation
from mutation_coverage import CoverageMap
from mutation_score import wilson


@pytest.mark.parametrize(
    ("killed", "scored", "low", "high"),
    # the 95% Wilson intervals as printed in Newcombe (1998), table I
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611)],
)
def test_the_interval_is_wilsons(killed: int, scored: int, low: float, high: float) -> None:
    found = wilson(killed, scored)
    assert found == pytest.approx((low, high), abs=5e-5)


def test_a_mutant_inside_a_multi_line_statement_needs_its_first_line_or_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = "def f(x):\n    total = (\n        x\n        + 1\n    )\n    return total\n"
    package = tmp_path / "modelscape" / "demo"
    package.mkdir(parents=True)
    (package / "m.py").write_text(source, encoding="utf-8")
    monkeypatch.setattr(mutation, "ROOT", tmp_path)
    sites = {m.change: m for m in mutation.draw(["demo"], per_package=100, seed=0)}
    plus, one = sites["+ -> -"], sites["1 -> 2"]
    assert plus.line == 3  # a BinOp starts at its left operand
    assert plus.reached_by == (2, 3, 4)
    assert one.reached_by == (2, 4)


def test_the_map_gives_the_tests_of_the_package_that_run_a_line() -> None:
    test_map = CoverageMap(
        tests=["tests/a/test_x.py::one", "tests/b/test_y.py::two", "tests/a/test_z.py::three"],
        seconds=[1.0, 1.0, 1.0],
        lines={"modelscape/a/m.py": {3: [0, 1], 4: [2]}},
        outside={"modelscape/a/m.py": [1]},
    )
    assert test_map.covering("modelscape/a/m.py", [3], ["tests/a"]) == [0]
    assert test_map.covering("modelscape/a/m.py", [3, 4], ["tests/a", "tests/b"]) == [0, 1, 2]
    assert test_map.covering("modelscape/a/m.py", [5], ["tests/a"]) == []
    assert test_map.reached_outside("modelscape/a/m.py", [1, 5])
    assert not test_map.reached_outside("modelscape/a/m.py", [3])
    test_map.drop_modules(["tests/a/test_x.py"])
    assert test_map.tests == ["tests/b/test_y.py::two", "tests/a/test_z.py::three"]
    assert test_map.covering("modelscape/a/m.py", [3, 4], ["tests"]) == [0, 1]
