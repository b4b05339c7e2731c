"""Permutation p-values against scipy, brute-force enumeration and closed forms."""

from __future__ import annotations

import math
from itertools import combinations, product

import numpy as np
import pytest
import scipy.stats
from hypothesis import given
from hypothesis import strategies as st

from modelscape.errors import AnalysisError
from modelscape.stats import permutation_test

from .cases import differ, matrix, naive_excess, relabel


def excess_of_samples(x: np.ndarray, y: np.ndarray) -> float:
    """The statistic as scipy sees it: a function of the two samples."""
    return naive_excess(matrix(x, y), len(x))


@pytest.mark.parametrize(("n_a", "n_b"), [(2, 2), (2, 3), (3, 4), (5, 5), (4, 6)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_single_case_exact_p_equals_scipy(n_a: int, n_b: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x, y = rng.normal(size=n_a), rng.normal(0.8, size=n_b)
    reference = scipy.stats.permutation_test(
        (x, y),
        excess_of_samples,
        permutation_type="independent",
        alternative="greater",
        n_resamples=np.inf,
        vectorized=False,
    )
    result = permutation_test([(matrix(x, y), n_a)], permutations=10_000, rng=0)
    assert result.exact
    assert result.permutations == math.comb(n_a + n_b, n_a)
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-12)


def test_single_case_with_ties_equals_scipy() -> None:
    # 0/1 answers tie a lot: the tolerance must count theoretically equal excesses as equal.
    x, y = np.array([0, 0, 1, 0, 2]), np.array([1, 1, 1, 0, 1])
    reference = scipy.stats.permutation_test(
        (x, y),
        lambda u, v: naive_excess(matrix(u, v, differ), len(u)),
        permutation_type="independent",
        alternative="greater",
        n_resamples=np.inf,
        vectorized=False,
    )
    result = permutation_test([(matrix(x, y, differ), 5)], permutations=10_000, rng=0)
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-12)


def brute_force_p(cases: list[tuple[np.ndarray, int]]) -> float:
    """Every joint labeling, each case relabelled independently, counted by loops."""
    observed = np.mean([naive_excess(d, n_a) for d, n_a in cases])
    per_case = [
        [naive_excess(relabel(d, chosen), n_a) for chosen in combinations(range(len(d)), n_a)]
        for d, n_a in cases
    ]
    joint = [np.mean(values) for values in product(*per_case)]
    return float(np.mean(np.asarray(joint) >= observed - 1e-12))


@given(
    sizes=st.lists(st.sampled_from([(2, 2), (2, 3), (3, 2), (3, 3)]), min_size=2, max_size=3),
    seed=st.integers(0, 2**16),
)
def test_several_cases_exact_p_equals_brute_force(sizes: list[tuple[int, int]], seed: int) -> None:
    rng = np.random.default_rng(seed)
    cases = [
        (matrix(rng.integers(0, 3, n_a), rng.integers(0, 3, n_b), differ), n_a)
        for n_a, n_b in sizes
    ]
    total = math.prod(math.comb(n_a + n_b, n_a) for n_a, n_b in sizes)
    result = permutation_test(cases, permutations=total, rng=0)
    assert result.exact
    assert result.permutations == total
    assert result.p_value == pytest.approx(brute_force_p(cases), rel=1e-12)


@pytest.mark.parametrize(("repetitions", "cases"), [(2, 1), (2, 3), (3, 2), (5, 1), (5, 2)])
def test_complete_flip_gives_the_closed_form(repetitions: int, cases: int) -> None:
    flip = matrix([0] * repetitions, [1] * repetitions, differ)
    result = permutation_test([(flip, repetitions)] * cases, permutations=100_000, rng=0)
    assert result.exact
    expected = (2 / math.comb(2 * repetitions, repetitions)) ** cases
    assert result.p_value == pytest.approx(expected, rel=1e-12)


def test_monte_carlo_p_is_never_zero_and_on_the_phipson_smyth_grid() -> None:
    flip = matrix([0] * 5, [1] * 5, differ)
    result = permutation_test([(flip, 5)] * 10, permutations=999, rng=1)
    assert not result.exact
    assert result.permutations == 999
    assert result.p_value == pytest.approx(1 / 1000)


@pytest.mark.parametrize(("n_a", "cases", "permutations"), [(5, 2, 4000), (8, 1, 3000)])
def test_monte_carlo_agrees_with_exact(n_a: int, cases: int, permutations: int) -> None:
    # n_a = 8 has C(16, 8) = 12870 labelings: Monte Carlo then draws random labelings directly.
    rng = np.random.default_rng(7)
    data = [(matrix(rng.normal(size=n_a), rng.normal(0.3, size=n_a)), n_a) for _ in range(cases)]
    exact = permutation_test(data, permutations=10**6, rng=0)
    assert exact.exact
    estimate = permutation_test(data, permutations=permutations, rng=3)
    assert not estimate.exact
    assert estimate.p_value is not None
    assert exact.p_value is not None
    error = math.sqrt(exact.p_value * (1 - exact.p_value) / permutations)
    assert abs(estimate.p_value - exact.p_value) <= 4 * error + 1 / permutations


def test_large_cases_without_a_table_match_exact() -> None:
    rng = np.random.default_rng(11)
    d = matrix(rng.normal(size=8), rng.normal(0.5, size=8))
    exact = permutation_test([(d, 8)], permutations=20_000, rng=0)
    estimate = permutation_test([(d, 8)], permutations=10_000, rng=1)
    assert exact.exact
    assert not estimate.exact
    assert exact.p_value is not None
    assert estimate.p_value is not None
    error = math.sqrt(exact.p_value * (1 - exact.p_value) / 10_000)
    assert abs(estimate.p_value - exact.p_value) <= 4 * error + 1e-4


def test_invariances() -> None:
    rng = np.random.default_rng(5)
    a_b = [(rng.normal(size=3), rng.normal(0.5, size=4)) for _ in range(3)]
    cases = [(matrix(a, b), 3) for a, b in a_b]
    reference = permutation_test(cases, permutations=50_000, rng=0)
    assert reference.exact
    swapped = permutation_test([(matrix(b, a), 4) for a, b in a_b], permutations=50_000, rng=0)
    reordered = permutation_test(cases[::-1], permutations=50_000, rng=0)
    scaled = permutation_test([(7.5 * d, n) for d, n in cases], permutations=50_000, rng=0)
    for other in (swapped, reordered, scaled):
        assert other.p_value == pytest.approx(reference.p_value, rel=1e-12)
    # Monte Carlo under the same stream: scaling changes nothing either.
    sampled = permutation_test(cases, permutations=999, rng=4)
    sampled_scaled = permutation_test([(3 * d, n) for d, n in cases], permutations=999, rng=4)
    assert sampled == sampled_scaled


def test_enumeration_is_capped_to_bound_memory() -> None:
    # 12870² joint labelings exceed EXACT_LIMIT: a larger budget is then spent at random.
    rng = np.random.default_rng(1)
    data = [(matrix(rng.normal(size=8), rng.normal(size=8)), 8) for _ in range(2)]
    result = permutation_test(data, permutations=2000, rng=0)
    assert not result.exact
    assert result.permutations == 2000


def test_zero_permutations_skip_the_test() -> None:
    result = permutation_test([(matrix([0, 1], [2, 3]), 2)], permutations=0, rng=0)
    assert result.p_value is None
    assert result.permutations == 0
    with pytest.raises(AnalysisError, match="permutations"):
        permutation_test([(matrix([0, 1], [2, 3]), 2)], permutations=-1, rng=0)


def test_all_identical_outputs_give_p_one() -> None:
    same = np.zeros((10, 10))
    result = permutation_test([(same, 5)] * 3, permutations=1000, rng=0)
    assert result.p_value == 1.0


@pytest.mark.parametrize("repetitions", [2, 5])
def test_null_rejection_rate_is_calibrated(repetitions: int) -> None:
    # Simulated null (STATS.md): P(p ≤ α) ≤ α + 3 Monte-Carlo standard errors.
    rng = np.random.default_rng(repetitions)
    alpha, experiments = 0.05, 300
    p_values = []
    for index in range(experiments):
        cases = [
            (
                matrix(rng.integers(0, 2, repetitions), rng.integers(0, 2, repetitions), differ),
                repetitions,
            )
            for _ in range(4)
        ]
        result = permutation_test(cases, permutations=199, rng=index)
        assert result.p_value is not None
        p_values.append(result.p_value)
    rate = np.mean(np.asarray(p_values) <= alpha)
    assert rate <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / experiments)


def vectorised_excess(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """The excess with d = |x − y| for scipy, vectorised along its resample axes."""
    x, y = np.moveaxis(x, axis, -1), np.moveaxis(y, axis, -1)
    n_a, n_b = x.shape[-1], y.shape[-1]
    between = np.abs(x[..., :, None] - y[..., None, :]).mean(axis=(-2, -1))
    within_a = np.abs(x[..., :, None] - x[..., None, :]).sum(axis=(-2, -1)) / (n_a * (n_a - 1))
    within_b = np.abs(y[..., :, None] - y[..., None, :]).sum(axis=(-2, -1)) / (n_b * (n_b - 1))
    result: np.ndarray = between - (within_a + within_b) / 2
    return result


def test_eight_and_eight_exact_p_equals_scipy() -> None:
    # C(16, 8) = 12,870 labelings of 16 outputs: too many to tabulate by one kernel product,
    # so the exact test runs on the quadratic-form path. A sign slip there moves this p-value.
    rng = np.random.default_rng(21)
    x, y = rng.normal(size=8), rng.normal(0.6, size=8)
    reference = scipy.stats.permutation_test(
        (x, y),
        vectorised_excess,
        permutation_type="independent",
        alternative="greater",
        n_resamples=np.inf,
        vectorized=True,
    )
    result = permutation_test([(matrix(x, y), 8)], permutations=20_000, rng=0)
    assert result.exact
    assert result.permutations == 12_870
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-12)
    assert 0.001 < result.p_value < 0.5  # a p-value in the range where mistakes show


def test_monte_carlo_beyond_one_block_of_draws_counts_every_block_once() -> None:
    # 40,000 permutations are drawn in two blocks (32,768 and 7,232); 20^4 joint labelings of
    # four 3 + 3 cases are too many for the budget, so the p-value is Monte Carlo.
    rng = np.random.default_rng(13)
    cases = [(matrix(rng.normal(size=3), rng.normal(0.7, size=3)), 3) for _ in range(4)]
    exact = permutation_test(cases, permutations=200_000, rng=0)
    estimate = permutation_test(cases, permutations=40_000, rng=1)
    assert exact.exact
    assert not estimate.exact
    assert estimate.permutations == 40_000
    assert exact.p_value is not None
    assert estimate.p_value is not None
    hits = estimate.p_value * 40_001 - 1
    assert hits == pytest.approx(round(hits), abs=1e-6)  # on the Phipson-Smyth grid
    error = math.sqrt(exact.p_value * (1 - exact.p_value) / 40_000)
    assert abs(estimate.p_value - exact.p_value) <= 4 * error + 1 / 40_000
