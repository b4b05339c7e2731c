"""Charts: the exact figures plotly is given, written out for a small profile."""

from __future__ import annotations

from typing import Any

import pytest

from modelscape.analysis.aggregates import (
    AxisSensitivity,
    BehaviorProfile,
    BoundaryCandidate,
    Transition,
)
from modelscape.pages.charts import PALETTE, SYMBOLS, label, profile_figure, sensitivity_figure


def _transition(
    target: str, before: str, after: str, excess: float | None, low: float | None = None, **kw: Any
) -> Transition:
    return Transition(
        target=target,
        measure="answer_change",
        axis="tone",
        before=before,
        after=after,
        first={"tone": before},
        second={"tone": after},
        cases=0 if excess is None else 4,
        excess=excess,
        between=None if excess is None else 0.5,
        within=None if excess is None else 0.25,
        low=low,
        high=None if low is None else (excess or 0.0) + 0.1,
        **kw,
    )


def _profile(target: str, scale: str, points: list[Transition], boundary: bool) -> BehaviorProfile:
    candidates = (BoundaryCandidate.of(points[-1]),) if boundary else ()
    return BehaviorProfile(
        target=target,
        measure="answer_change",
        axis="tone",
        scale=scale,  # type: ignore[arg-type]
        fixed={},
        baseline=tuple(points),
        local=(),
        candidate_boundaries=candidates,
    )


def test_label_escapes_markup_but_not_quotes() -> None:
    assert label('say "hi" & <b>it</b>') == 'say "hi" &amp; &lt;b&gt;it&lt;/b&gt;'


def test_a_profile_figure_exactly() -> None:
    first = [
        _transition("a", "plain", "plain", 0.0),
        _transition("a", "plain", "warm", 0.2, low=0.05),
        _transition("a", "plain", "curt", 0.5, low=0.3),
    ]
    second = [
        _transition("b", "plain", "plain", 0.0),
        _transition("b", "plain", "warm", None, insufficient="no case"),
        _transition("b", "plain", "curt", -0.1, low=-0.2),
    ]
    figure = profile_figure(
        "tone",
        [_profile("a", "nominal", first, True), _profile("b", "nominal", second, False)],
        [[0, 1, 2], [None, None, 3]],
        [[4], []],
    )
    a, b, boundary = figure["data"]
    # a nominal axis: points, never a line, each target's beside the other's at every value
    assert a["mode"] == b["mode"] == "markers"
    assert a["x"] == pytest.approx([-0.04, 0.96, 1.96])
    assert b["x"] == pytest.approx([0.04, 1.04, 2.04])
    assert a["y"] == [0.0, 0.2, 0.5]
    bars = dict(a["error_y"])
    assert bars.pop("array") == pytest.approx([0.0, 0.1, 0.1])
    assert bars.pop("arrayminus") == pytest.approx([0.0, 0.15, 0.2])
    assert bars == {"type": "data", "symmetric": False, "color": PALETTE[0]}
    assert a["marker"] == {"color": PALETTE[0], "symbol": SYMBOLS[0], "size": 9}
    assert a["text"][1] == "a · plain → warm: 0.200 [0.050, 0.300]"
    assert a["customdata"] == [0, 1, 2]
    assert b["marker"] == {"color": PALETTE[1], "symbol": SYMBOLS[1], "size": 9}
    assert b["y"] == [0.0, None, -0.1]
    assert b["error_y"]["array"] == pytest.approx([0.0, 0.0, 0.1])
    assert b["text"][1] == "b · plain → warm: not computed, no case"
    assert boundary["x"] == pytest.approx([1.96])  # on a's point
    assert boundary["y"] == [0.5]
    assert boundary["customdata"] == [4]
    assert boundary["marker"]["line"] == {"width": 3, "color": PALETTE[0]}
    (shape,) = figure["layout"]["shapes"]
    assert shape == {
        "type": "line",
        "xref": "x",
        "yref": "paper",
        "x0": 2.0,
        "x1": 2.0,
        "y0": 0,
        "y1": 1,
        "line": {"color": PALETTE[0], "dash": "dash", "width": 1.5},
    }
    layout = figure["layout"]
    assert layout["xaxis"]["tickvals"] == [0, 1, 2]
    assert layout["xaxis"]["ticktext"] == ["plain", "warm", "curt"]
    assert layout["xaxis"]["range"] == [-0.5, 2.5]
    assert layout["margin"] == {"l": 64, "r": 16, "t": 16, "b": 64}
    assert layout["yaxis"]["title"]["text"] == "excess change of the answer"


def test_a_boundary_on_an_ordered_axis_sits_between_its_two_values() -> None:
    points = [
        _transition("a", "plain", "plain", 0.0),
        _transition("a", "plain", "warm", 0.2),
        _transition("a", "warm", "curt", 0.6),
    ]
    figure = profile_figure("tone", [_profile("a", "ordinal", points, True)], [[0, 1, 2]], [[5]])
    assert figure["data"][0]["mode"] == "lines+markers"  # the order is the axis's own
    assert figure["data"][0]["x"] == [0.0, 1.0, 2.0]
    boundary = figure["data"][1]
    assert boundary["x"] == [1.5]  # between warm (1) and curt (2)
    assert figure["layout"]["shapes"][0]["x0"] == 1.5


def test_colours_and_symbols_cycle_per_target() -> None:
    profiles = [
        _profile(str(n), "nominal", [_transition(str(n), "plain", "plain", 0.0)], False)
        for n in range(len(PALETTE) + 1)
    ]
    figure = profile_figure("tone", profiles, [[None]] * len(profiles), [[]] * len(profiles))
    colours = [trace["marker"]["color"] for trace in figure["data"]]
    assert colours == [*PALETTE, PALETTE[0]]
    symbols = [trace["marker"]["symbol"] for trace in figure["data"]]
    assert symbols[: len(SYMBOLS)] == list(SYMBOLS)


def test_a_sensitivity_figure_exactly() -> None:
    peak = _transition("a", "plain", "curt", 0.5)
    rows = [
        AxisSensitivity(
            target="a",
            measure="answer_change",
            axis="tone",
            scale="nominal",
            rank=1,
            excess=0.5,
            peak=peak,
            boundaries=1,
        )
    ]
    figure = sensitivity_figure(["a", "b"], rows, [7])
    a, b = figure["data"]
    assert a["x"] == ["tone"]
    assert a["y"] == [0.5]
    assert a["customdata"] == [7]
    assert a["text"] == ["a · tone: 0.500 at tone: plain → curt"]
    assert a["marker"] == {"color": PALETTE[0]}
    assert b["y"] == []
    assert b["marker"] == {"color": PALETTE[1]}
    assert figure["layout"]["barmode"] == "group"
    assert figure["layout"]["xaxis"]["type"] == "category"
