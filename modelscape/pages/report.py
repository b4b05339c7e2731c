"""ReportPage: a report as one page, where every number opens the outputs behind it.

The page opens with what the run found (see :mod:`modelscape.pages.findings`), then shows
the scorecards per target and group, each axis's scores, the divergences from the first
target, the behaviour profiles and axis sensitivity as charts, and the provenance of the
run. Each number is a button; its outputs (prompt, raw output, the answer read from it, the
correct answer, coordinate and repetition) are traced from the run's results and embedded
once per page (see :mod:`modelscape.pages.evidence`); a number that compares two coordinates
opens them side by side (see :mod:`modelscape.pages.profiles`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, TypeAlias

from pydantic import BaseModel

from modelscape.analysis.aggregates import AxisScore, BoundaryCandidate, Scorecard
from modelscape.errors import ReportError, StoreError
from modelscape.pages.charts import sensitivity_figure
from modelscape.pages.evidence import Cell, Evidence
from modelscape.pages.findings import finding_rows
from modelscape.pages.page import Page
from modelscape.pages.profiles import (
    Steps,
    profile_sections,
    sensitivity_rows,
    show_p,
    step_of,
    steps_of,
)
from modelscape.pages.scenario import show_value
from modelscape.pages.surfaces import surface_sections
from modelscape.report.findings import findings
from modelscape.report.power import axis_power, card_power, family_power
from modelscape.report.report import Report
from modelscape.report.summary import NEGATIVE, interval, number
from modelscape.results.results import Results, run_of
from modelscape.stats.power import DesignPower, Kind
from modelscape.store import Store, open_store
from modelscape.store.registry import store_scheme

__all__ = ["Outputs", "ReportPage", "disagreement", "load_outputs"]

#: Where a report's outputs come from: the run's results, a store, or a store file.
Outputs: TypeAlias = Results | Store | str | os.PathLike[str]


def load_outputs(outputs: Outputs, experiment: str) -> Results:
    """The results of ``experiment`` from results, a store or a store file, checked to match."""
    if isinstance(outputs, Results):
        held = run_of(outputs).experiment.id
        if held != experiment:
            raise ReportError(
                f"these results are of experiment {held}, but the report is "
                f"of experiment {experiment}: pass the run the report was built from"
            )
        return outputs
    if (
        isinstance(outputs, (str, os.PathLike))
        and store_scheme(outputs) is None
        and not os.path.exists(outputs)
    ):
        raise ReportError(f"{os.fspath(outputs)}: no such store file")
    store = open_store(outputs, create=False)
    try:
        known = [record.id for record in store.experiments()]
        if experiment not in known:
            raise ReportError(
                f"the store holds no experiment {experiment} (the report's); it holds "
                f"{', '.join(known) or 'none'}"
            )
        return Results.load(store, experiment)
    finally:
        if store is not outputs:
            store.close()


#: Per record class, its fields named ``*_ids`` and its other fields (see _measurement_ids).
_FIELDS: dict[type[BaseModel], tuple[tuple[str, ...], tuple[str, ...]]] = {}
# Values that hold no record and no id: not walked into.
_LEAVES = (str, int, float, type(None))


def _measurement_ids(value: object, found: set[str]) -> None:
    """Every measurement id a report names, from any record inside it: the text items of a
    tuple held by a field named ``*_ids``; every other field, tuple, list and dict value is
    walked into. A report holds thousands of records, so the walk keeps a stack rather than
    recursing, and each class's fields are sorted into the two kinds once."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, BaseModel):
            kind = type(item)
            fields = _FIELDS.get(kind)
            if fields is None:
                names = tuple(kind.model_fields)
                fields = _FIELDS[kind] = (
                    tuple(n for n in names if n.endswith("_ids")),
                    tuple(n for n in names if not n.endswith("_ids")),
                )
            ids, others = fields
            for name in ids:
                held = getattr(item, name)
                if isinstance(held, tuple):
                    found.update([i for i in held if isinstance(i, str)])
                elif not isinstance(held, _LEAVES):
                    stack.append(held)
            for name in others:
                held = getattr(item, name)
                if not isinstance(held, _LEAVES):
                    stack.append(held)
        elif isinstance(item, tuple | list):
            stack.extend([i for i in item if not isinstance(i, _LEAVES)])
        elif isinstance(item, dict):
            stack.extend([i for i in item.values() if not isinstance(i, _LEAVES)])


def disagreement(report: Report, store: str | os.PathLike[str]) -> str | None:
    """Why a store does not back a report's numbers (a sentence), or None when it does.

    The store must hold the report's experiment and every measurement the report names; a
    report made from another run (or a store that lost records) would otherwise show numbers
    whose outputs cannot be opened. Checked by id first, then by reading the run as its page
    will, so that a store with damaged rows is found before anything is published.
    """
    opened = open_store(store)
    try:
        known = {record.id for record in opened.experiments()}
        if report.experiment not in known:
            return (
                "its report and store disagree: the store holds no experiment "
                f"{report.experiment} (the report's)"
            )
        wanted: set[str] = set()
        _measurement_ids(report, wanted)
        missing = wanted - opened.measurement_ids(sorted(wanted))
        if missing:
            return (
                f"its report and store disagree: {len(missing)} of the {len(wanted)} "
                "measurements the report names are not in the store (such as "
                f"{sorted(missing)[0]})"
            )
        # The page opens the run's outputs: a store whose rows are damaged (bytes flipped on
        # a disk, a copy cut short) would publish numbers whose outputs cannot be shown.
        try:
            opened.load(report.experiment)
        except StoreError as error:
            return f"its store is damaged: {error}"
        return None
    finally:
        opened.close()


def _transitions(
    found: Sequence[BoundaryCandidate], kind: str, where: str, evidence: Evidence, steps: Steps
) -> list[tuple[str, Cell]]:
    """Each shift or departure of an axis as its step and its traced excess."""
    return [
        (
            f"{t.before} → {t.after}",
            evidence.cell(
                interval(t.excess, t.low, t.high),
                t.measurement_ids,
                f"{where} · {kind} {t.axis}: {t.before} → {t.after}",
                step=step_of(steps, t),
            ).warned(t.warnings),
        )
        for t in found
    ]


def _has_negative(report: Report) -> bool:
    """Whether the page shows a negative excess somewhere, which then gets its note."""
    values = [
        value
        for card in report.scorecards
        for value in (card.spurious_change, *(a.spurious_change for a in card.axes))
    ]
    values.extend(t.excess for p in report.profiles for t in (*p.baseline, *p.local))
    values.extend(c.excess for d in report.divergences for c in d.contrasts)
    return any(value is not None and value < 0 for value in values)


def _phrase(found: DesignPower | None) -> str | None:
    """The clause a page puts beside a count of 0 (None: no test to speak of)."""
    return None if found is None else found.phrase


def _coordinate(values: dict[str, Any]) -> str:
    return ", ".join(f"{k} = {show_value(v)}" for k, v in values.items()) or "baseline"


class ReportPage(Page):
    """A report as one HTML page; click any number to read the outputs behind it.

    ``report`` is a :class:`Report` or a report file. ``outputs`` is the run's Results, a
    store, or a store file; without it the page shows the numbers alone. The page embeds only
    the outputs that some number on it was computed from.
    """

    template = "report.html.j2"
    scripts = ("page.js", "compare.js", "report.js")
    charts = True
    #: Where the full text of long outputs goes, relative to the page (a site sets it); a
    #: standalone page stays one file and names each cut output's observation instead.
    attachment_folder: str | None = None

    def __init__(self, report: Report | str | os.PathLike[str], outputs: Outputs | None = None):
        self.report = report if isinstance(report, Report) else Report.load(report)
        self.results = None if outputs is None else load_outputs(outputs, self.report.experiment)
        #: The full text of long outputs, by file name, once the page has been rendered.
        self.attachments: dict[str, str] = {}

    def _family_power(self, kind: Kind, cases: Sequence[int]) -> DesignPower | None:
        """The power of a family of tests over these per-test case counts (the fewest)."""
        if not cases:
            return None
        return family_power(self.report, kind, cases=min(cases), family=len(cases))

    def _profile_power(self, section: dict[str, Any]) -> str | None:
        """What the tests of one axis's profiles could have found, when none found anything."""
        found = [p for p in self.report.profiles if p.axis == section["axis"]]
        steps = [len([t for t in p.steps if t.excess is not None]) for p in found]
        if not found or not max(steps):
            return None
        return _phrase(self._family_power("boundaries", [self.report.cases] * max(steps)))

    @property
    def title(self) -> str:
        """``Report: SCENARIO (version V)``."""
        return f"Report: {self.report.scenario} (version {self.report.version})"

    def context(self) -> dict[str, Any]:
        """The findings, every table and chart, and the embedded evidence, with each number
        as a :class:`Cell`."""
        evidence = Evidence(self.results, attachments=self.attachment_folder)
        report = self.report
        steps = steps_of(report)
        found = finding_rows(findings(report), evidence, steps, self.results)
        scorecards = [self._scorecard(card, evidence, steps) for card in report.scorecards]
        divergences = [
            {
                "first": d.first,
                "second": d.second,
                "candidates": len(d.candidates),
                "undefined": d.undefined,
                "power": None
                if d.candidates or d.undefined
                else _phrase(
                    self._family_power(
                        "boundaries",
                        [c.cases for c in d.contrasts if c.excess is not None],
                    )
                ),
                "rows": [
                    {
                        "coordinate": _coordinate(c.coordinate),
                        "excess": evidence.cell(
                            interval(c.excess, c.low, c.high),
                            c.measurement_ids,
                            f"{d.second} against {d.first} at {_coordinate(c.coordinate)}: "
                            "excess answer change",
                            targets=(d.first, d.second),
                        )
                        .undefined(c.insufficient)
                        .warned(c.warnings),
                        "p": show_p(c.adjusted_p),
                        "candidate": c in d.candidates,
                    }
                    for c in d.contrasts
                ],
            }
            for d in report.divergences
        ]
        profiles = profile_sections(report, self.results, evidence)
        for section in profiles:
            section["power"] = None if section["boundaries"] else self._profile_power(section)
        surfaces = surface_sections(report, self.results, evidence)
        table = sensitivity_rows(report, evidence)
        sensitivity = {
            "rows": table["rows"],
            "unestimated": table["unestimated"],
            "reading": table["reading"],
            "figure": sensitivity_figure(
                report.targets, table["records"], [c.evidence for c in table["cells"]]
            )
            if table["records"]
            else None,
        }
        embedded = evidence.data()
        self.attachments = evidence.attachments
        return {
            "report": report,
            "negative": NEGATIVE if _has_negative(report) else None,
            "findings": found,
            "attached": self.results is not None,
            "scorecards": scorecards,
            "divergences": divergences,
            "profiles": profiles,
            "surfaces": surfaces,
            "sensitivity": sensitivity,
            "provenance": report.provenance,
            "evidence": embedded,
            "figures": [
                {"id": p["id"], "figure": p["figure"]}
                for p in (*profiles, *surfaces)
                if p["figure"] is not None
            ]
            + (
                [{"id": "chart-sensitivity", "figure": sensitivity["figure"]}]
                if sensitivity["figure"] is not None
                else []
            ),
        }

    # -- scorecards ----------------------------------------------------------------------------
    def _group_cases(self, group: str) -> set[str] | None:
        if group == "all" or self.results is None:
            return None
        return set(run_of(self.results).settings.groups.get(group, ()))

    def _scorecard(self, card: Scorecard, evidence: Evidence, steps: Steps) -> dict[str, Any]:
        where = f"{card.target} · {card.group}"
        shift_ids = [
            i for axis in card.axes for shift in axis.shifts for i in shift.measurement_ids
        ]
        shifts = sum(len(axis.shifts) for axis in card.axes)
        departure_ids = [
            i for axis in card.axes for found in axis.departures for i in found.measurement_ids
        ]
        failed: Sequence[Any] = ()
        if self.results is not None and card.failed:
            cases = self._group_cases(card.group)
            failed = [
                o
                for o in run_of(self.results).failed
                if o.target == card.target and (cases is None or o.case in cases)
            ]
        missing = card.undefined
        shift_reason = missing.get("invariant_shifts") or missing.get("shifts")
        return {
            "card": card,
            # Beside every "0": what the tests could have found (the weakest axis's figure).
            "shifts_power": self._power(card, "shifts", found=shifts)
            if shift_reason is None
            else None,
            "departures_power": self._power(
                card, "departures", found=card.invariant_departures, invariant=True
            )
            if missing.get("invariant_departures") is None
            else None,
            "accuracy": evidence.cell(
                interval(card.accuracy, card.accuracy_low, card.accuracy_high),
                card.accuracy_ids,
                f"{where}: accuracy",
            )
            .undefined(missing.get("accuracy"))
            .warned(card.warnings),
            "baseline": evidence.cell(
                interval(
                    card.baseline_accuracy, card.baseline_accuracy_low, card.baseline_accuracy_high
                ),
                card.baseline_accuracy_ids,
                f"{where}: accuracy at the baseline",
            ).undefined(missing.get("baseline_accuracy")),
            "answered": evidence.cell(
                number(card.answered), card.answered_ids, f"{where}: share answered"
            ).undefined(missing.get("answered")),
            "spurious": evidence.cell(
                interval(card.spurious_change, card.spurious_low, card.spurious_high, 3),
                card.spurious_ids,
                f"{where}: spurious change",
            ).undefined(missing.get("spurious_change")),
            "missed": evidence.cell(
                interval(card.missed_change, card.missed_low, card.missed_high, 3),
                card.missed_ids,
                f"{where}: missed change",
            ).undefined(missing.get("missed_change")),
            "shifts": evidence.cell(
                f"{shifts} ({card.invariant_shifts} invariant)", shift_ids, f"{where}: shifts"
            ).undefined(shift_reason),
            "departures": evidence.cell(
                str(card.invariant_departures), departure_ids, f"{where}: departures"
            ).undefined(missing.get("invariant_departures")),
            "failed": evidence.outputs(str(card.failed), failed, f"{where}: failed calls"),
            "axes": [self._axis(card, axis, evidence, steps) for axis in card.axes],
        }

    def _power(
        self, card: Scorecard, kind: Kind, *, found: int, invariant: bool = False
    ) -> str | None:
        """What a count of 0 could have found, or None when something was found."""
        if found:
            return None
        return _phrase(card_power(self.report, card, kind, invariant=invariant))

    def _axis_power(self, card: Scorecard, axis: AxisScore, kind: Kind) -> str | None:
        return _phrase(axis_power(self.report, axis, kind, cases=card.cases))

    def _axis(
        self, card: Scorecard, axis: AxisScore, evidence: Evidence, steps: Steps
    ) -> dict[str, Any]:
        where = f"{card.target} · {card.group}"
        missing = axis.undefined
        return {
            "axis": axis,
            "shifts_power": None if axis.shifts else self._axis_power(card, axis, "shifts"),
            "departures_power": None
            if axis.departures or axis.role != "invariant"
            else self._axis_power(card, axis, "departures"),
            "spurious": evidence.cell(
                interval(axis.spurious_change, axis.spurious_low, axis.spurious_high, 3),
                axis.measurement_ids,
                f"{where} · {axis.axis}: spurious change",
            ).undefined(missing.get("spurious_change")),
            "missed": evidence.cell(
                interval(axis.missed_change, axis.missed_low, axis.missed_high, 3),
                axis.measurement_ids,
                f"{where} · {axis.axis}: missed change",
            ).undefined(missing.get("missed_change")),
            "shifts_reason": missing.get("shifts"),
            "threshold_reason": missing.get("threshold"),
            "accuracy": [
                (
                    show_value(point.value),
                    evidence.cell(
                        interval(point.mean, point.low, point.high),
                        point.measurement_ids,
                        f"{where} · accuracy at {axis.axis} = {show_value(point.value)}",
                    ),
                )
                for point in axis.accuracy
            ],
            "shifts": _transitions(axis.shifts, "shift", where, evidence, steps),
            "departures_reason": missing.get("departures"),
            "departures": _transitions(axis.departures, "departure", where, evidence, steps),
            "threshold": None
            if axis.threshold is None
            else {
                "record": axis.threshold,
                "offset": evidence.cell(
                    interval(axis.threshold.offset, axis.threshold.low, axis.threshold.high),
                    axis.threshold.measurement_ids,
                    f"{where} · threshold on {axis.axis}: offset",
                ).undefined(missing.get("threshold") if axis.threshold.offset is None else None),
                "expected": number(axis.threshold.expected),
                "observed": number(axis.threshold.observed),
            },
        }
