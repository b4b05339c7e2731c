"""Scenarios written in Python and shipped with modelscape, beside the YAML specs.

Each module defines ``SCENARIO``: a task language whose correct answers are computed by the
task itself, where a spec's table of answers would not do. They are registered in the
``modelscape.scenarios`` entry point group (pyproject.toml), so every command finds them by
name, as it finds a shipped spec.

- :mod:`~modelscape.scenarios.arithmetic`: word problems whose names, numbers, an irrelevant
  sentence and an extra step vary one at a time;
- :mod:`~modelscape.scenarios.evidence`: two bodies of evidence of varying weight, on a grid,
  and which conclusion they support;
- :mod:`~modelscape.scenarios.conditioning`: questions on sensitive topics and matched control
  questions, asked in several languages by several requesters.
"""

from __future__ import annotations
