"""Divergence: where two targets answer differently beyond the run-to-run variation of each."""

from __future__ import annotations

from collections.abc import Sequence

from modelscape.analysis.aggregates import Contrast, Divergence
from modelscape.analysis.cells import Comparand, MeasureView
from modelscape.analysis.common import (
    case_list,
    quiet_caveats,
    select_boundaries,
    transition_key,
)
from modelscape.analysis.ids import IdRows
from modelscape.analysis.transitions import compare_transitions
from modelscape.errors import AnalysisError
from modelscape.records.run import IndexedRun
from modelscape.stats import BoundaryCriterion, Inference
from modelscape.task.coordinate import Coordinate

__all__ = ["divergence"]


def divergence(
    results: IndexedRun,
    measure: str,
    first: str,
    second: str,
    *,
    cases: Sequence[str] | None = None,
    criterion: BoundaryCriterion | None = None,
    inference: Inference | None = None,
) -> Divergence:
    """Compare two targets at every evaluated coordinate, with Holm over the coordinates.

    ``first`` must come before ``second`` in the experiment's targets, so a divergence has
    one direction everywhere it is reported.
    """
    targets = results.targets
    results.target(first)
    results.target(second)
    if targets.index(first) >= targets.index(second):
        raise AnalysisError(
            f"first ({first!r}) must come before second ({second!r}) in the targets {list(targets)}"
        )
    criterion = criterion or BoundaryCriterion()
    inference = inference or Inference()
    chosen = case_list(results, cases)
    view = MeasureView.of(results, measure)
    coordinates = [Coordinate(c) for c in results.experiment.coordinates]
    axis = results.experiment.axes[0].name if results.experiment.axes else "target"
    comparands = [
        Comparand(
            key=transition_key(f"{first}~{second}", measure, coordinate, coordinate),
            axis=axis,
            before=first,
            after=second,
            first=coordinate,
            second=coordinate,
            first_target=first,
            second_target=second,
            cases=chosen,
        )
        for coordinate in coordinates
    ]
    with quiet_caveats():
        computed = compare_transitions(view, comparands, inference, target=second)
    tested, _ = select_boundaries(computed, criterion)
    contrasts = tuple(
        Contrast(
            coordinate=t.first,
            cases=t.cases,
            excess=t.excess,
            low=t.low,
            high=t.high,
            p_value=t.p_value,
            adjusted_p=t.adjusted_p,
            insufficient=t.insufficient,
            warnings=t.warnings,
            measurement_ids=t.measurement_ids,
        )
        for t in tested
    )
    candidates = tuple(c for c in contrasts if criterion.selects(c.adjusted_p, c.excess))
    return Divergence(
        measure=measure,
        first=first,
        second=second,
        contrasts=contrasts,
        candidates=candidates,
        measurement_ids=IdRows.of(results).unique([c.measurement_ids for c in contrasts]),
    )
