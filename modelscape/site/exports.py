"""The leaderboard as data: ``leaderboard.csv`` and ``leaderboard.json``, written by the build.

Both hold one record per target, scenario and group of cases: the most recent scorecard of
that pair, as the leaderboard shows it, with the target's ranking in that group. The columns
are :data:`COLUMNS`, in that order; the Method page documents each one. The schema is
versioned (:data:`SCHEMA_VERSION`, in the JSON): a column is only ever added at the end, and
a change that renames, removes or redefines one raises the version.

- **n/a**: a number that could not be computed is an empty CSV field and a JSON ``null``, and
  ``undefined`` says why (``quantity: reason``, ``; ``-separated in the CSV, an object in the
  JSON). Nothing is ever written as 0 in its place.
- **Untrusted text**: target, scenario, group and run names and reported model versions come
  from contributed reports. In the CSV, a text field that a spreadsheet would read as a formula
  (starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return; OWASP's list) gets a
  leading ``'``; numbers are written by this module and never are. The JSON keeps text exact.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable
from functools import partial
from typing import Any

from modelscape._spreadsheet import FORMULA_STARTS
from modelscape._version import __version__
from modelscape.site.catalog import Catalog, Entry, Headline
from modelscape.site.jobs import Made
from modelscape.site.leaderboard import QUANTITIES, Matrix, Ranked

__all__ = [
    "COLUMNS",
    "CSV_FILE",
    "JSON_FILE",
    "SCHEMA_VERSION",
    "leaderboard_csv",
    "leaderboard_files",
    "leaderboard_json",
    "leaderboard_records",
]

#: The downloads' site paths.
CSV_FILE = "leaderboard.csv"
JSON_FILE = "leaderboard.json"
#: Raised whenever a column is renamed, removed or redefined (adding one at the end is not).
SCHEMA_VERSION = 2

#: Every column, in order: name, then what it holds.
COLUMNS: tuple[tuple[str, str], ...] = (
    ("model", "the target's name"),
    ("kind", "model, reference or other"),
    ("group", "the group of cases: all, or one the scenario names"),
    ("scenario", "the scenario's name"),
    ("rank", "the model's place by mean accuracy in this group (empty: reference or unranked)"),
    ("mean_win_rate", "the target's mean win rate over this group's scenarios, 0 to 1"),
    ("win_rate", "the share of other targets it beats on this scenario, 0 to 1"),
    ("accuracy", "share of correct answers, 0 to 1"),
    ("accuracy_low", "lower bound of its interval (the report's confidence level)"),
    ("accuracy_high", "upper bound of its interval (the report's confidence level)"),
    ("baseline_accuracy", "share of correct answers at the baseline prompt, 0 to 1"),
    ("baseline_accuracy_low", "lower bound of its interval (the report's confidence level)"),
    ("baseline_accuracy_high", "upper bound of its interval (the report's confidence level)"),
    ("spurious_change", "excess answer change where the answer should stay (ideally 0)"),
    ("spurious_low", "lower bound of its interval (the report's confidence level)"),
    ("spurious_high", "upper bound of its interval (the report's confidence level)"),
    ("missed_change", "share of answers that stay where they should change (ideally 0)"),
    ("invariant_shifts", "steps on invariant axes with a change beyond noise"),
    ("answered", "share of outputs with a readable answer, 0 to 1"),
    ("cases", "cases in the group"),
    ("observations", "outputs asked for"),
    ("failed", "outputs that failed"),
    ("undefined", "why each n/a number is n/a: quantity: reason"),
    ("run", "the run folder the numbers come from"),
    ("created", "when the run's report was made (ISO 8601, UTC)"),
    ("reported_models", "model versions the provider reported, with their output counts"),
    ("report", "the run's report page, relative to the site's root"),
    ("rank_low", "best place in the rank's 95% interval (case bootstrap)"),
    ("rank_high", "worst place in the rank's 95% interval (case bootstrap)"),
    ("mean_accuracy", "the target's mean accuracy over this group's scenarios where defined"),
    (
        "invariant_departures",
        "comparisons with the baseline on invariant axes with a change beyond noise",
    ),
    ("missed_low", "lower bound of the missed change's interval (the report's confidence level)"),
    (
        "missed_high",
        "upper bound of the missed change's interval (the report's confidence level)",
    ),
)
_NAMES = tuple(name for name, _ in COLUMNS)
_TEXT = frozenset({"model", "kind", "group", "scenario", "run", "created", "report"})


def _number(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _shifts(headline: Headline) -> int | None:
    """The count of invariant shifts, or None when the scorecard says it is n/a."""
    missing = headline.undefined
    if missing.get("invariant_shifts") or missing.get("shifts"):
        return None
    return headline.invariant_shifts


def _departures(headline: Headline) -> int | None:
    """The count of invariant departures, or None when the scorecard says it is n/a."""
    if headline.undefined.get("invariant_departures"):
        return None
    return headline.invariant_departures


def _record(
    catalog: Catalog, matrix: Matrix, rates: dict[str, float], row: Ranked, entry: Entry
) -> dict[str, Any]:
    """One record: a target's scorecard on one scenario and group, with its ranking."""
    h = entry.headline
    return {
        "model": row.model,
        "kind": row.kind,
        "group": matrix.group,
        "scenario": entry.run.scenario,
        "rank": row.rank,
        "mean_win_rate": row.win_rate.value,
        "win_rate": rates.get(row.model),
        "accuracy": _number(h.accuracy),
        "accuracy_low": _number(h.accuracy_low),
        "accuracy_high": _number(h.accuracy_high),
        "baseline_accuracy": _number(h.baseline_accuracy),
        "baseline_accuracy_low": _number(h.baseline_accuracy_low),
        "baseline_accuracy_high": _number(h.baseline_accuracy_high),
        "spurious_change": _number(h.spurious_change),
        "spurious_low": _number(h.spurious_low),
        "spurious_high": _number(h.spurious_high),
        "missed_change": _number(h.missed_change),
        "missed_low": _number(h.missed_low),
        "missed_high": _number(h.missed_high),
        "invariant_shifts": _shifts(h),
        "answered": _number(h.answered),
        "cases": h.cases,
        "observations": h.observations,
        "failed": h.failed,
        "undefined": dict(sorted(h.undefined.items())),
        "run": entry.run.run,
        "created": entry.run.created,
        "reported_models": dict(sorted(h.models.items())),
        "report": catalog.report_path(entry.run.run),
        "rank_low": row.standing.low,
        "rank_high": row.standing.high,
        "mean_accuracy": _number(row.standing.score),
        "invariant_departures": _departures(h),
    }


def _matrices(catalog: Catalog) -> list[Matrix]:
    return [Matrix.of(catalog, group) for group in catalog.groups()]


def leaderboard_records(
    catalog: Catalog, matrices: list[Matrix] | None = None
) -> list[dict[str, Any]]:
    """Every record of the downloads: by group (``all`` first), then by rank, then scenario."""
    records = []
    for matrix in matrices if matrices is not None else _matrices(catalog):
        rates = {scenario: matrix.win_rate_on(scenario) for scenario in matrix.scenarios}
        for row in matrix.rows:
            for scenario in matrix.scenarios:
                if scenario in row.entries:
                    entry = row.entries[scenario]
                    records.append(_record(catalog, matrix, rates[scenario], row, entry))
    return records


def _safe(text: str) -> str:
    """Text a spreadsheet shows as text, never runs as a formula."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _field(name: str, value: Any) -> str:
    if value is None:
        return ""
    if name == "undefined":
        return _safe("; ".join(f"{key}: {reason}" for key, reason in value.items()))
    if name == "reported_models":
        return _safe("; ".join(f"{model}={count}" for model, count in value.items()))
    if name in _TEXT:
        return _safe(str(value))
    return repr(value) if isinstance(value, float) else str(value)


def leaderboard_csv(catalog: Catalog) -> str:
    """``leaderboard.csv``: a header of :data:`COLUMNS`, then one line per record."""
    buffer = io.StringIO()
    # RFC 4180 lines (CRLF): the writer then quotes any field holding a CR or LF of its own.
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(_NAMES)
    for record in leaderboard_records(catalog):
        writer.writerow([_field(name, record[name]) for name in _NAMES])
    return buffer.getvalue()


def leaderboard_json(catalog: Catalog, *, title: str) -> str:
    """``leaderboard.json``: the schema's version, the definitions, the rankings of every
    group, and the records (with ``undefined`` and ``reported_models`` as objects)."""
    matrices = _matrices(catalog)
    groups = []
    for matrix in matrices:
        groups.append(
            {
                "group": matrix.group,
                "scenarios": list(matrix.scenarios),
                "ranking": [
                    {
                        "model": row.model,
                        "kind": row.kind,
                        "rank": row.rank,
                        "mean_win_rate": row.win_rate.value,
                        "scenarios": row.win_rate.scenarios,
                        "undefined": row.win_rate.reason,
                        "page": catalog.model_path(row.model),
                        "rank_low": row.standing.low,
                        "rank_high": row.standing.high,
                        "tied": list(row.standing.tied),
                        "mean_accuracy": _number(row.standing.score),
                        "ranked_scenarios": row.standing.scenarios,
                        "unranked": row.standing.reason,
                    }
                    for row in matrix.rows
                ],
            }
        )
    data = {
        "schema": "modelscape.leaderboard",
        "schema_version": SCHEMA_VERSION,
        "modelscape": __version__,
        "title": title,
        "ranking": "models by mean accuracy, with rank intervals; see the Method page",
        "columns": [{"name": name, "description": text} for name, text in COLUMNS],
        "quantities": [
            {"key": q.key, "label": q.label, "unit": q.unit, "description": q.description}
            for q in QUANTITIES
        ],
        "groups": groups,
        "records": leaderboard_records(catalog, matrices),
    }
    return json.dumps(data, ensure_ascii=False, allow_nan=False, indent=1) + "\n"


def _made(text: Callable[[], str]) -> Made:
    """A download as the build's jobs return a file: its text, and no search entry."""
    return Made(text())


def leaderboard_files(catalog: Catalog, *, title: str) -> dict[str, Callable[[], Made]]:
    """The downloads by site path, each as the function the build calls to make it."""
    return {
        CSV_FILE: partial(_made, partial(leaderboard_csv, catalog)),
        JSON_FILE: partial(_made, partial(leaderboard_json, catalog, title=title)),
    }
