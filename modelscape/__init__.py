"""Controlled behavioral mapping of large language models.

structured task -> controlled changes -> repeated observations -> behavioral profile

Every public name lives in a module named after its concept (see DESIGN.md) and is re-exported
here; ``__all__`` is the contract of ``spec/api-reference.md``.
"""

from modelscape._version import __version__
from modelscape.analysis.records import (
    AxisScore,
    AxisSensitivity,
    BehaviorProfile,
    BoundaryCandidate,
    Divergence,
    MeasureAgreement,
    Scorecard,
)
from modelscape.answers import json_field, json_reply, text_match
from modelscape.execution.callable import CallableTarget
from modelscape.execution.config import ExecutionConfig, RetryPolicy
from modelscape.execution.experiment import Experiment
from modelscape.execution.runner import Runner
from modelscape.measures import CallableDifference, CallableMetric, MeasureValue, Response
from modelscape.pages import ReportPage, ScenarioPage
from modelscape.report.provenance import Provenance, TargetProvenance
from modelscape.report.report import Report
from modelscape.report.requirement import Requirement
from modelscape.results.results import Results
from modelscape.scenario import Scenario
from modelscape.specs.spec import Spec
from modelscape.stats.settings import BoundaryCriterion, Inference
from modelscape.target import TargetOutput, TargetRequest
from modelscape.task.coordinate import Coordinate
from modelscape.task.design import Grid, Sweep
from modelscape.task.language import Node, Task, TaskSchema, attribute
from modelscape.task.prompt import Message, Prompt, realizer
from modelscape.task.space import Axis, Scale, TaskSpace, Variant, perturbation
from modelscape.templates.lexicon import Entry, Lexicon
from modelscape.templates.template import Template

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
