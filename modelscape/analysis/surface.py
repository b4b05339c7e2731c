"""Surfaces: a quantity over every combination of two axes, from a grid design.

A sweep moves one axis at a time, so it cannot show an interaction: whether pressure matters
only for some names, or whether a model follows the larger body of evidence only when it is
told first. A :class:`~modelscape.task.design.Grid` evaluates every combination of its axes,
and a surface reads one number at each combination, with an interval, every other axis at its
baseline:

- ``accuracy``: the mean correctness of one target (cases weighted equally, as in a
  scorecard), with a case-bootstrap interval;
- ``difference``: one target's accuracy minus another's, paired by case, with a case-bootstrap
  interval of the paired differences;
- ``change``: the excess change of one target's answers from the baseline combination to each
  combination (the same statistic as a profile's step, STATS.md), with its interval and a
  permutation p-value, Holm-corrected over the surface's combinations.

Every point carries the measurement ids it rests on, so a page opens its outputs like any
other number. A combination no output supports is a point without a value that says why.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Literal

import numpy as np
from pydantic import Field

from modelscape._identity import AxisValue
from modelscape._model import FrozenModel
from modelscape.analysis.cells import Comparand, MeasureView
from modelscape.analysis.common import case_list, mean_interval, quiet_caveats, transition_key
from modelscape.analysis.transitions import compare_transitions
from modelscape.errors import AnalysisError
from modelscape.records.run import IndexedRun
from modelscape.stats import Inference, holm

__all__ = ["Surface", "SurfacePoint", "grid_pairs", "surface"]

Kind = Literal["accuracy", "difference", "change"]


class SurfacePoint(FrozenModel):
    """One combination of the two axes and the surface's value there.

    ``value`` is None when no case supports it, and ``insufficient`` says why. ``p_value``
    and ``adjusted_p`` are set on change surfaces only (None at the baseline combination,
    which is compared with itself).
    """

    x: AxisValue
    y: AxisValue
    value: float | None
    low: float | None = None
    high: float | None = None
    cases: int = 0
    p_value: float | None = None
    adjusted_p: float | None = None
    insufficient: str | None = None
    warnings: tuple[str, ...] = ()
    measurement_ids: tuple[str, ...] = Field(default=(), repr=False)


class Surface(FrozenModel):
    """A quantity over the combinations of two axes: ``points`` run over ``x_values`` within
    each of ``y_values``. ``second`` is the other target of a difference surface."""

    kind: Kind
    target: str
    second: str | None = None
    measure: str
    x_axis: str
    y_axis: str
    x_values: tuple[AxisValue, ...]
    y_values: tuple[AxisValue, ...]
    fixed: dict[str, AxisValue]
    points: tuple[SurfacePoint, ...]

    def rows(self) -> list[list[float | None]]:
        """The values as rows (one per ``y`` value), each over the ``x`` values."""
        width = len(self.x_values)
        return [
            [p.value for p in self.points[i * width : (i + 1) * width]]
            for i in range(len(self.y_values))
        ]


def grid_pairs(results: IndexedRun) -> list[tuple[str, str]]:
    """The pairs of axes whose every combination the run evaluated, the others at baseline,
    in axis order (empty for a sweep of one axis at a time)."""
    axes = results.experiment.axes
    baseline = results.experiment.baseline
    evaluated = results.evaluated
    pairs = []
    for first, second in itertools.combinations(axes, 2):
        if len(first.values) < 2 or len(second.values) < 2:
            continue
        combinations = (
            results.key({**baseline, first.name: x, second.name: y})
            for y in second.values
            for x in first.values
        )
        if all(key in evaluated for key in combinations):
            pairs.append((first.name, second.name))
    return pairs


def _accuracy_by_case(
    results: IndexedRun, metric: str, target: str, cases: Sequence[str], where: dict[str, AxisValue]
) -> tuple[dict[str, float], tuple[str, ...]]:
    """Each case's mean of ``metric`` at one coordinate, and the measurement ids read."""
    key = results.key(where)
    means: dict[str, float] = {}
    ids: list[str] = []
    for case in cases:
        values, value_ids = results.cell_points(metric, target, case, key)
        if values:
            means[case] = float(np.mean(values))
            ids.extend(value_ids)
    return means, tuple(ids)


def _mean_point(
    x: AxisValue,
    y: AxisValue,
    per_case: list[float],
    ids: tuple[str, ...],
    inference: Inference,
    stream: str,
    missing: str,
) -> SurfacePoint:
    if not per_case:
        return SurfacePoint(x=x, y=y, value=None, insufficient=missing, measurement_ids=ids)
    low, high = mean_interval(per_case, inference, stream, stream)
    value = float(np.mean(per_case))
    return SurfacePoint(
        x=x, y=y, value=value, low=low, high=high, cases=len(per_case), measurement_ids=ids
    )


def surface(
    results: IndexedRun,
    x_axis: str,
    y_axis: str,
    *,
    kind: Kind = "accuracy",
    target: str | None = None,
    second: str | None = None,
    measure: str | None = None,
    cases: Sequence[str] | None = None,
    inference: Inference | None = None,
) -> Surface:
    """The ``kind`` surface of ``target`` over ``x_axis`` and ``y_axis`` (see the module).

    ``measure`` is the point metric of an accuracy or difference surface (``correct`` by
    default) or the difference measure of a change surface (``answer_change`` by default).
    The run must have evaluated every combination of the two axes with the others at baseline.
    """
    inference = inference or Inference()
    name = results.target(target)
    if kind == "difference":
        if second is None:
            raise AnalysisError("a difference surface compares two targets: name second=")
        other = results.target(second)
        if other == name:
            raise AnalysisError(f"a difference surface needs two targets, not {name!r} twice")
    elif second is not None:
        raise AnalysisError(f"second= is for difference surfaces, not {kind} ones")
    if (x_axis, y_axis) not in grid_pairs(results):
        pairs = ", ".join(f"{a} x {b}" for a, b in grid_pairs(results)) or "none"
        raise AnalysisError(
            f"the run did not evaluate every combination of {x_axis!r} and {y_axis!r} (with "
            f"the other axes at baseline); the pairs it did: {pairs}. A Grid design over both "
            "axes makes a surface"
        )
    chosen = case_list(results, cases)
    axes = {a.name: a for a in results.experiment.axes}
    baseline = results.experiment.baseline
    fixed = {k: v for k, v in baseline.items() if k not in (x_axis, y_axis)}
    combinations = [(x, y) for y in axes[y_axis].values for x in axes[x_axis].values]
    if kind == "change":
        used = measure or "answer_change"
        points = _change_points(results, used, name, chosen, baseline, x_axis, y_axis, inference)
    else:
        used = measure or "correct"
        points = []
        for x, y in combinations:
            where = {**baseline, x_axis: x, y_axis: y}
            mine, ids = _accuracy_by_case(results, used, name, chosen, where)
            stream = f"surface|{name}|{used}|{x_axis}={x}|{y_axis}={y}"
            missing = f"no output of {name} at this combination could be scored"
            if kind == "accuracy":
                per_case = list(mine.values())
            else:
                theirs, their_ids = _accuracy_by_case(results, used, other, chosen, where)
                shared = [c for c in chosen if c in mine and c in theirs]
                per_case = [mine[c] - theirs[c] for c in shared]
                ids = (*ids, *their_ids)
                stream += f"|minus {other}"
                missing = f"no case has scored outputs of both {name} and {other} here"
            points.append(_mean_point(x, y, per_case, ids, inference, stream, missing))
    return Surface(
        kind=kind,
        target=name,
        second=second if kind == "difference" else None,
        measure=used,
        x_axis=x_axis,
        y_axis=y_axis,
        x_values=axes[x_axis].values,
        y_values=axes[y_axis].values,
        fixed=fixed,
        points=tuple(points),
    )


def _change_points(
    results: IndexedRun,
    measure: str,
    target: str,
    cases: Sequence[str],
    baseline: dict[str, AxisValue],
    x_axis: str,
    y_axis: str,
    inference: Inference,
) -> list[SurfacePoint]:
    """The excess change from the baseline combination to each combination, Holm-corrected
    over the combinations other than the baseline's."""
    view = MeasureView.of(results, measure)
    axes = {a.name: a for a in results.experiment.axes}
    comparands = []
    for y in axes[y_axis].values:
        for x in axes[x_axis].values:
            second = {**baseline, x_axis: x, y_axis: y}
            comparands.append(
                Comparand(
                    key=transition_key(target, measure, baseline, second),
                    axis=f"{x_axis} x {y_axis}",
                    before=f"{baseline[x_axis]}, {baseline[y_axis]}",
                    after=f"{x}, {y}",
                    first=baseline,
                    second=second,
                    first_target=target,
                    second_target=target,
                    cases=cases,
                )
            )
    with quiet_caveats():
        found = compare_transitions(view, comparands, inference, target=target)
    at_baseline = [c.first == c.second for c in comparands]
    tested = [t.p_value for t, same in zip(found, at_baseline, strict=True) if not same]
    adjusted = iter(holm(tested))
    points = []
    for transition, comparand, same in zip(found, comparands, at_baseline, strict=True):
        points.append(
            SurfacePoint(
                x=comparand.second[x_axis],
                y=comparand.second[y_axis],
                value=transition.excess,
                low=transition.low,
                high=transition.high,
                cases=transition.cases,
                p_value=None if same else transition.p_value,
                adjusted_p=None if same else next(adjusted),
                insufficient=transition.insufficient,
                warnings=transition.warnings,
                measurement_ids=transition.measurement_ids,
            )
        )
    return points
