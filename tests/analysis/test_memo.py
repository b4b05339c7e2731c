"""Analyses of one Results share their work, and never keep the results alive."""

from __future__ import annotations

import gc
import weakref

from modelscape.analysis.transitions import Transitions
from tests.analysis.conftest import FAST, run, scenario


def test_shared_work_is_reused_and_released() -> None:
    results = run(scenario(), "steady")
    profile = results.profile("level", "answer_change", inference=FAST)
    # Four comparisons with the baseline and four local steps, of which 1 -> 2 is both.
    assert len(results.derived(Transitions).done) == 7
    # The sensitivity ranking adds the other axes' profiles (mode: 3, tone: 2); the
    # scorecard then tests the same steps again and computes nothing new.
    results.sensitivity("answer_change", inference=FAST)
    assert len(results.derived(Transitions).done) == 12
    card = results.scorecard("correct", "answer_change", inference=FAST)
    assert card.axes[0].shifts == profile.candidate_boundaries
    assert len(results.derived(Transitions).done) == 12
    reference = weakref.ref(results)
    del results, card, profile
    gc.collect()
    assert reference() is None
