"""Charts: plotly figures of behaviour profiles and axis sensitivity, as plain JSON dicts.

Figures are built as the dicts ``Plotly.newPlot`` takes, so a page needs no Python plotting at
render time and the JSON is exactly what the browser draws. Every text plotly renders (trace
names, tick labels, hover text) goes through :func:`label`, because plotly reads a subset of
HTML in them. Colours follow Okabe and Ito's palette for colour-blind readers, and each target
also gets its own marker symbol, so no reading depends on colour alone. Theme colours (text,
grid, background) are set in the browser, for light and dark schemes.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from modelscape.analysis.records import AxisSensitivity, BehaviorProfile, Transition
from modelscape.pages.scenario import show_value
from modelscape.task.coordinate import same_value

__all__ = ["PALETTE", "SYMBOLS", "label", "profile_figure", "sensitivity_figure"]

#: Okabe & Ito (2008), "Color Universal Design", without black (invisible on a dark page) and
#: with yellow last (faint on a light one).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442")
SYMBOLS = ("circle", "square", "triangle-up", "diamond", "cross", "x", "star")

Figure = dict[str, Any]


def label(text: object) -> str:
    """Text that plotly shows literally: its pseudo-HTML markup characters escaped."""
    return html.escape(str(text), quote=False)


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
) -> Figure:
    """Excess change against the baseline along one axis, one trace per target.

    Error bars are the intervals; a comparison that could not be computed leaves a gap.
    Candidate boundaries are marked between the two
    values of their step (on a nominal axis, at the value compared with the baseline). The
    evidence lists give, per profile, the evidence index of each point (None when untraced),
    which the page opens when a point is clicked.
    """
    first = profiles[0]
    values = list(dict.fromkeys(t.after for t in first.baseline))
    numeric = first.scale == "numeric"
    categories = None if numeric else [show_value(v) for v in values]

    def where(value: Any) -> float:
        if numeric:
            return float(value)
        for i, candidate in enumerate(values):
            if same_value(candidate, value):
                return float(i)
        return float("nan")

    data: list[dict[str, Any]] = []
    for n, (profile, evidence) in enumerate(zip(profiles, baseline_evidence, strict=True)):
        colour, symbol = PALETTE[n % len(PALETTE)], SYMBOLS[n % len(SYMBOLS)]
        points = profile.baseline
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": label(profile.target),
                "x": [where(t.after) for t in points],
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
    shapes: list[dict[str, Any]] = []
    for n, (profile, evidence) in enumerate(zip(profiles, boundary_evidence, strict=True)):
        if not profile.candidate_boundaries:
            continue
        colour = PALETTE[n % len(PALETTE)]
        candidates = profile.candidate_boundaries
        xs = [
            where(c.after) if profile.scale == "nominal" else (where(c.before) + where(c.after)) / 2
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
            for x in xs
        )
    layout = _layout(axis, f"excess change ({first.measure})", categories=categories)
    layout["shapes"] = shapes
    return {"data": data, "layout": layout}


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
    layout = _layout("axis", "largest excess change", categories=None)
    layout["barmode"] = "group"
    layout["xaxis"]["type"] = "category"
    return {"data": data, "layout": layout}
