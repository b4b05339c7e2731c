"""Execution: experiments, and the runner that asks targets and stores what they answer.

- :mod:`~modelscape.execution.callable`: ``CallableTarget``
- :mod:`~modelscape.execution.config`: ``ExecutionConfig``, ``RetryPolicy``
- :mod:`~modelscape.execution.experiment`: ``Experiment``
- :mod:`~modelscape.execution.runner`: ``Runner``, ``Progress``
- :mod:`~modelscape.execution.calls`: one observation's call, its retries and waits
- :mod:`~modelscape.execution.health`: ``TargetHealth``, and the per-target circuit breaker
- :mod:`~modelscape.execution.buffer`: the write buffer that never loses an output
- :mod:`~modelscape.execution.plan`: the plan streamed a block at a time, and what is reused
- :mod:`~modelscape.execution.feed`: handing out observations under leases
- :mod:`~modelscape.execution.measuring`: the measures of a run
- :mod:`~modelscape.execution.resolve`: ``resolve_target`` (targets named by text)

The target protocol (``Target``, ``TargetRequest``, ``TargetOutput``, ``TargetError``,
``Usage``) lives below this package, in :mod:`modelscape.target`, and is re-exported here.
"""

from modelscape.execution.callable import CallableTarget
from modelscape.execution.config import ExecutionConfig, RetryPolicy
from modelscape.execution.experiment import Experiment
from modelscape.execution.resolve import resolve_target
from modelscape.execution.runner import Progress, Runner
from modelscape.target.protocol import Target, TargetError, TargetOutput, TargetRequest, Usage

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
