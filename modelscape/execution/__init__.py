"""Execution: targets, experiments, and the runner that asks and stores.

- :mod:`~modelscape.execution.target`: ``Target``, ``TargetRequest``, ``TargetOutput``,
  ``TargetError``
- :mod:`~modelscape.execution.callable`: ``CallableTarget``
- :mod:`~modelscape.execution.config`: ``ExecutionConfig``, ``RetryPolicy``
- :mod:`~modelscape.execution.experiment`: ``Experiment``
- :mod:`~modelscape.execution.runner`: ``Runner``, ``Progress``
- :mod:`~modelscape.execution.calls`: one observation's call, its retries and waits
- :mod:`~modelscape.execution.cleaning`: outputs made valid Unicode and redacted
- :mod:`~modelscape.execution.health`: ``TargetHealth``, and the per-target circuit breaker
- :mod:`~modelscape.execution.buffer`: the write buffer that never loses an output
- :mod:`~modelscape.execution.feed`: handing out observations under leases
- :mod:`~modelscape.execution.resolve`: ``resolve_target`` (targets named by text)

Experiments and the runner build on the result records, which import the target protocol from
this package; they are therefore loaded on first use rather than here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from modelscape.execution.callable import CallableTarget
from modelscape.execution.config import ExecutionConfig, RetryPolicy
from modelscape.execution.target import Target, TargetError, TargetOutput, TargetRequest, Usage

if TYPE_CHECKING:
    from modelscape.execution.experiment import Experiment
    from modelscape.execution.resolve import resolve_target
    from modelscape.execution.runner import Progress, Runner

__all__ = [
    "CallableTarget",
    "ExecutionConfig",
    "Experiment",
    "Progress",
    "RetryPolicy",
    "Runner",
    "Target",
    "TargetError",
    "TargetOutput",
    "TargetRequest",
    "Usage",
    "resolve_target",
]

_LAZY = {
    "Experiment": "modelscape.execution.experiment",
    "Progress": "modelscape.execution.runner",
    "Runner": "modelscape.execution.runner",
    "resolve_target": "modelscape.execution.resolve",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'modelscape.execution' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
