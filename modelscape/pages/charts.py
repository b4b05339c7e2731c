"""Charts: plotly figures of behaviour profiles and axis sensitivity, as plain JSON dicts.

Figures are built as the dicts ``Plotly.newPlot`` takes, so a page needs no Python plotting at
render time and the JSON is exactly what the browser draws. Every text plotly renders (trace
names, tick labels, hover text) goes through :func:`label`, because plotly reads a subset of
HTML in them. Colours follow Okabe and Ito's palette for colour-blind readers, and each target
also gets its own marker symbol, so no reading depends on colour alone. Theme colours (text,
grid, background) are set in the browser, for light and dark schemes.

Beside what plotly draws, each figure carries ``labels``: per trace, per point, the words that
title the outputs dialog when that point is clicked (the same words as the number's button in
the table below the chart). Plotly never sees them; the page reads them from the figure.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any

from modelscape.analysis.aggregates import (
    AxisSensitivity,
    BehaviorProfile,
    BoundaryCandidate,
    Transition,
)
from modelscape.pages.scenario import show_value
from modelscape.task.coordinate import same_value

__all__ = [
    "EXPECTED_COLOUR",
    "PALETTE",
    "SYMBOLS",
    "boundary_label",
    "has_data",
    "label",
    "measure_words",
    "profile_figure",
    "sensitivity_figure",
    "transition_label",
]

#: Okabe & Ito (2008), "Color Universal Design", without black (invisible on a dark page) and
#: with yellow last (faint on a light one).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442")
SYMBOLS = ("circle", "square", "triangle-up", "diamond", "cross", "x", "star")
#: The line of the change a fully correct, deterministic target would show: a neutral grey
#: that reads on light and dark backgrounds and is told apart by its dotted line, not its hue.
EXPECTED_COLOUR = "#8a8d93"

#: Built-in measures by what they measure, in the words an axis title uses.
_MEASURES = {"answer_change": "the answer"}
# A measure named after the call that made it, such as ``json_field('answer', ...)``.
_CALL = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*\((.*)\)\s*$", re.DOTALL)
_QUOTED = re.compile(r"""^\s*(['"])(.*?)\1""", re.DOTALL)

Figure = dict[str, Any]


def label(text: object) -> str:
    """Text that plotly shows literally: its pseudo-HTML markup characters escaped."""
    return html.escape(str(text), quote=False)


def measure_words(measure: str) -> str:
    """A difference measure's name as words for an axis title: ``the answer`` for the built-in
    ``answer_change``, ``json field "answer"`` for a name that is a call's repr, and any other
    name with its underscores as spaces."""
    if measure in _MEASURES:
        return _MEASURES[measure]
    call = _CALL.match(measure)
    if call is None:
        return measure.replace("_", " ").strip() or "the output"
    words = call.group(1).rsplit(".", 1)[-1].replace("_", " ")
    quoted = _QUOTED.match(call.group(2))
    return f'{words} "{quoted.group(2)}"' if quoted else words


def transition_label(transition: Transition, what: str) -> str:
    """The words that name one comparison of a profile, as its number's button and its chart
    point title the outputs dialog: ``target · what axis: before → after``."""
    return (
        f"{transition.target} · {what} {transition.axis}: "
        f"{show_value(transition.before)} → {show_value(transition.after)}"
    )


def boundary_label(candidate: BoundaryCandidate) -> str:
    """The words that name one candidate boundary, on its button and its chart marker."""
    return (
        f"{candidate.target} · candidate boundary {candidate.axis}: "
        f"{show_value(candidate.before)} → {show_value(candidate.after)}"
    )


def has_data(profiles: Sequence[BehaviorProfile]) -> bool:
    """Whether a profile chart would show anything: some comparison of the baseline with
    another value was computed. A chart of gaps alone (beside the baseline's comparison with
    itself, which is reported as 0 even when no output succeeded) is not drawn; the page says
    why in words instead."""
    return any(
        t.excess is not None and not same_value(t.before, t.after)
        for p in profiles
        for t in p.baseline
    )


def _bound(value: float | None, excess: float | None, *, upper: bool) -> float:
    if value is None or excess is None:
        return 0.0
    return max(value - excess, 0.0) if upper else max(excess - value, 0.0)


def _layout(x_title: str, y_title: str, *, categories: Sequence[str] | None) -> dict[str, Any]:
    # automargin: rotated tick labels and the axis title get the room they need on a phone
    # instead of running into each other and into the legend.
    xaxis: dict[str, Any] = {
        "title": {"text": label(x_title)},
        "zeroline": False,
        "automargin": True,
    }
    if categories is not None:
        xaxis.update(
            tickmode="array",
            tickvals=list(range(len(categories))),
            ticktext=[label(c) for c in categories],
            range=[-0.5, len(categories) - 0.5],
        )
    return {
        "xaxis": xaxis,
        "yaxis": {"title": {"text": label(y_title)}, "zeroline": True, "automargin": True},
        "margin": {"l": 64, "r": 16, "t": 16, "b": 64},
        # Above the plot, where no tick label can reach it, however long the labels below.
        "legend": {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
        "hovermode": "closest",
        "showlegend": True,
    }


def profile_figure(
    axis: str,
    profiles: Sequence[BehaviorProfile],
    baseline_evidence: Sequence[Sequence[int | None]],
    boundary_evidence: Sequence[Sequence[int | None]],
    *,
    expected: Sequence[float | None] | None = None,
) -> Figure:
    """Excess change against the baseline along one axis, one trace per target.

    Error bars are the intervals; a comparison that could not be computed leaves a gap.
    Candidate boundaries are marked between the two
    values of their step (on a nominal axis, at the value compared with the baseline). The
    evidence lists give, per profile, the evidence index of each point (None when untraced),
    which the page opens when a point is clicked.

    ``expected`` (on a causal axis) gives, per value of the first profile's baseline
    comparisons, the excess a target that always answered correctly and never varied would
    show; it is drawn as a dotted grey line beside the observed ones.
    """
    first = profiles[0]
    values = list(dict.fromkeys(t.after for t in first.baseline))
    numeric = first.scale == "numeric"
    categories = None if numeric else [show_value(v) for v in values]

    # A nominal axis has no order: its values are drawn as points with intervals, never
    # joined by a line that would claim one, and the targets' points sit side by side around
    # each value so that their intervals do not hide each other.
    nominal = first.scale == "nominal"
    mode = "markers" if nominal else "lines+markers"

    def where(value: Any, target: int | None = None) -> float:
        if numeric:
            return float(value)
        for i, candidate in enumerate(values):
            if same_value(candidate, value):
                return float(i) + (_dodge(target, len(profiles)) if nominal else 0.0)
        return float("nan")

    data: list[dict[str, Any]] = []
    labels: list[list[str]] = []
    for n, (profile, evidence) in enumerate(zip(profiles, baseline_evidence, strict=True)):
        colour, symbol = PALETTE[n % len(PALETTE)], SYMBOLS[n % len(SYMBOLS)]
        points = profile.baseline
        data.append(
            {
                "type": "scatter",
                "mode": mode,
                "name": label(profile.target),
                "x": [where(t.after, n) for t in points],
                "y": [t.excess for t in points],
                "error_y": {
                    "type": "data",
                    "symmetric": False,
                    "array": [_bound(t.high, t.excess, upper=True) for t in points],
                    "arrayminus": [_bound(t.low, t.excess, upper=False) for t in points],
                    "color": colour,
                },
                "marker": {"color": colour, "symbol": symbol, "size": 9},
                "line": {"color": colour},
                "text": [_hover(profile.target, t) for t in points],
                "hovertemplate": "%{text}<extra></extra>",
                "customdata": list(evidence),
            }
        )
        labels.append([transition_label(t, "against baseline on") for t in points])
    shapes: list[dict[str, Any]] = []
    for n, (profile, evidence) in enumerate(zip(profiles, boundary_evidence, strict=True)):
        if not profile.candidate_boundaries:
            continue
        colour = PALETTE[n % len(PALETTE)]
        candidates = profile.candidate_boundaries
        xs = [
            where(c.after, n) if nominal else (where(c.before) + where(c.after)) / 2
            for c in candidates
        ]
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": label(f"{profile.target}: candidate boundary"),
                "x": xs,
                "y": [c.excess for c in candidates],
                "marker": {
                    "color": colour,
                    "symbol": "diamond-open",
                    "size": 16,
                    "line": {"width": 3, "color": colour},
                },
                "text": [
                    label(f"{profile.target} · boundary {c.before} → {c.after}: {c.excess:.3f}")
                    for c in candidates
                ],
                "hovertemplate": "%{text}<extra></extra>",
                "customdata": list(evidence),
            }
        )
        labels.append([boundary_label(c) for c in candidates])
        shapes.extend(
            {
                "type": "line",
                "xref": "x",
                "yref": "paper",
                "x0": x,
                "x1": x,
                "y0": 0,
                "y1": 1,
                "line": {"color": colour, "dash": "dash", "width": 1.5},
            }
            # on a nominal axis the line marks the value itself, not one target's point
            for x in ([where(c.after) for c in candidates] if nominal else xs)
        )
    if expected is not None and any(e is not None and e > 0 for e in expected):
        data.append(_expected(first, [where(t.after) for t in first.baseline], expected, mode=mode))
        labels.append([])
    layout = _layout(
        axis, f"excess change of {measure_words(first.measure)}", categories=categories
    )
    layout["shapes"] = shapes
    return {"data": data, "layout": layout, "labels": labels}


def _dodge(target: int | None, targets: int) -> float:
    """How far target number ``target`` of ``targets`` sits from its value on a nominal axis:
    side by side within a fifth of the space between two values, centred on the value."""
    if target is None or targets < 2:
        return 0.0
    width = min(0.4, 0.08 * (targets - 1))
    return -width / 2 + width * target / (targets - 1)


def _expected(
    profile: BehaviorProfile,
    xs: Sequence[float],
    expected: Sequence[float | None],
    *,
    mode: str,
) -> dict[str, Any]:
    """The change the correct answers make along the axis: a dotted line, or grey marks on a
    nominal axis."""
    return {
        "type": "scatter",
        "mode": mode,
        "name": "expected if every answer were correct",
        "x": list(xs),
        "y": list(expected),
        "marker": {"color": EXPECTED_COLOUR, "symbol": "line-ew-open", "size": 14},
        "line": {"color": EXPECTED_COLOUR, "dash": "dot", "width": 2},
        "text": [
            label(
                f"expected · {t.before} → {t.after}: "
                + ("unknown" if e is None else f"{e:.3f}")
                + " (share of cases whose correct answer changes)"
            )
            for t, e in zip(profile.baseline, expected, strict=True)
        ],
        "hovertemplate": "%{text}<extra></extra>",
    }


def _hover(target: str, transition: Transition) -> str:
    if transition.excess is None:
        # An insufficient point is left out of the line (plotly draws no marker for null).
        return label(
            f"{target} · {transition.before} → {transition.after}: not computed, "
            f"{transition.insufficient}"
        )
    interval = (
        ""
        if transition.low is None or transition.high is None
        else f" [{transition.low:.3f}, {transition.high:.3f}]"
    )
    return label(
        f"{target} · {transition.before} → {transition.after}: {transition.excess:.3f}{interval}"
    )


def sensitivity_figure(
    targets: Sequence[str],
    rows: Sequence[AxisSensitivity],
    evidence: Sequence[int | None],
) -> Figure:
    """The largest excess change per axis, grouped bars with one colour per target."""
    axes = list(dict.fromkeys(r.axis for r in rows))
    data = []
    labels: list[list[str]] = []
    for n, target in enumerate(targets):
        mine = {r.axis: (r, e) for r, e in zip(rows, evidence, strict=True) if r.target == target}
        colour = PALETTE[n % len(PALETTE)]
        present = [a for a in axes if a in mine]
        data.append(
            {
                "type": "bar",
                "name": label(target),
                "x": [label(a) for a in present],
                "y": [mine[a][0].excess for a in present],
                "marker": {"color": colour},
                "text": [
                    label(f"{target} · {a}: {mine[a][0].excess:.3f} at {mine[a][0].peak.label}")
                    for a in present
                ],
                "textposition": "none",
                "hovertemplate": "%{text}<extra></extra>",
                "customdata": [mine[a][1] for a in present],
            }
        )
        labels.append([f"{target} · sensitivity to {a}" for a in present])
    measures = {r.measure for r in rows}
    y_title = (
        f"largest excess change of {measure_words(next(iter(measures)))}"
        if len(measures) == 1
        else "largest excess change"
    )
    layout = _layout("axis", y_title, categories=None)
    layout["barmode"] = "group"
    layout["xaxis"]["type"] = "category"
    return {"data": data, "layout": layout, "labels": labels}
