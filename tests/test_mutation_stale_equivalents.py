"""A reviewed equivalent whose code has moved is found stale, so it is reviewed again."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import mutation


def test_an_equivalent_names_its_mutant_until_the_code_moves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "modelscape" / "demo"
    package.mkdir(parents=True)
    module = package / "m.py"
    module.write_text("def f(x):\n    return x + 1\n", encoding="utf-8")
    monkeypatch.setattr(mutation, "ROOT", tmp_path)
    plus = "modelscape/demo/m.py:2:11: + -> -"
    other = "modelscape/other/m.py:1:0: + -> -"  # another package's: not judged here
    reviewed = {plus: "a reason", other: "a reason"}
    assert plus in {m.id for m in mutation.draw(["demo"], per_package=100, seed=0)}
    assert mutation.stale(reviewed, ["demo"]) == []
    module.write_text('"""A docstring."""\n\n\ndef f(x):\n    return x + 1\n', encoding="utf-8")
    assert mutation.stale(reviewed, ["demo"]) == [plus]
