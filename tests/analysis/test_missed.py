"""Missed change: cross pairs of read answers only, pooled over cases, with a case interval."""

from __future__ import annotations

import numpy as np
import pytest

from modelscape.results.results import Results, run_of
from modelscape.scenario import Scenario
from modelscape.stats import Inference, random_stream
from modelscape.stats.floored import floored_ratio
from tests.analysis.conftest import FAST, ITEMS


def _read_pairs(
    results: Results, space: Scenario, target: str, before: int, after: int
) -> dict[str, tuple[int, int]]:
    """Per case, the cross pairs of read answers that agree, and all of them, at one step."""
    indexed = run_of(results)
    found = {}
    for case in ITEMS:
        first = indexed.cell(target, case, indexed.coordinate({"level": before}))
        second = indexed.cell(target, case, indexed.coordinate({"level": after}))
        a = [space.answer(o.output) for o in first]
        b = [space.answer(o.output) for o in second]
        pairs = [(x, y) for x in a for y in b if x is not None and y is not None]
        found[case] = (sum(x == y for x, y in pairs), len(pairs))
    return found


def test_two_unreadable_outputs_are_not_an_answer_that_stayed(
    results: Results, space: Scenario
) -> None:
    # Mumbler answers correctly, or not at all (a quarter of its replies): it never misses a
    # change. Two "no idea" replies across level 3 -> 4 are equal under answer_change, but
    # they are no answer that stayed.
    indexed = run_of(results)
    for answered, answer in (("answered", None), (None, space.answer)):
        card = results.scorecard(
            "correct",
            "answer_change",
            target="mumbler",
            answered=answered,
            answer=answer,
            inference=FAST,
        )
        assert card.answered is None or 0.7 <= card.answered < 0.9
        assert card.missed_change == 0.0
        assert {a.axis: a for a in card.axes}["level"].missed_change == 0.0
    # Some cross pair of unreadable replies exists, so the old count was not zero.
    unread = _read_pairs(results, space, "mumbler", 3, 4)
    cells = [
        [space.answer(o.output) for o in indexed.cell("mumbler", c, indexed.coordinate(v))]
        for c in ITEMS
        for v in ({"level": 3}, {"level": 4})
    ]
    assert sum(1 for cell in cells for x in cell if x is None) >= 2
    assert all(same == 0 for same, _ in unread.values())


def test_missed_change_pools_read_pairs_with_a_case_interval(
    results: Results, space: Scenario
) -> None:
    card = results.scorecard(
        "correct", "answer_change", target="steady", answered="answered", inference=FAST
    )
    pairs = _read_pairs(results, space, "steady", 3, 4)
    same = np.array([s for s, _ in pairs.values()], dtype=np.float64)
    total = np.array([t for _, t in pairs.values()], dtype=np.float64)
    assert card.missed_change == pytest.approx(same.sum() / total.sum(), abs=1e-12)
    interval = floored_ratio(
        same,
        total,
        resamples=FAST.resamples,
        confidence=FAST.confidence,
        rng=random_stream(FAST, "steady|all|missed", "bootstrap"),
        bounds=(0.0, 1.0),
    )
    assert (card.missed_low, card.missed_high) == pytest.approx((interval.low, interval.high))
    assert 0.0 <= card.missed_low < card.missed_change < card.missed_high <= 1.0  # type: ignore[operator]
    level = {a.axis: a for a in card.axes}["level"]
    assert level.missed_low is not None
    assert level.missed_high is not None
    # The same settings give the same numbers.
    again = results.scorecard(
        "correct", "answer_change", target="steady", answered="answered", inference=FAST
    )
    assert (again.missed_low, again.missed_high) == (card.missed_low, card.missed_high)
    # Without resampling there is no interval, and an undefined missed change has none.
    bare = results.scorecard(
        "correct", "answer_change", target="steady", inference=Inference(resamples=0)
    )
    assert bare.missed_change == card.missed_change
    assert (bare.missed_low, bare.missed_high) == (None, None)
    mode = {a.axis: a for a in card.axes}["mode"]
    assert (mode.missed_change, mode.missed_low, mode.missed_high) == (None, None, None)
