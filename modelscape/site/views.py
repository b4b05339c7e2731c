"""The pages of a site: the leaderboard, scenarios, reports, models, markdown, search and 404.

Each is a :class:`~modelscape.pages.Page` (a template and its variables); the scenario and
report pages extend the single-page :class:`ScenarioPage` and :class:`ReportPage` with what the
site knows around them (the runs of a scenario, the notes of a run, links to model pages).
Links in the variables are site paths (``models/x.html``); templates put ``root`` in front.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from markupsafe import Markup

from modelscape.pages import Page, ReportPage, ScenarioPage
from modelscape.pages.page import json_script
from modelscape.report.report import Report
from modelscape.scenario import Scenario
from modelscape.site.catalog import Catalog, Entry, RunSummary
from modelscape.site.exports import CSV_FILE, JSON_FILE
from modelscape.site.leaderboard import HEAT_BINS, Matrix
from modelscape.site.markdown import Markdown
from modelscape.site.model_numbers import ModelNumbers
from modelscape.site.tables import (
    KIND_LABELS,
    comparison,
    comparison_figure,
    entry_row,
    matrix_table,
    provenance_rows,
)

__all__ = [
    "OUTPUT_SCRIPTS",
    "ChartsPage",
    "IndexPage",
    "MarkdownPage",
    "ModelOutputsPage",
    "ModelPage",
    "NotFoundPage",
    "ResultsPage",
    "RunsPage",
    "SearchPage",
    "SiteReportPage",
    "SiteScenarioPage",
]


def _run_row(catalog: Catalog, run: RunSummary) -> dict[str, Any]:
    return {
        "run": run.run,
        "href": catalog.report_path(run.run),
        "created": run.created[:10],
        "version": run.version,
        "experiment": run.experiment,
        "repetitions": run.repetitions,
        "rows": [entry_row(catalog, Entry(run, h)) for h in run.targets],
    }


class IndexPage(Page):
    """The leaderboard: the scenario x model matrix of every group of cases, ranked, each
    number linking to its report; filters and sorting come from a script, and the whole
    table is there without it."""

    template = "index.html.j2"
    scripts: ClassVar[tuple[str, ...]] = ()
    site_scripts: ClassVar[tuple[str, ...]] = ("leaderboard.js",)

    def __init__(
        self, catalog: Catalog, title: str, description: str, *, method: str | None = None
    ) -> None:
        self.catalog = catalog
        self.site_title = title
        self.description = description
        #: The site path of the page that defines the ranking and the downloads, if the site
        #: has one (a new site made by ``modelscape init`` does not).
        self.method = method

    @property
    def title(self) -> str:
        """The site's title."""
        return self.site_title

    def context(self) -> dict[str, Any]:
        """Leaderboard rows, and the scenarios and models with their pages."""
        catalog = self.catalog
        scenarios = [
            {
                "name": name,
                "slug": catalog.scenario_pages[name],
                "href": catalog.scenario_path(name),
                "runs": len(catalog.by_scenario(name)),
                "description": next(
                    (r.description for r in catalog.by_scenario(name) if r.description), ""
                ),
            }
            for name in catalog.scenario_pages
        ]
        models = [
            {
                "name": name,
                "href": catalog.model_path(name),
                "scenarios": len(catalog.by_model(name)),
            }
            for name in catalog.model_pages
        ]
        matrices = [matrix_table(catalog, Matrix.of(catalog, g)) for g in catalog.groups()]
        kinds = {row["kind"] for m in matrices for row in m["rows"]}
        return {
            "description": self.description,
            "method": self.method,
            "matrices": [m for m in matrices if m["rows"]],
            # The scorecards as one list, as themes written for the earlier leaderboard use it.
            "rows": [entry_row(catalog, e) for e in catalog.leaderboard()],
            "kinds": [(kind, text) for kind, text in KIND_LABELS.items() if kind in kinds],
            "heat_bins": [(step, step / HEAT_BINS) for step in range(HEAT_BINS)],
            "downloads": {"csv": CSV_FILE, "json": JSON_FILE},
            "scenarios": scenarios,
            "models": models,
            "runs": len(catalog.runs),
        }


class SiteScenarioPage(ScenarioPage):
    """A scenario's review page, with the runs of it the site holds."""

    def __init__(self, scenario: Scenario, catalog: Catalog) -> None:
        super().__init__(scenario)
        self.catalog = catalog

    def context(self) -> dict[str, Any]:
        """The scenario page's variables, and its runs, most recent first."""
        runs = self.catalog.by_scenario(self.scenario.name)
        return {**super().context(), "runs": [_run_row(self.catalog, r) for r in runs]}


class RunsPage(Page):
    """A scenario the site has runs of but no spec for: its runs alone."""

    template = "scenario-runs.html.j2"
    scripts: ClassVar[tuple[str, ...]] = ()

    def __init__(self, name: str, catalog: Catalog) -> None:
        self.name = name
        self.catalog = catalog

    @property
    def title(self) -> str:
        """``Scenario NAME``."""
        return f"Scenario {self.name}"

    def context(self) -> dict[str, Any]:
        """The runs of the scenario, most recent first."""
        runs = self.catalog.by_scenario(self.name)
        return {
            "name": self.name,
            "description": next((r.description for r in runs if r.description), ""),
            "runs": [_run_row(self.catalog, r) for r in runs],
        }


class SiteReportPage(ReportPage):
    """A report's page, with the run's notes and links to its scenario and models."""

    def __init__(
        self,
        report: Report,
        outputs: Any,
        *,
        run: str,
        notes: Markdown | None,
        catalog: Catalog,
    ) -> None:
        super().__init__(report, outputs)
        self.run = run
        self.notes = notes
        self.catalog = catalog

    def context(self) -> dict[str, Any]:
        """The report page's variables, and the run's notes and neighbours."""
        catalog = self.catalog
        return {
            **super().context(),
            "run": self.run,
            "notes": Markup(self.notes.html) if self.notes else None,
            "scenario_href": catalog.scenario_path(self.report.scenario),
            "model_links": [
                {"name": t, "href": catalog.model_path(t)}
                for t in self.report.targets
                if t in catalog.model_pages
            ],
        }


class ModelPage(Page):
    """One model: where it stands against the other targets on every scenario it ran (a
    chart and a table), its scorecards, provenance and token usage."""

    template = "model.html.j2"
    scripts: ClassVar[tuple[str, ...]] = ()
    site_scripts: ClassVar[tuple[str, ...]] = ("model-chart.js",)
    charts: ClassVar[bool] = True

    def __init__(self, name: str, catalog: Catalog, numbers: ModelNumbers | None = None) -> None:
        self.name = name
        self.catalog = catalog
        #: The cells and evidence of the numbers that open their outputs (see
        #: :mod:`modelscape.site.model_numbers`); without them every number links its report.
        self.numbers = numbers

    @property
    def title(self) -> str:
        """``Model NAME``."""
        return f"Model {self.name}"

    def context(self) -> dict[str, Any]:
        """Scorecard rows, reported model versions and usage per run."""
        entries = self.catalog.by_model(self.name)
        reported: dict[str, int] = {}
        for entry in entries:
            for model, count in entry.headline.models.items():
                reported[model] = reported.get(model, 0) + count
        usage = [
            {
                "scenario": e.run.scenario,
                "run": e.run.run,
                "href": self.catalog.report_path(e.run.run),
                "version": e.headline.version,
                "observations": e.headline.observations,
                "failed": e.headline.failed,
                "input_tokens": e.headline.input_tokens,
                "output_tokens": e.headline.output_tokens,
                "latency": "—" if e.headline.latency is None else f"{e.headline.latency:.3f} s",
            }
            for e in entries
        ]
        sections = comparison(self.catalog, self.name)
        figure = comparison_figure(self.name, sections)
        cells = self.numbers.cells if self.numbers is not None else {}
        for section in sections:
            for row in section["rows"]:
                row["cells"] = cells.get(row["run"]) if row["this"] else None
        rows = [entry_row(self.catalog, e) for e in entries]
        for row in rows:
            row["cells"] = cells.get(row["run"])
        return {
            "name": self.name,
            "comparison": sections,
            "figure": None if figure is None else json_script(figure),
            "provenance": provenance_rows(self.catalog, self.name),
            "rows": rows,
            "evidence": None if self.numbers is None else self.numbers.evidence,
            "reported": sorted(reported.items()),
            "usage": usage,
            "input_tokens": sum(e.headline.input_tokens for e in entries),
            "output_tokens": sum(e.headline.output_tokens for e in entries),
        }


#: The report page's scripts that open the outputs behind numbers, as files of the site's
#: assets (beside the stylesheet), for the pages that load them rather than carry them inline.
OUTPUT_SCRIPTS = ("compare.js", "report.js")


class ModelOutputsPage(ModelPage):
    """A model page whose numbers open their outputs: it loads the report page's scripts
    from the site's assets (a model page carries no script inline, only data)."""

    site_scripts: ClassVar[tuple[str, ...]] = ("model-chart.js", *OUTPUT_SCRIPTS)


class MarkdownPage(Page):
    """A page the user wrote in markdown, with the results it embeds (see
    :mod:`modelscape.site.embeds`): then it carries their outputs and the report page's
    script, which opens them from any number as a report page does."""

    template = "markdown.html.j2"
    scripts: ClassVar[tuple[str, ...]] = ()

    def __init__(
        self,
        document: Markdown,
        *,
        body: str | None = None,
        evidence: dict[str, Any] | None = None,
        figures: list[dict[str, Any]] | None = None,
    ) -> None:
        self.document = document
        self.body = document.html if body is None else body
        self.evidence = evidence
        self.figures = figures or []

    @property
    def title(self) -> str:
        """The page's front-matter title or first heading."""
        return self.document.title

    def context(self) -> dict[str, Any]:
        """The page's HTML body (markdown rendered with raw HTML off), and the outputs and
        figures of the results it embeds, if any."""
        return {
            "document": self.document,
            "body": Markup(self.body),
            "evidence": self.evidence,
            "figures": self.figures,
        }


class ResultsPage(MarkdownPage):
    """A markdown page that embeds results: it runs the report page's script."""

    scripts: ClassVar[tuple[str, ...]] = ("compare.js", "report.js")


class ChartsPage(ResultsPage):
    """A markdown page that embeds charts too: it loads the plotting bundle."""

    charts: ClassVar[bool] = True


class SearchPage(Page):
    """The search page: a box over the site's search index.

    With ``pagefind`` (the build made a Pagefind index), the page searches that index when it
    is served over HTTP(S), and only its policy allows what Pagefind needs: compiling its
    WebAssembly (``'wasm-unsafe-eval'``) and fetching the index's chunks (``connect-src
    'self'``). Opened from ``file://``, or when the Pagefind files are missing, it loads the
    single-script index instead (see :mod:`modelscape.site.search`).
    """

    template = "search.html.j2"
    scripts: ClassVar[tuple[str, ...]] = ()
    site_scripts: ClassVar[tuple[str, ...]] = ("search.js",)

    def __init__(self, *, pagefind: bool = False) -> None:
        self.pagefind = pagefind
        #: Script sources the policy adds for this page alone.
        self.script_sources: tuple[str, ...] = ("'wasm-unsafe-eval'",) if pagefind else ()
        #: Connection sources the policy allows for this page alone.
        self.connect_sources: tuple[str, ...] = ("'self'",) if pagefind else ()

    @property
    def title(self) -> str:
        """``Search``."""
        return "Search"

    def context(self) -> dict[str, Any]:
        """Where the two indexes are, from the site's root (the script loads one of them)."""
        return {
            "search_script": "assets/search-index.js",
            "pagefind_module": "pagefind/pagefind.js" if self.pagefind else None,
        }


class NotFoundPage(Page):
    """The page a server shows for a missing address, at any depth below the site.

    With the site's public address known, its links start from the site's path. Without it
    (``relocating``), the page carries its stylesheet inline and a script that finds the
    site's root from the address it is shown at and points the links there; without
    scripts, its links work from the top folder of the site.
    """

    template = "404.html.j2"
    scripts: ClassVar[tuple[str, ...]] = ()

    def __init__(self, *, relocating: str | None = None) -> None:
        #: The stylesheet to inline, when the page must find the site's root by itself.
        self.inline_style = relocating
        self.inline_scripts: tuple[str, ...] = () if relocating is None else (_ROOT_FINDER,)

    @property
    def title(self) -> str:
        """``Page not found``."""
        return "Page not found"

    def context(self) -> dict[str, Any]:
        """Whether the page finds the site's root by script."""
        return {"relocating": self.inline_style is not None}


_ROOT_FINDER = (Path(__file__).parent / "notfound.js").read_text(encoding="utf-8")
