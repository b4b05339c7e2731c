"""Agreement between difference measures over the same tested transitions."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
from scipy import stats as scipy_stats

from modelscape.analysis.aggregates import MeasureAgreement, Transition
from modelscape.analysis.cells import Comparand, MeasureView
from modelscape.analysis.common import axis_line, select_boundaries, varied_axes
from modelscape.analysis.ids import IdRows
from modelscape.analysis.prepared import prepare
from modelscape.analysis.profiles import profile
from modelscape.errors import AnalysisError
from modelscape.records.run import IndexedRun
from modelscape.stats import BoundaryCriterion, Inference, random_stream

__all__ = ["agreement"]


def _tested(
    results: IndexedRun,
    measure: str,
    target: str,
    criterion: BoundaryCriterion,
    inference: Inference,
) -> list[Transition]:
    """Every tested transition of one measure: the steps of every axis, one Holm family."""
    steps = [
        t
        for axis in varied_axes(results)
        for t in profile(
            results, axis.name, measure, target=target, criterion=criterion, inference=inference
        ).steps
    ]
    tested, _ = select_boundaries(steps, criterion)
    return tested


def _case_excess(
    view: MeasureView, target: str, transition: Transition, cases: Sequence[str]
) -> list[float | None]:
    """Each case's excess change over one transition, None where a cell has too few outputs."""
    found = prepare(
        view,
        Comparand(
            key=transition.label,
            axis=transition.axis,
            before=transition.before,
            after=transition.after,
            first=transition.first,
            second=transition.second,
            first_target=target,
            second_target=target,
            cases=tuple(cases),
        ),
    )
    excess = dict(zip(found.cases, (found.between - found.within).tolist(), strict=True))
    return [excess.get(case) for case in cases]


def _spearman(x: np.ndarray, y: np.ndarray) -> float | None:
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    return float(scipy_stats.spearmanr(x, y).statistic)


def agreement(
    results: IndexedRun,
    measures: Sequence[str] | None = None,
    *,
    target: str | None = None,
    criterion: BoundaryCriterion | None = None,
    inference: Inference | None = None,
) -> tuple[MeasureAgreement, ...]:
    """Pairwise agreement of difference measures over every tested transition.

    Those are the local transitions between evaluated neighbours and, on nominal axes, the
    comparisons with the baseline. The rank correlation is Spearman's (average ranks) with a
    percentile interval from a joint bootstrap over cases; the boundary overlap is
    |A ∩ B| / |A ∪ B|, and 1 when neither measure finds a boundary.
    """
    name = results.target(target)
    criterion = criterion or BoundaryCriterion()
    inference = inference or Inference()
    names = (
        list(measures)
        if measures is not None
        else [m.name for m in results.experiment.difference_measures]
    )
    if len(names) < 2:
        raise AnalysisError(f"agreement needs at least two difference measures, got {names}")
    tested = {m: _tested(results, m, name, criterion, inference) for m in names}
    views = {m: MeasureView.of(results, m) for m in names}
    for record in varied_axes(results):
        axis_line(results, record.name, None)
    found: list[MeasureAgreement] = []
    cases = list(results.cases)
    for first, second in itertools.combinations(names, 2):
        a, b = tested[first], tested[second]
        if not a:
            found.append(
                MeasureAgreement(
                    target=name,
                    first=first,
                    second=second,
                    transitions=0,
                    rank_correlation=None,
                    boundary_overlap=None,
                )
            )
            continue
        # A step that could not be computed (no two outputs a side) has no rank to compare.
        both = [
            i for i, (s, t) in enumerate(zip(a, b, strict=True)) if None not in (s.excess, t.excess)
        ]
        a, b = [a[i] for i in both], [b[i] for i in both]
        x = np.array([t.excess for t in a], dtype=np.float64)
        y = np.array([t.excess for t in b], dtype=np.float64)
        correlation = _spearman(x, y)
        low = high = None
        if correlation is not None and inference.resamples > 0:
            per_a = np.array(
                [
                    [np.nan if v is None else v for v in _case_excess(views[first], name, t, cases)]
                    for t in a
                ]
            )
            per_b = np.array(
                [
                    [
                        np.nan if v is None else v
                        for v in _case_excess(views[second], name, t, cases)
                    ]
                    for t in b
                ]
            )
            rng = random_stream(inference, f"{name}|agreement|{first}|{second}", "bootstrap")
            draws = rng.integers(0, len(cases), size=(inference.resamples, len(cases)))
            mean_a = np.nanmean(per_a[:, draws], axis=2)  # transitions x resamples
            mean_b = np.nanmean(per_b[:, draws], axis=2)
            ranks_a = scipy_stats.rankdata(mean_a, axis=0)
            ranks_b = scipy_stats.rankdata(mean_b, axis=0)
            ca = ranks_a - ranks_a.mean(axis=0)
            cb = ranks_b - ranks_b.mean(axis=0)
            denominator = np.sqrt((ca**2).sum(axis=0) * (cb**2).sum(axis=0))
            valid = denominator > 0
            if valid.any():
                rho = (ca * cb).sum(axis=0)[valid] / denominator[valid]
                tail = (1 - inference.confidence) / 2
                low, high = (float(q) for q in np.quantile(rho, [tail, 1 - tail]))
        bounds_a = {t.label for t in a if criterion.selects(t.adjusted_p, t.excess)}
        bounds_b = {t.label for t in b if criterion.selects(t.adjusted_p, t.excess)}
        union = bounds_a | bounds_b
        overlap = 1.0 if not union else len(bounds_a & bounds_b) / len(union)
        ids = IdRows.of(results).unique([t.measurement_ids for t in (*a, *b)])
        found.append(
            MeasureAgreement(
                target=name,
                first=first,
                second=second,
                transitions=len(a),
                rank_correlation=correlation,
                low=low,
                high=high,
                boundary_overlap=overlap,
                measurement_ids=ids,
            )
        )
    return tuple(found)
