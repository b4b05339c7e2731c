"""Scorecard intervals from fewer cases than their coverage was checked at carry a caveat."""

from __future__ import annotations

from modelscape.results.results import Results
from modelscape.stats.floored import CASES_CHECKED
from tests.analysis.conftest import FAST, ITEMS


def test_an_accuracy_interval_from_five_cases_says_its_coverage_is_unchecked(
    results: Results,
) -> None:
    assert len(ITEMS) == CASES_CHECKED == 6
    five = results.scorecard(
        "correct", "answer_change", target="steady", cases=ITEMS[:5], inference=FAST
    )
    assert five.accuracy_low is not None
    assert five.warnings[0] == (
        "the accuracy interval rests on 5 cases: its coverage was checked by simulation "
        "from 6 cases up"
    )
    six = results.scorecard("correct", "answer_change", target="steady", inference=FAST)
    assert not any("coverage was checked" in warning for warning in six.warnings)
