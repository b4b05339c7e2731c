"""Targets that ship with modelscape.

- :mod:`~modelscape.targets.reference`: deterministic reference targets (``echo``,
  ``constant``, ``random``, ``scripted``, ``planted``)
- :mod:`~modelscape.targets.oracle`: ``oracle:SPEC``, which knows a scenario's correct
  answers, with planted flips and noise in Python
- :mod:`~modelscape.targets.names`: each of them by name, registered as a target kind

Provider targets (OpenAI-compatible, Anthropic, local GGUF files) live in
:mod:`modelscape.providers`; every kind, theirs and these, is registered in the
``modelscape.providers`` entry point group (see :mod:`modelscape.target.registry`).
"""

from modelscape.targets.names import REFERENCE_TARGETS, reference_target
from modelscape.targets.reference import (
    ConstantTarget,
    EchoTarget,
    Flip,
    PlantedTarget,
    RandomTarget,
    ScriptedTarget,
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
