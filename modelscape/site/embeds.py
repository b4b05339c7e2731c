"""Results of the site's runs embedded in markdown pages, each number opening its outputs.

A maintainer writes findings as prose; the numbers in it come from the runs, not from a copy
typed by hand, and a reader clicks any of them to read the outputs behind it, as on a report
page. Two forms, both plain markdown that reads sensibly on GitHub too:

- a number inside a sentence, as a code span starting ``ms:``::

      `ms:accuracy pressure-local-models gemma-3-270m-structured false-claims`

  that is ``QUANTITY RUN TARGET [GROUP]`` (group ``all`` when left out); quantities are the
  scorecard's: accuracy, baseline, answered, spurious, missed, shifts, departures, failed;

- a table or chart, as a fenced block whose info string is ``modelscape``, holding YAML with
  one kind key naming the run and a few options::

      ```modelscape
      scorecard: pressure-local-models     # targets: [...], groups: [...]
      ```
      ```modelscape
      profile: pressure-local-models       # axis: pressure
      ```
      ```modelscape
      sensitivity: pressure-local-models   # targets: [...]
      ```
      ```modelscape
      divergence: pressure-local-models    # targets: [...] (the targets compared with the first)
      ```

A reference that cannot be read or resolved (no such run, target, group, quantity or axis) is
a warning naming the page, its line and what is wrong, with the nearest valid name; the page
shows the place as a missing result, and ``--strict`` fails the build.

The numbers, tables and charts are made by the report page's own code
(:class:`~modelscape.pages.ReportPage`), and their outputs are collected in one
:class:`~modelscape.pages.evidence.Evidence` per run; the page embeds the union of those
evidence sets, so the report page's script opens them unchanged.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml
from pydantic import ValidationError

from modelscape._model import FrozenModel
from modelscape._yaml import describe, load_yaml
from modelscape.pages.charts import sensitivity_figure
from modelscape.pages.evidence import Cell, Evidence, merge_data
from modelscape.pages.profiles import profile_sections, sensitivity_rows, steps_of
from modelscape.pages.report import ReportPage
from modelscape.report.report import Report
from modelscape.report.summary import interval
from modelscape.site.warning import BuildWarning

__all__ = ["KINDS", "QUANTITIES", "Block", "Embeds", "RunData", "mentions"]

#: The scorecard quantities a number may name.
QUANTITIES = (
    "accuracy",
    "baseline",
    "answered",
    "spurious",
    "missed",
    "shifts",
    "departures",
    "failed",
)
#: The kinds of block, each naming the run it shows.
KINDS = ("scorecard", "profile", "sensitivity", "divergence")


def mentions(text: str) -> bool:
    """Whether a page's text may embed results (so its page depends on the runs)."""
    return "```modelscape" in text or "~~~modelscape" in text or "`ms:" in text


class Block(FrozenModel):
    """A fenced ``modelscape`` block: one kind key naming the run, and its options."""

    scorecard: str | None = None
    profile: str | None = None
    sensitivity: str | None = None
    divergence: str | None = None
    targets: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    axis: str | None = None


@dataclass
class RunData:
    """One run as the embeds of a page use it: its report, the page code that makes its
    numbers (with its outputs when its store is there), and their evidence."""

    report: Report
    page: ReportPage
    evidence: Evidence
    href: str
    cards: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    profiles: list[dict[str, Any]] | None = None

    def card(self, target: str, group: str) -> dict[str, Any]:
        """The cells of one scorecard, made once."""
        key = (target, group)
        if key not in self.cards:
            scorecard = self.report.scorecard(target, group)
            self.cards[key] = self.page._scorecard(scorecard, self.evidence, steps_of(self.report))
        return self.cards[key]


class _BrokenError(Exception):
    """A reference that cannot be shown; the message says what is wrong."""


def _nearest(word: str, options: Sequence[str], what: str) -> str:
    near = difflib.get_close_matches(word, list(options), n=1)
    hint = f"did you mean {near[0]!r}? " if near else ""
    return f"no {what} {word!r}; {hint}known: {', '.join(options) or 'none'}"


def _shift(value: Any, offset: int) -> Any:
    """``value`` with the evidence index of every cell inside it moved by ``offset``."""
    if isinstance(value, Cell):
        if value.evidence is None:
            return value
        return dataclasses.replace(value, evidence=value.evidence + offset)
    if isinstance(value, dict):
        return {key: _shift(item, offset) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_shift(item, offset) for item in value)
    return value


def _shift_figure(figure: dict[str, Any], offset: int) -> dict[str, Any]:
    """A figure whose points open evidence set ``i + offset`` instead of ``i``."""
    data = []
    for trace in figure.get("data", []):
        custom = trace.get("customdata")
        if isinstance(custom, list):
            moved = [
                c + offset if isinstance(c, int) and not isinstance(c, bool) else c for c in custom
            ]
            trace = {**trace, "customdata": moved}
        data.append(trace)
    return {**figure, "data": data}


class Embeds:
    """The embeds of one markdown page: parsed as the page renders, made into HTML after.

    ``runs`` gives a run's data by name (None when the site has no such run); ``names`` are
    the runs the site has, for hints. Problems met are kept in ``warnings``, each at its
    line of the page, for the page's job to return with the page.
    """

    def __init__(
        self,
        page: str,
        runs: Callable[[str], RunData | None],
        names: Sequence[str],
    ) -> None:
        self.where = page
        self.runs = runs
        self.names = list(names)
        self.warnings: list[BuildWarning] = []
        self.items: list[dict[str, Any]] = []
        self.used: dict[str, RunData] = {}

    # -- while the page renders ----------------------------------------------------------------
    def __call__(self, kind: str, text: str, line: int) -> str:
        """The :data:`~modelscape.site.markdown.Embed` hook: a placeholder for the result."""
        try:
            item = self._number(text) if kind == "inline" else self._block(text, line)
        except _BrokenError as problem:
            self.warnings.append(BuildWarning(self.where, line, str(problem)))
            item = {"kind": "broken", "problem": str(problem)}
        self.items.append(item)
        return f"\0embed{len(self.items) - 1}\0"

    def _run(self, name: str) -> RunData:
        if name in self.used:
            return self.used[name]
        data = self.runs(name)
        if data is None:
            raise _BrokenError(_nearest(name, self.names, "run"))
        self.used[name] = data
        return data

    def _number(self, text: str) -> dict[str, Any]:
        words = text.split()
        if not 3 <= len(words) <= 4:
            raise _BrokenError(
                f"`ms:{text}`: write `ms:QUANTITY RUN TARGET [GROUP]`, such as "
                "`ms:accuracy pressure-local-models gemma-3-270m all`"
            )
        quantity, run_name, target, group = (*words, "all")[:4]
        if quantity not in QUANTITIES:
            raise _BrokenError(_nearest(quantity, QUANTITIES, "quantity"))
        run = self._run(run_name)
        self._check(run, targets=[target], groups=[group])
        cell = run.card(target, group)[quantity]
        return {"kind": "number", "run": run_name, "cell": cell}

    def _block(self, text: str, line: int) -> dict[str, Any]:
        try:
            loaded = load_yaml(text)
        except yaml.YAMLError as error:
            raise _BrokenError(f"modelscape block: {describe(error)}") from None
        if not isinstance(loaded, dict):
            raise _BrokenError(
                f"a modelscape block holds one of {', '.join(KINDS)}: RUN and options"
            )
        unknown = [str(k) for k in loaded if k not in Block.model_fields]
        if unknown:
            raise _BrokenError(
                "modelscape block: " + _nearest(unknown[0], list(Block.model_fields), "key")
            )
        try:
            block = Block.model_validate(loaded)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise _BrokenError(f"modelscape block: {where}: {first['msg']}") from None
        kinds = [k for k in KINDS if getattr(block, k) is not None]
        if len(kinds) != 1:
            raise _BrokenError(f"a modelscape block names exactly one of {', '.join(KINDS)}")
        kind = kinds[0]
        name = str(getattr(block, kind))
        run = self._run(name)
        report = run.report
        self._check(run, targets=block.targets, groups=block.groups)
        targets = block.targets or report.targets
        if kind == "scorecard":
            groups = block.groups or report.groups
            rows = [run.card(t, g) for t in targets for g in groups]
            return {"kind": kind, "run": name, "href": run.href, "rows": rows}
        if kind == "profile":
            if run.profiles is None:
                run.profiles = profile_sections(run.report, run.page.results, run.evidence)
            axes = [section["axis"] for section in run.profiles]
            if block.axis is not None and block.axis not in axes:
                raise _BrokenError(_nearest(block.axis, axes, f"axis in run {name!r}:"))
            sections = [s for s in run.profiles if block.axis in (None, s["axis"])]
            return {"kind": kind, "run": name, "href": run.href, "sections": sections}
        if kind == "sensitivity":
            table = sensitivity_rows(report, run.evidence, targets)
            return {"kind": kind, "run": name, "href": run.href, "targets": targets, **table}
        rows = [
            {
                "first": d.first,
                "second": d.second,
                "candidates": len(d.candidates),
                "undefined": d.undefined,
                "rows": [
                    {
                        "coordinate": ", ".join(f"{k} = {v}" for k, v in c.coordinate.items())
                        or "baseline",
                        "excess": run.evidence.cell(
                            interval(c.excess, c.low, c.high),
                            c.measurement_ids,
                            f"{d.second} against {d.first}: excess answer change",
                            targets=(d.first, d.second),
                        )
                        .undefined(c.insufficient)
                        .warned(c.warnings),
                        "candidate": c in d.candidates,
                    }
                    for c in d.contrasts
                ],
            }
            for d in report.divergences
            if not block.targets or d.second in block.targets
        ]
        if not rows:
            raise _BrokenError(
                f"run {name!r} has no divergence of {', '.join(block.targets)}: each compares "
                f"a target with the first, {report.targets[0]!r}"
            )
        return {"kind": kind, "run": name, "href": run.href, "divergences": rows}

    def _check(self, run: RunData, *, targets: Sequence[str], groups: Sequence[str]) -> None:
        report = run.report
        for target in targets:
            if target not in report.targets:
                raise _BrokenError(_nearest(target, report.targets, "target"))
        for group in groups:
            if group not in report.groups:
                raise _BrokenError(_nearest(group, report.groups, "group"))

    # -- after the page rendered ---------------------------------------------------------------
    def finish(self) -> tuple[list[dict[str, Any]], dict[str, Any], list[dict[str, Any]]]:
        """The items with their evidence indices moved into one page-wide numbering, the
        page's evidence (every run's, one after the other) and its figures."""
        names = list(self.used)
        merged, starts = merge_data([run.evidence.data() for run in self.used.values()])
        offsets = dict(zip(names, starts, strict=True))
        items: list[dict[str, Any]] = []
        figures: list[dict[str, Any]] = []
        for index, item in enumerate(self.items):
            offset = offsets.get(item.get("run", ""), 0)
            moved = _shift(item, offset)
            if item["kind"] == "profile":
                for number_, section in enumerate(moved["sections"]):
                    section["id"] = f"embed-{index}-profile-{number_}"
                    if section["figure"] is not None:
                        figure = _shift_figure(section["figure"], offset)
                        figures.append({"id": section["id"], "figure": figure})
            if item["kind"] == "sensitivity" and moved["records"]:
                moved["id"] = f"embed-{index}-sensitivity"
                figure = sensitivity_figure(
                    moved["targets"], moved["records"], [c.evidence for c in moved["cells"]]
                )
                figures.append({"id": moved["id"], "figure": figure})
            items.append(moved)
        return items, merged, figures
