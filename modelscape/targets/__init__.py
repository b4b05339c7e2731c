"""Targets: what a run asks, and every way modelscape has of making one.

One package holds the concept (design note 040):

- :mod:`~modelscape.targets.protocol`: ``Target``, ``TargetRequest``, ``TargetOutput``,
  ``TargetError``, ``Usage`` and ``IdentifiedTarget``, the protocol every target speaks
- :mod:`~modelscape.targets.registry`: ``Provider``, one kind of target named by text, and the
  one registry of kinds (the ``modelscape.providers`` entry point group, plus kinds this
  process adds with ``registered``)
- ``CallableTarget`` (``_callable``): any function of a request, as a target
- the reference targets (``_reference``: ``echo``, ``constant``, ``random``, ``scripted``,
  ``planted``), the oracle (``_oracle``) and their kinds (``_reference_kinds``)
- ``resolve_target`` and ``load_targets`` (``_resolve``): targets named by a ``--target``
  string or listed in a targets.yaml
- :mod:`~modelscape.targets.providers`: real models behind real APIs, and local GGUF files

and what the runner and the readers of outputs share with them: answer shapes (``_shape``),
outputs made valid and redacted (``_cleaning``), the call's clock (``_clock``) and a run's
targets opened and closed (``_lifecycle``).

The protocol modules import nothing else of this package, so answer readers, measures,
records and stores import them from below everything that makes targets. Names here are loaded
when first used (PEP 562), as at the top of the package: ``from modelscape.targets import
TargetOutput`` loads the protocol only, not the reference targets, the resolver or a provider.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from modelscape.targets._callable import CallableTarget, TargetFunction
    from modelscape.targets._oracle import OracleTarget
    from modelscape.targets._reference import (
        ConstantTarget,
        EchoTarget,
        Flip,
        PlantedTarget,
        RandomTarget,
        ScriptedTarget,
    )
    from modelscape.targets._reference_kinds import REFERENCE_TARGETS, reference_target
    from modelscape.targets._resolve import load_object, load_targets, resolve_target
    from modelscape.targets._shape import AnswerShape
    from modelscape.targets.protocol import (
        IdentifiedTarget,
        Lifecycle,
        Target,
        TargetError,
        TargetOutput,
        TargetRequest,
        Usage,
        as_output,
    )
    from modelscape.targets.registry import (
        ENTRY_POINT_GROUP,
        Provider,
        find_provider,
        provider_kinds,
        registered,
    )

#: The module each name lives in.
_HOMES = {
    "AnswerShape": "modelscape.targets._shape",
    "CallableTarget": "modelscape.targets._callable",
    "ConstantTarget": "modelscape.targets._reference",
    "ENTRY_POINT_GROUP": "modelscape.targets.registry",
    "EchoTarget": "modelscape.targets._reference",
    "Flip": "modelscape.targets._reference",
    "IdentifiedTarget": "modelscape.targets.protocol",
    "Lifecycle": "modelscape.targets.protocol",
    "OracleTarget": "modelscape.targets._oracle",
    "PlantedTarget": "modelscape.targets._reference",
    "Provider": "modelscape.targets.registry",
    "REFERENCE_TARGETS": "modelscape.targets._reference_kinds",
    "RandomTarget": "modelscape.targets._reference",
    "ScriptedTarget": "modelscape.targets._reference",
    "Target": "modelscape.targets.protocol",
    "TargetError": "modelscape.targets.protocol",
    "TargetFunction": "modelscape.targets._callable",
    "TargetOutput": "modelscape.targets.protocol",
    "TargetRequest": "modelscape.targets.protocol",
    "Usage": "modelscape.targets.protocol",
    "as_output": "modelscape.targets.protocol",
    "find_provider": "modelscape.targets.registry",
    "load_object": "modelscape.targets._resolve",
    "load_targets": "modelscape.targets._resolve",
    "provider_kinds": "modelscape.targets.registry",
    "reference_target": "modelscape.targets._reference_kinds",
    "registered": "modelscape.targets.registry",
    "resolve_target": "modelscape.targets._resolve",
}

__all__ = [
    "ENTRY_POINT_GROUP",
    "REFERENCE_TARGETS",
    "AnswerShape",
    "CallableTarget",
    "ConstantTarget",
    "EchoTarget",
    "Flip",
    "IdentifiedTarget",
    "Lifecycle",
    "OracleTarget",
    "PlantedTarget",
    "Provider",
    "RandomTarget",
    "ScriptedTarget",
    "Target",
    "TargetError",
    "TargetFunction",
    "TargetOutput",
    "TargetRequest",
    "Usage",
    "as_output",
    "find_provider",
    "load_object",
    "load_targets",
    "provider_kinds",
    "reference_target",
    "registered",
    "resolve_target",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'modelscape.targets' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value  # the next use is an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})
