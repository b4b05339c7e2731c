"""compare and compare_many: the assembled result, determinism, invariances, bad input."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest

from modelscape.errors import AnalysisError
from modelscape.stats import (
    Comparison,
    DegenerateIntervalWarning,
    FewCasesWarning,
    Inference,
    bootstrap_interval,
    bootstrap_mean,
    compare,
    compare_many,
    excess_per_case,
    permutation_test,
    random_stream,
    smoothed_interval,
)
from modelscape.stats.cases import group_cases

from .cases import differ, matrix

FAST = Inference(resamples=500, permutations=999, seed=3)


def answers_case(rng: np.random.Generator, shift: float, repetitions: int = 5) -> tuple:
    a = rng.choice(3, repetitions, p=[0.5, 0.3, 0.2])
    b = rng.choice(3, repetitions, p=[0.5 - shift, 0.3 + shift, 0.2])
    return (matrix(a, b, differ), repetitions)


def transitions(count: int, seed: int = 0) -> list[tuple[str, list[tuple]]]:
    rng = np.random.default_rng(seed)
    return [
        (f"axis: {index} -> {index + 1}", [answers_case(rng, 0.3 * (index % 2)) for _ in range(8)])
        for index in range(count)
    ]


def same(first: Comparison, second: Comparison) -> bool:
    return first == second and np.array_equal(
        first.bootstrap_distribution, second.bootstrap_distribution
    )


def test_assembles_excess_interval_and_p_value() -> None:
    key, cases = transitions(2)[1]
    result = compare(cases, inference=FAST, key=key)
    expected = [excess_per_case(d, n_a) for d, n_a in cases]
    assert result.key == key
    assert result.cases == len(cases)
    np.testing.assert_allclose(result.per_case, expected, rtol=1e-12, atol=1e-15)
    assert result.excess == pytest.approx(np.mean(expected))
    assert result.low is not None
    assert result.high is not None
    assert result.low <= result.excess <= result.high
    assert result.bootstrap_distribution.shape == (500,)
    assert result.p_value is not None
    assert 1 / 1000 <= result.p_value <= 1
    assert not result.exact
    assert result.permutations == 999
    # The parts are the public building blocks, fed the documented streams.
    test = permutation_test(cases, permutations=999, rng=random_stream(FAST, key, "permutation"))
    assert test.p_value == result.p_value
    # The smoothed interval is the percentile interval of the distribution it keeps.
    interval = bootstrap_interval(
        result.excess, result.bootstrap_distribution, confidence=0.95, method="percentile"
    )
    assert (interval.low, interval.high) == (result.low, result.high)
    smoothed = smoothed_interval(
        group_cases(cases, key=key),
        len(cases),
        resamples=500,
        confidence=0.95,
        rng=random_stream(FAST, key, "bootstrap"),
    )
    assert (smoothed.low, smoothed.high) == (result.low, result.high)


def test_bca_interval_is_the_case_bootstrap_of_the_excesses() -> None:
    key, cases = transitions(2)[1]
    settings = FAST.model_copy(update={"interval": "bca"})
    result = compare(cases, inference=settings, key=key)
    jackknife = (np.sum(result.per_case) - np.asarray(result.per_case)) / (len(cases) - 1)
    interval = bootstrap_interval(
        result.excess, result.bootstrap_distribution, jackknife, confidence=0.95, method="bca"
    )
    assert (interval.low, interval.high) == (result.low, result.high)
    resampled = bootstrap_mean(
        result.per_case,
        resamples=500,
        confidence=0.95,
        rng=random_stream(settings, key, "bootstrap"),
    )
    assert (resampled.low, resampled.high) == (result.low, result.high)


def test_batch_equals_one_by_one_whatever_the_batch_or_order() -> None:
    items = transitions(12)
    batch = compare_many(items, inference=FAST)
    assert [result.key for result in batch] == [key for key, _ in items]
    alone = [compare(cases, inference=FAST, key=key) for key, cases in items]
    reversed_batch = compare_many(items[::-1], inference=FAST)[::-1]
    halves = compare_many(items[:5], inference=FAST) + compare_many(items[5:], inference=FAST)
    for results in (alone, reversed_batch, halves):
        assert all(same(x, y) for x, y in zip(batch, results, strict=True))


def test_seed_and_key_select_the_streams() -> None:
    key, cases = transitions(1)[0]
    base = compare(cases, inference=FAST, key=key)
    assert same(base, compare(cases, inference=FAST, key=key))
    other_seed = compare(cases, inference=FAST.model_copy(update={"seed": 4}), key=key)
    other_key = compare(cases, inference=FAST, key=key + " ")
    for other in (other_seed, other_key):
        assert other.excess == base.excess
        assert not np.array_equal(other.bootstrap_distribution, base.bootstrap_distribution)


def test_more_permutations_do_not_change_the_interval() -> None:
    key, cases = transitions(1)[0]
    few = compare(cases, inference=FAST, key=key)
    many = compare(cases, inference=FAST.model_copy(update={"permutations": 4999}), key=key)
    assert (few.low, few.high) == (many.low, many.high)


def test_invariances() -> None:
    rng = np.random.default_rng(8)
    raw = [(rng.normal(size=3), rng.normal(0.7, size=3)) for _ in range(4)]
    settings = Inference(resamples=300, permutations=10**6)  # 20⁴ labelings: exact
    base = compare([(matrix(a, b), 3) for a, b in raw], inference=settings, key="k")
    swapped = compare([(matrix(b, a), 3) for a, b in raw], inference=settings, key="k")
    reordered = compare([(matrix(a, b), 3) for a, b in raw[::-1]], inference=settings, key="k")
    scaled = compare([(2.5 * matrix(a, b), 3) for a, b in raw], inference=settings, key="k")
    assert base.exact
    assert base.permutations == math.comb(6, 3) ** 4
    for other in (swapped, reordered):
        assert other.excess == pytest.approx(base.excess, rel=1e-12)
        assert other.p_value == pytest.approx(base.p_value, rel=1e-12)
    assert scaled.excess == pytest.approx(2.5 * base.excess, rel=1e-12)
    assert scaled.p_value == pytest.approx(base.p_value, rel=1e-12)
    assert scaled.low == pytest.approx(2.5 * base.low, rel=1e-9)  # type: ignore[operator]
    assert scaled.high == pytest.approx(2.5 * base.high, rel=1e-9)  # type: ignore[operator]


def test_cases_of_different_sizes() -> None:
    rng = np.random.default_rng(2)
    cases = [
        (matrix(rng.normal(size=n_a), rng.normal(size=n_b)), n_a)
        for n_a, n_b in [(2, 3), (5, 5), (3, 3), (5, 5), (9, 9)]
    ]
    result = compare(cases, inference=FAST, key="ragged")
    expected = [excess_per_case(d, n_a) for d, n_a in cases]
    np.testing.assert_allclose(result.per_case, expected, rtol=1e-12, atol=1e-15)
    assert result.p_value is not None


def test_skipping_tests_and_intervals() -> None:
    key, cases = transitions(1)[0]
    result = compare(cases, inference=Inference(resamples=0, permutations=0), key=key)
    assert (result.low, result.high, result.p_value) == (None, None, None)
    assert result.permutations == 0
    assert result.bootstrap_distribution.size == 0


def test_identical_outputs_give_zero_with_a_degenerate_warning() -> None:
    cases = [(np.zeros((10, 10)), 5)] * 6
    with pytest.warns(DegenerateIntervalWarning, match="'still'"):
        result = compare(cases, inference=FAST, key="still")
    assert (result.excess, result.low, result.high, result.p_value) == (0.0, 0.0, 0.0, 1.0)
    assert len(result.warnings) == 1


def test_single_case_interval_comes_from_its_outputs_with_a_caveat() -> None:
    # A complete flip in one case: resampling cases has nothing to go on (a degenerate
    # interval), while the smoothed interval still says how uncertain three outputs a side are.
    case = (matrix([0, 0, 0], [1, 1, 1], differ), 3)
    with pytest.warns(FewCasesWarning, match="'one': an interval from 1 case"):
        result = compare([case], inference=FAST, key="one")
    assert result.excess == pytest.approx(1.0)
    assert result.low is not None
    assert result.high is not None
    assert result.low < 0.5 < result.high == pytest.approx(1.0)
    assert result.warnings == (
        "transition 'one': an interval from 1 case; its coverage was checked by simulation "
        "from 4 cases up, so read it as rough",
    )
    assert result.exact
    assert result.p_value == pytest.approx(2 / 20)
    with pytest.warns(DegenerateIntervalWarning):
        bca = compare([case], inference=FAST.model_copy(update={"interval": "bca"}), key="one")
    assert bca.low == bca.high == bca.excess == pytest.approx(1.0)


def test_bad_input_names_the_transition_and_case() -> None:
    good = (matrix([0, 1], [1, 1], differ), 2)
    with pytest.raises(AnalysisError, match=r"'t', case 1: 1 output\(s\) at a"):
        compare([good, (matrix([0], [1, 1], differ), 1)], inference=FAST, key="t")
    with pytest.raises(AnalysisError, match="no cases"):
        compare([], inference=FAST, key="t")
    with pytest.raises(AnalysisError, match="key"):
        compare([good], inference=FAST, key="")
    with pytest.raises(AnalysisError, match="pair"):
        compare([np.zeros((4, 4))], inference=FAST, key="t")  # type: ignore[list-item]
    asymmetric = np.ones((4, 4)) - np.eye(4)
    asymmetric[0, 3] = 2.0
    with pytest.raises(AnalysisError, match="'t', case 1: the distance matrix is not symmetric"):
        compare([good, (asymmetric, 2)], inference=FAST, key="t")


def test_batch_invariance_with_mixed_case_sizes() -> None:
    # Sizes first seen in another transition of the batch must not reorder this one's groups.
    rng = np.random.default_rng(12)

    def case(n_a: int, n_b: int) -> tuple:
        return (matrix(rng.integers(0, 3, n_a), rng.integers(0, 3, n_b), differ), n_a)

    first = ("first", [case(3, 3), case(2, 2), case(3, 3), case(9, 9)])
    second = ("second", [case(2, 2), case(9, 9), case(3, 3), case(2, 2)])
    batch = compare_many([first, second], inference=FAST)
    for (key, cases), result in zip([first, second], batch, strict=True):
        assert same(result, compare(cases, inference=FAST, key=key))


def test_random_streams_are_pinned_to_the_seed_and_the_name() -> None:
    # The derivation is part of "the same settings give the same numbers" across releases:
    # a SHA-256 of purpose and key, four little-endian 32-bit words as numpy's spawn key.
    digest = hashlib.sha256(b"bootstrap\nage: 10 -> 20").digest()
    words = tuple(int.from_bytes(digest[i : i + 4], "little") for i in (0, 4, 8, 12))
    expected = np.random.default_rng(np.random.SeedSequence(7, spawn_key=words)).random(5)
    found = random_stream(Inference(seed=7), "age: 10 -> 20", "bootstrap").random(5)
    np.testing.assert_array_equal(found, expected)
    other = random_stream(Inference(seed=7), "age: 10 -> 20", "permutation").random(5)
    assert not np.array_equal(found, other)
