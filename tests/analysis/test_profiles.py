"""Profiles, transitions, variability and sensitivity, checked against direct computations."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from modelscape.analysis.aggregates import BehaviorProfile, Transition
from modelscape.errors import AnalysisError
from modelscape.results.results import Results, run_of
from modelscape.stats import BoundaryCriterion, Inference
from tests.analysis import direct
from tests.analysis.conftest import FAST, ITEMS

LEVELS = [1, 2, 3, 4, 5]


def assert_matches_direct(results: Results, transition: Transition, **options: object) -> None:
    excess, between, within, per_case = direct.transition(
        results,
        transition.measure,
        transition.first,
        transition.second,
        target=transition.target,
        **options,  # type: ignore[arg-type]
    )
    assert transition.excess == pytest.approx(excess, abs=1e-12)
    assert transition.between == pytest.approx(between, abs=1e-12)
    assert transition.within == pytest.approx(within, abs=1e-12)
    assert transition.cases == len(per_case)


def test_baseline_holds_every_value_with_the_run_to_run_entry(results: Results) -> None:
    profile = results.profile("level", "answer_change", target="steady", inference=FAST)
    assert profile.scale == "numeric"
    assert profile.fixed == {"mode": "low", "tone": "plain"}
    assert [t.after for t in profile.baseline] == LEVELS
    assert all(t.before == 1 for t in profile.baseline)
    home, *away = profile.baseline
    # At the baseline itself: the run-to-run variation alone, never tested.
    assert home.first == home.second == {"level": 1, "mode": "low", "tone": "plain"}
    assert home.excess == 0.0
    assert home.p_value is None
    assert home.adjusted_p is None
    within = np.mean(
        [
            direct.mean_within(
                direct.outputs(results, "steady", case, home.first), direct.answer_change
            )
            for case in ITEMS
        ]
    )
    assert home.between == home.within == pytest.approx(within, abs=1e-12)
    assert home.cases == len(ITEMS)
    for transition in away:
        assert transition.second == {**home.first, "level": transition.after}
        assert_matches_direct(results, transition)
        assert transition.p_value is not None
        # On a numeric axis the baseline comparisons are not the tested steps.
        assert transition.adjusted_p is None


@pytest.mark.parametrize(("axis", "pairs"), [("level", 4), ("mode", 2), ("tone", 0)])
def test_local_pairs_only_on_ordinal_and_numeric_axes(
    results: Results, axis: str, pairs: int
) -> None:
    profile = results.profile(axis, "answer_change", target="swayed", inference=FAST)
    record = run_of(results).experiment.axis(axis)
    assert len(profile.local) == pairs
    if pairs:
        assert [(t.before, t.after) for t in profile.local] == list(
            itertools.pairwise(record.values)
        )
        assert profile.steps == profile.local
    else:
        # Nominal: the steps are the comparisons with the baseline, not the baseline itself.
        assert [(t.before, t.after) for t in profile.steps] == [
            ("plain", "warm"),
            ("plain", "curt"),
        ]
    for transition in profile.local:
        assert_matches_direct(results, transition)


def test_candidate_boundaries_under_holm(results: Results) -> None:
    criterion = BoundaryCriterion(alpha=0.05, min_excess=0.04)
    profile = results.profile(
        "level", "answer_change", target="steady", criterion=criterion, inference=FAST
    )
    steps = profile.steps
    adjusted = direct.holm([t.p_value for t in steps])  # type: ignore[misc]
    assert [t.adjusted_p for t in steps] == pytest.approx(adjusted)
    chosen = [t for t in steps if t.adjusted_p <= 0.05 and t.excess > 0.04]  # type: ignore[operator]
    assert [(c.before, c.after) for c in profile.candidate_boundaries] == [
        (t.before, t.after) for t in chosen
    ]
    # The correct answer flips between 3 and 4: the steady target follows it, nothing else.
    assert [(c.before, c.after) for c in profile.candidate_boundaries] == [(3, 4)]
    (boundary,) = profile.candidate_boundaries
    assert boundary.measurement_ids == steps[2].measurement_ids
    # A larger minimum excess than any change leaves no boundary.
    strict = results.profile(
        "level",
        "answer_change",
        target="steady",
        criterion=BoundaryCriterion(min_excess=2.0),
        inference=FAST,
    )
    assert strict.candidate_boundaries == ()


def test_nominal_boundaries_come_from_baseline_comparisons(results: Results) -> None:
    profile = results.profile("tone", "answer_change", target="swayed", inference=FAST)
    assert [(c.before, c.after) for c in profile.candidate_boundaries] == [("plain", "curt")]
    tested = [t for t in profile.baseline if t.adjusted_p is not None]
    assert tested == list(profile.steps)
    assert [t.adjusted_p for t in tested] == pytest.approx(
        direct.holm([t.p_value for t in tested])  # type: ignore[misc]
    )


def test_fixed_moves_the_line_off_the_baseline_on_a_grid(grid: Results) -> None:
    profile = grid.profile(
        "level", "answer_change", target="swayed", fixed={"mode": "high"}, inference=FAST
    )
    assert profile.fixed == {"mode": "high", "tone": "plain"}
    for transition in (*profile.baseline, *profile.local):
        assert transition.first["mode"] == transition.second["mode"] == "high"
    for transition in (*profile.baseline[1:], *profile.local):
        assert_matches_direct(grid, transition)
    assert [c.after for c in profile.candidate_boundaries] == [4]
    # The axis of the profile itself is not held fixed.
    same = grid.profile(
        "level",
        "answer_change",
        target="swayed",
        fixed={"mode": "high", "level": 5},
        inference=FAST,
    )
    assert same == profile


def test_unevaluated_and_unknown_fixed_coordinates_fail_clearly(
    results: Results, grid: Results
) -> None:
    with pytest.raises(AnalysisError, match=r"axis 'level' was not evaluated at .*mode=high"):
        results.profile("level", "answer_change", target="steady", fixed={"mode": "high"})
    with pytest.raises(AnalysisError, match=r"axis 'level' was not evaluated .*tone=curt"):
        grid.profile("level", "answer_change", target="steady", fixed={"tone": "curt"})
    with pytest.raises(AnalysisError, match="axis 'mode' has no value 'top'"):
        results.profile("level", "answer_change", target="steady", fixed={"mode": "top"})
    with pytest.raises(AnalysisError, match="unknown axes"):
        results.profile("level", "answer_change", target="steady", fixed={"colour": "red"})
    with pytest.raises(AnalysisError, match="no axis 'colour'"):
        results.profile("colour", "answer_change", target="steady")
    with pytest.raises(AnalysisError, match="no difference measure 'nope'"):
        results.profile("level", "nope", target="steady")
    with pytest.raises(AnalysisError, match="name one with target="):
        results.profile("level", "answer_change")


def test_metrics_per_value(results: Results) -> None:
    profile = results.profile("level", "answer_change", target="mumbler", inference=FAST)
    assert set(profile.metrics) == {"correct", "answered"}
    for metric, summaries in profile.metrics.items():
        assert [s.value for s in summaries] == LEVELS
        for summary, transition in zip(summaries, profile.baseline, strict=True):
            means = direct.case_metric_means(results, metric, "mumbler", ITEMS, [transition.second])
            assert summary.metric == metric
            assert summary.mean == pytest.approx(np.mean(means), abs=1e-12)
            assert summary.low is not None
            assert summary.high is not None
            assert summary.mean is not None
            assert summary.low <= summary.mean <= summary.high
            trace = results.trace(summary)
            assert len(trace.observations) == summary.observations
            assert {o.coordinate["level"] for o in trace.observations} == {summary.value}
    answered = profile.metrics["answered"]
    # The mumbler gives no answer in about a quarter of its replies; it answers all 24 cells.
    assert all(s.observations == 4 * len(ITEMS) for s in answered)
    assert np.mean([s.mean for s in answered]) == pytest.approx(0.75, abs=0.1)


def test_profiles_gives_one_identical_profile_per_target(results: Results) -> None:
    profiles = results.profiles("mode", "answer_change", inference=FAST)
    assert [p.target for p in profiles] == list(run_of(results).targets)
    for profile in profiles:
        alone = results.profile("mode", "answer_change", target=profile.target, inference=FAST)
        assert profile == alone
        assert profile.measurement_ids == alone.measurement_ids


def test_transitions_are_every_evaluated_neighbour_pair(results: Results, grid: Results) -> None:
    swept = results.transitions("answer_change", target="steady", inference=FAST)
    expected = [(1, 2), (2, 3), (3, 4), (4, 5)]
    # Coordinate by coordinate in the design's order, each axis's step up from there.
    assert sorted((t.axis, str(t.before), str(t.after)) for t in swept) == sorted(
        [
            *(("level", str(a), str(b)) for a, b in expected),
            ("mode", "low", "mid"),
            ("mode", "mid", "high"),
        ]
    )
    assert len(swept) == 6
    assert all(t.p_value is not None and t.adjusted_p is None for t in swept)
    for transition in swept:
        assert_matches_direct(results, transition)
    gridded = grid.transitions("answer_change", target="swayed", inference=FAST)
    pairs = {(t.axis, tuple(t.first.values()), tuple(t.second.values())) for t in gridded}
    modes = ["low", "mid", "high"]
    assert pairs == {
        *(("level", (a, m, "plain"), (b, m, "plain")) for m in modes for a, b in expected),
        *(
            ("mode", (level, a, "plain"), (level, b, "plain"))
            for level in LEVELS
            for a, b in itertools.pairwise(modes)
        ),
    }
    assert len(gridded) == len(pairs) == 22
    for transition in gridded[::5]:
        assert_matches_direct(grid, transition)
    subset = results.transitions("answer_change", target="steady", cases=ITEMS[:2])
    assert all(t.cases == 2 for t in subset)


@pytest.mark.parametrize("measure", ["answer_change", "differs", "length"])
def test_variability_is_the_mean_pairwise_distance(results: Results, measure: str) -> None:
    indexed = run_of(results)
    found = results.variability(measure, target="mumbler")
    assert len(found) == len(indexed.variants) == len(ITEMS) * len(indexed.experiment.coordinates)
    distance = direct.DISTANCES[measure]
    for record in found:
        cell = direct.outputs(results, "mumbler", record.case, record.coordinate)
        assert record.repetitions == len(cell) == 4
        assert record.within == pytest.approx(direct.mean_within(cell, distance), abs=1e-12)
        assert record.variant_id == indexed.variant(record.variant_id).id
        trace = results.trace(record)
        assert {o.id for o in trace.observations} == {o.id for o in cell}


def test_sensitivity_ranks_axes_by_peak_in_one_holm_family(results: Results) -> None:
    ranking = results.sensitivity("answer_change", target="swayed", inference=FAST)
    assert [s.rank for s in ranking] == [1, 2, 3]
    assert [s.excess for s in ranking] == sorted((s.excess for s in ranking), reverse=True)
    by_axis = {s.axis: s for s in ranking}
    # The swayed target says "no" whenever the tone is curt: the nominal axis peaks at the
    # comparison of its baseline with curt, a full flip at level 1 (correct answer "yes").
    tone = by_axis["tone"]
    assert tone.scale == "nominal"
    assert (tone.peak.before, tone.peak.after) == ("plain", "curt")
    assert by_axis["level"].peak.after == 4
    assert tone.measurement_ids == tone.peak.measurement_ids
    # One family: every axis's steps, corrected together.
    steps = [
        t
        for axis in ("level", "mode", "tone")
        for t in results.profile(axis, "answer_change", target="swayed", inference=FAST).steps
    ]
    adjusted = dict(
        zip(
            [(t.axis, t.before, t.after) for t in steps],
            direct.holm([t.p_value for t in steps]),  # type: ignore[misc]
            strict=True,
        )
    )
    for item in ranking:
        peak = item.peak
        assert peak.excess == max(t.excess for t in steps if t.axis == item.axis)
        assert peak.adjusted_p == pytest.approx(adjusted[(peak.axis, peak.before, peak.after)])
        assert item.boundaries == sum(
            1
            for t in steps
            if t.axis == item.axis
            and adjusted[(t.axis, t.before, t.after)] <= 0.05
            and t.excess > 0
        )
    assert by_axis["tone"].boundaries == 1
    assert by_axis["mode"].boundaries == 0


def _fresh(results: Results, *, reverse: bool = False) -> Results:
    indexed = run_of(results)
    order = slice(None, None, -1) if reverse else slice(None)
    return Results(
        indexed.experiment,
        indexed.variants[order],
        indexed.observations[order],
        indexed.point_measurements[order],
        indexed.difference_measurements[order],
    )


def test_the_same_inference_gives_identical_records(results: Results) -> None:
    def everything(run: Results, cases: list[str] | None = None) -> list[object]:
        return [
            run.profile("level", "answer_change", target="swayed", cases=cases, inference=FAST),
            run.profile("tone", "differs", target="swayed", cases=cases, inference=FAST),
            run.transitions("length", target="late", cases=cases, inference=FAST),
            run.scorecard(
                "correct",
                "answer_change",
                target="mumbler",
                answered="answered",
                cases=cases,
                inference=FAST,
            ),
            run.divergence("answer_change", "steady", "swayed", cases=cases, inference=FAST),
        ]

    def dumped(items: list[object]) -> list[object]:
        return [
            [i.model_dump() for i in item] if isinstance(item, tuple) else item.model_dump()  # type: ignore[attr-defined]
            for item in items
        ]

    first = dumped(everything(_fresh(results)))
    assert dumped(everything(_fresh(results))) == first
    # Records, outputs and cases in another order: the same numbers and ids.
    assert dumped(everything(_fresh(results, reverse=True))) == first
    assert dumped(everything(_fresh(results), cases=ITEMS[::-1])) == first
    # Another seed draws other permutations and resamples.
    other = results.profile(
        "level", "answer_change", target="swayed", inference=FAST.model_copy(update={"seed": 1})
    )
    assert isinstance(first[0], dict)
    assert [t.excess for t in other.local] == [t["excess"] for t in first[0]["local"]]
    assert [t.low for t in other.local] != [t["low"] for t in first[0]["local"]]


def test_zero_permutations_skip_the_tests(results: Results) -> None:
    untested = Inference(permutations=0, resamples=200)
    profile = results.profile("tone", "answer_change", target="swayed", inference=untested)
    assert all(t.p_value is None and t.adjusted_p is None for t in profile.baseline)
    assert profile.candidate_boundaries == ()
    assert all(t.low is not None for t in profile.baseline[1:])
    ranking = results.sensitivity("answer_change", target="swayed", inference=untested)
    assert all(s.boundaries == 0 and s.peak.p_value is None for s in ranking)
    card = results.scorecard("correct", "answer_change", target="swayed", inference=untested)
    assert all(axis.shifts == () for axis in card.axes)
    divergence = results.divergence("answer_change", "steady", "swayed", inference=untested)
    assert divergence.candidates == ()
    assert all(c.p_value is None for c in divergence.contrasts)


def _numbers(profile: BehaviorProfile) -> list[tuple[object, ...]]:
    return [
        (t.before, t.after, t.cases, t.excess, t.between, t.within, t.low, t.high, t.p_value)
        for t in (*profile.baseline, *profile.local)
    ]


def _close(left: list[tuple[object, ...]], right: list[tuple[object, ...]]) -> bool:
    """Equal rows, numbers compared to a relative 1e-9 (None and labels exactly)."""
    if len(left) != len(right):
        return False
    for row_a, row_b in zip(left, right, strict=True):
        for a, b in zip(row_a, row_b, strict=True):
            if isinstance(a, float) and isinstance(b, float):
                if not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12):
                    return False
            elif a != b:
                return False
    return True


def test_a_pairwise_measure_matches_its_keyed_equivalent(results: Results) -> None:
    # One case: exact permutation p-values (C(8, 4) = 70 labelings) and, resampling cases
    # alone, degenerate intervals, so even the resampled numbers agree although their streams
    # differ. (The smoothed interval redraws outputs from each stream: it would differ.)
    one = ["cog"]
    bca = FAST.model_copy(update={"interval": "bca"})
    keyed = results.profile("level", "answer_change", target="steady", cases=one, inference=bca)
    pairwise = results.profile("level", "differs", target="steady", cases=one, inference=bca)
    assert _close(_numbers(pairwise), _numbers(keyed))
    assert all(t.exact for t in pairwise.local)
    # Over every case the statistic itself agrees exactly.
    keyed = results.profile("mode", "answer_change", target="mumbler", inference=FAST)
    pairwise = results.profile("mode", "differs", target="mumbler", inference=FAST)
    assert [t.excess for t in pairwise.local] == pytest.approx([t.excess for t in keyed.local])
    assert [t.within for t in pairwise.baseline] == pytest.approx(
        [t.within for t in keyed.baseline]
    )
    # Pairwise transitions trace to difference measurements, keyed ones to keys.
    pairs = results.trace(pairwise.local[0]).measurements
    keys = results.trace(keyed.local[0]).measurements
    assert {type(m).__name__ for m in pairs} == {"DifferenceMeasurement"}
    assert {type(m).__name__ for m in keys} == {"PointMeasurement"}


def test_one_repetition_cannot_separate_noise() -> None:
    from tests.analysis.conftest import run, scenario

    once = run(scenario(repetitions=1), "steady")
    with pytest.raises(AnalysisError, match="one repetition"):
        once.profile("level", "answer_change")
    with pytest.raises(AnalysisError, match="one repetition"):
        once.variability("answer_change")


def test_two_repetitions_are_enough_for_every_case() -> None:
    # The smallest cells that separate change from noise: every case takes part.
    from tests.analysis.conftest import run, scenario

    twice = run(scenario(repetitions=2), "steady", "mumbler")
    for target in ("steady", "mumbler"):
        profile = twice.profile("level", "answer_change", target=target, inference=FAST)
        for transition in profile.local:
            assert_matches_direct(twice, transition)
        if target == "steady":
            assert all(t.cases == len(ITEMS) for t in profile.local)
    # Two read answers a side are enough for a scorecard's quantities to be defined.
    card = twice.scorecard("correct", "answer_change", target="steady", answered="answered")
    assert card.spurious_change is not None
    assert "shifts" not in card.undefined
