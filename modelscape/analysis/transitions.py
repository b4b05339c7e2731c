"""From comparisons to :class:`Transition` records, computed once per results and settings.

The comparands of a profile, a scorecard or a divergence are prepared into distance matrices
(:mod:`~modelscape.analysis.cells`), computed together by :func:`modelscape.stats.compare_many`
and kept with the run's records (:class:`Transitions`), so a transition asked for again is
reused. A comparand that no
case can support (no two successful outputs on both sides) becomes an insufficient record
that says why, instead of an error that would take every other number down with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Any, TypeAlias

import numpy as np

from modelscape._identity import AxisValue
from modelscape.analysis.aggregates import Transition
from modelscape.analysis.cells import Comparand, MeasureView, Prepared
from modelscape.analysis.ids import IdRows
from modelscape.analysis.prepared import prepare
from modelscape.records.run import CoordinateKey, Derived, IndexedRun
from modelscape.stats import Inference, compare_many
from modelscape.stats.cases import StackedCases
from modelscape.stats.excess import FloatArray
from modelscape.task.coordinate import value_key

__all__ = ["Transitions", "compare_transitions"]

#: Everything a transition record depends on: measure, comparison, sides, cases, settings.
TransitionKey: TypeAlias = tuple[
    str,
    str,
    str,
    tuple[str, AxisValue],
    tuple[str, AxisValue],
    str,
    CoordinateKey,
    str,
    CoordinateKey,
    tuple[str, ...],
    str,
    Inference,
]


class Transitions(Derived):
    """The transitions computed from one run's records, each once."""

    def __init__(self, records: IndexedRun) -> None:
        super().__init__(records)
        self.done: dict[TransitionKey, Transition] = {}


def _transition_key(
    view: MeasureView, comparand: Comparand, inference: Inference, target: str
) -> TransitionKey:
    """Everything a transition record depends on."""
    records = view.results
    return (
        view.measure,
        comparand.key,
        comparand.axis,
        value_key(comparand.before),
        value_key(comparand.after),
        comparand.first_target,
        records.key(comparand.first),
        comparand.second_target,
        records.key(comparand.second),
        tuple(comparand.cases),
        target,
        inference,
    )


def _shortage(view: MeasureView, comparand: Comparand) -> str:
    """Why no case of a comparison has two successful outputs on both sides."""
    first = sum(
        len(view.cell(comparand.first_target, case, comparand.first).outputs)
        for case in comparand.cases
    )
    second = sum(
        len(view.cell(comparand.second_target, case, comparand.second).outputs)
        for case in comparand.cases
    )
    if comparand.first_target == comparand.second_target:
        sides = f"{first} at {comparand.before!s} and {second} at {comparand.after!s}"
    else:
        sides = f"{first} from {comparand.first_target} and {second} from {comparand.second_target}"
    return (
        f"no case has two successful outputs on both sides ({sides}, over "
        f"{len(comparand.cases)} case{'s' if len(comparand.cases) != 1 else ''})"
    )


def compare_transitions(
    view: MeasureView, comparands: Sequence[Comparand], inference: Inference, *, target: str
) -> list[Transition]:
    """Every comparand as a :class:`Transition`, the new ones computed in one batch.

    A comparand without a case of two successful outputs on both sides becomes an
    insufficient transition that says why, so that one dead target or one empty cell leaves
    every other number intact.
    """
    done = view.results.derived(Transitions).done
    keys = [_transition_key(view, c, inference, target) for c in comparands]
    todo: dict[TransitionKey, tuple[Comparand, Prepared]] = {}
    for key, comparand in zip(keys, comparands, strict=True):
        if key in done or key in todo:
            continue
        prepared = prepare(view, comparand)
        if not prepared.cases:
            done[key] = _record(view, comparand, target, insufficient=_shortage(view, comparand))
            continue
        todo[key] = (comparand, prepared)
    # The prepared stacks go to the statistics as they are (see StackedCases).
    batch: list[tuple[str, Sequence[tuple[FloatArray, int]]]] = [
        (comparand.key, StackedCases(prepared.blocks, len(prepared.cases)))
        for comparand, prepared in todo.values()
    ]
    comparisons = compare_many(batch, inference=inference) if batch else []
    for (key, (comparand, prepared)), comparison in zip(todo.items(), comparisons, strict=True):
        done[key] = _record(
            view,
            comparand,
            target,
            cases=comparison.cases,
            excess=comparison.excess,
            between=float(np.mean(prepared.between)),
            within=float(np.mean(prepared.within)),
            low=comparison.low,
            high=comparison.high,
            p_value=comparison.p_value,
            exact=comparison.exact,
            warnings=comparison.warnings,
            measurement_ids=_ids(view, prepared),
        )
    return [done[key] for key in keys]


def _ids(view: MeasureView, prepared: Prepared) -> tuple[str, ...]:
    """The measurements behind a transition, each once, in the order its cases name them."""
    rows = prepared.id_rows()
    if rows is None:
        return tuple(dict.fromkeys(chain.from_iterable(prepared.ids)))
    # Kept with their rows: scorecards and profiles merge these ids again.
    return IdRows.of(view.results).unique([rows], keep=True)


def _record(view: MeasureView, comparand: Comparand, target: str, **values: Any) -> Transition:
    values.setdefault("cases", 0)
    for name in ("excess", "between", "within"):
        values.setdefault(name, None)
    return Transition(
        target=target,
        measure=view.measure,
        axis=comparand.axis,
        before=comparand.before,
        after=comparand.after,
        first=dict(comparand.first),
        second=dict(comparand.second),
        **values,
    )
