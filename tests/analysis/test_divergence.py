"""Divergence: two targets compared at every evaluated coordinate, Holm over coordinates."""

from __future__ import annotations

import pytest

from modelscape.errors import AnalysisError
from modelscape.results.results import Results, run_of
from modelscape.stats import BoundaryCriterion
from tests.analysis import direct
from tests.analysis.conftest import FAST, ITEMS


def test_one_contrast_per_evaluated_coordinate(results: Results) -> None:
    divergence = results.divergence("answer_change", "steady", "swayed", inference=FAST)
    assert (divergence.first, divergence.second) == ("steady", "swayed")
    assert [c.coordinate for c in divergence.contrasts] == list(
        run_of(results).experiment.coordinates
    )
    for contrast in divergence.contrasts:
        excess, _, _, per_case = direct.transition(
            results,
            "answer_change",
            contrast.coordinate,
            contrast.coordinate,
            target="steady",
            second_target="swayed",
        )
        assert contrast.excess == pytest.approx(excess, abs=1e-12)
        assert contrast.cases == len(per_case) == len(ITEMS)
        trace = results.trace(contrast)
        assert {o.target for o in trace.observations} == {"steady", "swayed"}
        assert {tuple(o.coordinate.values()) for o in trace.observations} == {
            tuple(contrast.coordinate.values())
        }


def test_holm_over_coordinates_and_candidates(results: Results) -> None:
    criterion = BoundaryCriterion(alpha=0.05, min_excess=0.04)
    divergence = results.divergence(
        "answer_change", "steady", "swayed", criterion=criterion, inference=FAST
    )
    p_values = [c.p_value for c in divergence.contrasts]
    assert [c.adjusted_p for c in divergence.contrasts] == pytest.approx(
        direct.holm(p_values)  # type: ignore[arg-type]
    )
    assert list(divergence.candidates) == [
        c
        for c in divergence.contrasts
        if c.adjusted_p <= 0.05 and c.excess > 0.04  # type: ignore[operator]
    ]
    # The swayed target differs only where the tone is curt.
    assert [c.coordinate["tone"] for c in divergence.candidates] == ["curt"]
    assert divergence.largest is not None
    assert divergence.largest.coordinate["tone"] == "curt"
    subset = results.divergence(
        "answer_change", "steady", "swayed", cases=ITEMS[:2], inference=FAST
    )
    assert all(c.cases == 2 for c in subset.contrasts)


def test_first_must_precede_second(results: Results) -> None:
    with pytest.raises(AnalysisError, match="must come before second"):
        results.divergence("answer_change", "swayed", "steady")
    with pytest.raises(AnalysisError, match="must come before second"):
        results.divergence("answer_change", "steady", "steady")
    with pytest.raises(AnalysisError, match=r"no target 'stedy'.*did you mean 'steady'"):
        results.divergence("answer_change", "stedy", "swayed")
