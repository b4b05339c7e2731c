"""Every aggregate traces back to the observations and variants it was computed from."""

from __future__ import annotations

import pytest

from modelscape.errors import AnalysisError
from modelscape.records.stored import Trace
from modelscape.results.results import Results
from modelscape.scenario import Scenario
from tests.analysis.conftest import FAST, ITEMS


def check(trace: Trace, targets: set[str], levels: set[int] | None = None) -> None:
    """The trace is non-empty, of the right targets (and levels), with its own variants."""
    assert trace.observations
    assert {o.target for o in trace.observations} == targets
    if levels is not None:
        assert {o.coordinate["level"] for o in trace.observations} == levels
    assert {v.id for v in trace.variants} == {o.variant_id for o in trace.observations}


def test_every_aggregate_traces_to_outputs(results: Results, space: Scenario) -> None:
    profile = results.profile("level", "answer_change", target="late", inference=FAST)
    check(results.trace(profile), {"late"}, {1, 2, 3, 4, 5})
    step = profile.local[3]
    check(results.trace(step), {"late"}, {4, 5})
    assert len(results.trace(step).observations) == 2 * 4 * len(ITEMS)
    (boundary,) = profile.candidate_boundaries
    check(results.trace(boundary), {"late"}, {4, 5})
    check(results.trace(profile.baseline[0]), {"late"}, {1})
    check(results.trace(profile.metrics["correct"][2]), {"late"}, {3})

    (top, *_) = results.sensitivity("answer_change", target="late", inference=FAST)
    check(results.trace(top), {"late"}, {4, 5})

    (agreement, *_) = results.agreement(target="late", inference=FAST)
    check(results.trace(agreement), {"late"})

    card = results.scorecard(
        "correct",
        "answer_change",
        target="late",
        answered="answered",
        answer=space.answer,
        inference=FAST,
    )
    check(results.trace(card), {"late"})
    for ids in (card.accuracy_ids, card.answered_ids, card.spurious_ids, card.missed_ids):
        check(results.trace(ids), {"late"})
    level = card.axes[0]
    check(results.trace(level), {"late"}, {1, 2, 3, 4, 5})
    check(results.trace(level.shifts[0]), {"late"}, {4, 5})
    assert level.threshold is not None
    check(results.trace(level.threshold), {"late"}, {1, 2, 3, 4, 5})

    divergence = results.divergence("answer_change", "steady", "late", inference=FAST)
    check(results.trace(divergence), {"steady", "late"})
    check(results.trace(divergence.contrasts[3]), {"steady", "late"}, {4})

    (variability, *_) = results.variability("differs", target="late")
    trace = results.trace(variability)
    check(trace, {"late"})
    assert {v.id for v in trace.variants} == {variability.variant_id}
    assert len(trace.measurements) == 6  # four outputs, six pairs


def test_unknown_measurements_fail_clearly(results: Results) -> None:
    with pytest.raises(AnalysisError, match="measurement 'nope' is not in these results"):
        results.trace(["nope"])
