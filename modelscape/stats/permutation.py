"""The one-sided permutation test of "no change": outputs at a and b are exchangeable per case.

Labels are shuffled within each case independently (n_a of the case's n_a + n_b outputs are
called "a"), and the mean excess over cases is recomputed. The observed excess is compared
with that null distribution, one-sided because change can only increase the excess.

- When the product over cases of C(n_a + n_b, n_a) is at most the permutation budget (and
  at most EXACT_LIMIT, to bound memory), every joint labeling is enumerated and the p-value
  is exact (the observed labeling included).
- Otherwise P joint labelings are drawn at random and p = (1 + #{E* ≥ E}) / (1 + P), which
  is never zero and keeps the test valid (Phipson & Smyth 2010).

Cases with few labelings (C(10, 5) = 252 for five repetitions) are evaluated under every
labeling once, by one matrix product; a random permutation is then one index per case. Cases
with too many labelings draw random labelings and evaluate them as quadratic forms. Neither
path loops over permutations in Python.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from modelscape.errors import AnalysisError
from modelscape.stats.cases import CaseGroup, group_cases
from modelscape.stats.excess import (
    FloatArray,
    excess_of_labelings,
    excess_table,
    labeling_count,
)

__all__ = ["PermutationResult", "permutation_test"]

#: Cases with at most this many labelings are tabulated under all of them up front.
TABULATED_LABELINGS = 5000
#: Most joint labelings ever enumerated: above it, even a larger budget is spent at random.
EXACT_LIMIT = 1 << 20
#: Permutations drawn per block, bounding memory for large cases.
_BLOCK = 1 << 15
#: Relative tolerance for "at least as large": theoretically tied excesses may differ in the
#: last bits (scipy.stats.permutation_test uses the same 100 machine epsilons).
_RELATIVE_TOLERANCE = 100 * float(np.finfo(np.float64).eps)


@dataclass(frozen=True, slots=True)
class PermutationResult:
    """A permutation p-value, whether it is exact, and how many labelings stand behind it."""

    #: One-sided p-value; None when the test was skipped (no permutations asked for).
    p_value: float | None
    #: True when every joint labeling was enumerated.
    exact: bool
    #: Joint labelings enumerated (exact) or drawn (Monte Carlo); 0 when skipped.
    permutations: int


@dataclass(frozen=True, slots=True)
class _Relabeled:
    """A group of cases ready for relabeling: tabulated under every labeling, or not."""

    group: CaseGroup
    labelings: int
    #: Excess under every labeling, shape (cases, labelings), column 0 observed; or None.
    table: FloatArray | None
    #: Observed excess of each case, computed the way its relabeled excesses are.
    observed: FloatArray


def _prepare(groups: Sequence[CaseGroup], *, tabulate_all: bool) -> list[_Relabeled]:
    """Tabulated groups first, then the others: the order every sum below follows."""
    tabulated, sampled = [], []
    for group in groups:
        count = labeling_count(group.n_a, group.n_b)
        if tabulate_all or count <= TABULATED_LABELINGS:
            table = excess_table(group.stack, group.n_a)
            tabulated.append(_Relabeled(group, count, table, table[:, 0]))
        else:
            identity = np.zeros((1, group.stack.shape[1]), dtype=np.bool_)
            identity[0, : group.n_a] = True
            observed = excess_of_labelings(group.stack, group.n_a, identity)[:, 0]
            sampled.append(_Relabeled(group, count, None, observed))
    return tabulated + sampled


def _random_labelings(
    matrix: FloatArray, n_a: int, draws: int, rng: np.random.Generator
) -> FloatArray:
    """Excess of one case under ``draws`` random labelings (uniform over all of them)."""
    n = matrix.shape[0]
    chosen = np.argsort(rng.random((draws, n)), axis=1)[:, :n_a]
    labelings = np.zeros((draws, n), dtype=np.bool_)
    np.put_along_axis(labelings, chosen, True, axis=1)
    values: FloatArray = excess_of_labelings(matrix[None], n_a, labelings)[0]
    return values


def _exact(prepared: Sequence[_Relabeled], observed_sum: float, tolerance: float) -> float:
    """Share of all joint labelings whose summed excess reaches the observed one."""
    sums = np.zeros(1, dtype=np.float64)
    for part in prepared:
        assert part.table is not None  # every case is tabulated on the exact path
        for row in part.table:
            # Same order of additions as the observed sum: the identity labeling ties exactly.
            sums = (sums[:, None] + row[None, :]).ravel()
    return float(np.count_nonzero(sums >= observed_sum - tolerance)) / sums.size


def draw_indices(
    high: int | npt.NDArray[np.intp],
    size: tuple[int, ...],
    rng: np.random.Generator,
    *,
    widen: bool = True,
) -> npt.NDArray[np.intp] | npt.NDArray[np.int16]:
    """Uniform integers in [0, high) from ``rng``, in the narrowest type that holds them.

    Narrow types are generated faster by numpy (buffered 16-bit draws); the choice depends
    on ``high`` only, so the stream stays a function of the inputs. ``widen`` returns them as
    numpy's native index type, which fancy indexing prefers; ``take`` reads the narrow ones as
    fast, and skipping the copy matters when there are a hundred million of them.
    """
    if _narrow(high):
        drawn = rng.integers(0, high, size=size, dtype=np.int16)
        return drawn.astype(np.intp) if widen else drawn
    return rng.integers(0, high, size=size, dtype=np.intp)


def _narrow(high: int | npt.NDArray[np.intp]) -> bool:
    """Whether draws below ``high`` come as 16-bit integers (see :func:`draw_indices`)."""
    return int(np.max(high)) <= np.iinfo(np.int16).max


def _monte_carlo(
    prepared: Sequence[_Relabeled],
    observed_sum: float,
    tolerance: float,
    permutations: int,
    rng: np.random.Generator,
) -> float:
    """Phipson & Smyth (2010) p-value (1 + hits) / (1 + P) over random joint labelings.

    A case whose excess is zero under every labeling (all its outputs alike, common with
    0/1 answers) adds nothing to any sum: its draws are made, so every other case keeps its
    labelings, but it is not added. Adding zero never changes a float, so each sum is the one
    adding every case would give, bit for bit. Draws after the last case that counts are not
    made at all in the final block: nothing reads the stream after it.
    """
    tables = [part.table for part in prepared if part.table is not None]
    counts = np.concatenate(
        [np.full(len(part.observed), part.labelings) for part in prepared if part.table is not None]
        or [np.empty(0, dtype=np.intp)]
    )
    rows = [row for table in tables for row in table]
    live = (
        np.flatnonzero(np.concatenate([(table != 0).any(axis=1) for table in tables])).tolist()
        if tables
        else []
    )
    sampled = [part for part in prepared if part.table is None]
    high = int(counts[0]) if counts.size and (counts == counts[0]).all() else counts[:, None]
    hits = 0
    for start in range(0, permutations, _BLOCK):
        draws = min(_BLOCK, permutations - start)
        sums = np.zeros(draws, dtype=np.float64)
        final = start + draws == permutations and not sampled
        needed = (live[-1] + 1 if live else 0) if final else len(rows)
        if needed:
            # One draw for all tabulated cases: row i holds the labelings picked for case i.
            # The first rows of a draw are the same whatever its length, and the integer
            # type is chosen from every case's bound, as a draw of all the rows would be.
            bound = high if isinstance(high, int) else high[:needed]
            chosen = (
                rng.integers(0, bound, size=(needed, draws), dtype=np.int16)
                if _narrow(high)
                else rng.integers(0, bound, size=(needed, draws), dtype=np.intp)
            )
            for index in live:  # a loop over cases only
                if index < needed:
                    sums += rows[index].take(chosen[index])
        for part in sampled:
            for matrix in part.group.stack:
                sums += _random_labelings(matrix, part.group.n_a, draws, rng)
        hits += int(np.count_nonzero(sums >= observed_sum - tolerance))
    return (1 + hits) / (1 + permutations)


def permutation_test_groups(
    groups: Sequence[CaseGroup], *, permutations: int, rng: np.random.Generator
) -> PermutationResult:
    """Permutation test of checked, stacked cases (see :func:`permutation_test`)."""
    if permutations == 0:
        return PermutationResult(p_value=None, exact=False, permutations=0)
    total = math.prod(
        labeling_count(group.n_a, group.n_b) ** len(group.positions) for group in groups
    )
    exact = total <= min(permutations, EXACT_LIMIT)
    prepared = _prepare(groups, tabulate_all=exact)
    observed_sum = 0.0
    for part in prepared:
        for value in part.observed.tolist():
            observed_sum += value
    # The tolerance scales with |E| as in scipy, floored at the size of the distances so that
    # an excess of exactly zero still absorbs the rounding of sums of nonzero distances.
    size = sum(float(np.abs(group.stack).max(axis=(1, 2)).sum()) for group in groups)
    tolerance = _RELATIVE_TOLERANCE * max(abs(observed_sum), size)
    if exact:
        p_value = _exact(prepared, observed_sum, tolerance)
        return PermutationResult(p_value=p_value, exact=True, permutations=total)
    p_value = _monte_carlo(prepared, observed_sum, tolerance, permutations, rng)
    return PermutationResult(p_value=p_value, exact=False, permutations=permutations)


def permutation_test(
    cases: Sequence[tuple[npt.ArrayLike, int]],
    *,
    permutations: int,
    rng: np.random.Generator | int,
    key: str = "cases",
) -> PermutationResult:
    """One-sided permutation p-value of the mean excess change over ``cases``.

    Each case is a (distance matrix, n_a) pair with its n_a outputs at a first. ``permutations``
    is both the Monte-Carlo budget and the cap under which the test enumerates every joint
    labeling exactly; 0 skips the test. ``key`` only names the transition in error messages.
    """
    if permutations < 0:
        raise AnalysisError(f"permutations must be >= 0, got {permutations}")
    groups = group_cases(cases, key=key)
    generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    return permutation_test_groups(groups, permutations=permutations, rng=generator)
