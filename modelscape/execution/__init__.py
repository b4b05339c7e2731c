"""Execution: experiments, and the runner that asks targets and stores what they answer.

- :mod:`~modelscape.execution.config`: ``ExecutionConfig``, ``RetryPolicy``
- :mod:`~modelscape.execution.experiment`: ``Experiment``
- :mod:`~modelscape.execution.runner`: ``Runner``, ``Progress``
- :mod:`~modelscape.execution.calls`: one observation's call, its retries and waits
- :mod:`~modelscape.execution.health`: ``TargetHealth``, and the per-target circuit breaker
- :mod:`~modelscape.execution.buffer`: the write buffer that never loses an output
- :mod:`~modelscape.execution.plan`: the plan streamed a block at a time, and what is reused
- :mod:`~modelscape.execution.feed`: handing out observations under leases
- :mod:`~modelscape.execution.measuring`: the measures of a run

Targets themselves (the protocol, ``CallableTarget``, the reference targets, the providers and
``resolve_target``) live in :mod:`modelscape.targets`, which this package imports and does not
re-export: each name has one home.
"""

from modelscape.execution.config import ExecutionConfig, RetryPolicy
from modelscape.execution.experiment import Experiment
from modelscape.execution.runner import Progress, Runner

__all__ = ["ExecutionConfig", "Experiment", "Progress", "RetryPolicy", "Runner"]
