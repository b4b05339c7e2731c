"""Work the shortcuts leave out never moves the random stream, and tables stay within bounds.

The permutation test skips the draws of cases that can add nothing (an excess of zero under
every labeling) only where nothing reads the stream after them: in the last block, and only
when no sampled case draws after the tabulated ones. Everywhere else a skipped draw would shift
every later labeling, so its p-value would no longer be the plain algorithm's for the seed.
The smoothed interval tabulates a unit's redrawn excess only when the table (pairs of count
vectors at a and at b) fits under its limit, counted exactly.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from modelscape.stats import smoothed
from modelscape.stats.cases import group_cases
from modelscape.stats.permutation import (
    _BLOCK,
    _monte_carlo,
    _prepare,
    _random_labelings,
)


def _every_draw(prepared, observed_sum, tolerance, permutations, rng):  # type: ignore[no-untyped-def]
    """The plain algorithm: every tabulated case's labelings drawn in every block, then every
    sampled case's, and every case added."""
    tabulated = [part for part in prepared if part.table is not None]
    sampled = [part for part in prepared if part.table is None]
    rows = [row for part in tabulated for row in part.table]
    counts = [part.labelings for part in tabulated for _ in part.table]
    high = counts[0] if len(set(counts)) == 1 else np.asarray(counts)[:, None]
    dtype = np.int16 if int(np.max(high)) <= np.iinfo(np.int16).max else np.intp
    hits = 0
    for start in range(0, permutations, _BLOCK):
        draws = min(_BLOCK, permutations - start)
        sums = np.zeros(draws, dtype=np.float64)
        chosen = rng.integers(0, high, size=(len(rows), draws), dtype=dtype).astype(np.intp)
        for row, picks in zip(rows, chosen, strict=True):
            sums += row.take(picks)
        for part in sampled:
            for matrix in part.group.stack:
                sums += _random_labelings(matrix, part.group.n_a, draws, rng)
        hits += int(np.count_nonzero(sums >= observed_sum - tolerance))
    return (1 + hits) / (1 + permutations)


def _line_case(values: np.ndarray, n_a: int) -> tuple[np.ndarray, int]:
    """A case of numeric answers, the absolute difference as their distance."""
    return np.abs(values[:, None] - values[None, :]), n_a


def _p_values(
    cases: list[tuple[np.ndarray, int]], permutations: int, seed: int
) -> tuple[float, float]:
    prepared = _prepare(group_cases(cases, key="t"), tabulate_all=False)
    observed = 0.0
    for part in prepared:
        for value in part.observed.tolist():
            observed += value
    fast = _monte_carlo(prepared, observed, 1e-12, permutations, np.random.default_rng(seed))
    plain = _every_draw(prepared, observed, 1e-12, permutations, np.random.default_rng(seed))
    return fast, plain


def test_dead_cases_at_the_end_keep_the_stream_of_every_later_block() -> None:
    rng = np.random.default_rng(21)
    live = [_line_case(rng.integers(0, 3, 6).astype(float), 3) for _ in range(5)]
    dead = [_line_case(np.zeros(6), 3)] * 3  # every output alike: an excess of 0 always
    fast, plain = _p_values(live + dead, 2 * _BLOCK + 11, seed=4)  # three blocks
    assert fast == plain
    assert 0.0 < fast < 1.0


def test_dead_cases_before_a_sampled_one_keep_its_stream() -> None:
    # 8 + 8 outputs have C(16, 8) = 12,870 labelings: too many to tabulate, so that case draws
    # its labelings after the tabulated ones, in the same (and last) block.
    rng = np.random.default_rng(5)
    live = [_line_case(rng.integers(0, 3, 6).astype(float), 3) for _ in range(4)]
    dead = [_line_case(np.zeros(6), 3)] * 2
    large = _line_case(rng.normal(size=16), 8)
    fast, plain = _p_values([*live, *dead, large], 701, seed=9)
    assert fast == plain
    assert 0.0 < fast < 1.0


def test_a_unit_is_tabulated_exactly_when_its_table_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[int] = []

    class Recorded(smoothed._Tabulated):
        def __init__(self, *arguments, **keywords) -> None:  # type: ignore[no-untyped-def]
            super().__init__(*arguments, **keywords)
            built.append(self.cdf_a.shape[1] * self.cdf_b.shape[1])

    monkeypatch.setattr(smoothed, "_Tabulated", Recorded)
    rng = np.random.default_rng(2)
    # Three distinct answers a unit, four outputs a side: C(6, 2) count vectors at a and at b.
    cases = [_line_case(rng.permutation([0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0]), 4)]
    cases += [_line_case(rng.integers(0, 3, 8).astype(float), 4) for _ in range(5)]
    groups = group_cases(cases, key="t")
    pairs = math.comb(6, 2) * math.comb(6, 2)
    for limit, tabulated in ((pairs, True), (pairs - 1, False)):
        built.clear()
        monkeypatch.setattr(smoothed, "_TABULATED", limit)
        noise = smoothed._noise(groups, 300, np.random.default_rng(3))
        assert np.isfinite(noise).all()
        assert built == ([pairs] if tabulated else [])
