"""Analyses of one Results share their work, and never keep the results alive."""

from __future__ import annotations

import gc
import weakref

from modelscape.analysis.transitions import Transitions
from modelscape.results.results import run_of
from tests.analysis.conftest import FAST, run, scenario


def test_shared_work_is_reused_and_released() -> None:
    results = run(scenario(), "steady")
    indexed = run_of(results)
    profile = results.profile("level", "answer_change", inference=FAST)
    # Four comparisons with the baseline and four local steps, of which 1 -> 2 is both.
    assert len(indexed.derived(Transitions).done) == 7
    # The sensitivity ranking adds the other axes' profiles (mode: 3, tone: 2); the
    # scorecard then tests the same steps again and computes nothing new.
    results.sensitivity("answer_change", inference=FAST)
    assert len(indexed.derived(Transitions).done) == 12
    card = results.scorecard("correct", "answer_change", inference=FAST)
    assert card.axes[0].shifts == profile.candidate_boundaries
    assert len(indexed.derived(Transitions).done) == 12
    # The caches live on the run the results hold, which holds them back: neither may outlive
    # the results once nothing else refers to them.
    references = [weakref.ref(results), weakref.ref(indexed)]
    del results, indexed, card, profile
    gc.collect()
    assert [reference() for reference in references] == [None, None]
