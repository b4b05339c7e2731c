"""Scenarios written in Python and shipped with modelscape, beside the YAML specs.

Each module defines ``SCENARIO``: a task language whose correct answers are computed by the
task itself, where a spec's table of answers would not do.

- :mod:`~modelscape.scenarios.arithmetic`: word problems whose names, numbers, an irrelevant
  sentence and an extra step vary one at a time;
- :mod:`~modelscape.scenarios.evidence`: two bodies of evidence of varying weight, on a grid,
  and which conclusion they support;
- :mod:`~modelscape.scenarios.conditioning`: questions on sensitive topics and matched control
  questions, asked in several languages by several requesters.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from modelscape.scenario import Scenario

__all__ = ["SHIPPED", "shipped_scenario"]

#: The scenarios written in Python, by name: each module's ``SCENARIO``.
SHIPPED: dict[str, str] = {
    "arithmetic": "modelscape.scenarios.arithmetic",
    "conditioning": "modelscape.scenarios.conditioning",
    "evidence": "modelscape.scenarios.evidence",
}


def shipped_scenario(name: str) -> Scenario | None:
    """The Python scenario shipped under ``name``, or None when there is none by that name.

    The module is imported on first use only, so listing names costs nothing.
    """
    module = SHIPPED.get(name)
    if module is None:
        return None
    scenario: Scenario = importlib.import_module(module).SCENARIO
    return scenario
