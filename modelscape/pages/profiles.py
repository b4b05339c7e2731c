"""Profile sections of a report page: each axis's comparisons, their steps and their chart.

A comparison of two coordinates (against the baseline, or a step between neighbours) is a
number whose outputs the page can lay side by side. Boundary candidates and a scorecard's
shifts keep only the two axis values; :func:`steps_of` finds their full coordinates among the
profiles' comparisons so that they open the same comparison. On a causal axis the chart also
draws the change the correct answers make (:func:`expected_change`), so the observed change
reads against what a target that always answered correctly would show.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from modelscape._identity import AxisValue
from modelscape.analysis.aggregates import BehaviorProfile, BoundaryCandidate, Transition
from modelscape.pages.charts import (
    boundary_label,
    has_data,
    measure_words,
    profile_figure,
    transition_label,
)
from modelscape.pages.evidence import Cell, Evidence
from modelscape.pages.readings import profile_reading, sensitivity_reading
from modelscape.pages.scenario import show_value
from modelscape.report.report import Report
from modelscape.report.summary import interval, number
from modelscape.results.results import Results, run_of
from modelscape.task.coordinate import same_value, value_key

__all__ = [
    "Step",
    "Steps",
    "expected_change",
    "profile_sections",
    "sensitivity_rows",
    "show_p",
    "step_of",
    "steps_of",
]


def show_p(value: float | None) -> str:
    """A p-value as the page's tables print it: three significant digits, or a dash."""
    return "—" if value is None else f"{value:.3g}"


#: A transition found by what names it: target, measure, axis, and both values as keys.
_StepKey = tuple[str, str, str, object, object]
Step = tuple[dict[str, AxisValue], dict[str, AxisValue]]
#: The steps of a report's profiles, by what names them (see :func:`steps_of`).
Steps = dict[_StepKey, Step]


def steps_of(report: Report) -> Steps:
    """The two coordinates of every comparison of the report's profiles, so that a boundary
    candidate or a scorecard's shift (which keep only the axis values) can name them too."""
    found: Steps = {}
    for profile in report.profiles:
        for t in (*profile.baseline, *profile.local):
            key = (t.target, t.measure, t.axis, value_key(t.before), value_key(t.after))
            found.setdefault(key, (t.first, t.second))
    return found


def step_of(steps: Steps, candidate: BoundaryCandidate) -> Step | None:
    """The two coordinates of a boundary candidate or shift, None when no profile has them."""
    return steps.get(
        (
            candidate.target,
            candidate.measure,
            candidate.axis,
            value_key(candidate.before),
            value_key(candidate.after),
        )
    )


def _transition(transition: Transition, evidence: Evidence, what: str) -> Cell:
    return (
        evidence.cell(
            interval(transition.excess, transition.low, transition.high),
            transition.measurement_ids,
            transition_label(transition, what),
            step=(transition.first, transition.second),
        )
        .undefined(transition.insufficient)
        .warned(transition.warnings)
    )


def expected_change(results: Results | None, profile: BehaviorProfile) -> list[float | None] | None:
    """Per baseline comparison, the excess answer change a target that always answered
    correctly and never varied would show: the share of cases whose correct answer differs
    between the two coordinates (between is that share, within is zero). Known only for the
    built-in answer measure and with the run's outputs attached."""
    if results is None or profile.measure != "answer_change":
        return None
    run = run_of(results)
    expected: list[float | None] = []
    for t in profile.baseline:
        changed = [
            not same_value(before, after)
            for case in run.cases
            if (before := run.reference(case, t.first)) is not None
            and (after := run.reference(case, t.second)) is not None
        ]
        expected.append(sum(changed) / len(changed) if changed else None)
    return expected


def profile_sections(
    report: Report, results: Results | None, evidence: Evidence
) -> list[dict[str, Any]]:
    """One section per axis: the rows of its table (every comparison, with its number as a
    :class:`Cell`), its chart (None when it has no data) and whether the expected change is
    drawn. The numbers are registered with ``evidence`` as they are made."""
    pairs = steps_of(report)
    by_axis: dict[str, list[BehaviorProfile]] = {}
    for profile in report.profiles:
        by_axis.setdefault(profile.axis, []).append(profile)
    sections = []
    for number_, (axis, profiles) in enumerate(by_axis.items()):
        baseline_cells = [
            [_transition(t, evidence, "against baseline on") for t in p.baseline] for p in profiles
        ]
        step_cells = [[_transition(t, evidence, "step on") for t in p.local] for p in profiles]
        boundary_cells = [
            [
                evidence.cell(
                    interval(c.excess, c.low, c.high),
                    c.measurement_ids,
                    boundary_label(c),
                    step=step_of(pairs, c),
                )
                for c in p.candidate_boundaries
            ]
            for p in profiles
        ]
        expected = expected_change(results, profiles[0])
        # A target whose answer changes are n/a draws no line: only its reason, beside.
        drawn = [n for n, p in enumerate(profiles) if p.undefined is None]
        charted = [profiles[n] for n in drawn]
        rows = []
        for profile, base, steps in zip(profiles, baseline_cells, step_cells, strict=True):
            selected = {(c.before, c.after) for c in profile.candidate_boundaries}
            for t, cell in zip(profile.baseline, base, strict=True):
                boundary = profile.scale == "nominal" and (t.before, t.after) in selected
                rows.append(_row(profile, t, cell, "against baseline", boundary))
            for t, cell in zip(profile.local, steps, strict=True):
                rows.append(_row(profile, t, cell, "step", (t.before, t.after) in selected))
        sections.append(
            {
                "id": f"chart-profile-{number_}",
                "axis": axis,
                "scale": profiles[0].scale,
                "measure": profiles[0].measure,
                "measure_words": measure_words(profiles[0].measure),
                "rows": rows,
                "boundaries": sum(len(p.candidate_boundaries) for p in profiles),
                "figure": profile_figure(
                    axis,
                    charted,
                    [[c.evidence for c in baseline_cells[n]] for n in drawn],
                    [[c.evidence for c in boundary_cells[n]] for n in drawn],
                    expected=expected,
                )
                if has_data(charted)
                else None,
                "empty": not has_data(charted),
                "unestimated": [
                    {"target": p.target, "reason": p.undefined}
                    for p in profiles
                    if p.undefined is not None
                ],
                "expected": expected is not None and any(e for e in expected),
                "reading": profile_reading(
                    axis, charted, expected=expected is not None and any(e for e in expected)
                )
                if has_data(charted)
                else None,
            }
        )
    return sections


def _row(
    profile: BehaviorProfile, t: Transition, cell: Cell, kind: str, boundary: bool
) -> dict[str, Any]:
    return {
        "target": profile.target,
        "kind": kind,
        "step": f"{show_value(t.before)} → {show_value(t.after)}",
        "excess": cell,
        "p": show_p(t.adjusted_p if t.adjusted_p is not None else t.p_value),
        "boundary": boundary,
    }


def sensitivity_rows(
    report: Report, evidence: Evidence, targets: Sequence[str] | None = None
) -> dict[str, Any]:
    """The sensitivity table of ``targets`` (every target by default): its records, one
    :class:`Cell` per record, the rows that show them, and one line per target whose answer
    changes are n/a (it has no rows; its profiles keep the reason)."""
    chosen = report.targets if targets is None else targets
    records = [s for s in report.sensitivity if s.target in chosen]
    cells = [
        evidence.cell(
            number(s.excess, 3), s.measurement_ids, f"{s.target} · sensitivity to {s.axis}"
        )
        for s in records
    ]
    reasons = {
        p.target: p.undefined
        for p in report.profiles
        if p.undefined is not None and p.target in chosen
    }
    return {
        "records": records,
        "cells": cells,
        "rows": [
            {"record": s, "excess": c, "peak": s.peak.label}
            for s, c in zip(records, cells, strict=True)
        ],
        "unestimated": [{"target": t, "reason": r} for t, r in reasons.items()],
        "reading": sensitivity_reading(records) if records else None,
    }
