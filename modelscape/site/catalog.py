"""The catalog: every run's headline numbers, arranged by scenario and by model.

The index, the scenario pages and the model pages need only a few numbers of each report, so
each report is read once into a :class:`RunSummary`; summaries are kept in the build manifest
by the hash of their report file, so a rebuild reads only the reports that changed.

A *model* is a target name: the same name across runs (``oracle``, ``gemma-3-270m``) is one
model page. Where a scenario was run against a model more than once, the leaderboard shows the
most recent report and the scenario and model pages list every one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeAlias, TypeVar

from pydantic import Field

from modelscape._identity import JsonValue
from modelscape._model import FrozenModel
from modelscape.analysis.aggregates import Scorecard
from modelscape.records.settings import ALL
from modelscape.report.power import card_power
from modelscape.report.provenance import TargetProvenance
from modelscape.report.report import Report
from modelscape.site.content import slug
from modelscape.targets._reference_kinds import REFERENCE_TARGETS

__all__ = [
    "ALL",
    "Catalog",
    "Entry",
    "Headline",
    "Kind",
    "RunSummary",
    "target_kind",
    "unique_slugs",
]

_T = TypeVar("_T")

#: What a target is: a model behind a provider, a deterministic reference target (an oracle, a
#: random or constant answerer), or anything else (a Python function).
Kind: TypeAlias = Literal["model", "reference", "other"]


def target_kind(settings: Mapping[str, JsonValue]) -> Kind:
    """The kind of a target, from the parameters of its identity.

    Reference targets name their ``kind`` (one of the reference target names: ``oracle``,
    ``random``, ...) and provider targets their ``provider``; a target that says neither is a
    Python function or a plugin that did not follow either convention.
    """
    kind = settings.get("kind")
    if isinstance(kind, str) and kind in REFERENCE_TARGETS:
        return "reference"
    if isinstance(settings.get("provider"), str):
        return "model"
    return "other"


class Headline(FrozenModel):
    """One target's scorecard on one group of cases (``all`` of them unless said), with what
    its provider reported about the run.

    ``undefined`` and ``warnings`` are the scorecard's: why a number is n/a, and the caveats
    of its intervals. ``settings`` are the parameters of the target's identity (the model a
    provider was asked for, temperature, ...: never credentials), which tell its kind.
    """

    target: str
    group: str = ALL
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
    missed_low: float | None = None
    missed_high: float | None = None
    undefined: dict[str, str] = Field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    shifts: int = 0
    invariant_shifts: int = 0
    invariant_departures: int = 0
    #: What 0 invariant shifts or departures could have found ("could detect an excess of
    #: 0.42 or more with 80% power"), or why that is n/a; None without invariant axes.
    #: Required, so that a summary cached by a build that lacked it is read again.
    invariant_power: str | None
    version: str = ""
    models: dict[str, int] = Field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0
    latency: float | None = None
    structured: str | None = None
    settings: dict[str, JsonValue] = Field(default_factory=dict)
    #: Each scored case's accuracy, by case id (the rank bootstrap resamples them); empty
    #: for a report written before scorecards kept them.
    case_accuracy: dict[str, float] = Field(default_factory=dict)

    @property
    def kind(self) -> Kind:
        """Whether the target is a model, a reference target or another kind."""
        return target_kind(self.settings)

    @classmethod
    def of(
        cls, card: Scorecard, target: TargetProvenance | None, *, power: str | None = None
    ) -> Headline:
        """The headline of one scorecard, with its target's provenance when the report has it,
        and ``power``: what its invariant axes' tests could have found."""
        return cls(
            target=card.target,
            group=card.group,
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
            missed_low=card.missed_low,
            missed_high=card.missed_high,
            undefined=dict(card.undefined),
            warnings=card.warnings,
            shifts=sum(len(axis.shifts) for axis in card.axes),
            invariant_shifts=card.invariant_shifts,
            invariant_departures=card.invariant_departures,
            invariant_power=power,
            version=target.version if target else "",
            models=dict(target.models) if target else {},
            input_tokens=target.input_tokens if target else 0,
            output_tokens=target.output_tokens if target else 0,
            latency=target.latency if target else None,
            structured=_structured(target.parameters) if target else None,
            settings=dict(target.parameters) if target else {},
            case_accuracy=dict(card.case_accuracy),
        )


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

    #: The scorecards of the scenario's named groups (``targets`` holds those of all cases).
    #: Required, so that a summary cached by an older build, which lacks it, is read again.
    by_group: tuple[Headline, ...]

    @classmethod
    def of(cls, report: Report, run: str) -> RunSummary:
        """The summary of a report, from its scorecards and its provenance."""
        provenance = {t.name: t for t in report.provenance.targets}
        cards = [
            Headline.of(card, provenance.get(card.target), power=_invariant_power(report, card))
            for card in report.scorecards
        ]
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
            targets=tuple(h for h in cards if h.group == ALL),
            by_group=tuple(h for h in cards if h.group != ALL),
        )

    def headlines(self, group: str) -> tuple[Headline, ...]:
        """The run's scorecards of one group of cases (``all``, or one the scenario names)."""
        if group == ALL:
            return self.targets
        return tuple(h for h in self.by_group if h.group == group)


def _invariant_power(report: Report, card: Scorecard) -> str | None:
    """What a scorecard's invariant axes' tests could find (shifts and departures have the
    same families: one test per step of an axis)."""
    found = card_power(report, card, "shifts", invariant=True)
    return None if found is None else found.phrase


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
    #: What the pages ask of the catalog again and again (a model's entries, a scenario's
    #: runs, the ranked matrix), made once: a site of a thousand runs has hundreds of model
    #: pages, each of which would otherwise walk every run and rank every target again.
    _memo: dict[tuple[str, ...], Any] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def memo(self, key: tuple[str, ...], make: Callable[[], _T]) -> _T:
        """The value of ``make()``, made on the first call with ``key`` and kept.

        The runs do not change once the catalog is made, so neither does anything made
        from them; a caller keeps what it is given as it is (it is shared).
        """
        if key not in self._memo:
            self._memo[key] = make()
        value: _T = self._memo[key]
        return value

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
        return list(self.memo(("scenario",), self._by_scenario).get(scenario, ()))

    def _by_scenario(self) -> dict[str, tuple[RunSummary, ...]]:
        found: dict[str, list[RunSummary]] = {}
        for run in self.runs.values():
            found.setdefault(run.scenario, []).append(run)
        return {
            name: tuple(sorted(runs, key=lambda r: (r.created, r.run), reverse=True))
            for name, runs in found.items()
        }

    def by_model(self, model: str) -> list[Entry]:
        """Every scorecard of one model, by scenario and then most recent first."""
        return list(self.memo(("model",), self._by_model).get(model, ()))

    def _by_model(self) -> dict[str, tuple[Entry, ...]]:
        found: dict[str, list[Entry]] = {}
        for run in self.runs.values():
            for headline in run.targets:
                found.setdefault(headline.target, []).append(Entry(run, headline))
        return {
            model: tuple(sorted(entries, key=lambda e: (e.run.scenario, _newest(e.run), e.run.run)))
            for model, entries in found.items()
        }

    def compared_runs(self, model: str) -> set[str]:
        """Every run of every scenario the model ran: what its page compares it with, so its
        page changes whenever one of them does."""
        scenarios = {e.run.scenario for e in self.by_model(model)}
        return {run.run for name in scenarios for run in self.by_scenario(name)}

    def leaderboard(self, group: str = ALL) -> list[Entry]:
        """One entry per scenario and model, on one group of cases: the most recent run of
        that pair that has the group."""
        return list(self.memo(("leaderboard", group), lambda: self._leaderboard(group)))

    def _leaderboard(self, group: str) -> tuple[Entry, ...]:
        latest: dict[tuple[str, str], Entry] = {}
        for run in sorted(self.runs.values(), key=lambda r: (r.created, r.run)):
            for headline in run.headlines(group):
                latest[(run.scenario, headline.target)] = Entry(run, headline)
        return tuple(latest[key] for key in sorted(latest))

    def groups(self) -> list[str]:
        """``all``, then every group of cases a run's scenario names, sorted."""
        named = {h.group for run in self.runs.values() for h in run.by_group}
        return [ALL, *sorted(named - {ALL})]


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
