"""Surfaces over two axes of a grid, checked against direct computations from the outputs."""

from __future__ import annotations

import pytest

from modelscape.errors import AnalysisError
from modelscape.results.results import Results, run_of
from tests.analysis import direct
from tests.analysis.conftest import FAST, ITEMS


def combinations(results: Results) -> list[dict[str, object]]:
    indexed = run_of(results)
    axes = {a.name: a for a in indexed.experiment.axes}
    base = indexed.experiment.baseline
    return [
        {**base, "level": x, "mode": y} for y in axes["mode"].values for x in axes["level"].values
    ]


def test_a_grid_has_its_pair_and_a_sweep_none(grid: Results, results: Results) -> None:
    from modelscape.analysis.surface import grid_pairs

    assert grid_pairs(run_of(grid)) == [("level", "mode")]
    assert grid_pairs(run_of(results)) == []
    with pytest.raises(AnalysisError, match="A Grid design over both axes"):
        results.surface("level", "mode", target="steady")


def test_the_accuracy_surface_is_each_combination_s_case_mean(grid: Results) -> None:
    surface = grid.surface("level", "mode", target="swayed", inference=FAST)
    assert (surface.x_values, surface.y_values) == ((1, 2, 3, 4, 5), ("low", "mid", "high"))
    assert surface.fixed == {"tone": "plain"}
    for point, where in zip(surface.points, combinations(grid), strict=True):
        assert (point.x, point.y) == (where["level"], where["mode"])
        means = direct.case_metric_means(grid, "correct", "swayed", ITEMS, [where])
        assert point.value == pytest.approx(sum(means) / len(means))
        assert point.cases == len(means)
        assert point.low is not None
        assert point.high is not None
        assert point.low <= point.value <= point.high
        traced = grid.trace(point)
        assert {o.coordinate["level"] for o in traced.observations} == {where["level"]}
    assert surface.rows()[1][2] == surface.points[5 + 2].value


def test_the_difference_surface_pairs_the_two_targets_by_case(grid: Results) -> None:
    surface = grid.surface(
        "level", "mode", kind="difference", target="steady", second="swayed", inference=FAST
    )
    for point, where in zip(surface.points, combinations(grid), strict=True):
        mine = direct.case_metric_means(grid, "correct", "steady", ITEMS, [where])
        theirs = direct.case_metric_means(grid, "correct", "swayed", ITEMS, [where])
        paired = [a - b for a, b in zip(mine, theirs, strict=True)]
        assert point.value == pytest.approx(sum(paired) / len(paired))
        traced = grid.trace(point)
        assert {o.target for o in traced.observations} == {"steady", "swayed"}


def test_the_change_surface_is_the_excess_from_the_baseline_with_holm(grid: Results) -> None:
    surface = grid.surface("level", "mode", kind="change", target="steady", inference=FAST)
    base = run_of(grid).experiment.baseline
    raw = []
    for point, where in zip(surface.points, combinations(grid), strict=True):
        excess, *_ = direct.transition(grid, "answer_change", base, where, target="steady")
        assert point.value == pytest.approx(excess)
        if where == base:
            assert point.p_value is None
            assert point.adjusted_p is None
        else:
            assert point.p_value is not None
            raw.append((point, point.p_value))
    expected = direct.holm([p for _, p in raw])
    assert [pt.adjusted_p for pt, _ in raw] == pytest.approx(expected)
    # the correct answer flips above level 3: those combinations changed beyond noise
    flipped = [p for p in surface.points if p.x in (4, 5)]
    assert all(p.adjusted_p is not None and p.adjusted_p <= 0.05 for p in flipped)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"kind": "difference", "target": "steady"}, "name second="),
        ({"kind": "difference", "target": "steady", "second": "steady"}, "not 'steady' twice"),
        ({"kind": "accuracy", "target": "steady", "second": "swayed"}, "for difference"),
        ({"kind": "accuracy", "target": "nobody"}, "no target 'nobody'"),
    ],
)
def test_wrong_requests_are_named(grid: Results, arguments: dict[str, str], message: str) -> None:
    with pytest.raises(AnalysisError, match=message):
        grid.surface("level", "mode", inference=FAST, **arguments)  # type: ignore[arg-type]
