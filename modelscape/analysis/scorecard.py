"""Scorecards: accuracy, spurious and missed change, per-axis shifts and departures of one target.

Every quantity that cannot be computed is None, with the reason in the scorecard's
``undefined`` (and each axis's): too few read answers (see :mod:`~.readable`), nothing to
measure (no step changes the correct answer), no successful output, or tests switched off.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from functools import partial
from operator import eq

import numpy as np

from modelscape._identity import AxisValue
from modelscape.analysis.aggregates import AxisScore, Scorecard
from modelscape.analysis.cells import MeasureView
from modelscape.analysis.changes import Spurious, Tally
from modelscape.analysis.common import (
    axis_line,
    case_list,
    mean_interval,
    quiet_caveats,
    select_boundaries,
    summarize_metric,
    varied_axes,
)
from modelscape.analysis.ids import IdRows
from modelscape.analysis.prepared import prepare
from modelscape.analysis.profiles import _comparand
from modelscape.analysis.readable import Readable, answered_shortfall, first_reason, joined
from modelscape.analysis.threshold import threshold
from modelscape.analysis.transitions import compare_transitions
from modelscape.answers import Answer
from modelscape.errors import AnalysisError
from modelscape.records.grid import Rows, row_means
from modelscape.records.run import Derived, IndexedRun
from modelscape.stats import BoundaryCriterion, Inference
from modelscape.stats.floored import CASES_CHECKED
from modelscape.stats.smoothed import CASES_FOR_COVERAGE
from modelscape.task.coordinate import Coordinate
from modelscape.task.design import axis_roles as design_roles

__all__ = ["axis_roles", "scorecard"]


class _Roles(Derived):
    """The role of every axis of one run, found once."""

    def __init__(self, records: IndexedRun) -> None:
        super().__init__(records)
        cases, coordinates = records.cases, records.coordinates
        # Every correct answer read once per coordinate (not once per case and coordinate),
        # found again by the coordinate object the design passes back.
        answers = {
            id(coordinate): dict(zip(cases, records.references(cases, coordinate), strict=True))
            for coordinate in coordinates
        }

        def reference(case: str, coordinate: Mapping[str, AxisValue]) -> AxisValue | None:
            found = answers.get(id(coordinate))
            return records.reference(case, coordinate) if found is None else found.get(case)

        names = [axis.name for axis in records.experiment.axes]
        self.roles: dict[str, str] = dict(design_roles(names, cases, coordinates, reference))


def axis_roles(results: IndexedRun) -> dict[str, str]:
    """Each axis's role: causal when moving it alone, between any two evaluated coordinates,
    changes the correct answer of some case; invariant otherwise."""
    return dict(results.derived(_Roles).roles)


def _group_cases(results: IndexedRun, group: str, cases: Sequence[str] | None) -> tuple[str, ...]:
    """The cases of a group: given ones, else the run's group of that name ("all": every case).

    The groups are the run's scenario's, read through its stored settings.
    """
    if cases is not None:
        return case_list(results, cases)
    if group == "all":
        return results.cases
    return case_list(results, results.settings.cases(group, results.cases))


def _case_mean(
    results: IndexedRun, metric: str, target: str, cases: Sequence[str], inference: Inference
) -> tuple[float | None, float | None, float | None, int, Rows, dict[str, float]]:
    """A metric's mean over every successful output, cases weighted equally, with an interval,
    and how many cases it rests on, and the point rows of its measurements.

    Each case's outputs are read cell by cell in the design's order of coordinates, all cases
    at once (:meth:`~modelscape.records.run.IndexedRun.case_points`); each case's mean is the
    one ``np.mean`` gives of its values (:func:`~modelscape.records.grid.row_means`).
    """
    lengths, values, rows = results.case_points(metric, target, cases, results.keys)
    scored = lengths > 0
    if not scored.any():
        return None, None, None, 0, rows[:0], {}
    per_case = row_means(values, lengths[scored]).tolist()
    mean = float(np.mean(per_case))
    stream = f"{target}|{metric}|{','.join(cases)}"
    low, high = mean_interval(per_case, inference, stream, f"accuracy of {target!r}", share=True)
    by_case = dict(zip(np.asarray(cases)[scored].tolist(), per_case, strict=True))
    return mean, low, high, len(per_case), rows, by_case


def _answered(
    results: IndexedRun, answered: str | None, target: str, cases: Sequence[str]
) -> tuple[float | None, Rows]:
    """The share of readable outputs over every coordinate, and its measurements' point rows."""
    if answered is None:
        return None, np.empty(0, dtype=np.int64)
    _, shares, rows = results.case_points(answered, target, cases, results.keys)
    return (float(np.mean(shares)) if len(shares) else None), rows


def _unscored(outputs: int, failed: int, where: str = "") -> str:
    """Why a mean of the metric has no value: no output at all, or none could be scored."""
    if outputs == failed:
        return f"no successful output{where} ({failed} of {outputs} calls failed)"
    return f"no output{where} could be scored (no correct answer to compare with)"


def _drift_pairs(
    results: IndexedRun,
    steps: Sequence[tuple[Coordinate, Coordinate]],
    from_base: Sequence[tuple[Coordinate, Coordinate]],
) -> list[tuple[Coordinate, Coordinate]]:
    """The comparisons with the baseline that are not already steps (in either direction).

    The excess change of a case is symmetric in its two sides, so a baseline comparison with
    a neighbour is the same unit as that adjacent step and is not counted twice.
    """
    seen = {frozenset((results.key(a), results.key(b))) for a, b in steps}
    return [(a, b) for a, b in from_base if frozenset((results.key(a), results.key(b))) not in seen]


def scorecard(
    results: IndexedRun,
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
    accuracy, low, high, scored, accuracy_rows, by_case = _case_mean(
        results, metric, name, chosen, inference
    )
    ids = IdRows.of(results)
    wanted = set(chosen)
    # Counted on the columns: no output record is built for a count.
    columns = results.columns
    mine = columns.target.where(partial(eq, name)) & columns.case.where(wanted.__contains__)
    outputs = int(mine.sum())
    failed = int((mine & ~columns.ok).sum())
    undefined: dict[str, str] = {}
    if accuracy is None:
        undefined["accuracy"] = _unscored(outputs, failed)
    home = results.coordinate()
    at_baseline = summarize_metric(results, metric, name, chosen, home, "baseline", inference)
    if at_baseline.mean is None:
        at_home = mine & columns.coordinate.where(partial(eq, home))
        undefined["baseline_accuracy"] = _unscored(
            int(at_home.sum()), int((at_home & ~columns.ok).sum()), " at the baseline"
        )
    answered_share, answered_rows = _answered(results, answered, name, chosen)
    if answered_share is None:
        undefined["answered"] = (
            "no answered metric given" if answered is None else _unscored(outputs, failed)
        )
    too_few = answered_shortfall(answered_share)
    untested = "no permutation tests (permutations = 0)" if inference.permutations == 0 else None
    readable = Readable(results, name, answered, answer)
    roles = axis_roles(results)
    axes: list[AxisScore] = []
    overall = Tally()
    shift_reasons: list[tuple[str, str]] = []
    invariant_reasons: list[tuple[str, str]] = []
    departure_reasons: list[tuple[str, str]] = []
    axis_units: list[tuple[AxisScore, int]] = []
    for record in varied_axes(results):
        _, base, line = axis_line(results, record.name, None)
        invariant = roles[record.name] != "causal"
        from_base = [(base, c) for c in line if c != base]
        pairs = list(itertools.pairwise(line)) if record.scale != "nominal" else from_base
        comparands = [_comparand(name, measure, record.name, a, b, chosen) for a, b in pairs]
        # On an invariant axis every comparison with the baseline is a step of spurious change
        # too (a gradual drift), each (case, pair of coordinates) counted once.
        drift = _drift_pairs(results, pairs, from_base) if invariant else []
        away = [_comparand(name, measure, record.name, a, b, chosen) for a, b in from_base]
        tally = Tally()
        for (first, second), comparand in zip(pairs, comparands, strict=True):
            tally.add_step(results, readable, chosen, first, second, prepare(view, comparand))
        for first, second in drift:
            comparand = _comparand(name, measure, record.name, first, second, chosen)
            tally.add_step(results, readable, chosen, first, second, prepare(view, comparand))
        overall.merge(tally)
        with quiet_caveats():
            computed = (
                compare_transitions(view, comparands, inference, target=name) if comparands else []
            )
            departed = (
                compare_transitions(view, away, inference, target=name)
                if invariant and away
                else []
            )
        tested, shifts = select_boundaries(computed, criterion)
        departures_tested, departures = select_boundaries(departed, criterion)
        along = tuple(
            summarize_metric(results, metric, name, chosen, c, c[record.name], inference)
            for c in line
        )
        role = "causal" if roles[record.name] == "causal" else "invariant"
        axis_undefined: dict[str, str] = {}
        where = f"spurious change of {name!r} on {record.name!r}"
        spurious = tally.spurious(too_few, inference, f"{name}|{group}|{record.name}", where)
        if spurious.reason is not None:
            axis_undefined["spurious_change"] = spurious.reason
        missed = tally.missed(
            too_few,
            inference,
            f"{name}|{group}|{record.name}|missed",
            f"missed change of {name!r} on {record.name!r}",
        )
        if missed.reason is not None:
            axis_undefined["missed_change"] = missed.reason
        shifts_reason = first_reason(untested, tally.shifts_reason(too_few))
        if shifts_reason is not None:
            axis_undefined["shifts"] = shifts_reason
            shift_reasons.append((record.name, shifts_reason))
            if role == "invariant":
                invariant_reasons.append((record.name, shifts_reason))
                departure_reasons.append((record.name, shifts_reason))
                axis_undefined["departures"] = shifts_reason
        found_threshold = None
        if answer is not None and role == "causal" and record.scale == "numeric":
            threshold_reason = first_reason(
                too_few, tally.missed_reason(None) if tally.moved_pairs else None
            )
            if threshold_reason is None:
                found_threshold = threshold(
                    results, name, record.name, line, chosen, answer, metric, inference
                )
                if found_threshold is None:
                    threshold_reason = "no case's correct answer flips once along the axis"
                elif found_threshold.offset is None:
                    flips = found_threshold.cases
                    threshold_reason = (
                        f"the answers of none of the {flips} case{'s' if flips != 1 else ''} "
                        "whose correct answer flips cross one half along the axis"
                    )
            if threshold_reason is not None:
                axis_undefined["threshold"] = threshold_reason
        axis_ids = ids.unique([t.measurement_ids for t in (*tested, *departures_tested)])
        axes.append(
            AxisScore(
                axis=record.name,
                scale=record.scale,
                role=role,
                accuracy=along,
                spurious_change=spurious.value,
                spurious_low=spurious.low,
                spurious_high=spurious.high,
                missed_change=missed.value,
                missed_low=missed.low,
                missed_high=missed.high,
                shifts=() if shifts_reason is not None else tuple(shifts),
                departures=() if shifts_reason is not None else tuple(departures),
                threshold=found_threshold,
                undefined=axis_undefined,
                measurement_ids=axis_ids,
            )
        )
        axis_units.append((axes[-1], tally.units))
    spurious = overall.spurious(
        too_few, inference, f"{name}|{group}|spurious", f"spurious change of {name!r}"
    )
    # One quantity, one interval: when a single axis holds every unit, the scorecard's
    # spurious change is that axis's, and keeps its interval rather than a second draw.
    alone = [(axis, units) for axis, units in axis_units if units]
    if len(alone) == 1 and alone[0][1] == overall.units and spurious.reason is None:
        only = alone[0][0]
        if only.spurious_change is not None:
            spurious = Spurious(only.spurious_change, only.spurious_low, only.spurious_high)
    if spurious.reason is not None:
        undefined["spurious_change"] = spurious.reason
    missed = overall.missed(
        too_few, inference, f"{name}|{group}|missed", f"missed change of {name!r}"
    )
    if missed.reason is not None:
        undefined["missed_change"] = missed.reason
    for quantity, reasons in (
        ("shifts", shift_reasons),
        ("invariant_shifts", invariant_reasons),
        ("invariant_departures", departure_reasons),
    ):
        reason = joined(reasons)
        if reason is not None:
            undefined[quantity] = reason
    caveats = [
        t for axis in axes for shift in (*axis.shifts, *axis.departures) for t in shift.warnings
    ]
    if low is not None and scored < CASES_FOR_COVERAGE:
        caveats.insert(
            0,
            f"intervals from {scored} cases are rough: their coverage was checked by simulation "
            f"from {CASES_FOR_COVERAGE} cases up",
        )
    elif low is not None and scored < CASES_CHECKED:
        caveats.insert(
            0,
            f"the accuracy interval rests on {scored} cases: its coverage was checked by "
            f"simulation from {CASES_CHECKED} cases up",
        )
    all_ids = ids.unique([accuracy_rows, answered_rows, *overall.spurious_ids, *overall.missed_ids])
    return Scorecard(
        target=name,
        group=group,
        metric=metric,
        measure=measure,
        cases=len(chosen),
        observations=outputs,
        failed=failed,
        accuracy=accuracy,
        accuracy_low=low,
        accuracy_high=high,
        baseline_accuracy=at_baseline.mean,
        baseline_accuracy_low=at_baseline.low,
        baseline_accuracy_high=at_baseline.high,
        answered=answered_share,
        spurious_change=spurious.value,
        spurious_low=spurious.low,
        spurious_high=spurious.high,
        missed_change=missed.value,
        missed_low=missed.low,
        missed_high=missed.high,
        axes=tuple(axes),
        undefined=undefined,
        warnings=tuple(dict.fromkeys(caveats)),
        case_accuracy=by_case,
        measurement_ids=all_ids,
        accuracy_ids=ids.text(accuracy_rows),
        baseline_accuracy_ids=at_baseline.measurement_ids,
        answered_ids=ids.text(answered_rows),
        spurious_ids=ids.unique(overall.spurious_ids),
        missed_ids=ids.unique(overall.missed_ids),
    )
