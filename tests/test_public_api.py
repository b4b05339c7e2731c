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
