"""The excess change against its definition, closed forms and scipy's energy distance."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from modelscape.errors import AnalysisError
from modelscape.stats import excess_kernel, excess_per_case, excess_per_cases
from modelscape.stats.excess import _labelings, excess_of_labelings, excess_table

from .cases import absolute, differ, matrix, naive_excess, relabel, squared

values = st.floats(min_value=-100, max_value=100, allow_nan=False, allow_infinity=False)
samples = st.integers(min_value=2, max_value=7).flatmap(
    lambda n: arrays(np.float64, n, elements=values)
)


@given(a=samples, b=samples)
def test_matches_the_definition(a: np.ndarray, b: np.ndarray) -> None:
    d = matrix(a, b)
    assert excess_per_case(d, len(a)) == pytest.approx(naive_excess(d, len(a)), abs=1e-9)


@given(a=samples, b=samples)
def test_v_form_identity_with_scipy_energy_distance(a: np.ndarray, b: np.ndarray) -> None:
    # scipy's energy distance is the V-statistic sqrt(2B − V_a − V_b) with V = W (n − 1) / n,
    # W the U-mean of within distances; hence e = energy² / 2 − (W_a / n_a + W_b / n_b) / 2.
    d = matrix(a, b, absolute)
    within_a = float(np.abs(a[:, None] - a[None, :]).sum()) / (len(a) * (len(a) - 1))
    within_b = float(np.abs(b[:, None] - b[None, :]).sum()) / (len(b) * (len(b) - 1))
    energy = scipy.stats.energy_distance(a, b)
    expected = energy**2 / 2 - (within_a / len(a) + within_b / len(b)) / 2
    assert excess_per_case(d, len(a)) == pytest.approx(expected, rel=1e-9, abs=1e-9)


@given(repetitions=st.integers(2, 7), data=st.data())
def test_squared_distance_closed_form(repetitions: int, data: st.DataObject) -> None:
    a = data.draw(arrays(np.float64, repetitions, elements=values))
    b = data.draw(arrays(np.float64, repetitions, elements=values))
    expected = (a.mean() - b.mean()) ** 2 - (a.var(ddof=1) + b.var(ddof=1)) / repetitions
    observed = excess_per_case(matrix(a, b, squared), repetitions)
    assert observed == pytest.approx(expected, rel=1e-9, abs=1e-6)


@given(
    a=st.lists(st.integers(0, 3), min_size=2, max_size=8),
    b=st.lists(st.integers(0, 3), min_size=2, max_size=8),
)
def test_answer_measure_closed_form(a: list[int], b: list[int]) -> None:
    # With d = 1[x ≠ y]: e = ½ Σ (p_k − q_k)² − ½ [(1 − Σ p²)/(n_a − 1) + (1 − Σ q²)/(n_b − 1)],
    # the V-form ½ Σ (p − q)² minus the U-statistic's correction for the diagonal.
    p = np.bincount(a, minlength=4) / len(a)
    q = np.bincount(b, minlength=4) / len(b)
    correction = ((1 - p @ p) / (len(a) - 1) + (1 - q @ q) / (len(b) - 1)) / 2
    expected = ((p - q) ** 2).sum() / 2 - correction
    assert excess_per_case(matrix(a, b, differ), len(a)) == pytest.approx(expected, abs=1e-12)


def test_answer_measure_shift_of_delta_gives_about_delta_squared() -> None:
    # Large samples: the correction vanishes and a 20-point yes/no shift gives 0.04.
    a = [1] * 500 + [0] * 500
    b = [1] * 700 + [0] * 300
    assert excess_per_case(matrix(a, b, differ), len(a)) == pytest.approx(0.04, abs=1e-3)


@given(a=samples, b=samples, data=st.data())
def test_kernel_gives_the_excess_of_any_labeling(
    a: np.ndarray, b: np.ndarray, data: st.DataObject
) -> None:
    d = matrix(a, b)
    n = d.shape[0]
    size = data.draw(st.integers(2, n - 2))
    chosen = data.draw(st.permutations(range(n)))[:size]
    labeling = np.isin(np.arange(n), chosen)
    expected = naive_excess(relabel(d, sorted(chosen)), size)
    assert float(np.sum(excess_kernel(labeling) * d)) == pytest.approx(expected, abs=1e-9)


@given(a=samples, b=samples, scale=st.floats(1e-3, 1e3))
def test_swap_and_scale(a: np.ndarray, b: np.ndarray, scale: float) -> None:
    forward = excess_per_case(matrix(a, b), len(a))
    assert excess_per_case(matrix(b, a), len(b)) == pytest.approx(forward, abs=1e-9)
    scaled = excess_per_case(scale * matrix(a, b), len(a))
    assert scaled == pytest.approx(scale * forward, rel=1e-9, abs=1e-9)


def test_vectorised_form_equals_per_case() -> None:
    rng = np.random.default_rng(3)
    stack = np.stack([matrix(rng.normal(size=3), rng.normal(size=4)) for _ in range(5)])
    expected = [excess_per_case(d, 3) for d in stack]
    np.testing.assert_allclose(excess_per_cases(stack, 3), expected, rtol=1e-12)


def test_identical_distributions_give_about_zero_and_differences_are_positive() -> None:
    rng = np.random.default_rng(4)
    same = [excess_per_case(matrix(rng.normal(size=5), rng.normal(size=5)), 5) for _ in range(4000)]
    assert abs(np.mean(same)) < 3 * np.std(same) / np.sqrt(len(same))
    shifted = [
        excess_per_case(matrix(rng.normal(size=5), rng.normal(1, size=5)), 5) for _ in range(500)
    ]
    assert np.mean(shifted) > 0.2


@pytest.mark.parametrize(("a", "b"), [([0.0], [1.0, 2.0]), ([0.0, 1.0], [2.0]), ([0.0], [1.0])])
def test_one_repetition_cannot_separate_change_from_noise(a: list[float], b: list[float]) -> None:
    with pytest.raises(AnalysisError, match="at least 2"):
        excess_per_case(matrix(a, b), len(a))


def test_rejects_matrices_that_are_not_distances() -> None:
    d = matrix([0.0, 1.0], [2.0, 4.0])
    asymmetric = d.copy()
    asymmetric[0, 1] += 1
    diagonal = d + np.eye(4)
    negative = -d
    infinite = d.copy()
    infinite[0, 1] = infinite[1, 0] = np.inf
    cases = [
        (asymmetric, "not symmetric"),
        (diagonal, "nonzero diagonal"),
        (negative, "negative"),
        (infinite, "NaN or infinite"),
        (d[:3], "square"),
        (np.zeros((2, 2, 2)), "square"),
    ]
    for bad, message in cases:
        with pytest.raises(AnalysisError, match=message):
            excess_per_case(bad, 2)
    with pytest.raises(AnalysisError, match="outside"):
        excess_per_case(d, 5)
    with pytest.raises(AnalysisError, match="integer"):
        excess_per_case(d, 2.0)  # type: ignore[arg-type]
    with pytest.raises(AnalysisError, match="labeling"):
        excess_kernel([0, 1, 2, 1])


@pytest.mark.parametrize(("n_a", "n_b"), [(2, 2), (3, 6), (5, 5), (8, 8)])
def test_quadratic_forms_equal_the_definition_for_random_labelings(n_a: int, n_b: int) -> None:
    # excess_of_labelings evaluates zᵀDz, zᵀD1 and 1ᵀD1 instead of building K(z): check it
    # against the definition on relabelled matrices, for arbitrary (not metric) distances.
    rng = np.random.default_rng(n_a * 10 + n_b)
    n = n_a + n_b
    stack = rng.random((3, n, n))
    stack = stack + stack.transpose(0, 2, 1)
    stack[:, np.arange(n), np.arange(n)] = 0.0
    chosen = np.array([np.sort(rng.choice(n, n_a, replace=False)) for _ in range(12)])
    labelings = np.zeros((12, n), dtype=np.bool_)
    np.put_along_axis(labelings, chosen, True, axis=1)
    found = excess_of_labelings(stack, n_a, labelings)
    expected = [
        [naive_excess(relabel(matrix_, list(picked)), n_a) for picked in chosen]
        for matrix_ in stack
    ]
    np.testing.assert_allclose(found, expected, rtol=1e-12, atol=1e-12)
    # Tabulating every labeling (one kernel product when small, quadratic forms from 8 + 8)
    # gives the definition's value in every column checked.
    table = excess_table(stack, n_a)
    every = _labelings(n_a, n_b)
    assert table.shape == (3, math.comb(n, n_a)) == (3, len(every))
    columns = [0, len(every) - 1, *rng.choice(len(every), 10)]
    for column in columns:
        picked = list(np.flatnonzero(every[column]))
        np.testing.assert_allclose(
            table[:, column],
            [naive_excess(relabel(m, picked), n_a) for m in stack],
            rtol=1e-12,
            atol=1e-12,
        )
