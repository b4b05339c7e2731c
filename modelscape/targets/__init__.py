"""Targets that ship with modelscape.

- :mod:`~modelscape.targets.reference`: deterministic reference targets chosen by name
  (``echo``, ``constant``, ``random``, ``scripted``, ``planted``)
- :mod:`~modelscape.targets.oracle`: ``oracle:SPEC``, which knows a scenario's correct
  answers, with planted flips and noise in Python

Provider targets (OpenAI-compatible, Anthropic, local GGUF files) live in
:mod:`modelscape.providers` and register their prefixes with
:func:`modelscape.execution.resolve.register_target_kind`.
"""

from modelscape.targets.reference import (
    REFERENCE_TARGETS,
    ConstantTarget,
    EchoTarget,
    Flip,
    PlantedTarget,
    RandomTarget,
    ScriptedTarget,
    reference_target,
)

__all__ = [
    "REFERENCE_TARGETS",
    "ConstantTarget",
    "EchoTarget",
    "Flip",
    "PlantedTarget",
    "RandomTarget",
    "ScriptedTarget",
    "reference_target",
]
