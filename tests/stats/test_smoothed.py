"""The smoothed interval: its model of each case, its noise, its floor, and its caveats."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from modelscape.errors import AnalysisError
from modelscape.stats import (
    DegenerateIntervalWarning,
    FewCasesWarning,
    bootstrap_interval,
    bootstrap_mean,
    cluster_mean,
    smoothed_interval,
)
from modelscape.stats.cases import group_cases
from modelscape.stats.permutation import draw_indices
from modelscape.stats.smoothed import (
    CASES_FOR_COVERAGE,
    _excess_of_counts,
    _model_excess,
    cluster_variance,
    unit_models,
)

from .cases import absolute, differ, matrix, naive_excess


def test_a_unit_is_modelled_over_the_values_it_shows() -> None:
    # Side a: yes, yes, no; side b: yes, maybe, maybe, maybe. Three values in all.
    d = matrix([1, 1, 0], [1, 2, 2, 2], differ)
    distances, model_a, model_b, varied = unit_models(d[None], 3)
    assert varied.tolist() == [True]
    # Values in order of first appearance: 1, 0, 2. Jeffreys: counts + 1/2 over 3 values.
    assert model_a[0].tolist() == pytest.approx([2.5 / 4.5, 1.5 / 4.5, 0.5 / 4.5])
    assert model_b[0].tolist() == pytest.approx([1.5 / 5.5, 0.5 / 5.5, 3.5 / 5.5])
    assert distances[0].tolist() == [[0, 1, 1], [1, 0, 1], [1, 1, 0]]
    # For 0/1 distances the model's excess is half the squared distance of the two models.
    half_squared = 0.5 * float(np.sum((model_a[0] - model_b[0]) ** 2))
    assert _model_excess(distances, model_a, model_b)[0] == pytest.approx(half_squared)


def test_units_with_fewer_values_are_padded_and_all_alike_units_are_marked() -> None:
    stack = np.stack(
        [
            matrix([0, 0], [0, 0], differ),  # one value: nothing to redraw
            matrix([0, 1], [2, 3], differ),  # four values
        ]
    )
    distances, model_a, model_b, varied = unit_models(stack, 2)
    assert distances.shape == (2, 4, 4)
    assert varied.tolist() == [False, True]
    assert model_a[0].tolist() == [1.0, 0.0, 0.0, 0.0]
    assert np.all(distances[0] == 0)
    assert model_a.sum(axis=1) == pytest.approx([1.0, 1.0])
    assert model_b[1].tolist() == pytest.approx([0.5 / 4, 0.5 / 4, 1.5 / 4, 1.5 / 4])


def test_continuous_outputs_are_values_of_their_own_and_keep_their_distances() -> None:
    d = matrix([0.0, 1.0, 1.0], [3.0, 4.5], absolute)
    distances, model_a, _, _ = unit_models(d[None], 3)
    assert distances[0].tolist() == [
        [0.0, 1.0, 3.0, 4.5],
        [1.0, 0.0, 2.0, 3.5],
        [3.0, 2.0, 0.0, 1.5],
        [4.5, 3.5, 1.5, 0.0],
    ]
    assert model_a[0].tolist() == pytest.approx([1.5 / 5, 2.5 / 5, 0.5 / 5, 0.5 / 5])


@pytest.mark.parametrize(("counts_a", "counts_b"), [([2, 1, 0], [0, 1, 3]), ([3, 0, 0], [1, 2, 1])])
def test_excess_of_counts_equals_the_definition(counts_a: list[int], counts_b: list[int]) -> None:
    values = np.array([0.0, 1.0, 2.5])
    delta = np.abs(values[:, None] - values[None, :])
    a = np.repeat(values, counts_a)
    b = np.repeat(values, counts_b)
    found = _excess_of_counts(
        delta[None],
        np.array([counts_a], dtype=np.float64),
        np.array([counts_b], dtype=np.float64),
        len(a),
        len(b),
    )
    assert found[0] == pytest.approx(naive_excess(matrix(a, b), len(a)))


def _cases(seed: int, count: int, shift: float = 0.0, repetitions: int = 5) -> list[tuple]:
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(count):
        p = rng.choice([0.0, 0.1, 0.3])
        a = rng.random(repetitions) < p
        b = rng.random(repetitions) < p + shift
        cases.append((matrix(a, b, differ), repetitions))
    return cases


def test_the_redrawn_noise_is_centred_and_the_estimate_is_the_mean_excess() -> None:
    cases = _cases(3, 30, shift=0.2)
    groups = group_cases(cases, key="k")
    interval = smoothed_interval(
        groups, len(cases), resamples=4000, confidence=0.95, rng=np.random.default_rng(0)
    )
    estimate = np.mean([naive_excess(d, n) for d, n in cases])
    # Redraws are unbiased for each model's excess, so the noise has mean zero.
    assert np.mean(interval.distribution) == pytest.approx(estimate, abs=0.01)
    assert interval.low < estimate < interval.high
    assert interval.warning is None


def test_the_noise_is_never_narrower_than_the_variation_between_cases() -> None:
    # Cases that differ a lot from one another (half flip completely, half stay put) but vary
    # little within: the case-to-case variance must set the width.
    flip = (matrix([0, 0, 0, 0, 0], [1, 1, 1, 1, 0], differ), 5)
    still = (matrix([0, 0, 0, 0, 1], [0, 0, 0, 0, 0], differ), 5)
    cases = [flip, still] * 6
    groups = group_cases(cases, key="k")
    per_case = np.array([naive_excess(d, n) for d, n in cases])
    interval = smoothed_interval(
        groups, len(cases), resamples=4000, confidence=0.95, rng=np.random.default_rng(1)
    )
    spread = float(np.var(interval.distribution))
    between = float(np.var(per_case, ddof=1) / len(cases))
    assert spread == pytest.approx(between, rel=0.05)
    assert cluster_variance(per_case, np.arange(len(cases))) == pytest.approx(between)


def test_cluster_variance_is_the_ratio_estimator_variance() -> None:
    values = np.array([0.1, 0.3, -0.2, 0.5, 0.0, 0.2])
    clusters = np.array(["a", "a", "b", "c", "c", "c"])
    mean = values.mean()
    totals = np.array([0.4, -0.2, 0.7])
    sizes = np.array([2, 1, 3])
    expected = 3 / 2 * np.sum((totals - mean * sizes) ** 2) / 36
    assert cluster_variance(values, clusters) == pytest.approx(expected)
    assert cluster_variance(values, np.zeros(6)) == 0.0
    with pytest.raises(AnalysisError, match="one cluster label per value"):
        cluster_variance(values, clusters[:3])


def test_cluster_mean_resamples_whole_cases() -> None:
    values = np.array([0.1, 0.3, -0.2, 0.5, 0.0, 0.2, 0.4])
    clusters = np.array([0, 0, 1, 2, 2, 2, 3])
    interval = cluster_mean(
        values, clusters, resamples=3000, confidence=0.9, rng=np.random.default_rng(2)
    )
    # Every resampled mean is a ratio of cluster totals to cluster sizes.
    totals, sizes = np.array([0.4, -0.2, 0.7, 0.4]), np.array([2, 1, 3, 1])
    draws = draw_indices(4, (3000, 4), np.random.default_rng(2))
    expected = totals[draws].sum(axis=1) / sizes[draws].sum(axis=1)
    np.testing.assert_allclose(np.sort(interval.distribution), np.sort(expected))
    assert interval.low < values.mean() < interval.high
    # One unit per cluster: the plain case bootstrap of the mean, draw for draw. (Percentile:
    # BCa counts resamples tied with the estimate, which rounding of the sums can move.)
    single = cluster_mean(
        values,
        np.arange(7),
        resamples=500,
        confidence=0.95,
        method="percentile",
        rng=np.random.default_rng(4),
    )
    plain = bootstrap_mean(
        values, resamples=500, confidence=0.95, method="percentile", rng=np.random.default_rng(4)
    )
    np.testing.assert_allclose(single.distribution, plain.distribution, atol=1e-15)
    assert (single.low, single.high) == pytest.approx((plain.low, plain.high), abs=1e-15)
    with pytest.raises(AnalysisError, match="one cluster label per value"):
        cluster_mean(
            values, clusters[:2], resamples=10, confidence=0.9, rng=np.random.default_rng()
        )


def test_units_of_one_case_are_one_cluster() -> None:
    # Two steps of each case alike (both flip, or neither): paired, the cases vary more.
    flip = (matrix([0, 0, 0, 0, 0], [1, 1, 1, 1, 0], differ), 5)
    still = (matrix([0, 0, 0, 0, 1], [0, 0, 0, 0, 0], differ), 5)
    cases = [flip, flip, still, still] * 2
    groups = group_cases(cases, key="k")
    per_unit = [naive_excess(d, n) for d, n in cases]
    alone = smoothed_interval(
        groups, 8, resamples=2000, confidence=0.95, rng=np.random.default_rng(3)
    )
    paired = smoothed_interval(
        groups,
        8,
        clusters=[0, 0, 1, 1, 2, 2, 3, 3],
        resamples=2000,
        confidence=0.95,
        rng=np.random.default_rng(3),
    )
    totals = np.add.reduceat(per_unit, [0, 2, 4, 6])
    by_hand = 4 / 3 * np.sum((totals - 2 * np.mean(per_unit)) ** 2) / 8**2
    assert cluster_variance(per_unit, [0, 0, 1, 1, 2, 2, 3, 3]) == pytest.approx(by_hand)
    assert by_hand > 1.5 * cluster_variance(per_unit, np.arange(8))
    assert paired.warning is None  # four cases: as many as coverage was checked for
    assert paired.high - paired.low > 1.2 * (alone.high - alone.low)
    with pytest.raises(AnalysisError, match="one case label per unit"):
        smoothed_interval(
            groups, 8, clusters=[0, 1], resamples=10, confidence=0.9, rng=np.random.default_rng()
        )
    with pytest.raises(AnalysisError, match="resamples must be >= 1"):
        smoothed_interval(groups, 8, resamples=0, confidence=0.9, rng=np.random.default_rng())


def test_alike_outputs_give_a_degenerate_interval() -> None:
    cases = [(np.zeros((6, 6)), 3)] * 5
    with pytest.warns(DegenerateIntervalWarning, match="'still'"):
        interval = smoothed_interval(
            group_cases(cases, key="k"),
            5,
            resamples=100,
            confidence=0.95,
            rng=np.random.default_rng(0),
            where="'still'",
        )
    assert (interval.low, interval.high) == (0.0, 0.0)


def test_too_few_cases_carry_a_caveat_and_stay_within_the_largest_distance() -> None:
    cases = _cases(7, CASES_FOR_COVERAGE - 1, shift=0.6)
    cases[0] = (matrix([0, 0, 0], [1, 1, 1], differ), 3)
    with pytest.warns(FewCasesWarning, match=r"from 3 cases; its coverage was checked by"):
        interval = smoothed_interval(
            group_cases(cases, key="k"),
            len(cases),
            resamples=2000,
            confidence=0.95,
            rng=np.random.default_rng(5),
        )
    assert interval.warning is not None
    assert f"from {CASES_FOR_COVERAGE} cases up" in interval.warning
    assert -1.0 <= interval.low <= interval.high <= 1.0
    assert np.all(np.abs(interval.distribution) <= 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        enough = smoothed_interval(
            group_cases(_cases(7, CASES_FOR_COVERAGE, shift=0.3), key="k"),
            CASES_FOR_COVERAGE,
            resamples=200,
            confidence=0.95,
            rng=np.random.default_rng(5),
        )
    assert enough.warning is None


def test_the_same_stream_gives_the_same_interval() -> None:
    cases = _cases(9, 12, shift=0.1)
    first = smoothed_interval(
        group_cases(cases, key="k"), 12, resamples=300, confidence=0.9, rng=np.random.default_rng(8)
    )
    second = smoothed_interval(
        group_cases(cases, key="k"), 12, resamples=300, confidence=0.9, rng=np.random.default_rng(8)
    )
    assert np.array_equal(first.distribution, second.distribution)
    wider = smoothed_interval(
        group_cases(cases, key="k"),
        12,
        resamples=300,
        confidence=0.99,
        rng=np.random.default_rng(8),
    )
    assert wider.low <= first.low <= first.high <= wider.high
    assert math.isfinite(first.low)


def test_cluster_mean_with_two_clusters_uses_the_jackknife_for_bca() -> None:
    values = np.array([0.1, 0.4, 0.3, -0.2, 0.0])
    clusters = np.array([0, 0, 0, 1, 1])
    interval = cluster_mean(
        values, clusters, resamples=400, confidence=0.9, rng=np.random.default_rng(6)
    )
    # Leave-one-cluster-out means: cluster 1 alone, then cluster 0 alone.
    jackknife = np.array([-0.1, 0.8 / 3])
    expected = bootstrap_interval(
        float(values.mean()), interval.distribution, jackknife, confidence=0.9, method="bca"
    )
    assert (interval.low, interval.high) == (expected.low, expected.high)


def test_many_cases_are_redrawn_in_blocks_without_losing_a_resample(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A small block forces several blocks of redraws: every resample is filled once.
    import modelscape.stats.smoothed as smoothed

    monkeypatch.setattr(smoothed, "_BLOCK_ELEMENTS", 64)
    cases = _cases(4, 16, shift=0.3)
    interval = smoothed_interval(
        group_cases(cases, key="k"), 16, resamples=300, confidence=0.9, rng=np.random.default_rng(2)
    )
    assert interval.distribution.shape == (300,)
    estimate = np.mean([naive_excess(d, n) for d, n in cases])
    assert np.mean(interval.distribution) == pytest.approx(estimate, abs=0.02)
    # Redraws in every block: no run of resamples left at the bare estimate.
    assert np.count_nonzero(interval.distribution == estimate) < 30


def test_the_tabulated_redraws_have_the_multinomial_distribution() -> None:
    # One unit with three values: the tabulated draws and direct multinomial draws of the
    # counts give the same distribution of the redrawn excess (exactly the same mean).
    from modelscape.stats.smoothed import _compositions, _probabilities, _tabulated

    d = matrix([1, 1, 0, 2], [1, 2, 2, 2, 0], differ)
    distances, model_a, model_b, _ = unit_models(d[None], 4)
    counts_a, log_a = _compositions(4, 3)
    assert counts_a.shape == (math.comb(6, 2), 3)
    assert np.all(counts_a.sum(axis=1) == 4)
    probabilities = _probabilities(counts_a, log_a, model_a)
    assert probabilities.sum() == pytest.approx(1.0)
    expected = _model_excess(distances, model_a, model_b)[0]
    rng = np.random.default_rng(12)
    tabulated = _tabulated(distances, model_a, model_b, 4, 5, 200_000, rng)[:, 0]
    drawn_a = rng.multinomial(4, model_a[0], size=200_000).astype(np.float64)[:, None, :]
    drawn_b = rng.multinomial(5, model_b[0], size=200_000).astype(np.float64)[:, None, :]
    direct = _excess_of_counts(distances, drawn_a, drawn_b, 4, 5)[:, 0]
    assert tabulated.mean() == pytest.approx(expected, abs=0.003)
    assert direct.mean() == pytest.approx(expected, abs=0.003)
    assert tabulated.std() == pytest.approx(direct.std(), rel=0.02)
    for q in (0.05, 0.5, 0.95):
        assert np.quantile(tabulated, q) == pytest.approx(np.quantile(direct, q), abs=0.02)


def test_units_with_many_distinct_outputs_draw_their_counts_directly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import modelscape.stats.smoothed as smoothed

    cases = _cases(10, 12, shift=0.3)
    tabulated = smoothed_interval(
        group_cases(cases, key="k"),
        12,
        resamples=3000,
        confidence=0.9,
        rng=np.random.default_rng(3),
    )
    monkeypatch.setattr(smoothed, "_TABULATED", 0)
    drawn = smoothed_interval(
        group_cases(cases, key="k"),
        12,
        resamples=3000,
        confidence=0.9,
        rng=np.random.default_rng(3),
    )
    assert not np.array_equal(tabulated.distribution, drawn.distribution)
    assert drawn.low == pytest.approx(tabulated.low, abs=0.02)
    assert drawn.high == pytest.approx(tabulated.high, abs=0.02)


def test_units_of_fewer_values_than_their_group_redraw_only_their_own() -> None:
    # A yes/no unit stacked with a three-valued one is padded to three values; counts on the
    # padding slot are impossible, so its redraws keep the two-valued model's distribution.
    from modelscape.stats.smoothed import _tabulated

    stack = np.stack([matrix([1, 1, 0], [0, 0, 0], differ), matrix([1, 2, 0], [2, 2, 1], differ)])
    distances, model_a, model_b, _ = unit_models(stack, 3)
    assert model_a[0, 2] == 0.0
    expected = _model_excess(distances, model_a, model_b)
    redrawn = _tabulated(distances, model_a, model_b, 3, 3, 100_000, np.random.default_rng(1))
    assert redrawn.mean(axis=0) == pytest.approx(expected, abs=0.004)
    # Every redraw of the yes/no unit is the excess of some yes/no counts.
    two_valued = {
        round(naive_excess(matrix([0] * k + [1] * (3 - k), [0] * j + [1] * (3 - j), differ), 3), 9)
        for k in range(4)
        for j in range(4)
    }
    assert set(np.round(redrawn[:, 0], 9)) <= two_valued


def test_draw_picks_indices_by_their_probabilities() -> None:
    from modelscape.stats.smoothed import _draw

    probabilities = np.array([[0.5, 0.0, 0.5, 0.0], [0.1, 0.2, 0.3, 0.4], [0.0, 0.0, 0.0, 1.0]])
    picked = _draw(probabilities, 40_000, np.random.default_rng(0))
    assert picked.shape == (40_000, 3)
    for unit in range(3):
        shares = np.bincount(picked[:, unit], minlength=4) / 40_000
        assert shares == pytest.approx(probabilities[unit], abs=0.01)


def test_no_resample_is_left_without_its_noise() -> None:
    # Four alike three-valued units: their noise is never exactly zero, so a resample at the
    # bare estimate would be one that no redraw reached.
    case = (matrix([1, 2, 0], [2, 2, 1], differ), 3)
    interval = smoothed_interval(
        group_cases([case] * 4, key="k"),
        4,
        resamples=500,
        confidence=0.9,
        rng=np.random.default_rng(11),
    )
    estimate = naive_excess(*case)
    assert np.count_nonzero(interval.distribution == estimate) == 0
