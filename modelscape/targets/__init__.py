"""Targets that ship with modelscape.

- :mod:`~modelscape.targets.reference`: deterministic reference targets chosen by name
  (``echo``, ``constant``, ``random``, ``scripted``, ``planted``)

Provider targets (OpenAI-compatible, Anthropic) will live beside them, one module each, and
register their prefix with :func:`modelscape.execution.resolve.register_target_kind`.
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
