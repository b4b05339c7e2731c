"""Scorecards: accuracy, spurious and missed change, and per-axis shifts of one target."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from modelscape.analysis.cells import MeasureView, compare_transitions, prepare
from modelscape.analysis.common import (
    axis_line,
    case_list,
    cell_points,
    memo,
    quiet_degenerate,
    same,
    select_boundaries,
    summarize_metric,
    varied_axes,
)
from modelscape.analysis.profiles import _comparand
from modelscape.analysis.records import AxisScore, Scorecard
from modelscape.analysis.threshold import threshold
from modelscape.answers import Answer
from modelscape.errors import AnalysisError
from modelscape.results.results import Results
from modelscape.stats import BoundaryCriterion, Inference, bootstrap_mean, random_stream
from modelscape.task.design import axis_roles as design_roles

__all__ = ["axis_roles", "scorecard"]


def axis_roles(results: Results) -> dict[str, str]:
    """Each axis's role: causal when moving it alone, between any two evaluated coordinates,
    changes the correct answer of some case; invariant otherwise."""
    shared = memo(results)
    if shared.roles is not None:
        return dict(shared.roles)
    roles: dict[str, str] = dict(
        design_roles(
            [axis.name for axis in results.experiment.axes],
            results.cases,
            shared.coordinates,
            shared.reference,
        )
    )
    shared.roles = roles
    return dict(roles)


def _group_cases(results: Results, group: str, cases: Sequence[str] | None) -> tuple[str, ...]:
    """The cases of a group: given ones, every case for "all", else the run's named group.

    Groups are stored with the experiment or, for a scenario's run, with its scenario.
    """
    if cases is not None:
        return case_list(results, cases)
    if group == "all":
        return results.cases
    groups: dict[str, Sequence[str]] = dict(results.experiment.groups)
    scenario = results.experiment.scenario
    stored = scenario.parameters.get("groups") if scenario is not None else None
    if isinstance(stored, dict):
        for name, members in stored.items():
            if isinstance(members, list):
                groups.setdefault(name, [str(m) for m in members])
    if group not in groups:
        raise AnalysisError(f"no group {group!r}; groups: {['all', *groups]}")
    return case_list(results, groups[group])


def _case_mean(
    results: Results, metric: str, target: str, cases: Sequence[str], inference: Inference
) -> tuple[float | None, float | None, float | None, int, tuple[str, ...]]:
    """A metric's mean over every successful output, cases weighted equally, with an interval.

    Each case's outputs are read cell by cell in the design's order of coordinates.
    """
    shared = memo(results)
    per_case: list[float] = []
    ids: list[str] = []
    count = 0
    for case in cases:
        values: list[float] = []
        for coordinate, place in zip(shared.coordinates, shared.places, strict=True):
            cell_values, cell_ids = cell_points(results, metric, target, case, coordinate, place)
            values.extend(cell_values)
            ids.extend(cell_ids)
        if values:
            per_case.append(float(np.mean(values)))
            count += len(values)
    if not per_case:
        return None, None, None, 0, ()
    mean = float(np.mean(per_case))
    low = high = None
    if len(per_case) > 1 and inference.resamples > 0:
        with quiet_degenerate():
            interval = bootstrap_mean(
                per_case,
                resamples=inference.resamples,
                confidence=inference.confidence,
                method=inference.mean_interval,
                rng=random_stream(inference, f"{target}|{metric}|{','.join(cases)}", "bootstrap"),
                where=f"accuracy of {target!r}",
            )
        low, high = interval.low, interval.high
    return mean, low, high, count, tuple(ids)


def scorecard(
    results: Results,
    metric: str,
    measure: str,
    *,
    target: str | None = None,
    group: str = "all",
    answered: str | None = None,
    answer: Answer | None = None,
    cases: Sequence[str] | None = None,
    criterion: BoundaryCriterion | None = None,
    inference: Inference | None = None,
) -> Scorecard:
    """Accuracy, spurious and missed change, and per-axis shifts of one target on one group."""
    name = results.target(target)
    criterion = criterion or BoundaryCriterion()
    inference = inference or Inference()
    chosen = _group_cases(results, group, cases)
    view = MeasureView.of(results, measure)
    if metric not in {m.name for m in results.experiment.point_metrics}:
        known = [m.name for m in results.experiment.point_metrics]
        raise AnalysisError(f"no point metric {metric!r}; metrics: {known}")
    accuracy, low, high, _, accuracy_ids = _case_mean(results, metric, name, chosen, inference)
    shared = memo(results)
    wanted = set(chosen)
    outputs = [o for o in results.observations if o.target == name and o.case in wanted]
    failed = sum(1 for o in outputs if o.status == "failed")
    answered_share: float | None = None
    answered_ids: tuple[str, ...] = ()
    if answered is not None:
        shares: list[float] = []
        readable_ids: list[str] = []
        for case in chosen:
            for coordinate, place in zip(shared.coordinates, shared.places, strict=True):
                cell_values, cell_ids = cell_points(
                    results, answered, name, case, coordinate, place
                )
                shares.extend(cell_values)
                readable_ids.extend(cell_ids)
        if shares:
            answered_share = float(np.mean(shares))
            answered_ids = tuple(readable_ids)
    roles = axis_roles(results)
    axes: list[AxisScore] = []
    spurious: list[float] = []
    spurious_ids: list[str] = []
    missed_same = 0
    missed_total = 0
    missed_ids: list[str] = []
    for record in varied_axes(results):
        _, home, line = axis_line(results, record.name, None)
        pairs = (
            list(itertools.pairwise(line))
            if record.scale != "nominal"
            else [(home, c) for c in line if c != home]
        )
        comparands = [_comparand(name, measure, record.name, a, b, chosen) for a, b in pairs]
        axis_spurious: list[float] = []
        axis_missed = [0, 0]
        for (first, second), comparand in zip(pairs, comparands, strict=True):
            found = prepare(view, comparand)
            excess = (found.between - found.within).tolist()
            for index, case in enumerate(found.cases):
                if same(shared.reference(case, first), shared.reference(case, second)):
                    axis_spurious.append(excess[index])
                    spurious_ids.extend(found.ids[index])
                else:
                    matrix, n_a = found.matrices[index], found.sizes[index]
                    n_b = matrix.shape[0] - n_a
                    axis_missed[0] += int(np.count_nonzero(matrix[:n_a, n_a:] == 0))
                    axis_missed[1] += n_a * n_b
                    missed_ids.extend(found.ids[index])
        spurious.extend(axis_spurious)
        missed_same += axis_missed[0]
        missed_total += axis_missed[1]
        with quiet_degenerate():
            computed = (
                compare_transitions(view, comparands, inference, target=name) if comparands else []
            )
        tested, shifts = select_boundaries(computed, criterion)
        along = tuple(
            summarize_metric(results, metric, name, chosen, c, c[record.name], inference)
            for c in line
        )
        found_threshold = None
        if answer is not None and roles[record.name] == "causal" and record.scale == "numeric":
            found_threshold = threshold(
                results, name, record.name, line, chosen, answer, metric, inference
            )
        ids = tuple(dict.fromkeys(i for t in tested for i in t.measurement_ids))
        axes.append(
            AxisScore(
                axis=record.name,
                scale=record.scale,
                role="causal" if roles[record.name] == "causal" else "invariant",
                accuracy=along,
                spurious_change=float(np.mean(axis_spurious)) if axis_spurious else None,
                missed_change=axis_missed[0] / axis_missed[1] if axis_missed[1] else None,
                shifts=tuple(shifts),
                threshold=found_threshold,
                measurement_ids=ids,
            )
        )
    all_ids = tuple(dict.fromkeys([*accuracy_ids, *answered_ids, *spurious_ids, *missed_ids]))
    return Scorecard(
        target=name,
        group=group,
        metric=metric,
        measure=measure,
        cases=len(chosen),
        observations=len(outputs),
        failed=failed,
        accuracy=accuracy,
        accuracy_low=low,
        accuracy_high=high,
        answered=answered_share,
        spurious_change=float(np.mean(spurious)) if spurious else None,
        missed_change=missed_same / missed_total if missed_total else None,
        axes=tuple(axes),
        measurement_ids=all_ids,
        accuracy_ids=accuracy_ids,
        answered_ids=answered_ids,
        spurious_ids=tuple(dict.fromkeys(spurious_ids)),
        missed_ids=tuple(dict.fromkeys(missed_ids)),
    )
