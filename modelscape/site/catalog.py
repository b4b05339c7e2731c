"""The catalog: every run's headline numbers, arranged by scenario and by model.

The index, the scenario pages and the model pages need only a few numbers of each report, so
each report is read once into a :class:`RunSummary`; summaries are kept in the build manifest
by the hash of their report file, so a rebuild reads only the reports that changed.

A *model* is a target name: the same name across runs (``oracle``, ``gemma-3-270m``) is one
model page. Where a scenario was run against a model more than once, the leaderboard shows the
most recent report and the scenario and model pages list every one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field

from modelscape._model import FrozenModel
from modelscape.report.report import Report
from modelscape.site.content import slug

__all__ = ["Catalog", "Entry", "Headline", "RunSummary", "unique_slugs"]


class Headline(FrozenModel):
    """One target's scorecard on all cases, with what its provider reported about the run.

    ``undefined`` and ``warnings`` are the scorecard's: why a number is n/a, and the caveats
    of its intervals.
    """

    target: str
    cases: int
    observations: int
    failed: int
    accuracy: float | None
    accuracy_low: float | None = None
    accuracy_high: float | None = None
    baseline_accuracy: float | None = None
    baseline_accuracy_low: float | None = None
    baseline_accuracy_high: float | None = None
    answered: float | None = None
    spurious_change: float | None = None
    spurious_low: float | None = None
    spurious_high: float | None = None
    missed_change: float | None = None
    undefined: dict[str, str] = Field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    shifts: int = 0
    invariant_shifts: int = 0
    version: str = ""
    models: dict[str, int] = Field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0
    latency: float | None = None
    structured: str | None = None


class RunSummary(FrozenModel):
    """What the site shows of one run outside its report page."""

    run: str
    scenario: str
    version: str
    description: str = ""
    experiment: str
    created: str
    started: str | None = None
    cases: int
    repetitions: int
    groups: tuple[str, ...] = ()
    targets: tuple[Headline, ...]

    @classmethod
    def of(cls, report: Report, run: str) -> RunSummary:
        """The summary of a report, from its ``all`` scorecards and its provenance."""
        provenance = {t.name: t for t in report.provenance.targets}
        headlines = []
        for card in report.scorecards:
            if card.group != "all":
                continue
            target = provenance.get(card.target)
            headlines.append(
                Headline(
                    target=card.target,
                    cases=card.cases,
                    observations=card.observations,
                    failed=card.failed,
                    accuracy=card.accuracy,
                    accuracy_low=card.accuracy_low,
                    accuracy_high=card.accuracy_high,
                    baseline_accuracy=card.baseline_accuracy,
                    baseline_accuracy_low=card.baseline_accuracy_low,
                    baseline_accuracy_high=card.baseline_accuracy_high,
                    answered=card.answered,
                    spurious_change=card.spurious_change,
                    spurious_low=card.spurious_low,
                    spurious_high=card.spurious_high,
                    missed_change=card.missed_change,
                    undefined=dict(card.undefined),
                    warnings=card.warnings,
                    shifts=sum(len(axis.shifts) for axis in card.axes),
                    invariant_shifts=card.invariant_shifts,
                    version=target.version if target else "",
                    models=dict(target.models) if target else {},
                    input_tokens=target.input_tokens if target else 0,
                    output_tokens=target.output_tokens if target else 0,
                    latency=target.latency if target else None,
                    structured=_structured(target.parameters) if target else None,
                )
            )
        return cls(
            run=run,
            scenario=report.scenario,
            version=report.version,
            description=report.description,
            experiment=report.experiment,
            created=report.provenance.created,
            started=report.provenance.started,
            cases=report.cases,
            repetitions=report.repetitions,
            groups=report.groups,
            targets=tuple(headlines),
        )


def _structured(parameters: Mapping[str, object]) -> str | None:
    """How a target shaped its replies, when it was asked for structured answers."""
    way = parameters.get("structured")
    return way if isinstance(way, str) else None


@dataclass(frozen=True)
class Entry:
    """One model on one scenario in one run: a row of the leaderboard or of a model page."""

    run: RunSummary
    headline: Headline


@dataclass
class Catalog:
    """Runs by folder, and their entries by scenario and by model, with each one's page name.

    ``scenario_pages`` and ``model_pages`` map names to page slugs, made unique (two names
    that slug alike get ``-2``, ``-3``).
    """

    runs: dict[str, RunSummary]
    specs: dict[str, Path]
    scenario_pages: dict[str, str] = field(default_factory=dict)
    model_pages: dict[str, str] = field(default_factory=dict)
    run_pages: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        scenarios = sorted({*self.specs, *(r.scenario for r in self.runs.values())})
        self.scenario_pages = unique_slugs(scenarios)
        models = sorted({h.target for r in self.runs.values() for h in r.targets})
        self.model_pages = unique_slugs(models)
        self.run_pages = unique_slugs(sorted(self.runs))

    # The site's URL layout, written once: every page that links to a scenario, model or
    # report page, and the build that writes it, asks for its path here.
    def scenario_path(self, name: str) -> str:
        """The site path of a scenario's page (``scenarios/SLUG.html``)."""
        return f"scenarios/{self.scenario_pages[name]}.html"

    def model_path(self, name: str) -> str:
        """The site path of a model's page (``models/SLUG.html``)."""
        return f"models/{self.model_pages[name]}.html"

    def report_path(self, run: str) -> str:
        """The site path of a run's report page (``reports/SLUG.html``); its long outputs go
        in the folder ``reports/SLUG/`` beside it."""
        return f"reports/{self.run_pages[run]}.html"

    def by_scenario(self, scenario: str) -> list[RunSummary]:
        """The runs of one scenario, most recent first."""
        runs = [r for r in self.runs.values() if r.scenario == scenario]
        return sorted(runs, key=lambda r: (r.created, r.run), reverse=True)

    def by_model(self, model: str) -> list[Entry]:
        """Every scorecard of one model, by scenario and then most recent first."""
        entries = [
            Entry(run, headline)
            for run in self.runs.values()
            for headline in run.targets
            if headline.target == model
        ]
        return sorted(entries, key=lambda e: (e.run.scenario, _newest(e.run), e.run.run))

    def leaderboard(self) -> list[Entry]:
        """One entry per scenario and model: the most recent run of that pair."""
        latest: dict[tuple[str, str], Entry] = {}
        for run in sorted(self.runs.values(), key=lambda r: (r.created, r.run)):
            for headline in run.targets:
                latest[(run.scenario, headline.target)] = Entry(run, headline)
        return [latest[key] for key in sorted(latest)]


def _newest(run: RunSummary) -> str:
    # Sorting by the inverted characters of the timestamp puts later runs first among equals.
    return "".join(chr(0x10FFFF - ord(c)) for c in run.created)


def unique_slugs(names: list[str]) -> dict[str, str]:
    """File names for names, unique even when two names slug alike."""
    taken: set[str] = set()
    pages: dict[str, str] = {}
    for name in names:
        base = candidate = slug(name)
        number = 2
        while candidate in taken:
            candidate = f"{base}-{number}"
            number += 1
        taken.add(candidate)
        pages[name] = candidate
    return pages
