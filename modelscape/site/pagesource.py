"""How each page of the site is made: from the catalog and content to HTML and a search entry.

:class:`PageMaker` hands the build one function per page; the build calls it only when the
page's inputs changed, so a report is read, its store opened and its page rendered only then.
Each function returns a :class:`~modelscape.site.jobs.Made`: the page, its search entry, the
files made beside it and the warnings met making it.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable
from functools import cached_property
from importlib import resources
from importlib.metadata import entry_points
from pathlib import Path

from modelscape._plugins import SCENARIO_GROUP
from modelscape.errors import ModelscapeError
from modelscape.pages import Page, ReportPage
from modelscape.pages.evidence import Evidence
from modelscape.pages.page import STYLESHEET
from modelscape.pages.report import load_outputs
from modelscape.report.report import Report
from modelscape.results.results import Results, run_of
from modelscape.scenario import Scenario
from modelscape.site.catalog import Catalog
from modelscape.site.content import Content, PageSource, RunFolder
from modelscape.site.embeds import Embeds, RunData
from modelscape.site.jobs import Made
from modelscape.site.markdown import DamagedTextError, Markdown, parse_markdown
from modelscape.site.model_numbers import model_numbers
from modelscape.site.render import Frame, relative_root, render, rendering
from modelscape.site.theme import Theme
from modelscape.site.views import (
    ChartsPage,
    IndexPage,
    MarkdownPage,
    ModelOutputsPage,
    ModelPage,
    NotFoundPage,
    ResultsPage,
    RunsPage,
    SearchPage,
    SiteReportPage,
    SiteScenarioPage,
)
from modelscape.site.warning import BuildWarning, quoted, warning_at
from modelscape.specs import available, load_spec, shipped_path
from modelscape.specs.registry import registered_scenario

__all__ = ["PageMaker", "search_text"]

# The search index keeps the start of a page's text as written (the snippet a result shows),
# then only the words of the rest not seen yet: enough to find a page by any word it holds,
# at a fraction of the size. Beyond _TEXT_LIMIT characters, text is left out.
_SNIPPET = 400
_TEXT_LIMIT = 3000


def search_text(text: str) -> str:
    """A page's text as the search index keeps it: a snippet, then its other words once each."""
    if len(text) <= _SNIPPET:
        return text
    cut = text.rfind(" ", 0, _SNIPPET)
    head, rest = (text[:cut], text[cut:]) if cut > 0 else (text[:_SNIPPET], text[_SNIPPET:])
    seen = {word.lower() for word in head.split()}
    words = []
    for word in rest.split():
        if word.lower() not in seen:
            seen.add(word.lower())
            words.append(word)
    return (head + " … " + " ".join(words))[:_TEXT_LIMIT]


#: The observations a process keeps loaded for the pages that show the same runs: a few
#: runs of a real model, or a few hundred of a reference target's.
KEPT_OBSERVATIONS = 200_000


class PageMaker:
    """Makes the pages of one build; each page comes with the warnings met making it."""

    def __init__(
        self,
        content: Content,
        theme: Theme,
        catalog: Catalog,
        loaded: dict[str, Report],
    ) -> None:
        self.content = content
        self.theme = theme
        self.catalog = catalog
        self.loaded = loaded
        #: Whether the build makes a Pagefind index for the search page to use.
        self.pagefind = False
        #: Each run's outputs, read once for all the pages that embed its results.
        self._results: dict[str, Results | None] = {}
        #: Runs' outputs read from stores, by store file and experiment (see :meth:`outputs`).
        self._kept: dict[tuple[str, int, int, str], Results] = {}
        #: Scenarios registered by installed packages, by name, looked up once per build.
        self._registered: dict[str, Scenario | None] = {}

    def missing_specs(self) -> list[BuildWarning]:
        """A warning for each run whose scenario has neither a spec nor a registered scenario."""
        root = self.content.root
        return [
            warning_at(
                root / "runs" / run.run,
                f"its spec {run.scenario!r} is missing: add it to {root / 'specs'} to show "
                "the scenario's variants",
            )
            for run in self.catalog.runs.values()
            if self.spec_of(run.scenario) is None and self.registered(run.scenario) is None
        ]

    def _page(self, page: Page, path: str, frame: Frame | None = None) -> str:
        config = self.content.config
        return render(page, self.theme.environment, frame or Frame.at(config, path))

    @staticmethod
    def shared_asset(name: str) -> Path:
        """A file of the shared page assets (stylesheet, plotting bundle, its license)."""
        return Path(str(resources.files("modelscape.pages") / "assets" / name))

    def spec_of(self, scenario: str) -> Path | None:
        """The spec of a scenario: the content's, else a shipped spec of that name."""
        if scenario in self.content.specs:
            return self.content.specs[scenario]
        if scenario in available():
            return shipped_path(scenario)
        return None

    def registered(self, name: str) -> Scenario | None:
        """The scenario an installed package registers under ``name``, or None.

        Each lookup lists the installed packages' entry points (~10 ms), and a site has a
        thousand runs of a few dozen scenarios, so each name is looked up once per build;
        a name no entry point has is answered from one listing of them all.
        """
        if name not in self._registered:
            listed = self._registered_names
            self._registered[name] = registered_scenario(name) if name in listed else None
        return self._registered[name]

    @cached_property
    def _registered_names(self) -> frozenset[str]:
        return frozenset(entry.name for entry in entry_points(group=SCENARIO_GROUP))

    # -- pages -----------------------------------------------------------------------------------
    def method_page(self) -> str | None:
        """The site path of the page that defines the ranking, when the content has one."""
        found = any(page.output == "method.html" for page in self.content.pages)
        return "method.html" if found else None

    def index(self) -> Made:
        """The leaderboard."""
        config = self.content.config
        page = IndexPage(self.catalog, config.title, config.description, method=self.method_page())
        models = " ".join(self.catalog.model_pages)
        html = self._page(page, "index.html")
        return Made(html, config.title, f"{config.description} {models}")

    def scenario(self, name: str, spec: Path | None) -> Callable[[], Made]:
        """The page of one scenario: its review page with its runs, or its runs alone."""
        path = self.catalog.scenario_path(name)

        def make() -> Made:
            page: Page = RunsPage(name, self.catalog)
            description = ""
            warnings = []
            python = self.registered(name) if spec is None else None
            if python is not None:  # a scenario written in Python and shipped with modelscape
                page = SiteScenarioPage(python, self.catalog)
                description = python.description
            if spec is not None:
                try:
                    scenario = load_spec(spec).scenario()
                except ModelscapeError as error:
                    reason = quoted(error, self.content.root)
                    warnings.append(warning_at(spec, f"cannot show scenario {name!r}: {reason}"))
                else:
                    page = SiteScenarioPage(scenario, self.catalog)
                    description = scenario.description
            html = self._page(page, path)
            return Made(html, f"Scenario {name}", description, warnings=tuple(warnings))

        return make

    def report(self, run: RunFolder) -> Callable[[], Made]:
        """The report page of one run, with its outputs when its store is there."""
        slug = self.catalog.run_pages[run.name]
        path = self.catalog.report_path(run.name)

        def make() -> Made:
            report = self.loaded.get(run.name) or Report.load(run.report)
            root = self.content.root
            notes = None
            warnings = []
            try:
                if run.notes is not None:
                    notes = parse_markdown(run.notes, local_links=False)
            except DamagedTextError as error:
                message = f"{error.problem}; the run's notes are left out"
                warnings.append(warning_at(error.path, message))
            try:
                outputs = None if run.store is None else self.outputs(run.store, report)
                page = SiteReportPage(
                    report, outputs, run=run.name, notes=notes, catalog=self.catalog
                )
            except ModelscapeError as error:
                reason = quoted(error, root)
                warnings.append(warning_at(run.store or "", f"outputs not attached: {reason}"))
                page = SiteReportPage(report, None, run=run.name, notes=notes, catalog=self.catalog)
            # Long outputs are cut on the page; their full text goes beside it, in SLUG/.
            page.attachment_folder = slug
            text = " ".join([report.description, "models:", *report.targets, "run:", run.name])
            html = self._page(page, path)
            files = {
                posixpath.join(posixpath.dirname(path), name): full
                for name, full in page.attachments.items()
            }
            title = f"Report: {report.scenario} · {run.name}"
            return Made(html, title, text, files, tuple(warnings))

        return make

    def model(self, name: str) -> Callable[[], Made]:
        """The page of one model."""
        path = self.catalog.model_path(name)

        def make() -> Made:
            entries = self.catalog.by_model(name)
            reported = sorted({m for e in entries for m in e.headline.models})
            scenarios = sorted({e.run.scenario for e in entries})
            text = " ".join(["scenarios:", *scenarios, "reported:", *reported])
            # A store that cannot be read is the warning of its report page; here its run's
            # numbers just stay links to that page.
            unread: list[BuildWarning] = []
            numbers = model_numbers(
                name,
                entries,
                lambda run: self._run_data(run, page=path, warnings=unread, keep=False),
            )
            kind = ModelOutputsPage if numbers.evidence is not None else ModelPage
            html = self._page(kind(name, self.catalog, numbers), path)
            return Made(html, f"Model {name}", text)

        return make

    def markdown(self, source: PageSource) -> Callable[[], Made]:
        """The page of one markdown file, with the results it embeds."""

        def make() -> Made:
            # The outputs of a run that cannot be read are a warning of the embed that
            # wanted them, in the order the page met them.
            embeds = Embeds(
                str(source.source),
                lambda name: self._run_data(name, page=source.output, warnings=embeds.warnings),
                sorted(self.catalog.runs),
            )
            document: Markdown = parse_markdown(source.source, embed=embeds)
            items, evidence, figures = embeds.finish()
            body, text = document.html, document.text
            if items:
                root = relative_root(source.output)
                with rendering("embed.html.j2"):
                    module = self.theme.environment.get_template("embed.html.j2").module
                    made = [str(getattr(module, item["kind"])(item, root)) for item in items]
                for index, item in enumerate(items):
                    body = body.replace(f"\0embed{index}\0", made[index], 1)
                    shown = item["cell"].text if item["kind"] == "number" else ""
                    text = text.replace(f"\0embed{index}\0", shown, 1)
            kind = ChartsPage if figures else ResultsPage if embeds.used else MarkdownPage
            page = kind(
                document, body=body, evidence=evidence if embeds.used else None, figures=figures
            )
            html = self._page(page, source.output)
            met = tuple(embeds.warnings)
            return Made(html, document.title, search_text(text), warnings=met)

        return make

    def _run_data(
        self, name: str, *, page: str, warnings: list[BuildWarning], keep: bool = True
    ) -> RunData | None:
        """A run as a page's embeds use it (its outputs read once per build), or None.

        Without ``keep`` (a model page, made for every model of a large site), the outputs
        come from the bounded cache of :meth:`outputs` alone and are not held for the build.
        """
        folder = next((r for r in self.content.runs if r.name == name), None)
        if folder is None or name not in self.catalog.runs:
            return None
        report = self.loaded.get(name) or Report.load(folder.report)
        if keep:
            self.loaded[name] = report
        if name not in self._results or not keep:
            results = None
            if folder.store is not None:
                try:
                    results = self.outputs(folder.store, report)
                except ModelscapeError as error:
                    reason = quoted(error, self.content.root)
                    warnings.append(warning_at(folder.store, f"outputs not attached: {reason}"))
            if not keep:
                href = relative_root(page) + self.catalog.report_path(name)
                return RunData(report, ReportPage(report, results), Evidence(results), href)
            self._results[name] = results
        results = self._results[name]
        href = relative_root(page) + self.catalog.report_path(name)
        return RunData(report, ReportPage(report, results), Evidence(results), href)

    def outputs(self, store: Path, report: Report) -> Results:
        """The outputs of a report's run, read from its store once for the pages that show
        them (its report page, the pages that embed its numbers, other runs kept in the same
        file) while they are among the most recently used in this process.

        A store is known by its real path, size and modification time, so a changed file is
        read again. Only :data:`KEPT_OBSERVATIONS` observations in all are kept; the least
        recently used runs go first.
        """
        try:
            stat = store.stat()
        except OSError:  # gone since the plan: the load says so in its own words
            return load_outputs(store, report.experiment)
        key = (os.path.realpath(store), stat.st_size, stat.st_mtime_ns, report.experiment)
        results = self._kept.pop(key, None)
        if results is None:
            results = load_outputs(store, report.experiment)
        self._kept[key] = results  # the most recently used last
        while len(self._kept) > 1 and (
            sum(len(run_of(kept).observations) for kept in self._kept.values()) > KEPT_OBSERVATIONS
        ):
            del self._kept[next(iter(self._kept))]
        return results

    def search(self) -> Made:
        """The search page (not itself in the index)."""
        return Made(self._page(SearchPage(pagefind=self.pagefind), "search.html"))

    def not_found(self) -> Made:
        """The 404 page: served at any depth, so it links from the site's root path; without
        a base URL that path is found in the browser (see :class:`NotFoundPage`)."""
        config = self.content.config
        if config.base_url:
            page = NotFoundPage()
            frame = Frame(config, "404.html", config.base_path)
        else:
            static = self.theme.static
            sheets = [
                self.shared_asset(STYLESHEET),
                *([static["site.css"]] if "site.css" in static else []),
            ]
            style = "\n".join(path.read_text(encoding="utf-8") for path in sheets)
            page = NotFoundPage(relocating=style)
            frame = Frame(config, "404.html", "")
        return Made(self._page(page, "404.html", frame))
