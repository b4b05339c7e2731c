"""Surface charts: a grid's quantity over two axes as a plotly heatmap, every cell traceable.

Each combination of the two axes is one cell coloured by its value, with its interval in the
hover text and the value written in the cell, so no reading depends on colour alone. The
scale is a sequential one readable by colour-blind readers (cividis) for accuracy, and a
diverging one centred on zero for differences and changes (blue for one sign, orange for the
other, both kept apart from the red-green axis). A cell without a value stays empty and says
why when hovered. A click opens the cell's outputs, as any number does (``customdata`` holds
the cell's evidence index).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from modelscape.analysis.surface import Surface, SurfacePoint, grid_pairs
from modelscape.pages.charts import label
from modelscape.pages.evidence import Cell, Evidence
from modelscape.pages.scenario import show_value
from modelscape.report.report import Report
from modelscape.report.summary import interval
from modelscape.results.results import Results, run_of

__all__ = ["surface_figure", "surface_sections", "surface_title"]

# Blue to white to orange: a diverging scale that stays apart for red-green colour blindness.
_DIVERGING = [[0.0, "#0072B2"], [0.5, "#F7F7F7"], [1.0, "#D55E00"]]

_TITLES = {
    "accuracy": "accuracy of {target}",
    "difference": "accuracy of {target} minus {second}",
    "change": "change of {target}'s answers from the baseline ({measure})",
}


def surface_title(surface: Surface) -> str:
    """What the surface shows, in words."""
    return _TITLES[surface.kind].format(
        target=surface.target, second=surface.second, measure=surface.measure.replace("_", " ")
    )


def _hover(surface: Surface, point: SurfacePoint) -> str:
    where = f"{surface.x_axis} = {show_value(point.x)}, {surface.y_axis} = {show_value(point.y)}"
    if point.value is None:
        return label(f"{where}: not computed, {point.insufficient or 'no output'}")
    interval = "" if point.low is None else f" [{point.low:.2f}, {point.high:.2f}]"
    tested = "" if point.adjusted_p is None else f", Holm p = {point.adjusted_p:.3g}"
    return label(f"{where}: {point.value:.2f}{interval} over {point.cases} cases{tested}")


def surface_figure(
    surface: Surface, evidence: Sequence[int | None], words: Sequence[str] = ()
) -> dict[str, Any]:
    """The plotly figure of a surface; ``evidence`` gives each point's evidence index, and
    ``words`` each point's label, the title of the outputs it opens."""
    width = len(surface.x_values)
    rows = range(len(surface.y_values))

    def grid(values: Sequence[Any]) -> list[list[Any]]:
        return [list(values[r * width : (r + 1) * width]) for r in rows]

    points = surface.points
    z = grid([p.value for p in points])
    if surface.kind == "accuracy":
        scale: dict[str, Any] = {"colorscale": "Cividis", "zmin": 0.0, "zmax": 1.0}
    else:
        scale = {"colorscale": _DIVERGING, "zmin": -1.0, "zmax": 1.0, "zmid": 0.0}
    trace = {
        "type": "heatmap",
        "x": [label(show_value(v)) for v in surface.x_values],
        "y": [label(show_value(v)) for v in surface.y_values],
        "z": z,
        **scale,
        "xgap": 2,
        "ygap": 2,
        "hoverongaps": True,
        "text": grid([_hover(surface, p) for p in points]),
        "texttemplate": "%{z:.2f}",
        "hovertemplate": "%{text}<extra></extra>",
        "customdata": grid(list(evidence)),
        "colorbar": {"title": {"text": label(surface.kind)}, "thickness": 12},
        "name": label(surface_title(surface)),
    }
    layout = {
        "xaxis": {"title": {"text": label(surface.x_axis)}, "type": "category"},
        # rows top down, as in the table beside the chart
        "yaxis": {
            "title": {"text": label(surface.y_axis)},
            "type": "category",
            "autorange": "reversed",
        },
        "margin": {"l": 72, "r": 16, "t": 16, "b": 56},
        "hovermode": "closest",
    }
    labels = [grid(list(words))] if words else []
    return {"data": [trace], "layout": layout, "labels": labels}


def _point_cell(evidence: Evidence, surface: Surface, point: SurfacePoint) -> Cell:
    where = f"{surface.x_axis} = {show_value(point.x)}, {surface.y_axis} = {show_value(point.y)}"
    text = interval(point.value, point.low, point.high)
    cell = evidence.cell(text, point.measurement_ids, f"{surface_title(surface)} at {where}")
    return cell.undefined(point.insufficient if point.value is None else None).warned(
        point.warnings
    )


def surface_sections(
    report: Report, results: Results | None, evidence: Evidence
) -> list[dict[str, Any]]:
    """The surfaces of a report page: for each pair of axes the run evaluated fully, each
    target's accuracy and change surfaces, and the first target's accuracy minus each other's.

    Surfaces are computed from the outputs, so a page without them has none.
    """
    if results is None:
        return []
    run = run_of(results)
    sections: list[dict[str, Any]] = []
    for x_axis, y_axis in grid_pairs(run):
        made = [
            *(
                results.surface(x_axis, y_axis, kind=kind, target=t, inference=report.inference)
                for t in report.targets
                for kind in ("accuracy", "change")
            ),
            *(
                results.surface(
                    x_axis,
                    y_axis,
                    kind="difference",
                    target=report.targets[0],
                    second=other,
                    inference=report.inference,
                )
                for other in report.targets[1:]
            ),
        ]
        for surface in made:
            cells = [_point_cell(evidence, surface, p) for p in surface.points]
            width = len(surface.x_values)
            index = len(sections) + 1
            drawn = any(p.value is not None for p in surface.points)
            sections.append(
                {
                    "id": f"surface-{index}",
                    "title": surface_title(surface),
                    "kind": surface.kind,
                    "x_axis": surface.x_axis,
                    "y_axis": surface.y_axis,
                    "columns": [show_value(v) for v in surface.x_values],
                    "rows": [
                        {
                            "value": show_value(y),
                            "cells": cells[r * width : (r + 1) * width],
                        }
                        for r, y in enumerate(surface.y_values)
                    ],
                    "figure": surface_figure(
                        surface, [c.evidence for c in cells], [c.label for c in cells]
                    )
                    if drawn
                    else None,
                }
            )
    return sections
