"""The leaderboard and the model comparison as rows for the theme's templates.

:mod:`modelscape.site.leaderboard` decides what the numbers are; this module decides how each
reads in a table: its text with the interval, the value it sorts by, its colour step, why it
is n/a, and where it links. Links are site paths; templates put ``root`` in front.
"""

from __future__ import annotations

import json
from typing import Any

from modelscape.pages.charts import PALETTE, label
from modelscape.report.summary import interval, number
from modelscape.site.catalog import ALL, Catalog, Entry
from modelscape.site.leaderboard import QUANTITIES, Matrix, Ranked, heat
from modelscape.site.ranking import minimum_scenarios

__all__ = [
    "KIND_LABELS",
    "comparison",
    "comparison_figure",
    "entry_row",
    "matrix_table",
    "provenance_rows",
    "standing_cells",
]

#: How the page names each kind of target, in the order its filters list them.
KIND_LABELS = {"model": "Models", "reference": "Reference targets", "other": "Other targets"}


def _cell(
    value: float | None,
    text: str,
    reason: str | None = None,
    caveats: tuple[str, ...] = (),
) -> dict[str, Any]:
    """A number as a table cell: the text shown, the value it sorts by (empty: last), and why
    it is n/a or what its interval's caveats are."""
    if reason is not None:
        return {
            "text": "n/a",
            "sort": "",
            "reason": reason,
            "caveats": (),
            "heat": None,
            "power": None,
        }
    return {
        "text": text,
        "sort": "" if value is None else f"{value:.6g}",
        "reason": None,
        "caveats": caveats,
        "heat": None,
        "power": None,
    }


def _none_found(cell: dict[str, Any], count: int, power: str | None) -> dict[str, Any]:
    """A count's cell with, beside a 0, what its tests could have found."""
    if cell["reason"] is None and count == 0:
        cell["power"] = power
    return cell


def entry_row(catalog: Catalog, entry: Entry) -> dict[str, Any]:
    """One scorecard as a row of a table: every quantity as a cell, with its links."""
    h, run = entry.headline, entry.run
    missing = h.undefined
    shifts = missing.get("invariant_shifts") or missing.get("shifts")
    accuracy = _cell(
        h.accuracy,
        interval(h.accuracy, h.accuracy_low, h.accuracy_high),
        missing.get("accuracy"),
        h.warnings,
    )
    baseline = _cell(
        h.baseline_accuracy,
        interval(h.baseline_accuracy, h.baseline_accuracy_low, h.baseline_accuracy_high),
        missing.get("baseline_accuracy"),
    )
    # Accuracies are shares: their colour step says how high they are, beside the text.
    if accuracy["reason"] is None:
        accuracy["heat"] = heat(h.accuracy)
    if baseline["reason"] is None:
        baseline["heat"] = heat(h.baseline_accuracy)
    return {
        "model": h.target,
        "kind": h.kind,
        "structured": h.structured,
        "model_href": catalog.model_path(h.target),
        "scenario": run.scenario,
        "scenario_href": catalog.scenario_path(run.scenario),
        "report_href": catalog.report_path(run.run),
        "run": run.run,
        "created": run.created[:10],
        "accuracy": accuracy,
        "baseline": baseline,
        "spurious": _cell(
            h.spurious_change,
            interval(h.spurious_change, h.spurious_low, h.spurious_high, 3),
            missing.get("spurious_change"),
        ),
        "missed": _cell(
            h.missed_change,
            interval(h.missed_change, h.missed_low, h.missed_high, 3),
            missing.get("missed_change"),
        ),
        "shifts": _none_found(
            _cell(h.invariant_shifts, str(h.invariant_shifts), shifts),
            h.invariant_shifts,
            h.invariant_power,
        ),
        "departures": _none_found(
            _cell(
                h.invariant_departures,
                str(h.invariant_departures),
                missing.get("invariant_departures"),
            ),
            h.invariant_departures,
            h.invariant_power,
        ),
        "answered": _cell(h.answered, number(h.answered), missing.get("answered")),
        "observations": h.observations,
        "accuracy_bounds": (h.accuracy, h.accuracy_low, h.accuracy_high),
    }


def _provenance(catalog: Catalog, row: Ranked) -> dict[str, Any] | None:
    """What a model's row says of where its numbers come from: the model versions its provider
    reported, the date of its latest run, and a link to the rest on its page."""
    if row.kind != "model":
        return None
    entries = list(row.entries.values())
    reported = sorted({m for e in entries for m in e.headline.models})
    return {
        "reported": reported,
        "date": max(e.run.created for e in entries)[:10],
        "href": catalog.model_path(row.model) + "#provenance",
    }


def standing_cells(row: Ranked, scenarios: int) -> dict[str, Any]:
    """A row's place and score as the matrix shows them: the place with its interval and the
    targets it is tied with, or why it has no place; the mean accuracy with its count."""
    standing = row.standing
    place = None if standing.rank is None else str(standing.rank)
    interval = None
    if standing.low is not None and standing.high is not None:
        interval = (
            str(standing.low)
            if standing.low == standing.high
            else f"{standing.low}\u2013{standing.high}"
        )
    score = standing.score
    return {
        "place": place,
        "sort": "" if standing.rank is None else str(standing.rank),
        "interval": interval,
        "interval_reason": standing.interval_reason,
        "tied": list(standing.tied),
        "reason": standing.reason,
        "reference": standing.reference,
        "score": None if score is None else f"{score:.2f}",
        "score_sort": "" if score is None else f"{score:.6g}",
        "scenarios": standing.scenarios,
        "ran": standing.ran,
        "of": scenarios,
        "minimum": minimum_scenarios(scenarios),
    }


def matrix_table(catalog: Catalog, matrix: Matrix) -> dict[str, Any]:
    """One group's matrix as a table: scenarios as column groups, one row per target.

    Every cell carries its scenario (the page slug, safe in an attribute) and quantity, so a
    script can hide columns; every row its kind and the text a search matches.
    """
    scenarios = [
        {
            "name": name,
            "slug": catalog.scenario_pages[name],
            "href": catalog.scenario_path(name),
        }
        for name in matrix.scenarios
    ]
    rows = []
    for row in matrix.rows:
        provenance = _provenance(catalog, row)
        ways = (e.headline.structured for e in row.entries.values())
        structured = sorted({way for way in ways if way is not None})
        win = row.win_rate
        cells = []
        for scenario in scenarios:
            entry = row.entries.get(scenario["name"])
            shown = entry_row(catalog, entry) if entry is not None else None
            cells.append({"scenario": scenario, "row": shown})
        words = [row.model, row.kind, *structured, *(provenance or {}).get("reported", [])]
        rows.append(
            {
                "model": row.model,
                "href": catalog.model_path(row.model),
                "kind": row.kind,
                "structured": ", ".join(structured),
                "rank": row.rank,
                "standing": standing_cells(row, len(matrix.scenarios)),
                "win": _cell(
                    win.value,
                    "" if win.value is None else f"{win.value:.2f}",
                    win.reason,
                ),
                "win_scenarios": win.scenarios,
                "provenance": provenance,
                "search": " ".join(words).lower(),
                "cells": cells,
            }
        )
    return {
        "group": matrix.group,
        "heading": "All cases" if matrix.group == ALL else f"Group {matrix.group}",
        "scenarios": scenarios,
        "quantities": [{"key": q.key, "label": q.label} for q in QUANTITIES],
        "rows": rows,
    }


def comparison(catalog: Catalog, model: str) -> list[dict[str, Any]]:
    """Every scenario the model ran, with every target's latest scorecard on it (all cases),
    best accuracy first: the model's place among the others, scenario by scenario."""
    matrix = Matrix.of(catalog, ALL)
    sections = []
    for scenario in matrix.scenarios:
        ranked = [row for row in matrix.rows if scenario in row.entries]
        if not any(row.model == model for row in ranked):
            continue
        ranked.sort(key=lambda r: _accuracy_order(r.entries[scenario], r.model))
        rates = matrix.win_rate_on(scenario)
        defined = [r for r in ranked if r.entries[scenario].headline.accuracy is not None]
        place = next((i + 1 for i, r in enumerate(defined) if r.model == model), None)
        rate = rates.get(model)
        sections.append(
            {
                "scenario": scenario,
                "href": catalog.scenario_path(scenario),
                "place": place,
                "defined": len(defined),
                "targets": len(ranked),
                "win_rate": None if rate is None else f"{rate:.2f}",
                "rows": [
                    {**entry_row(catalog, r.entries[scenario]), "this": r.model == model}
                    for r in ranked
                ],
            }
        )
    return sections


def _accuracy_order(entry: Entry, model: str) -> tuple[bool, float, str]:
    accuracy = entry.headline.accuracy
    return (accuracy is None, -(accuracy or 0.0), model)


def comparison_figure(model: str, sections: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A Plotly figure: every target's accuracy on each scenario the model ran, with its
    interval; the model in its own colour and shape, reference targets hollow.

    Names go through :func:`~modelscape.pages.charts.label`, so Plotly shows them as text.
    None when no scenario has a defined accuracy to draw.
    """
    styles = {
        "this": ("This model: " + model, PALETTE[1], "diamond", 13),
        "model": ("Other models", PALETTE[0], "circle", 9),
        "reference": ("Reference targets", "#777777", "square-open", 9),
        "other": ("Other targets", PALETTE[2], "triangle-up-open", 9),
    }
    points: dict[str, dict[str, list[Any]]] = {}
    for section in sections:
        for row in section["rows"]:
            entry = row["accuracy"]
            if entry["reason"] is not None or row["accuracy_bounds"][0] is None:
                continue
            style = "this" if row["this"] else row["kind"]
            found = points.setdefault(style, {"x": [], "y": [], "plus": [], "minus": [], "t": []})
            value, low, high = _bounds(row)
            found["x"].append(value)
            found["y"].append(label(section["scenario"]))
            found["plus"].append(max(high - value, 0.0))
            found["minus"].append(max(value - low, 0.0))
            found["t"].append(label(row["model"]))
    if not points:
        return None
    data = []
    for style in ("model", "reference", "other", "this"):
        if style not in points:
            continue
        name, colour, symbol, size = styles[style]
        found = points[style]
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": label(name),
                "x": found["x"],
                "y": found["y"],
                "text": found["t"],
                "error_x": {
                    "type": "data",
                    "symmetric": False,
                    "array": found["plus"],
                    "arrayminus": found["minus"],
                    "thickness": 1.5,
                    "width": 3,
                    "color": colour,
                },
                "marker": {"color": colour, "symbol": symbol, "size": size},
                "hovertemplate": "%{text}: %{x:.2f}<extra>%{y}</extra>",
            }
        )
    scenarios = [label(s["scenario"]) for s in sections]
    return {
        "data": data,
        "layout": {
            "xaxis": {"title": {"text": "Accuracy (with its interval)"}, "range": [-0.02, 1.02]},
            "yaxis": {
                "type": "category",
                "categoryorder": "array",
                "categoryarray": scenarios[::-1],
                "automargin": True,
            },
            "height": 140 + 70 * len(scenarios),
            "margin": {"l": 16, "r": 16, "t": 16, "b": 56},
            "legend": {"orientation": "h", "y": -0.35},
            "hovermode": "closest",
            "showlegend": True,
        },
    }


def _bounds(row: dict[str, Any]) -> tuple[float, float, float]:
    """A row's accuracy and its interval (which collapses to the value when absent)."""
    value, low, high = row["accuracy_bounds"]
    return value, value if low is None else low, value if high is None else high


def provenance_rows(catalog: Catalog, model: str) -> list[dict[str, Any]]:
    """Where each of a model's scorecards comes from: run, dates, reported versions, settings."""
    return [
        {
            "scenario": e.run.scenario,
            "run": e.run.run,
            "href": catalog.report_path(e.run.run),
            "created": e.run.created,
            "started": e.run.started or "",
            "kind": e.headline.kind,
            "version": e.headline.version,
            "reported": sorted(e.headline.models.items()),
            "settings": [(key, _setting(value)) for key, value in e.headline.settings.items()],
        }
        for e in catalog.by_model(model)
    ]


def _setting(value: object) -> str:
    """A setting's value as JSON would spell it (``null``, ``true``, ``0.7``, ``"gemma"``)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
