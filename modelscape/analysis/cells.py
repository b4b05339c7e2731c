"""From stored outputs to the statistics core: distance matrices per case, and transitions.

A *cell* is the successful outputs of one target for one case at one coordinate. A comparison
of two cells of the same case gives one case's distance matrix (the first cell's outputs, then
the second's); a transition is a list of such cases. This module builds them for a measure,
hands them to :func:`modelscape.stats.compare_many` in one batch, and turns the comparisons
back into :class:`Transition` records that name their measurements.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from modelscape._identity import AxisValue
from modelscape.analysis.records import Transition
from modelscape.errors import AnalysisError
from modelscape.measures import key_distance
from modelscape.results.records import Observation
from modelscape.results.results import Results
from modelscape.stats import Inference, compare_many

__all__ = ["Comparand", "MeasureView", "compare_transitions"]


@dataclass(frozen=True)
class Comparand:
    """One transition to compute: two cells per case (same target, or two targets)."""

    key: str
    axis: str
    before: AxisValue
    after: AxisValue
    first: Mapping[str, AxisValue]
    second: Mapping[str, AxisValue]
    first_target: str
    second_target: str
    cases: Sequence[str]


class MeasureView:
    """The distances of one difference measure over the outputs of one run."""

    def __init__(self, results: Results, measure: str) -> None:
        self.results = results
        self.measure = measure
        identity = next(
            (m for m in results.experiment.difference_measures if m.name == measure), None
        )
        if identity is None:
            known = [m.name for m in results.experiment.difference_measures]
            raise AnalysisError(f"no difference measure {measure!r} in this run; measures: {known}")
        if results.experiment.repetitions < 2:
            raise AnalysisError(
                "this run has one repetition per variant: run-to-run variation cannot be "
                "separated from change; rerun with repetitions >= 2"
            )
        self.keyed = bool(identity.parameters.get("keyed"))
        self.distance = str(identity.parameters.get("distance", "discrete"))

    def matrix(self, outputs: Sequence[Observation]) -> tuple[NDArray[np.float64], tuple[str, ...]]:
        """The distance matrix over ``outputs`` and the ids of the measurements behind it."""
        if not self.keyed:
            return self.results.distances(self.measure, outputs)
        points = []
        for observation in outputs:
            point = self.results.point(self.measure, observation.id)
            if point is None:
                raise AnalysisError(
                    f"measure {self.measure!r} has no value for observation {observation.id}"
                )
            points.append(point)
        return key_distance(self.distance, [p.details for p in points]), tuple(p.id for p in points)

    def case(
        self,
        case: str,
        first_target: str,
        first: Mapping[str, AxisValue],
        second_target: str,
        second: Mapping[str, AxisValue],
    ) -> tuple[NDArray[np.float64], int, tuple[str, ...]] | None:
        """One case's matrix for two cells, or None when either has fewer than two outputs."""
        a = self.results.cell(first_target, case, first)
        b = self.results.cell(second_target, case, second)
        if len(a) < 2 or len(b) < 2:
            return None
        matrix, ids = self.matrix([*a, *b])
        return matrix, len(a), ids

    def within(
        self, target: str, case: str, coordinate: Mapping[str, AxisValue]
    ) -> tuple[float, int, tuple[str, ...]] | None:
        """Mean distance over pairs of one cell's outputs, its size and its measurements."""
        outputs = self.results.cell(target, case, coordinate)
        if len(outputs) < 2:
            return None
        matrix, ids = self.matrix(outputs)
        upper = matrix[np.triu_indices(len(outputs), k=1)]
        return float(upper.mean()), len(outputs), ids


def _parts(matrix: NDArray[np.float64], n_a: int) -> tuple[float, float]:
    """Between and mean within of one case's matrix."""
    n_b = matrix.shape[0] - n_a
    between = float(matrix[:n_a, n_a:].mean())
    within_a = float(matrix[:n_a, :n_a][np.triu_indices(n_a, k=1)].mean())
    within_b = float(matrix[n_a:, n_a:][np.triu_indices(n_b, k=1)].mean())
    return between, (within_a + within_b) / 2


def compare_transitions(
    view: MeasureView, comparands: Sequence[Comparand], inference: Inference, *, target: str
) -> list[Transition]:
    """Every comparand as a :class:`Transition`, computed in one batch."""
    batch = []
    extras = []
    for comparand in comparands:
        cases = []
        ids: list[str] = []
        betweens: list[float] = []
        withins: list[float] = []
        for case in comparand.cases:
            found = view.case(
                case,
                comparand.first_target,
                comparand.first,
                comparand.second_target,
                comparand.second,
            )
            if found is None:
                continue
            matrix, n_a, case_ids = found
            cases.append((matrix, n_a))
            ids.extend(case_ids)
            between, within = _parts(matrix, n_a)
            betweens.append(between)
            withins.append(within)
        if not cases:
            raise AnalysisError(
                f"transition {comparand.key!r} has no case with at least two successful outputs "
                "on both sides"
            )
        batch.append((comparand.key, cases))
        extras.append(
            (tuple(dict.fromkeys(ids)), float(np.mean(betweens)), float(np.mean(withins)))
        )
    comparisons = compare_many(batch, inference=inference)
    return [
        Transition(
            target=target,
            measure=view.measure,
            axis=comparand.axis,
            before=comparand.before,
            after=comparand.after,
            first=dict(comparand.first),
            second=dict(comparand.second),
            cases=comparison.cases,
            excess=comparison.excess,
            between=between,
            within=within,
            low=comparison.low,
            high=comparison.high,
            p_value=comparison.p_value,
            exact=comparison.exact,
            measurement_ids=ids,
        )
        for comparand, comparison, (ids, between, within) in zip(
            comparands, comparisons, extras, strict=True
        )
    ]
