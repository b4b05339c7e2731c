"""Charts in words: each reading says what its chart draws, from the same records."""

from __future__ import annotations

from typing import Any

from modelscape.analysis.aggregates import AxisSensitivity, BehaviorProfile, BoundaryCandidate
from modelscape.pages.charts import profile_figure
from modelscape.pages.readings import profile_reading, sensitivity_reading
from tests.pages.test_charts import _profile, _transition


def _tone(scale: str, *, boundary: bool, gap: bool = False) -> BehaviorProfile:
    points = [
        _transition("a", "plain", "plain", 0.0),
        _transition("a", "plain", "warm", None if gap else 0.2, insufficient="no case"),
        _transition("a", "plain", "curt", 0.5, low=0.3),
    ]
    return _profile("a", scale, points, boundary)


def test_a_nominal_reading_says_its_points_are_not_joined_and_where_its_boundary_is() -> None:
    profile = _tone("nominal", boundary=True)
    reading = profile_reading("tone", [profile], expected=False)
    assert reading.startswith(
        "Up: the excess change of the answer when tone moves from its baseline, plain, "
        "to the value below"
    )
    assert "no order (a nominal axis)" in reading
    assert "no line between values" in reading
    assert "1 target, each in its own colour and symbol." in reading
    assert (
        "A diamond and a dashed vertical line at the value compared with the baseline mark "
        "each of the 1 candidate boundary (a at plain → curt)"
    ) in reading
    assert "grey" not in reading
    assert "missing point" not in reading
    # and the figure agrees: points only
    figure = profile_figure("tone", [profile], [[None] * 3], [[None]])
    assert figure["data"][0]["mode"] == "markers"


def test_an_ordered_reading_joins_its_points_and_names_the_expected_line_and_gaps() -> None:
    reading = profile_reading("tone", [_tone("ordinal", boundary=False, gap=True)], expected=True)
    assert "in their order (an ordinal axis), each target's points joined" in reading
    assert "No candidate boundary was found, so no dashed line is drawn." in reading
    assert "The dotted grey line show" in reading
    assert "A missing point is a comparison that could not be computed" in reading


def test_a_nominal_expected_change_is_grey_marks() -> None:
    reading = profile_reading("tone", [_tone("nominal", boundary=False)], expected=True)
    assert "Grey marks show the change the correct answers themselves make" in reading


def test_every_boundary_of_every_target_is_named() -> None:
    first = _tone("ordinal", boundary=True)
    second = first.model_copy(
        update={
            "target": "b",
            "candidate_boundaries": (
                BoundaryCandidate.of(first.baseline[1]),
                BoundaryCandidate.of(first.baseline[2]),
            ),
        }
    )
    reading = profile_reading("tone", [first, second], expected=False)
    assert "between the two values of its step" in reading
    assert "3 candidate boundaries (a at plain → curt; b at plain → warm; b at plain → curt)" in (
        reading
    )
    assert "2 targets" in reading


def test_a_sensitivity_reading_counts_its_axes_and_targets() -> None:
    def row(target: str, axis: str) -> Any:
        return AxisSensitivity.model_construct(target=target, axis=axis, measure="answer_change")

    reading = sensitivity_reading([row("a", "tone"), row("b", "tone"), row("a", "name")])
    assert reading.startswith("Up: the largest excess change of the answer a target shows")
    assert "2 axes, one bar per target in its own colour (2 targets)" in reading
