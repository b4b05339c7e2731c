"""Agreement of difference measures: Spearman over tested transitions, boundary overlap."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from modelscape.analysis.aggregates import Transition
from modelscape.errors import AnalysisError
from modelscape.results.results import Results, run_of
from modelscape.stats import BoundaryCriterion, random_stream
from modelscape.task.design import Sweep
from tests.analysis import direct
from tests.analysis.conftest import FAST, run, scenario


def steps_of(results: Results, measure: str, target: str) -> list[Transition]:
    """Every axis's steps under one measure, in axis order."""
    return [
        t
        for axis in ("level", "mode", "tone")
        for t in results.profile(axis, measure, target=target, inference=FAST).steps
    ]


def boundaries(steps: list[Transition], criterion: BoundaryCriterion) -> set[str]:
    adjusted = direct.holm([t.p_value for t in steps])  # type: ignore[misc]
    return {
        t.label
        for t, p in zip(steps, adjusted, strict=True)
        if p <= criterion.alpha and t.excess > criterion.min_excess
    }


def test_rank_correlation_and_overlap_from_the_same_transitions(results: Results) -> None:
    found = results.agreement(target="swayed", inference=FAST)
    assert [(a.first, a.second) for a in found] == [
        ("answer_change", "differs"),
        ("answer_change", "length"),
        ("differs", "length"),
    ]
    criterion = BoundaryCriterion()
    steps = {m: steps_of(results, m, "swayed") for m in ("answer_change", "differs", "length")}
    for item in found:
        x = [t.excess for t in steps[item.first]]
        y = [t.excess for t in steps[item.second]]
        assert item.transitions == len(x) == 8
        assert item.rank_correlation == pytest.approx(scipy.stats.spearmanr(x, y).statistic)
        a, b = boundaries(steps[item.first], criterion), boundaries(steps[item.second], criterion)
        assert item.boundary_overlap == pytest.approx(len(a & b) / len(a | b))
        assert item.low is not None
        assert item.high is not None
        assert -1.0 <= item.low <= item.high <= 1.0
        behind = (*steps[item.first], *steps[item.second])
        assert {o.id for o in results.trace(item).observations} == {
            o.id for t in behind for o in results.trace(t).observations
        }
    # The pairwise measure is the keyed one computed another way: the same ranking.
    assert found[0].rank_correlation == pytest.approx(1.0)
    assert found[0].boundary_overlap == 1.0


def test_no_boundary_anywhere_is_full_agreement(results: Results) -> None:
    strict = BoundaryCriterion(min_excess=100.0)
    found = results.agreement(
        ["answer_change", "length"], target="late", criterion=strict, inference=FAST
    )
    (item,) = found
    assert item.boundary_overlap == 1.0
    assert item.rank_correlation is not None


def test_nothing_to_compare_gives_none() -> None:
    # A Sweep over no axis evaluates the baseline alone: no transition is tested.
    only_baseline = run(scenario(Sweep(axes=())), "steady")
    (item,) = only_baseline.agreement(["answer_change", "length"], inference=FAST)
    assert item.transitions == 0
    assert item.rank_correlation is None
    assert item.boundary_overlap is None


def test_agreement_needs_two_measures(results: Results) -> None:
    with pytest.raises(AnalysisError, match="at least two difference measures"):
        results.agreement(["answer_change"], target="steady")
    with pytest.raises(AnalysisError, match="no difference measure 'nope'"):
        results.agreement(["answer_change", "nope"], target="steady")


def test_the_rank_correlation_interval_is_a_joint_case_bootstrap(results: Results) -> None:
    # The mumbler's unread answers make the two measures disagree somewhat: a real interval.
    (item,) = results.agreement(["answer_change", "length"], target="mumbler", inference=FAST)
    assert item.low is not None
    assert item.high is not None
    assert item.low < item.high
    first = steps_of(results, "answer_change", "mumbler")
    second = steps_of(results, "length", "mumbler")
    cases = list(run_of(results).cases)

    def per_case(measure: str, steps: list[Transition]) -> np.ndarray:
        rows = []
        for step in steps:
            values = {}
            for case in cases:
                a = direct.outputs(results, "mumbler", case, step.first)
                b = direct.outputs(results, "mumbler", case, step.second)
                between, within = direct.case_parts(a, b, direct.DISTANCES[measure])
                values[case] = between - within
            rows.append([values[case] for case in cases])
        return np.array(rows)

    x, y = per_case("answer_change", first), per_case("length", second)
    rng = random_stream(FAST, "mumbler|agreement|answer_change|length", "bootstrap")
    draws = rng.integers(0, len(cases), size=(FAST.resamples, len(cases)))
    rhos = []
    for draw in draws:
        a, b = x[:, draw].mean(axis=1), y[:, draw].mean(axis=1)
        if np.ptp(a) > 0 and np.ptp(b) > 0:
            rhos.append(scipy.stats.spearmanr(a, b).statistic)
    low, high = np.quantile(rhos, [0.025, 0.975])
    assert (item.low, item.high) == pytest.approx((low, high), abs=1e-12)
