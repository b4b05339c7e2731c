"""Case-bootstrap intervals against scipy.stats.bootstrap fed the same distribution."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import scipy.stats
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from modelscape.errors import AnalysisError
from modelscape.stats import (
    DegenerateIntervalWarning,
    bootstrap_distribution,
    bootstrap_interval,
    bootstrap_mean,
)


def scipy_interval(
    values: np.ndarray, distribution: np.ndarray, method: str, confidence: float
) -> tuple[float, float]:
    result = scipy.stats.bootstrap(
        (values,),
        np.mean,
        n_resamples=0,
        bootstrap_result=SimpleNamespace(bootstrap_distribution=distribution),
        method=method,
        confidence_level=confidence,
    )
    return result.confidence_interval.low, result.confidence_interval.high


@pytest.mark.parametrize("method", ["bca", "percentile"])
@pytest.mark.parametrize("confidence", [0.8, 0.95])
@pytest.mark.parametrize(
    "values",
    [
        np.random.default_rng(0).normal(size=20),
        np.random.default_rng(1).exponential(size=7) ** 2,  # skewed: BCa moves the interval
        np.array([0.0, 0.0, 0.0, 0.2, 0.2, 0.6, 0.0, 0.2]),  # discrete, with ties at E
    ],
)
def test_equals_scipy_fed_the_same_distribution(
    values: np.ndarray, method: str, confidence: float
) -> None:
    interval = bootstrap_mean(
        values,
        resamples=2000,
        confidence=confidence,
        method=method,  # type: ignore[arg-type]
        rng=np.random.default_rng(9),
    )
    low, high = scipy_interval(values, interval.distribution, method, confidence)
    assert interval.low == pytest.approx(low, rel=1e-10, abs=1e-12)
    assert interval.high == pytest.approx(high, rel=1e-10, abs=1e-12)
    assert interval.warning is None


@given(
    values=st.integers(3, 12).flatmap(
        lambda n: arrays(np.float64, n, elements=st.floats(-5, 5, allow_subnormal=False))
    ),
    seed=st.integers(0, 1000),
)
def test_bca_equals_scipy_on_random_data(values: np.ndarray, seed: int) -> None:
    distribution = bootstrap_distribution(values, resamples=500, rng=np.random.default_rng(seed))
    spread = distribution.max() - distribution.min()
    if spread <= 1e-9 * max(1.0, np.abs(values).max()):
        return  # degenerate: covered below (scipy returns NaN there, we return [E, E])
    share = np.mean(distribution < values.mean()) + np.mean(distribution <= values.mean())
    if share in (0.0, 2.0):
        return  # z0 infinite in scipy; we keep it finite, by design
    jackknife = (values.sum() - values) / (len(values) - 1)
    interval = bootstrap_interval(
        float(np.mean(values)), distribution, jackknife, confidence=0.9, method="bca"
    )
    low, high = scipy_interval(values, distribution, "bca", 0.9)
    assert interval.low == pytest.approx(low, rel=1e-8, abs=1e-10)
    assert interval.high == pytest.approx(high, rel=1e-8, abs=1e-10)
    assert interval.low <= interval.high


def test_resamples_whole_cases() -> None:
    # Every bootstrap mean is a mean of C values drawn among the cases' values.
    values = np.array([1.0, 10.0, 100.0, 1000.0])
    distribution = bootstrap_distribution(values, resamples=300, rng=np.random.default_rng(2))
    totals = distribution * len(values)
    np.testing.assert_allclose(totals, np.round(totals), atol=1e-9)
    digits = [[int(c) for c in f"{round(float(t)):04d}"] for t in totals]
    assert all(sum(d) == len(values) for d in digits)  # four draws each


def test_same_stream_same_distribution() -> None:
    values = np.arange(6.0)
    first = bootstrap_distribution(values, resamples=50, rng=np.random.default_rng(3))
    second = bootstrap_distribution(values, resamples=50, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(first, second)


@pytest.mark.parametrize("method", ["bca", "percentile"])
@pytest.mark.parametrize("values", [np.full(8, 0.25), np.array([0.3]), np.zeros(5)])
def test_degenerate_distribution_gives_the_estimate_and_a_warning(
    values: np.ndarray, method: str
) -> None:
    with pytest.warns(DegenerateIntervalWarning, match="no spread"):
        interval = bootstrap_mean(
            values,
            resamples=100,
            confidence=0.95,
            method=method,  # type: ignore[arg-type]
            rng=np.random.default_rng(0),
        )
    assert interval.low == interval.high == pytest.approx(values.mean())
    assert interval.warning is not None


def test_percentile_does_not_need_a_jackknife_but_bca_does() -> None:
    distribution = np.linspace(0, 1, 101)
    interval = bootstrap_interval(0.5, distribution, confidence=0.9, method="percentile")
    assert (interval.low, interval.high) == pytest.approx((0.05, 0.95))
    with pytest.raises(AnalysisError, match="jackknife"):
        bootstrap_interval(0.5, distribution, confidence=0.9, method="bca")


def test_bad_inputs() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(AnalysisError, match="non-empty"):
        bootstrap_distribution(np.array([]), resamples=10, rng=rng)
    with pytest.raises(AnalysisError, match="resamples"):
        bootstrap_distribution(np.ones(3), resamples=0, rng=rng)
    with pytest.raises(AnalysisError, match="empty"):
        bootstrap_interval(0.0, [], confidence=0.9, method="percentile")
    with pytest.raises(AnalysisError, match="confidence"):
        bootstrap_interval(0.0, [0.0, 1.0], confidence=1.5, method="percentile")


def _bca_by_hand(
    distribution: np.ndarray, jackknife: np.ndarray, share: float, confidence: float
) -> np.ndarray:
    bias = scipy.stats.norm.ppf(share)
    spread = jackknife.mean() - jackknife
    acceleration = np.sum(spread**3) / (6 * np.sum(spread**2) ** 1.5)
    z = scipy.stats.norm.ppf((1 - confidence) / 2)
    levels = [
        scipy.stats.norm.cdf(bias + (bias + q) / (1 - acceleration * (bias + q))) for q in (z, -z)
    ]
    quantiles: np.ndarray = np.quantile(distribution, levels)
    return quantiles


@pytest.mark.parametrize(("estimate", "share"), [(0.5, 0.5 / 100), (3.0, 1 - 0.5 / 100)])
def test_bias_correction_is_kept_finite_when_every_resample_lies_on_one_side(
    estimate: float, share: float
) -> None:
    # The estimate below (above) every resample: the share below is 0 (1), clamped to 0.5 / B
    # (1 − 0.5 / B) so that the bias correction ndtri(share) stays finite; scipy gives NaN.
    distribution = np.linspace(1.0, 2.0, 100)
    jackknife = np.array([0.1, 0.4, 0.2, 0.9])
    interval = bootstrap_interval(estimate, distribution, jackknife, confidence=0.9, method="bca")
    expected = _bca_by_hand(distribution, jackknife, share, 0.9)
    assert (interval.low, interval.high) == pytest.approx(tuple(expected), rel=1e-12)
