"""Profiles along axes, local transitions, run-to-run variability and sensitivity rankings."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from modelscape._identity import AxisValue
from modelscape.analysis.aggregates import (
    AxisSensitivity,
    BehaviorProfile,
    Transition,
    VariantVariability,
)
from modelscape.analysis.cells import Comparand, MeasureView
from modelscape.analysis.common import (
    axis_line,
    case_list,
    quiet_caveats,
    select_boundaries,
    summarize_metric,
    transition_key,
    varied_axes,
)
from modelscape.analysis.ids import IdRows
from modelscape.analysis.transitions import compare_transitions
from modelscape.records.grid import Rows
from modelscape.records.run import IndexedRun
from modelscape.stats import BoundaryCriterion, Inference, check_permutations
from modelscape.stats.compare import Comparison
from modelscape.task.coordinate import Coordinate, same_value

__all__ = ["profile", "profiles", "sensitivity", "transitions", "variability"]


def _comparand(
    target: str,
    measure: str,
    axis: str,
    first: Coordinate,
    second: Coordinate,
    cases: Sequence[str],
) -> Comparand:
    return Comparand(
        key=transition_key(target, measure, first, second),
        axis=axis,
        before=first[axis],
        after=second[axis],
        first=first,
        second=second,
        first_target=target,
        second_target=target,
        cases=cases,
    )


def _run_to_run(
    view: MeasureView, target: str, axis: str, at: Coordinate, cases: Sequence[str]
) -> Transition:
    """The baseline compared with itself: only the run-to-run variation is meaningful."""
    withins: list[float] = []
    parts: list[Rows | Sequence[str]] = []
    registry = IdRows.of(view.results)
    by_rows = view.within_rows(target, cases, at)
    for found in view.withins(target, cases, at) if by_rows is None else by_rows:
        if found is not None:
            withins.append(found[0])
            parts.append(found[2])
    within = sum(withins) / len(withins) if withins else 0.0
    return Transition(
        target=target,
        measure=view.measure,
        axis=axis,
        before=at[axis],
        after=at[axis],
        first=dict(at),
        second=dict(at),
        cases=len(withins),
        excess=0.0,
        between=within,
        within=within,
        measurement_ids=registry.unique(parts, keep=True),
    )


def profile(
    results: IndexedRun,
    axis: str,
    measure: str,
    *,
    target: str | None = None,
    fixed: Mapping[str, AxisValue] | None = None,
    cases: Sequence[str] | None = None,
    criterion: BoundaryCriterion | None = None,
    inference: Inference | None = None,
) -> BehaviorProfile:
    """Behaviour of one target along one axis under one difference measure."""
    name = results.target(target)
    criterion = criterion or BoundaryCriterion()
    inference = inference or Inference()
    chosen = case_list(results, cases)
    view = MeasureView.of(results, measure)
    record, home, line = axis_line(results, axis, fixed)
    comparands = [_comparand(name, measure, axis, home, c, chosen) for c in line if c != home]
    local_pairs = []
    if record.scale != "nominal":
        local_pairs = [
            _comparand(name, measure, axis, a, b, chosen) for a, b in itertools.pairwise(line)
        ]
    with quiet_caveats():
        computed = compare_transitions(view, [*comparands, *local_pairs], inference, target=name)
    away = computed[: len(comparands)]
    local = computed[len(comparands) :]
    steps = local if record.scale != "nominal" else away
    tested, candidates = select_boundaries(steps, criterion)
    if record.scale != "nominal":
        local = tested
    else:
        away = tested
    _check(tested, inference, criterion)
    baseline: list[Transition] = []
    pending = iter(away)
    for coordinate in line:
        if coordinate == home:
            baseline.append(_run_to_run(view, name, axis, home, chosen))
        else:
            baseline.append(next(pending))
    metrics = {
        metric.name: tuple(
            summarize_metric(results, metric.name, name, chosen, c, c[axis], inference)
            for c in line
        )
        for metric in results.experiment.point_metrics
    }
    ids = IdRows.of(results).unique([t.measurement_ids for t in (*baseline, *local)])
    return BehaviorProfile(
        target=name,
        measure=measure,
        axis=axis,
        scale=record.scale,
        fixed={k: v for k, v in home.items() if k != axis},
        baseline=tuple(baseline),
        local=tuple(local),
        metrics=metrics,
        candidate_boundaries=tuple(candidates),
        measurement_ids=ids,
    )


def _check(
    family: Sequence[Transition], inference: Inference, criterion: BoundaryCriterion
) -> None:
    """Warn when the permutations are too few for Holm to reject within this family."""
    if inference.permutations == 0 or not family:
        return
    comparisons = [
        Comparison(
            key=t.label,
            excess=t.excess or 0.0,
            per_case=(0.0,) * max(t.cases, 1),
            low=t.low,
            high=t.high,
            p_value=t.p_value,
            exact=t.exact,
            permutations=inference.permutations,
        )
        for t in family
    ]
    check_permutations(comparisons, alpha=criterion.alpha)


def profiles(
    results: IndexedRun,
    axis: str,
    measure: str,
    *,
    fixed: Mapping[str, AxisValue] | None = None,
    cases: Sequence[str] | None = None,
    criterion: BoundaryCriterion | None = None,
    inference: Inference | None = None,
) -> tuple[BehaviorProfile, ...]:
    """One profile per target, computed identically for direct comparison."""
    return tuple(
        profile(
            results,
            axis,
            measure,
            target=target,
            fixed=fixed,
            cases=cases,
            criterion=criterion,
            inference=inference,
        )
        for target in results.targets
    )


def transitions(
    results: IndexedRun,
    measure: str,
    *,
    target: str | None = None,
    cases: Sequence[str] | None = None,
    inference: Inference | None = None,
) -> tuple[Transition, ...]:
    """Every local transition between evaluated neighbours on ordinal and numeric axes."""
    name = results.target(target)
    inference = inference or Inference()
    chosen = case_list(results, cases)
    view = MeasureView.of(results, measure)
    done = results.evaluated
    comparands = []
    for coordinate in results.coordinates:
        for axis in results.experiment.axes:
            if axis.scale == "nominal":
                continue
            position = next(
                i for i, v in enumerate(axis.values) if same_value(v, coordinate[axis.name])
            )
            if position + 1 >= len(axis.values):
                continue
            neighbour = coordinate.moved(axis.name, axis.values[position + 1])
            if results.key(neighbour) in done:
                comparands.append(
                    _comparand(name, measure, axis.name, coordinate, neighbour, chosen)
                )
    if not comparands:
        return ()
    with quiet_caveats():
        return tuple(compare_transitions(view, comparands, inference, target=name))


def variability(
    results: IndexedRun,
    measure: str,
    *,
    target: str | None = None,
    inference: Inference | None = None,
) -> tuple[VariantVariability, ...]:
    """Within-variant variation of every variant under one difference measure."""
    name = results.target(target)
    view = MeasureView.of(results, measure)
    found: list[VariantVariability] = []
    for variant in results.variants:
        outputs = results.cell(name, variant.case, variant.coordinate)
        within = view.within(name, variant.case, variant.coordinate)
        if within is None:
            continue
        found.append(
            VariantVariability(
                target=name,
                measure=measure,
                variant_id=variant.id,
                case=variant.case,
                coordinate=variant.coordinate,
                repetitions=len(outputs),
                within=within[0],
                measurement_ids=within[2],
            )
        )
    return tuple(found)


def sensitivity(
    results: IndexedRun,
    measure: str,
    *,
    target: str | None = None,
    criterion: BoundaryCriterion | None = None,
    inference: Inference | None = None,
) -> tuple[AxisSensitivity, ...]:
    """Every axis ranked by its largest excess change around the baseline.

    The steps of every axis (local steps on ordinal and numeric axes, baseline comparisons on
    nominal ones) are tested together, as one family under Holm's correction.
    """
    name = results.target(target)
    criterion = criterion or BoundaryCriterion()
    inference = inference or Inference()
    per_axis = [
        profile(
            results,
            axis.name,
            measure,
            target=name,
            criterion=BoundaryCriterion(alpha=criterion.alpha, min_excess=criterion.min_excess),
            inference=inference,
        )
        for axis in varied_axes(results)
    ]
    family = [t for p in per_axis for t in p.steps]
    tested, _ = select_boundaries(family, criterion)
    by_label = {(t.axis, t.label): t for t in tested}
    ranked = []
    for item in per_axis:
        # Steps that could not be computed (a failed target, an empty cell) cannot peak.
        steps = [
            (by_label[(t.axis, t.label)], t.excess) for t in item.steps if t.excess is not None
        ]
        if not steps:
            continue
        peak, excess = max(steps, key=lambda pair: pair[1])
        boundaries = sum(1 for t, size in steps if criterion.selects(t.adjusted_p, size))
        ranked.append((item, peak, boundaries, excess))
    ranked.sort(key=lambda entry: -entry[3])
    return tuple(
        AxisSensitivity(
            target=name,
            measure=measure,
            axis=item.axis,
            scale=item.scale,
            rank=rank,
            excess=excess,
            peak=peak,
            boundaries=boundaries,
            measurement_ids=peak.measurement_ids,
        )
        for rank, (item, peak, boundaries, excess) in enumerate(ranked, start=1)
    )
