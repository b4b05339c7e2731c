"""The public API: exactly the names of the API reference, each importable and documented."""

from __future__ import annotations

import inspect

import pytest

import modelscape

REFERENCE = [
    "Axis", "AxisScore", "AxisSensitivity", "BehaviorProfile", "BoundaryCandidate",
    "BoundaryCriterion", "CallableDifference", "CallableMetric", "CallableTarget", "Coordinate",
    "Divergence", "Entry", "ExecutionConfig", "Experiment", "Grid", "Inference", "Lexicon",
    "MeasureAgreement", "MeasureValue", "Message", "Node", "Prompt", "Provenance", "Report",
    "ReportPage", "Requirement", "Response", "Results", "RetryPolicy", "Runner", "Scale",
    "Scenario", "ScenarioPage", "Scorecard", "Spec", "Sweep", "TargetOutput", "TargetProvenance",
    "TargetRequest", "Task", "TaskSchema", "TaskSpace", "Template", "Variant", "__version__",
    "attribute", "json_field", "json_reply", "perturbation", "realizer", "text_match",
]  # fmt: skip


def test_all_is_exactly_the_reference() -> None:
    assert modelscape.__all__ == REFERENCE


def test_every_name_exists_and_is_documented() -> None:
    for name in REFERENCE:
        value = getattr(modelscape, name)
        if name in ("Scale", "__version__"):
            continue
        assert inspect.getdoc(value), f"{name} has no docstring"


def test_version_comes_from_the_distribution() -> None:
    from importlib.metadata import PackageNotFoundError, version

    assert modelscape.__version__ == version("modelscape-map")
    # The name ``modelscape`` belongs to another project on the package index: nothing here
    # may be installed under it.
    with pytest.raises(PackageNotFoundError):
        version("modelscape")


def test_signatures_follow_the_reference() -> None:
    def keywords(function: object) -> list[str]:
        return list(inspect.signature(function).parameters)  # type: ignore[arg-type]

    assert keywords(modelscape.Results.profile)[:3] == ["self", "axis", "measure"]
    assert keywords(modelscape.Results.scorecard)[:3] == ["self", "metric", "measure"]
    assert keywords(modelscape.Results.divergence)[:4] == ["self", "measure", "first", "second"]
    assert keywords(modelscape.Runner) == ["store", "on_progress", "redact"]
    assert keywords(modelscape.Template)[:2] == ["text", "slots"]
    assert keywords(modelscape.Scenario.report)[:2] == ["self", "results"]
    assert keywords(modelscape.ReportPage)[:2] == ["report", "outputs"]
    assert keywords(modelscape.Requirement.violations)[:3] == ["self", "report", "targets"]


def test_the_table_of_homes_is_all_and_agrees_with_the_type_checker() -> None:
    """``__init__`` names each public name's home twice: in the table its lazy lookup reads and
    in the imports the type checker reads. Both hold exactly ``__all__``, each name in the same
    module, and each home is where the name is defined (not a module that re-exports it)."""
    import ast
    from importlib import import_module
    from pathlib import Path

    homes: dict[str, str] = modelscape._HOMES  # type: ignore[attr-defined]
    assert sorted(homes) == sorted(n for n in REFERENCE if n != "__version__")
    source = Path(modelscape.__file__).read_text(encoding="utf-8")
    typed = {
        alias.name: node.module
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.module and node.module != "__future__"
        for alias in node.names
        if alias.name in homes
    }
    assert typed == homes
    for name, home in homes.items():
        value = getattr(import_module(home), name)
        if isinstance(value, type) or inspect.isfunction(value):  # not Scale, a type alias
            assert value.__module__ == home, f"{name} is defined in {value.__module__}, not {home}"
