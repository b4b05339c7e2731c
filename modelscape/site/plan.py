"""The build's plan: every output file of the site, with the hash of what it is made from.

Planning reads only what the hashes need: each run's summary comes from the manifest while its
report and store are unchanged, so a rebuild with nothing changed opens no report and no store.
A page is made only later, and only if its hash changed (see :mod:`modelscape.site.build`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from modelscape import __version__
from modelscape.errors import ModelscapeError
from modelscape.pages.page import PLOTLY_FILE, PLOTLY_LICENSE, STYLESHEET
from modelscape.pages.report import disagreement
from modelscape.report.report import Report
from modelscape.site.catalog import Catalog, RunSummary
from modelscape.site.config import SiteError
from modelscape.site.content import Content, RunFolder
from modelscape.site.embeds import mentions
from modelscape.site.exports import leaderboard_files
from modelscape.site.jobs import RUNS, FileHashes, Job, Made, digest_of
from modelscape.site.manifest import Manifest
from modelscape.site.markdown import front_matter_damage
from modelscape.site.pagesource import PageMaker
from modelscape.site.theme import ASSETS, Theme
from modelscape.site.views import OUTPUT_SCRIPTS
from modelscape.site.warning import BuildWarning, quoted, warning_at
from modelscape.site.workers import REPORT_COST, forked_map, worker_count

__all__ = ["Plan", "plan"]

T = TypeVar("T")


@dataclass
class Plan:
    """Every output of the site as a job, with what planning found out on the way.

    ``summaries``: the run summaries to keep for the next build, by run key; ``warnings``:
    what planning met (a run skipped, a spec missing, a damaged page); ``registered``: the
    scenarios looked up among installed packages (the plan then depends on what is
    installed, not only on files); ``mentioned``: whether each markdown page may embed
    results, by the hash of its file; ``damaged``: the pages left out as damaged, by the hash
    of their file, with where (both kept for the next build, see :func:`_mentions`);
    ``runs``: the labels of every run's files (its report and store), which a job's record
    names together as :data:`~modelscape.site.jobs.RUNS`.
    """

    jobs: list[Job] = field(default_factory=list)
    summaries: dict[str, dict[str, Any]] = field(default_factory=dict)
    warnings: list[BuildWarning] = field(default_factory=list)
    registered: list[str] = field(default_factory=list)
    mentioned: dict[str, bool] = field(default_factory=dict)
    damaged: dict[str, str] = field(default_factory=dict)
    runs: list[str] = field(default_factory=list)


def _cached_summary(cached: object) -> RunSummary | None:
    """A summary kept by the last build, or None if the manifest's copy is not one."""
    try:
        return None if cached is None else RunSummary.model_validate(cached)
    except ValidationError:
        return None


def _summary(content: Content, run: RunFolder) -> RunSummary | BuildWarning:
    """A run's summary from its report, or the warning that says why the run is skipped."""
    try:
        report = Report.load(run.report)
        reason = None if run.store is None else disagreement(report, run.store)
    except ModelscapeError as error:
        message = f"run {run.name!r} skipped: {quoted(error, content.root)}"
        return warning_at(run.report, message)
    if reason is not None:
        message = f"run {run.name!r} skipped: {quoted(reason, content.root)}"
        return warning_at(content.root / "runs" / run.name, message)
    return RunSummary.of(report, run.name)


def _summaries(
    content: Content,
    hashes: FileHashes,
    manifest: Manifest,
    warnings: list[BuildWarning],
    workers: int | None,
) -> tuple[dict[str, RunSummary], dict[str, str], dict[str, dict[str, Any]]]:
    """Every run's summary (from the manifest when its report and store are unchanged), its
    key, and the summaries to keep for the next build.

    Reading a report is the slow part of a plan (a large one takes tens of milliseconds), so
    the runs not in the manifest are read in worker processes when there are many.
    """
    keys: dict[str, str] = {}
    cached: dict[str, RunSummary] = {}
    for run in content.runs:
        # The store is part of the key: a run is checked again whenever either file changes.
        store = hashes(run.store) if run.store is not None else "-"
        keys[run.name] = key = f"{run.name}:{hashes(run.report)}:{store}"
        summary = _cached_summary(manifest.summaries.get(key))
        if summary is not None:
            cached[run.name] = summary
    unread = [n for n, run in enumerate(content.runs) if run.name not in cached]
    count = worker_count(workers, len(unread) * REPORT_COST)
    read = dict(
        zip(
            unread,
            forked_map(
                lambda n: _summary(content, content.runs[n]),
                unread,
                workers=count,
                describe=lambda n: str(content.runs[n].report),
            ),
            strict=True,
        )
    )
    runs: dict[str, RunSummary] = {}
    kept: dict[str, dict[str, Any]] = {}
    for number, run in enumerate(content.runs):
        found = cached.get(run.name) or read[number]
        if isinstance(found, BuildWarning):
            warnings.append(found)
            del keys[run.name]
            continue
        runs[run.name] = found
        key = keys[run.name]
        kept[key] = manifest.summaries[key] if run.name in cached else found.model_dump(mode="json")
    return runs, keys, kept


def _mentions(
    source: Path,
    digest: str,
    manifest: Manifest,
    mentioned: dict[str, bool],
    damaged: dict[str, str],
) -> bool | str:
    """Whether a markdown page may embed results, or, for a page no site can show (front
    matter holding a lone surrogate), where it is damaged: the last build's answer for a
    file of the same hash (the manifest is sealed, so the answer is the one a build wrote),
    else read."""
    answer: bool | str | None = manifest.mentions.get(digest)
    if answer is None:
        answer = manifest.damaged.get(digest)
    if answer is None:
        text = source.read_bytes().decode("utf-8", "replace")
        answer = front_matter_damage(text) or mentions(text)
    if isinstance(answer, str):
        damaged[digest] = answer
    else:
        mentioned[digest] = answer
    return answer


def plan(
    content: Content,
    theme: Theme,
    hashes: FileHashes,
    manifest: Manifest,
    *,
    pagefind: bool = False,
    workers: int | None = None,
) -> Plan:
    """Every output of the site as a job, each with the hash of what it is made from.

    ``hashes`` hashes the input files (and remembers which it read); ``manifest`` is the last
    build's, whose run summaries and page answers are reused while their files are
    unchanged. ``pagefind``: the build makes a Pagefind index, which the search page then
    uses. ``workers``: the processes that may read reports (see
    :mod:`modelscape.site.workers`).
    """
    made = Plan()
    warnings, registered = made.warnings, made.registered
    mentioned, damaged = made.mentioned, made.damaged
    with hashes.recording() as run_files:
        runs, keys, made.summaries = _summaries(content, hashes, manifest, warnings, workers)
    made.runs = sorted(run_files)
    catalog = Catalog(runs, content.specs)
    maker = PageMaker(content, theme, catalog, {})
    warnings.extend(maker.missing_specs())
    maker.pagefind = pagefind
    # Parts that many hashes share are hashed once (a thousand runs' keys and pages' names
    # would otherwise be serialised again for every model page and every page with embeds).
    base = digest_of(__version__, theme.digest, content.config.model_dump(mode="json"))
    jobs = made.jobs

    def add(path: str, make: Callable[[], Made], parts: Callable[[], object]) -> None:
        # The files hashed while the job's hash is computed are the inputs its record lists.
        with hashes.recording() as read:
            digest = parts() if path in copies else digest_of(base, parts())
        jobs.append(Job(path, str(digest), make, tuple(sorted(read))))

    def from_runs(value: T) -> T:
        """A part made from every run (the catalog): the job lists the runs as its input."""
        hashes.note(RUNS)
        return value

    copies: set[str] = set()

    def copy(path: str, source: Path) -> None:
        copies.add(path)
        add(path, lambda: Made(source.read_bytes()), lambda: hashes(source))

    shared = (STYLESHEET, PLOTLY_FILE, PLOTLY_LICENSE, *OUTPUT_SCRIPTS)
    for name, source in theme.static.items():
        if name in shared or name == SEARCH_INDEX:
            raise SiteError(
                f"{source}: the theme's static file would replace {ASSETS}/{name}, which the "
                "build makes itself; rename it"
            )
        copy(f"{ASSETS}/{name}", source)
    for name in shared:
        copy(f"{ASSETS}/{name}", maker.shared_asset(name))
    for path, source in content.files.items():
        copy(path, source)

    all_runs = digest_of(sorted(keys.values()))
    slugs = (
        digest_of(catalog.scenario_pages, catalog.model_pages, catalog.run_pages),
        digest_of(catalog.model_pages, catalog.run_pages),
        digest_of(catalog.run_pages),
    )
    method = maker.method_page()
    add("index.html", maker.index, lambda: ("index", from_runs((all_runs, slugs[0])), method))
    # The leaderboard's data, made from what the index is made from.
    for path, make in leaderboard_files(catalog, title=content.config.title).items():

        def board(path: str = path) -> object:
            return (path, from_runs((all_runs, slugs[0])))

        add(path, make, board)
    for name in catalog.scenario_pages:
        spec = maker.spec_of(name)
        python = maker.registered(name) if spec is None else None
        if spec is None:
            registered.append(name)

        def scenario(name: str = name, spec: Path | None = spec, python: Any = python) -> object:
            spec_inputs = (
                (spec.name, hashes(spec)) if spec is not None else python and python.identity.id
            )
            scenario_runs = sorted(keys[r.run] for r in catalog.by_scenario(name))
            return ("scenario", name, spec_inputs, from_runs((scenario_runs, slugs[1])))

        add(catalog.scenario_path(name), maker.scenario(name, spec), scenario)
    for run in content.runs:
        if run.name not in runs:
            continue
        summary = runs[run.name]
        neighbours = (
            catalog.scenario_pages[summary.scenario],
            [catalog.model_pages[h.target] for h in summary.targets],
        )

        def report(run: RunFolder = run, neighbours: object = neighbours) -> object:
            run_inputs = [hashes(f) if f is not None else None for f in (run.store, run.notes)]
            return ("report", from_runs(keys[run.name]), run_inputs, from_runs(neighbours))

        add(catalog.report_path(run.name), maker.report(run), report)
    for name in catalog.model_pages:

        def model(name: str = name) -> object:
            model_runs = sorted(keys[run] for run in catalog.compared_runs(name))
            return ("model", name, from_runs((model_runs, slugs[0])))

        add(catalog.model_path(name), maker.model(name), model)
    for markdown in content.pages:
        # A page that embeds results shows the runs' numbers and links their report pages.
        digest = hashes(markdown.source)
        uses = _mentions(markdown.source, digest, manifest, mentioned, damaged)
        if isinstance(uses, str):
            message = (
                f"{uses}, which UTF-8 cannot hold; the page is skipped (write the character "
                "itself, or remove the escape that made it)"
            )
            warnings.append(warning_at(markdown.source, message))
            continue

        def page(source: Path = markdown.source, uses: bool = uses) -> object:
            return ("page", hashes(source), from_runs((all_runs, slugs[2])) if uses else None)

        add(markdown.output, maker.markdown(markdown), page)
    add("search.html", maker.search, lambda: ("search", pagefind))
    add("404.html", maker.not_found, lambda: "404")
    _one_each(jobs)
    return made


#: The search index's file in the assets folder (made last, from every page's record).
SEARCH_INDEX = "search-index.js"


def _one_each(jobs: list[Job]) -> None:
    """Refuse a plan that would write one path twice: every path the build writes is its
    own (content may take none of them, see ``content.reserved``), so two jobs for one path
    mean two inputs that claim it."""
    seen: set[str] = set()
    for job in jobs:
        if job.path in seen:
            raise SiteError(
                f"{job.path}: two outputs of the site would be written to it (a file of the "
                "content named like a file the build makes); rename it"
            )
        seen.add(job.path)
