"""Scorecards: accuracy, answered share, spurious and missed change, roles, shifts, thresholds."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.stats

from modelscape.errors import AnalysisError
from modelscape.execution import Runner
from modelscape.results.results import Results, run_of
from modelscape.scenario import Scenario
from modelscape.stats import Inference, bootstrap_mean, cluster_mean, random_stream
from tests.analysis import direct
from tests.analysis.conftest import FAST, ITEMS, run, scenario


def test_accuracy_weights_cases_equally_with_a_case_bootstrap(results: Results) -> None:
    card = results.scorecard("correct", "answer_change", target="mumbler", inference=FAST)
    means = direct.case_metric_means(results, "correct", "mumbler", ITEMS)
    assert card.accuracy == pytest.approx(np.mean(means), abs=1e-12)
    interval = bootstrap_mean(
        means,
        resamples=FAST.resamples,
        confidence=FAST.confidence,
        rng=random_stream(FAST, f"mumbler|correct|{','.join(ITEMS)}", "bootstrap"),
    )
    # BCa over cases, each side widened where it falls short of the t interval over cases
    # (C - 2 degrees of freedom, see modelscape/stats/floored.py).
    reach = scipy.stats.t.ppf(0.975, len(means) - 2) * np.std(means, ddof=1) / np.sqrt(len(means))
    expected = (
        max(0.0, min(interval.low, np.mean(means) - reach)),
        min(1.0, max(interval.high, np.mean(means) + reach)),
    )
    assert (card.accuracy_low, card.accuracy_high) == pytest.approx(expected)
    assert card.accuracy_low < interval.low or card.accuracy_high > interval.high  # type: ignore[operator]
    assert card.cases == len(ITEMS)
    assert card.observations == len(ITEMS) * len(run_of(results).experiment.coordinates) * 4
    assert card.failed == 0
    trace = results.trace(card.accuracy_ids)
    assert len(trace.observations) == card.observations
    # The late target is wrong at level 4 alone, the same in every case: no spread to resample.
    late = results.scorecard("correct", "answer_change", target="late", inference=FAST)
    assert late.accuracy == pytest.approx(8 / 9)
    assert late.accuracy_low == late.accuracy_high == late.accuracy


def test_answered_is_the_share_of_readable_outputs(results: Results, space: Scenario) -> None:
    card = results.scorecard(
        "correct", "answer_change", target="mumbler", answered="answered", inference=FAST
    )
    readable = [
        space.answer(o.output) is not None
        for o in run_of(results).observations
        if o.target == "mumbler"
    ]
    assert card.answered == pytest.approx(np.mean(readable))
    assert 0.6 < card.answered < 0.9  # type: ignore[operator]
    assert len(card.answered_ids) == len(readable)
    steady = results.scorecard(
        "correct", "answer_change", target="steady", answered="answered", inference=FAST
    )
    assert steady.answered == 1.0
    assert results.scorecard("correct", "answer_change", target="steady").answered is None


def test_spurious_and_missed_change_on_a_planted_late_flip(results: Results) -> None:
    # Late says "yes" up to level 4 (correct: up to 3), the same in every repetition.
    # Steps where the correct answer stays: level 1→2, 2→3 (no change) and 4→5 (a full flip,
    # e = 1), mode low→mid→high and, the invariant axis's comparison with its baseline,
    # low→high, and tone plain→warm, plain→curt (no change): 8 steps x 6 cases of which 6
    # have e = 1. At level 3→4 the correct answer moves and late keeps "yes".
    card = results.scorecard("correct", "answer_change", target="late", inference=FAST)
    assert card.spurious_change == pytest.approx(1 / 8, abs=1e-12)
    assert card.missed_change == pytest.approx(1.0)
    axes = {a.axis: a for a in card.axes}
    assert axes["level"].spurious_change == pytest.approx(1 / 3, abs=1e-12)
    assert axes["level"].missed_change == 1.0
    assert axes["mode"].spurious_change == 0.0
    assert axes["mode"].missed_change is None
    assert axes["tone"].spurious_change == 0.0
    missed = results.trace(card.missed_ids)
    assert {o.coordinate["level"] for o in missed.observations} == {3, 4}
    spurious = results.trace(card.spurious_ids)
    assert {o.target for o in spurious.observations} == {"late"}
    # The steady target follows the correct answer: its spurious change is the small excess
    # noise leaves, its missed change about the share of flipped pairs (2 x 0.1 x 0.9).
    steady = results.scorecard("correct", "answer_change", target="steady", inference=FAST)
    assert steady.spurious_change == pytest.approx(0.0, abs=0.05)
    assert steady.missed_change == pytest.approx(0.18, abs=0.1)


def test_roles_and_accuracy_along_each_axis(results: Results) -> None:
    card = results.scorecard("correct", "answer_change", target="late", inference=FAST)
    assert [(a.axis, a.scale, a.role) for a in card.axes] == [
        ("level", "numeric", "causal"),
        ("mode", "ordinal", "invariant"),
        ("tone", "nominal", "invariant"),
    ]
    axes = {a.axis: a for a in card.axes}
    assert [(s.value, s.mean) for s in axes["level"].accuracy] == [
        (1, 1.0),
        (2, 1.0),
        (3, 1.0),
        (4, 0.0),
        (5, 1.0),
    ]
    assert [s.value for s in axes["tone"].accuracy] == ["plain", "warm", "curt"]
    mumbler = results.scorecard("correct", "answer_change", target="mumbler", inference=FAST)
    for axis in mumbler.axes:
        for summary in axis.accuracy:
            coordinate = {axis.axis: summary.value}
            means = direct.case_metric_means(results, "correct", "mumbler", ITEMS, [coordinate])
            assert summary.mean == pytest.approx(np.mean(means), abs=1e-12)


def test_shifts_and_invariant_shifts(results: Results) -> None:
    late = results.scorecard("correct", "answer_change", target="late", inference=FAST)
    axes = {a.axis: a for a in late.axes}
    assert [(s.before, s.after) for s in axes["level"].shifts] == [(4, 5)]
    assert late.invariant_shifts == 0
    swayed = results.scorecard("correct", "answer_change", target="swayed", inference=FAST)
    shifted = {a.axis: [(s.before, s.after) for s in a.shifts] for a in swayed.axes}
    assert shifted == {"level": [(3, 4)], "mode": [], "tone": [("plain", "curt")]}
    assert swayed.invariant_shifts == 1
    # A scorecard's shifts are its profile's candidate boundaries.
    profile = results.profile("tone", "answer_change", target="swayed", inference=FAST)
    assert list({a.axis: a for a in swayed.axes}["tone"].shifts) == list(
        profile.candidate_boundaries
    )


def test_threshold_of_a_clean_step_is_a_bracket(results: Results, space: Scenario) -> None:
    card = results.scorecard(
        "correct", "answer_change", target="late", answer=space.answer, inference=FAST
    )
    axes = {a.axis: a for a in card.axes}
    assert axes["mode"].threshold is None
    assert axes["tone"].threshold is None
    threshold = axes["level"].threshold
    assert threshold is not None
    # Correct: "no" from level 4 on, expected between 3 and 4; late flips between 4 and 5.
    assert threshold.expected == pytest.approx(3.5)
    assert threshold.observed == pytest.approx(4.5)
    assert threshold.offset == pytest.approx(1.0)
    assert threshold.low == threshold.high == pytest.approx(1.0)
    assert threshold.cases == threshold.crossing == len(ITEMS)
    for case in threshold.per_case:
        assert (case.expected, case.observed) == pytest.approx((3.5, 4.5))
        assert (case.observed_low, case.observed_high) == (4, 5)
    assert {o.target for o in results.trace(threshold).observations} == {"late"}
    steady = results.scorecard(
        "correct", "answer_change", target="steady", answer=space.answer, inference=FAST
    )
    found = {a.axis: a for a in steady.axes}["level"].threshold
    assert found is not None
    assert found.offset == pytest.approx(0.0, abs=0.35)
    without = results.scorecard("correct", "answer_change", target="late", inference=FAST)
    assert all(a.threshold is None for a in without.axes)


def test_groups_and_case_selections(results: Results) -> None:
    group = results.scorecard(
        "correct", "answer_change", target="swayed", group="first-three", inference=FAST
    )
    chosen = results.scorecard(
        "correct", "answer_change", target="swayed", cases=ITEMS[:3], inference=FAST
    )
    reordered = results.scorecard(
        "correct", "answer_change", target="swayed", cases=ITEMS[2::-1], inference=FAST
    )
    assert group.group == "first-three"
    assert group.cases == 3
    assert group.observations == 3 * len(run_of(results).experiment.coordinates) * 4
    assert group.model_copy(update={"group": "all"}) == chosen == reordered
    assert {o.case for o in results.trace(group).observations} == set(ITEMS[:3])
    means = direct.case_metric_means(results, "correct", "swayed", ITEMS[:3])
    assert group.accuracy == pytest.approx(np.mean(means), abs=1e-12)
    with pytest.raises(AnalysisError, match="no group 'second'"):
        results.scorecard("correct", "answer_change", target="swayed", group="second")
    with pytest.raises(AnalysisError, match="unknown cases"):
        results.scorecard("correct", "answer_change", target="swayed", cases=["zither"])
    with pytest.raises(AnalysisError, match="no point metric 'right'"):
        results.scorecard("right", "answer_change", target="swayed")


def test_a_grid_over_some_axes_scores_the_varied_ones(grid: Results) -> None:
    card = grid.scorecard("correct", "answer_change", target="swayed", inference=FAST)
    assert [a.axis for a in card.axes] == ["level", "mode"]
    ranking = grid.sensitivity("answer_change", target="swayed", inference=FAST)
    assert {s.axis for s in ranking} == {"level", "mode"}


def test_without_resamples_every_bound_is_none(results: Results, space: Scenario) -> None:
    untested = Inference(resamples=0, permutations=FAST.permutations)
    card = results.scorecard(
        "correct", "answer_change", target="late", answer=space.answer, inference=untested
    )
    full = results.scorecard(
        "correct", "answer_change", target="late", answer=space.answer, inference=FAST
    )
    assert (card.accuracy_low, card.accuracy_high) == (None, None)
    assert (card.baseline_accuracy_low, card.baseline_accuracy_high) == (None, None)
    assert (card.spurious_low, card.spurious_high) == (None, None)
    assert (card.accuracy, card.spurious_change, card.missed_change) == (
        full.accuracy,
        full.spurious_change,
        full.missed_change,
    )
    for axis in card.axes:
        assert (axis.spurious_low, axis.spurious_high) == (None, None)
        assert all((p.low, p.high) == (None, None) for p in axis.accuracy)
        assert all((s.low, s.high) == (None, None) for s in axis.shifts)
    level = {a.axis: a for a in card.axes}["level"]
    assert level.threshold is not None
    assert (level.threshold.low, level.threshold.high) == (None, None)
    assert card.undefined == {"answered": "no answered metric given"}


def test_a_single_case_gives_numbers_without_bounds_and_says_what_is_undefined(
    results: Results, space: Scenario
) -> None:
    card = results.scorecard(
        "correct",
        "answer_change",
        target="late",
        answered="answered",
        answer=space.answer,
        cases=["cog"],
        inference=FAST,
    )
    assert card.cases == 1
    assert card.accuracy == pytest.approx(8 / 9)
    assert (card.accuracy_low, card.accuracy_high) == (None, None)
    assert card.baseline_accuracy == 1.0
    assert (card.baseline_accuracy_low, card.baseline_accuracy_high) == (None, None)
    reason = (
        "only 1 case with two read answers on both sides of a step that keeps the correct "
        "answer (needs 4)"
    )
    assert card.spurious_change is None
    assert card.undefined["spurious_change"] == reason
    assert card.undefined["missed_change"] == (
        "only 1 case with two read answers on both sides of a step that changes the correct "
        "answer (needs 4)"
    )
    assert card.undefined["shifts"].startswith("only 1 case with two read answers")
    level = {a.axis: a for a in card.axes}["level"]
    assert level.threshold is None
    assert level.undefined["threshold"] == card.undefined["missed_change"]


def test_per_axis_missed_change_is_zero_when_nothing_was_missed() -> None:
    exact = run(scenario(), "exact")
    card = exact.scorecard("correct", "answer_change", answered="answered", inference=FAST)
    axes = {a.axis: a for a in card.axes}
    assert axes["level"].missed_change == 0.0
    assert card.missed_change == 0.0
    assert card.spurious_change == 0.0
    assert axes["mode"].missed_change is None
    assert axes["mode"].undefined["missed_change"] == "no step changes the correct answer"
    assert card.accuracy == card.baseline_accuracy == 1.0
    assert card.undefined == {}
    assert card.invariant_shifts == 0


def test_baseline_accuracy_is_the_mean_at_the_baseline_alone(results: Results) -> None:
    indexed = run_of(results)
    card = results.scorecard("correct", "answer_change", target="swayed", inference=FAST)
    home = indexed.coordinate()
    means = []
    for case in ITEMS:
        values = [
            indexed.point("correct", o.id).value  # type: ignore[union-attr]
            for o in indexed.cell("swayed", case, home)
        ]
        means.append(np.mean(values))
    assert card.baseline_accuracy == pytest.approx(np.mean(means), abs=1e-12)
    traced = results.trace(card.baseline_accuracy_ids).observations
    assert {o.coordinate["tone"] for o in traced} == {"plain"}
    assert len(traced) == len(ITEMS) * 4
    # Swayed is wrong whenever the tone is curt: accuracy over every coordinate is lower.
    assert card.accuracy is not None
    assert card.baseline_accuracy is not None
    assert card.accuracy < card.baseline_accuracy


def test_read_answers_are_counted_the_same_from_the_metric_or_the_reader(
    results: Results, space: Scenario
) -> None:
    indexed = run_of(results)
    from modelscape.analysis.readable import Readable

    by_metric = Readable(run_of(results), "mumbler", "answered", None)
    by_reader = Readable(run_of(results), "mumbler", None, space.answer)
    every = Readable(run_of(results), "mumbler", None, None)
    counts = []
    for case in ITEMS:
        for coordinate in indexed.experiment.coordinates:
            outputs = indexed.cell("mumbler", case, coordinate)
            read = sum(1 for o in outputs if space.answer(o.output) is not None)
            assert by_metric.count(case, coordinate) == read
            assert by_reader.count(case, coordinate) == read
            assert every.count(case, coordinate) == len(outputs)
            counts.append(read)
    assert 1 in counts  # cells with a single read answer exist, and count as one
    home = indexed.coordinate()
    for case in ITEMS:
        both = by_reader.count(case, home) >= 2 and by_reader.count(case, {"level": 2}) >= 2
        assert by_reader.both_sides(case, home, {"level": 2}) == both


def test_the_minimum_of_read_cases_is_inclusive() -> None:
    from modelscape.analysis.readable import (
        MIN_READ_CASES,
        answered_shortfall,
        case_shortfall,
    )

    enough = [f"c{i}" for i in range(MIN_READ_CASES)]
    assert case_shortfall(enough, "a step") is None
    assert case_shortfall([*enough, enough[0]], "a step") is None  # cases, not pairs
    assert case_shortfall(enough[1:], "a step") == (
        f"only {MIN_READ_CASES - 1} cases with two read answers on both sides of a step "
        f"(needs {MIN_READ_CASES})"
    )
    assert case_shortfall(enough[:1], "x") == (
        f"only 1 case with two read answers on both sides of x (needs {MIN_READ_CASES})"
    )
    assert answered_shortfall(0.7) is None
    assert answered_shortfall(None) is None
    assert answered_shortfall(0.69) == "answered 69%: too few read answers (needs 70%)"


def test_one_resample_still_gives_intervals(results: Results) -> None:
    card = results.scorecard(
        "correct", "answer_change", target="steady", inference=Inference(resamples=1)
    )
    assert card.accuracy_low is not None
    assert card.baseline_accuracy_low is not None


def test_a_threshold_crossed_by_one_case_has_no_interval(results: Results, space: Scenario) -> None:
    from modelscape.analysis.common import axis_line
    from modelscape.analysis.threshold import threshold

    indexed = run_of(results)
    _, _, line = axis_line(indexed, "level", None)
    found = threshold(indexed, "late", "level", line, ["cog"], space.answer, "correct", FAST)
    assert found is not None
    assert (found.crossing, found.offset) == (1, pytest.approx(1.0))
    assert (found.low, found.high) == (None, None)
    both = threshold(indexed, "late", "level", line, ["cog", "drum"], space.answer, "correct", FAST)
    assert both is not None
    assert (both.low, both.high) == (pytest.approx(1.0), pytest.approx(1.0))


def test_when_every_step_moves_the_answer_nothing_can_be_spurious() -> None:
    # One causal axis with two levels on either side of the flip: its only step moves the
    # correct answer in every case.
    from tests.analysis.conftest import ANSWER, TEMPLATE, _exact, _target

    both_sides = Scenario(
        name="flip",
        version="1",
        description="",
        task_space=TEMPLATE.space([TEMPLATE.axis("level", "numeric", [3, 4])]),
        answer=ANSWER,
        repetitions=3,
    )
    flip = Runner().run(both_sides.experiment([_target("exact", _exact)]))
    card = flip.scorecard("correct", "answer_change", answered="answered", inference=FAST)
    assert card.spurious_change is None
    assert card.undefined["spurious_change"] == "no step keeps the correct answer"
    assert card.missed_change == 0.0


def test_the_spurious_interval_is_a_case_bootstrap_when_asked_for(results: Results) -> None:
    # With interval="bca" the spurious change's interval resamples whole cases, the (case,
    # step) units of a case together.
    indexed = run_of(results)
    bca = FAST.model_copy(update={"interval": "bca"})
    card = results.scorecard("correct", "answer_change", target="steady", inference=bca)
    values: list[float] = []
    clusters: list[str] = []
    roles = {a.axis: a.role for a in card.axes}
    for axis in indexed.experiment.axes:
        line = [indexed.coordinate({axis.name: v}) for v in axis.values]
        home = indexed.coordinate()
        from_home = [(home, c) for c in line if c != home]
        pairs = list(itertools.pairwise(line)) if axis.scale != "nominal" else from_home
        if roles[axis.name] == "invariant" and axis.scale != "nominal":
            # Every comparison with the baseline that is not a neighbour step already.
            pairs += [(a, b) for a, b in from_home if abs(line.index(b) - line.index(a)) > 1]
        for first, second in pairs:
            _, _, _, per_case = direct.transition(
                results, "answer_change", first, second, target="steady"
            )
            for case, excess in zip(ITEMS, per_case, strict=True):
                kept = [
                    v
                    for v in indexed.variants
                    if v.case == case and v.coordinate in (first, second)
                ]
                references = {v.coordinate == first: v.reference for v in kept}
                if references[True] == references[False]:
                    values.append(excess)
                    clusters.append(case)
    assert card.spurious_change == pytest.approx(np.mean(values), abs=1e-12)
    expected = cluster_mean(
        values,
        clusters,
        resamples=bca.resamples,
        confidence=bca.confidence,
        method="bca",
        rng=random_stream(bca, "steady|all|spurious", "bootstrap"),
    )
    assert (card.spurious_low, card.spurious_high) == pytest.approx(
        (expected.low, expected.high), abs=1e-12
    )
    smoothed = results.scorecard("correct", "answer_change", target="steady", inference=FAST)
    assert (smoothed.spurious_low, smoothed.spurious_high) != (
        card.spurious_low,
        card.spurious_high,
    )


def test_a_sensitivity_peak_of_exactly_zero_is_reported_as_zero() -> None:
    exact = run(scenario(), "exact")
    ranking = exact.sensitivity("answer_change", inference=FAST)
    by_axis = {s.axis: s for s in ranking}
    assert by_axis["tone"].excess == 0.0
    assert by_axis["mode"].excess == 0.0
    assert by_axis["level"].excess > 0.5
    assert ranking[0].axis == "level"


def test_a_threshold_no_case_crosses_is_undefined_with_its_reason(space: Scenario) -> None:
    # Every case's correct answer flips once along level, but this target never flips: there
    # is no crossing to place, and the threshold says so instead of showing an empty offset.
    stuck = run(space, "stuck")
    card = stuck.scorecard(
        "correct", "answer_change", target="stuck", answer=space.answer, inference=FAST
    )
    level = {a.axis: a for a in card.axes}["level"]
    assert level.threshold is not None
    assert level.threshold.offset is None
    assert level.threshold.crossing == 0
    assert level.undefined["threshold"] == (
        f"the answers of none of the {len(ITEMS)} cases whose correct answer flips cross one "
        "half along the axis"
    )
