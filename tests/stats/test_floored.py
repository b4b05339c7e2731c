"""The floored case interval of a mean or a share: BCa widened to the t interval over cases."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.stats

from modelscape.errors import AnalysisError
from modelscape.stats import DegenerateIntervalWarning, bootstrap_mean, cluster_mean
from modelscape.stats.floored import floored_mean, floored_ratio, ratio_error


def test_a_mean_is_bca_widened_to_the_t_interval_on_each_side() -> None:
    values = np.array([0.2, 0.9, 1.0, 0.4, 0.7, 0.6])
    floored = floored_mean(
        values, resamples=4000, confidence=0.95, rng=np.random.default_rng(3), bounds=(0, 1)
    )
    bca = bootstrap_mean(values, resamples=4000, confidence=0.95, rng=np.random.default_rng(3))
    reach = scipy.stats.t.ppf(0.975, 4) * values.std(ddof=1) / np.sqrt(6)
    assert floored.low == pytest.approx(max(0.0, min(bca.low, values.mean() - reach)))
    assert floored.high == pytest.approx(min(1.0, max(bca.high, values.mean() + reach)))
    assert floored.high - floored.low > bca.high - bca.low  # six cases: t reaches further
    # Without the floor it is the case bootstrap itself, draw for draw.
    plain = floored_mean(
        values, resamples=4000, confidence=0.95, rng=np.random.default_rng(3), floor=False
    )
    assert (plain.low, plain.high) == pytest.approx((bca.low, bca.high))


def test_a_share_is_a_ratio_of_case_totals_with_its_cluster_error() -> None:
    same = np.array([3.0, 0.0, 5.0, 1.0, 8.0])
    pairs = np.array([16.0, 4.0, 16.0, 9.0, 16.0])
    ratio = same.sum() / pairs.sum()
    by_hand = np.sqrt(5 / 4 * np.sum((same - ratio * pairs) ** 2)) / pairs.sum()
    assert ratio_error(same, pairs) == pytest.approx(by_hand)
    # One unit per case: the error of a mean is s / sqrt(C).
    assert ratio_error(same, np.ones(5)) == pytest.approx(same.std(ddof=1) / np.sqrt(5))
    floored = floored_ratio(
        same, pairs, resamples=2000, confidence=0.9, rng=np.random.default_rng(0), floor=False
    )
    clusters = np.repeat(np.arange(5), pairs.astype(int))
    # The case bootstrap of the pooled share resamples cases with all their pairs.
    reference = cluster_mean(
        np.concatenate(
            [np.r_[np.ones(int(s)), np.zeros(int(p - s))] for s, p in zip(same, pairs, strict=True)]
        ),
        clusters,
        resamples=2000,
        confidence=0.9,
        rng=np.random.default_rng(0),
    )
    assert floored.low == pytest.approx(reference.low, abs=0.02)
    assert floored.high == pytest.approx(reference.high, abs=0.02)


def test_cases_all_alike_give_a_degenerate_interval_not_a_widened_one() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        interval = floored_mean(
            [8 / 9] * 6, resamples=200, confidence=0.95, rng=np.random.default_rng(1)
        )
    assert interval.low == interval.high == pytest.approx(8 / 9)
    assert interval.warning is not None
    assert any(issubclass(w.category, DegenerateIntervalWarning) for w in caught)


def test_a_case_without_pairs_is_refused_by_name() -> None:
    with pytest.raises(AnalysisError, match=r"missed change: every case needs a positive size"):
        floored_ratio(
            [1.0, 0.0],
            [4.0, 0.0],
            resamples=10,
            confidence=0.95,
            rng=np.random.default_rng(0),
            where="missed change",
        )


@pytest.mark.parametrize("family", ["jeffreys", "near one half"])
def test_the_accuracy_interval_covers_at_six_cases(family: str) -> None:
    # Six cases of ten scored outputs each; case probabilities from Beta(1/2, 1/2) or all
    # 0.5. The quantity covered is the expectation over cases like these (0.5 in both).
    # BCa alone covers about 0.87-0.92 here (benchmarks/coverage.py); the bound below is
    # the target, 0.925, less 2.5 Monte-Carlo standard errors of 300 replications.
    rng = np.random.default_rng(2026)
    trials, cases, outputs = 300, 6, 10
    covered = 0
    for _ in range(trials):
        p = rng.beta(0.5, 0.5, cases) if family == "jeffreys" else np.full(cases, 0.5)
        per_case = (rng.random((cases, outputs)) < p[:, None]).mean(axis=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateIntervalWarning)
            interval = floored_mean(
                per_case, resamples=400, confidence=0.95, rng=rng, bounds=(0.0, 1.0)
            )
        covered += interval.low - 1e-12 <= 0.5 <= interval.high + 1e-12
    error = np.sqrt(0.925 * 0.075 / trials)
    assert covered / trials >= 0.925 - 2.5 * error


def test_the_missed_change_interval_covers_at_six_cases() -> None:
    # Six cases, yes/no answers, ten repetitions a side, a quarter unreadable; each case's
    # chance of the correct answer is 0.45 before the step and its own shift of it after.
    # The share of agreeing cross pairs of read answers, against its expectation over cases
    # like these. BCa alone covers about 0.8 here (benchmarks/coverage.py).
    rng = np.random.default_rng(28)
    trials, cases, outputs = 300, 6, 10
    q = np.clip(0.45 + rng.uniform(-0.3, 0.3, 400_000), 0, 1)
    truth = float(np.mean(0.45 * (1 - q) + 0.55 * q))
    covered = 0
    for _ in range(trials):
        after = np.clip(0.45 + rng.uniform(-0.3, 0.3, cases), 0, 1)
        a = np.where(rng.random((cases, outputs)) < 0.45, 0, 1)
        b = np.where(rng.random((cases, outputs)) < after[:, None], 1, 0)
        read_a = rng.random((cases, outputs)) < 0.75
        read_b = rng.random((cases, outputs)) < 0.75
        both = read_a[:, :, None] & read_b[:, None, :]
        same = ((a[:, :, None] == b[:, None, :]) & both).sum(axis=(1, 2)).astype(float)
        pairs = both.sum(axis=(1, 2)).astype(float)
        interval = floored_ratio(
            same, pairs, resamples=400, confidence=0.95, rng=rng, bounds=(0.0, 1.0)
        )
        covered += interval.low - 1e-12 <= truth <= interval.high + 1e-12
    error = np.sqrt(0.925 * 0.075 / trials)
    assert covered / trials >= 0.925 - 2.5 * error
