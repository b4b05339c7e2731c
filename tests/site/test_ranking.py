"""The ranking rule and its rank intervals, against a direct computation.

The direct computation draws the same cases (the documented seed and streams: one stream per
scenario of the matrix, in sorted order) and then does everything else in plain Python, one
resample at a time: each target's accuracy as the mean of its drawn cases, its score as the
mean over its scenarios, its place by counting higher scores, the quantiles by sorting.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modelscape.site.catalog import Kind
from modelscape.site.leaderboard import Matrix
from modelscape.site.ranking import (
    SEED,
    Score,
    minimum_scenarios,
    rank_targets,
)
from modelscape.site.tables import matrix_table
from tests.site.boards import REFERENCE, catalog_of, summary

RESAMPLES = 200


def _brute(
    table: dict[str, dict[str, Score]],
    ranked: list[str],
    resamples: int,
    seed: int,
) -> dict[str, tuple[int, int]]:
    """Rank intervals one resample at a time, with the package's draws."""
    scenarios = sorted(table)
    streams = np.random.SeedSequence(seed).spawn(len(scenarios))
    # drawn[scenario] = list of resamples, each a list of case ids
    drawn: dict[str, list[list[str]]] = {}
    for scenario, stream in zip(scenarios, streams, strict=True):
        row = table[scenario]
        cases = sorted({c for m in ranked if m in row for c in row[m].cases})
        if not cases:
            continue
        index = np.random.default_rng(stream).integers(0, len(cases), (resamples, len(cases)))
        drawn[scenario] = [[cases[k] for k in resample] for resample in index.tolist()]
    places: dict[str, list[int]] = {m: [] for m in ranked}
    for b in range(resamples):
        scores = {}
        for m in ranked:
            values = []
            for scenario in scenarios:
                score = table[scenario].get(m)
                if score is None or score.accuracy is None:
                    continue
                mine = [score.cases[c] for c in drawn[scenario][b] if c in score.cases]
                values.append(sum(mine) / len(mine) if mine else score.accuracy)
            scores[m] = sum(values) / len(values)
        for m in ranked:
            places[m].append(1 + sum(1 for o in ranked if scores[o] > scores[m] + 1e-9))
    bounds = {}
    for m, found in places.items():
        found.sort()
        # The inverted CDF: the smallest place with at least that share at or below it.
        low = found[math.ceil(Fraction(25, 1000) * resamples) - 1]
        high = found[math.ceil(Fraction(975, 1000) * resamples) - 1]
        bounds[m] = (low, high)
    return bounds


CASE_VALUE = st.integers(0, 4).map(lambda k: k / 4)


@st.composite
def tables(draw: st.DrawFn) -> dict[str, dict[str, Score]]:
    """Scenarios of 2-6 shared cases, models with per-case accuracies, some n/a."""
    table: dict[str, dict[str, Score]] = {}
    for scenario in draw(st.lists(st.sampled_from("pqrs"), min_size=1, max_size=4, unique=True)):
        cases = [f"{scenario}{k}" for k in range(draw(st.integers(2, 6)))]
        row = {}
        for model in draw(st.lists(st.sampled_from("abcde"), min_size=1, max_size=5, unique=True)):
            if draw(st.booleans()) and draw(st.booleans()):
                row[model] = Score(None)
                continue
            values = {c: draw(CASE_VALUE) for c in cases}
            row[model] = Score(sum(values.values()) / len(values), values)
        table[scenario] = row
    return table


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_rank_intervals_equal_a_brute_force_bootstrap(table: dict[str, dict[str, Score]]) -> None:
    kinds: dict[str, Kind] = {m: "model" for row in table.values() for m in row}
    found = rank_targets(table, kinds, resamples=RESAMPLES, seed=SEED)
    need = minimum_scenarios(len(table))
    defined = {
        m: [row[m].accuracy for row in table.values() if m in row and row[m].accuracy is not None]
        for m in kinds
    }
    ranked = sorted(m for m, values in defined.items() if len(values) >= need)
    means = {m: sum(defined[m]) / len(defined[m]) for m in ranked}  # type: ignore[arg-type]
    expected = _brute(table, ranked, RESAMPLES, SEED)
    for m in kinds:
        standing = found[m]
        if m not in ranked:
            assert standing.rank is None
            assert standing.reason is not None
            assert f"{len(defined[m])} of" in standing.reason
            continue
        assert standing.score == pytest.approx(means[m])
        assert standing.rank == 1 + sum(1 for o in ranked if means[o] > means[m] + 1e-9)
        assert (standing.low, standing.high) == expected[m]
        assert standing.low is not None
        assert standing.high is not None
        assert standing.low <= standing.high
        others = [
            o
            for o in ranked
            if o != m and expected[o][0] <= standing.high and standing.low <= expected[o][1]
        ]
        assert list(standing.tied) == others


def _cases(values: list[float], prefix: str = "c") -> Score:
    cases = {f"{prefix}{k}": v for k, v in enumerate(values)}
    return Score(sum(values) / len(values), cases)


def test_the_same_seed_gives_the_same_intervals_and_another_may_not() -> None:
    table = {
        "s": {
            "a": _cases([1, 0, 1, 0, 1, 1, 0, 1]),
            "b": _cases([1, 1, 0, 0, 1, 0, 1, 0]),
            "c": _cases([0, 1, 1, 0, 0, 1, 1, 1]),
        }
    }
    kinds: dict[str, Kind] = {"a": "model", "b": "model", "c": "model"}
    assert rank_targets(table, kinds) == rank_targets(table, kinds)


def test_resolved_differences_are_not_tied_and_unresolved_ones_are() -> None:
    # a is right on every case, c on none: resolved. b and d answer alike case by case but
    # differ on two cases of eight: not resolved.
    table = {
        "s1": {
            "a": _cases([1.0] * 8),
            "b": _cases([1, 1, 1, 0, 1, 0, 0, 1]),
            "d": _cases([1, 1, 0, 0, 1, 0, 1, 0]),
            "c": _cases([0.0] * 8),
        },
        "s2": {
            "a": _cases([1.0] * 8),
            "b": _cases([0, 1, 1, 0, 1, 0, 1, 0]),
            "d": _cases([0, 1, 1, 0, 1, 0, 1, 0]),
            "c": _cases([0.0] * 8),
        },
    }
    kinds: dict[str, Kind] = dict.fromkeys("abcd", "model")
    found = rank_targets(table, kinds)
    assert (found["a"].rank, found["a"].low, found["a"].high, found["a"].tied) == (1, 1, 1, ())
    assert (found["c"].rank, found["c"].low, found["c"].high, found["c"].tied) == (4, 4, 4, ())
    assert found["b"].rank == 2
    assert found["d"].rank == 3
    assert found["b"].tied == ("d",)
    assert found["d"].tied == ("b",)


def test_reference_targets_are_anchors_not_competitors() -> None:
    # The case: a reference target that ran one scenario used to sit above models
    # that ran every scenario.
    catalog = catalog_of(
        summary("r1", "s1", {"oracle": 1.0, "m1": 0.6, "m2": 0.4}, settings={"oracle": REFERENCE}),
        summary("r2", "s2", {"m1": 0.7, "m2": 0.5}),
        summary(
            "r3", "s3", {"planted": 0.9, "m1": 0.6, "m2": 0.5}, settings={"planted": REFERENCE}
        ),
    )
    matrix = Matrix.of(catalog)
    rows = {row.model: row for row in matrix.rows}
    assert rows["oracle"].rank is None
    assert rows["planted"].rank is None
    assert rows["oracle"].standing.reference
    assert rows["oracle"].standing.score == 1.0
    assert (rows["m1"].rank, rows["m2"].rank) == (1, 2)
    # The ranked models first, then the band, itself by score.
    assert [row.model for row in matrix.rows] == ["m1", "m2", "oracle", "planted"]
    table = matrix_table(catalog, matrix)
    assert [r["standing"]["reference"] for r in table["rows"]] == [False, False, True, True]


def test_too_few_scenarios_is_listed_unranked_with_the_count() -> None:
    catalog = catalog_of(
        summary("r1", "s1", {"m1": 0.6, "m2": 0.4, "late": 1.0}),
        summary("r2", "s2", {"m1": 0.7, "m2": 0.5}),
        summary("r3", "s3", {"m1": 0.6, "m2": 0.5}),
    )
    matrix = Matrix.of(catalog)
    rows = {row.model: row for row in matrix.rows}
    late = rows["late"].standing
    assert late.rank is None
    assert late.reason == "accuracy defined on 1 of 3 scenarios; ranking needs 2"
    assert (late.scenarios, late.ran, late.score) == (1, 1, 1.0)
    assert (rows["m1"].rank, rows["m2"].rank) == (1, 2)
    assert [row.model for row in matrix.rows] == ["m1", "m2", "late"]
    assert minimum_scenarios(7) == 4
    assert minimum_scenarios(1) == 1


def test_an_undefined_accuracy_is_left_out_never_counted_as_zero() -> None:
    table = {
        "s1": {"a": _cases([0.5, 0.5]), "b": _cases([0.4, 0.4])},
        "s2": {"a": Score(None), "b": _cases([0.4, 0.4])},
        "s3": {"a": _cases([0.5, 0.5]), "b": _cases([0.4, 0.4])},
    }
    kinds: dict[str, Kind] = {"a": "model", "b": "model"}
    found = rank_targets(table, kinds)
    # As 0, a's mean would be 1/3 and below b's 0.4.
    assert found["a"].score == pytest.approx(0.5)
    assert (found["a"].scenarios, found["a"].ran) == (2, 3)
    assert (found["a"].rank, found["b"].rank) == (1, 2)


def test_a_report_without_per_case_accuracies_gives_places_without_intervals() -> None:
    table = {"s": {"a": Score(0.9), "b": _cases([0.5, 0.5])}}
    found = rank_targets(table, {"a": "model", "b": "model"})
    assert (found["a"].rank, found["a"].low, found["a"].high) == (1, None, None)
    assert found["a"].interval_reason is not None
    assert "'a'" in found["a"].interval_reason


def test_scorecards_keep_each_cases_accuracy_for_the_bootstrap() -> None:
    # A real run: each case's stored accuracy is its mean metric, read the slow way, and their
    # mean is the scorecard's accuracy.
    from tests.analysis import direct
    from tests.analysis.conftest import FAST, ITEMS, run, scenario

    results = run(scenario(repetitions=2), "mumbler", "late")
    for target in ("mumbler", "late"):
        card = results.scorecard("correct", "answer_change", target=target, inference=FAST)
        means = direct.case_metric_means(results, "correct", target, ITEMS)
        assert card.case_accuracy == pytest.approx(dict(zip(ITEMS, means, strict=True)))
        assert card.accuracy == pytest.approx(sum(card.case_accuracy.values()) / len(ITEMS))
        assert "case_accuracy" in card.model_dump_json()
