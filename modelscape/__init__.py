"""Controlled behavioral mapping of large language models.

structured task -> controlled changes -> repeated observations -> behavioral profile

Every public name lives in a module named after its concept (see DESIGN.md) and is re-exported
here; ``__all__`` is the contract of ``spec/api-reference.md``.

The names are loaded when first used (PEP 562's module ``__getattr__``), not when the package
is imported: ``import modelscape`` would otherwise load the statistics, numpy and scipy, a
second or more of start-up that commands such as ``modelscape build`` with nothing to do
never need. ``from modelscape import Report`` and ``modelscape.Report`` work as before.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from modelscape._version import __version__

if TYPE_CHECKING:
    from modelscape.analysis.aggregates import (
        AxisScore,
        AxisSensitivity,
        BehaviorProfile,
        BoundaryCandidate,
        Divergence,
        MeasureAgreement,
        Scorecard,
    )
    from modelscape.answers import json_field, json_reply, text_match
    from modelscape.execution.config import ExecutionConfig, RetryPolicy
    from modelscape.execution.experiment import Experiment
    from modelscape.execution.runner import Runner
    from modelscape.measures import CallableDifference, CallableMetric, MeasureValue, Response
    from modelscape.pages.report import ReportPage
    from modelscape.pages.scenario import ScenarioPage
    from modelscape.report.provenance import Provenance, TargetProvenance
    from modelscape.report.report import Report
    from modelscape.report.requirement import Requirement
    from modelscape.results.results import Results
    from modelscape.scenario import Scenario
    from modelscape.specs.spec import Spec
    from modelscape.stats.settings import BoundaryCriterion, Inference
    from modelscape.targets._callable import CallableTarget
    from modelscape.targets.protocol import TargetOutput, TargetRequest
    from modelscape.task.coordinate import Coordinate
    from modelscape.task.design import Grid, Sweep
    from modelscape.task.language import Node, Task, TaskSchema, attribute
    from modelscape.task.prompt import Message, Prompt, realizer
    from modelscape.task.space import Axis, Scale, TaskSpace, Variant
    from modelscape.task.steps import perturbation
    from modelscape.templates.entry import Entry
    from modelscape.templates.lexicon import Lexicon
    from modelscape.templates.template import Template

#: The module each public name lives in.
_HOMES = {
    "Axis": "modelscape.task.space",
    "AxisScore": "modelscape.analysis.aggregates",
    "AxisSensitivity": "modelscape.analysis.aggregates",
    "BehaviorProfile": "modelscape.analysis.aggregates",
    "BoundaryCandidate": "modelscape.analysis.aggregates",
    "BoundaryCriterion": "modelscape.stats.settings",
    "CallableDifference": "modelscape.measures",
    "CallableMetric": "modelscape.measures",
    "CallableTarget": "modelscape.targets._callable",
    "Coordinate": "modelscape.task.coordinate",
    "Divergence": "modelscape.analysis.aggregates",
    "Entry": "modelscape.templates.entry",
    "ExecutionConfig": "modelscape.execution.config",
    "Experiment": "modelscape.execution.experiment",
    "Grid": "modelscape.task.design",
    "Inference": "modelscape.stats.settings",
    "Lexicon": "modelscape.templates.lexicon",
    "MeasureAgreement": "modelscape.analysis.aggregates",
    "MeasureValue": "modelscape.measures",
    "Message": "modelscape.task.prompt",
    "Node": "modelscape.task.language",
    "Prompt": "modelscape.task.prompt",
    "Provenance": "modelscape.report.provenance",
    "Report": "modelscape.report.report",
    "ReportPage": "modelscape.pages.report",
    "Requirement": "modelscape.report.requirement",
    "Response": "modelscape.measures",
    "Results": "modelscape.results.results",
    "RetryPolicy": "modelscape.execution.config",
    "Runner": "modelscape.execution.runner",
    "Scale": "modelscape.task.space",
    "Scenario": "modelscape.scenario",
    "ScenarioPage": "modelscape.pages.scenario",
    "Scorecard": "modelscape.analysis.aggregates",
    "Spec": "modelscape.specs.spec",
    "Sweep": "modelscape.task.design",
    "TargetOutput": "modelscape.targets.protocol",
    "TargetProvenance": "modelscape.report.provenance",
    "TargetRequest": "modelscape.targets.protocol",
    "Task": "modelscape.task.language",
    "TaskSchema": "modelscape.task.language",
    "TaskSpace": "modelscape.task.space",
    "Template": "modelscape.templates.template",
    "Variant": "modelscape.task.space",
    "attribute": "modelscape.task.language",
    "json_field": "modelscape.answers",
    "json_reply": "modelscape.answers",
    "perturbation": "modelscape.task.steps",
    "realizer": "modelscape.task.prompt",
    "text_match": "modelscape.answers",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'modelscape' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    # Kept, so the next use is an ordinary attribute and this function is not called again.
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


__all__ = [
    "Axis",
    "AxisScore",
    "AxisSensitivity",
    "BehaviorProfile",
    "BoundaryCandidate",
    "BoundaryCriterion",
    "CallableDifference",
    "CallableMetric",
    "CallableTarget",
    "Coordinate",
    "Divergence",
    "Entry",
    "ExecutionConfig",
    "Experiment",
    "Grid",
    "Inference",
    "Lexicon",
    "MeasureAgreement",
    "MeasureValue",
    "Message",
    "Node",
    "Prompt",
    "Provenance",
    "Report",
    "ReportPage",
    "Requirement",
    "Response",
    "Results",
    "RetryPolicy",
    "Runner",
    "Scale",
    "Scenario",
    "ScenarioPage",
    "Scorecard",
    "Spec",
    "Sweep",
    "TargetOutput",
    "TargetProvenance",
    "TargetRequest",
    "Task",
    "TaskSchema",
    "TaskSpace",
    "Template",
    "Variant",
    "__version__",
    "attribute",
    "json_field",
    "json_reply",
    "perturbation",
    "realizer",
    "text_match",
]
