"""Holm's step-down correction over the transitions tested together, and its precondition.

Holm (1979) controls the family-wise error rate, the chance of reporting any false boundary,
under any dependence between the tests; the transitions of one profile share cases and
outputs, so that robustness matters more here than the extra power of alternatives.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from modelscape.errors import AnalysisError
from modelscape.stats.compare import Comparison
from modelscape.stats.diagnostics import PermutationCountWarning, warn

__all__ = ["check_permutations", "holm"]


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm-adjusted p-values, in the input order; None (an untested transition) stays None.

    With the m tested p-values sorted ascending, the k-th adjusted value is
    min(1, max_{j ≤ k} (m − j + 1) · p_(j)) (Holm 1979, the step-down rule written as
    adjusted p-values). Untested transitions do not count towards m.
    """
    tested = [index for index, value in enumerate(p_values) if value is not None]
    values = np.array([p_values[index] for index in tested], dtype=np.float64)
    if values.size and not (
        np.isfinite(values).all() and (values >= 0).all() and (values <= 1).all()
    ):
        raise AnalysisError(f"p-values must lie in [0, 1], got {values.tolist()}")
    m = values.size
    order = np.argsort(values, kind="stable")
    scaled = (m - np.arange(m)) * values[order]
    adjusted_sorted = np.minimum(1.0, np.maximum.accumulate(scaled))
    adjusted = np.empty(m, dtype=np.float64)
    adjusted[order] = adjusted_sorted
    result: list[float | None] = [None] * len(p_values)
    for index, value in zip(tested, adjusted.tolist(), strict=True):
        result[index] = value
    return result


def check_permutations(comparisons: Sequence[Comparison], *, alpha: float) -> str | None:
    """Warn when Monte-Carlo p-values are too coarse for Holm's correction.

    A Monte-Carlo p-value is at least 1 / (P + 1). Of the m transitions tested together, e
    have exact p-values; at best those are rejected first, and the first Monte-Carlo
    transition then needs (m − e) · p ≤ alpha. So with P + 1 < (m − e) / alpha no Monte-Carlo
    transition can ever be a boundary, and the warning says so. With (m − e) / alpha ≤ P + 1 <
    20 · m / alpha boundaries remain possible, but only where the p-value lands within a few
    permutations of its floor; the warning then says the p-values are coarse, not that
    nothing can be found. Returns the text (None when all is well) and emits it as a
    PermutationCountWarning.
    """
    if not 0.0 < alpha < 1.0:
        raise AnalysisError(f"alpha must be inside (0, 1), got {alpha}")
    tested = [comparison for comparison in comparisons if comparison.p_value is not None]
    m = len(tested)
    sampled = [c for c in tested if not c.exact]
    if not sampled:
        return None
    fewest = min(c.permutations for c in sampled)
    # The tolerances absorb the rounding of ratios such as 20·m/α that are whole numbers.
    possible = math.ceil(len(sampled) / alpha - 1e-9) - 1  # least P with (m − e)/(P + 1) ≤ α
    precise = math.ceil(20 * m / alpha - 1e-9) - 1
    if fewest < possible:
        return warn(
            PermutationCountWarning,
            f"no boundary can be found among the {len(sampled)} of {m} transitions tested "
            f"together that have Monte-Carlo p-values: with {fewest} permutations a p-value is "
            f"at least 1/{fewest + 1}, and Holm's correction multiplies the smallest of them by "
            f"{len(sampled)}, above alpha={alpha:g}; use at least {possible} permutations for a "
            f"boundary to be possible, {precise} for p-values precise enough for Holm",
        )
    short = [c for c in sampled if c.permutations < precise]
    if not short:
        return None
    return warn(
        PermutationCountWarning,
        f"{len(short)} of {m} transitions tested together have coarse Monte-Carlo p-values "
        f"(from as few as {fewest} permutations, so never below 1/{fewest + 1}): a boundary is "
        f"still possible, but with Holm's correction at alpha={alpha:g} only where a p-value "
        f"lands within a few permutations of that floor; use at least {precise} permutations "
        "(P + 1 >= 20·m/alpha)",
    )
