"""The target protocol, below everything that sends, stores or reads what targets answer.

- :mod:`~modelscape.target.protocol`: ``Target``, ``TargetRequest``, ``TargetOutput``,
  ``TargetError``, ``Usage``, and ``IdentifiedTarget`` (what targets built here share)
- :mod:`~modelscape.target.shape`: ``AnswerShape``, the replies an answer reader can read
- :mod:`~modelscape.target.cleaning`: outputs made valid Unicode and redacted
- :mod:`~modelscape.target.lifecycle`: ``opened``, a run's targets entered and left

Answer readers, measures, result records and stores read target outputs, and execution,
providers and reference targets make them; all of them import from here, and this package
imports none of them.
"""

from modelscape.target.protocol import (
    IdentifiedTarget,
    Target,
    TargetError,
    TargetOutput,
    TargetRequest,
    Usage,
    as_output,
)
from modelscape.target.shape import AnswerShape

__all__ = [
    "AnswerShape",
    "IdentifiedTarget",
    "Target",
    "TargetError",
    "TargetOutput",
    "TargetRequest",
    "Usage",
    "as_output",
]
