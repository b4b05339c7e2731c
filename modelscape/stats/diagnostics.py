"""Warnings about numbers that are computed but deserve less trust than they seem to.

The statistics never fail silently and never return NaN; when a result is valid but weak,
they say so twice: as text kept with the result (for reports) and as a Python warning (for
whoever is watching)::

    UserWarning
    └── StatisticsWarning              any caveat raised by modelscape.stats
        ├── DegenerateIntervalWarning  the bootstrap distribution has no spread: [E, E]
        ├── FewCasesWarning            an interval from fewer cases than its coverage was
        │                              checked for
        └── PermutationCountWarning    too few permutations for Holm to reject, or to
                                       reject anything at all
"""

from __future__ import annotations

import warnings

__all__ = [
    "DegenerateIntervalWarning",
    "FewCasesWarning",
    "PermutationCountWarning",
    "StatisticsWarning",
    "warn",
]


class StatisticsWarning(UserWarning):
    """Base class of every caveat the statistics core emits."""


class DegenerateIntervalWarning(StatisticsWarning):
    """A bootstrap distribution without spread: the interval collapses to the estimate.

    It happens with a single case, or when every case shows the same excess (for instance a
    deterministic target whose outputs never vary). The interval [E, E] is then reported
    instead of NaN, and it should be read as "no information about uncertainty".
    """


class FewCasesWarning(StatisticsWarning):
    """An interval from fewer cases than simulation checked its coverage for.

    ``benchmarks/coverage.py`` measures how often the intervals cover the true excess change;
    below the smallest number of cases where they held in every simulated setting, an
    interval is still reported, with this caveat.
    """


class PermutationCountWarning(StatisticsWarning):
    """Monte-Carlo p-values cannot fall low enough for Holm's correction to reject.

    A Monte-Carlo p-value is at least 1 / (P + 1); with m transitions tested together, Holm
    needs p ≤ alpha / m for the first rejection, so too few permutations hide every boundary.
    """


def warn(category: type[StatisticsWarning], message: str, *, stacklevel: int = 3) -> str:
    """Emit ``message`` as a warning of ``category`` and hand the text back for the result."""
    warnings.warn(category(message), stacklevel=stacklevel)
    return message
