"""``modelscape build``: a content folder rendered into a static site, incrementally.

The build first plans every output file with the hash of what it is made from (see
:mod:`modelscape.site.manifest`), then renders only the outputs whose hash changed or whose
file is missing, removes the files of outputs that no longer exist, and rewrites the search
index and sitemap. Every link of every page is checked against the files of the site.

Site layout::

    index.html                 the leaderboard
    scenarios/NAME.html        a scenario: its runs, then every variant to review
    reports/RUN.html           a run's report; every number opens its outputs
    models/NAME.html           a model's scorecards, reported versions and usage
    PAGE.html                  each markdown page of content/pages
    search.html, 404.html      search (offline), and the page for missing addresses
    assets/                    shared stylesheet, plotting bundle, theme files, search index
    sitemap.xml, .nojekyll     for crawlers (only with a base URL), and so GitHub Pages
                               serves the files as they are
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import ValidationError

import modelscape
from modelscape import __version__
from modelscape.errors import ModelscapeError
from modelscape.pages.page import PLOTLY_FILE, PLOTLY_LICENSE, STYLESHEET
from modelscape.pages.report import disagreement
from modelscape.report.report import Report
from modelscape.site.catalog import Catalog, RunSummary
from modelscape.site.config import SiteError
from modelscape.site.confine import OutputFolder
from modelscape.site.content import Content, FileHashes, discover
from modelscape.site.embeds import mentions
from modelscape.site.exports import leaderboard_files
from modelscape.site.manifest import (
    Manifest,
    OutputRecord,
    broken_links,
    links_of,
    portable,
    restored,
    search_index,
    sitemap,
)
from modelscape.site.pagesource import PageMaker
from modelscape.site.render import ASSETS
from modelscape.site.staging import staged
from modelscape.site.theme import Theme
from modelscape.specs.registry import registered_scenario

__all__ = ["BuildResult", "Job", "build_site"]

#: Generated files that are not pages of the sitemap.
_UNLISTED = {"404.html", "search.html"}


@dataclass(frozen=True)
class Job:
    """One output to make: its site path, the hash of its inputs, and how to make it.

    ``make`` returns the file's content and, for pages, their search entry (title and text);
    ``files``, called after ``make``, returns the files made with it by site path (the full
    text of long outputs beside a report page).
    """

    path: str
    digest: str
    make: Callable[[], tuple[str | bytes, str | None, str]]
    files: Callable[[], dict[str, str]] | None = None


@dataclass
class BuildResult:
    """What a build did: the pages rendered and reused, the files removed, and the warnings."""

    output: Path
    rendered: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: What the user should know that ``--strict`` does not fail on (no sitemap without a
    #: base URL: a matter of how the build was called, not of the content).
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def pages(self) -> int:
        """The number of HTML pages the site holds."""
        return sum(1 for p in (*self.rendered, *self.reused) if p.endswith(".html"))

    def summary(self) -> str:
        """One line for the command line."""
        return (
            f"built {self.output}: {self.pages} pages, {len(self.rendered)} files written, "
            f"{len(self.reused)} unchanged, {len(self.removed)} removed, "
            f"{len(self.warnings)} warning{'s' if len(self.warnings) != 1 else ''} "
            f"in {self.seconds:.2f} s"
        )


def digest_of(*parts: Any) -> str:
    """A short hash of JSON-able parts."""
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def _cached_summary(cached: object) -> RunSummary | None:
    """A summary kept by the last build, or None if the manifest's copy is not one."""
    try:
        return None if cached is None else RunSummary.model_validate(cached)
    except ValidationError:
        return None


def _summaries(
    content: Content, hashes: FileHashes, manifest: Manifest, warnings: list[str]
) -> tuple[dict[str, RunSummary], dict[str, str], dict[str, Report], dict[str, dict[str, Any]]]:
    """Every run's summary (from the manifest when its report is unchanged), its key, the
    reports loaded on the way, and the summaries to keep for the next build."""
    runs: dict[str, RunSummary] = {}
    keys: dict[str, str] = {}
    loaded: dict[str, Report] = {}
    kept: dict[str, dict[str, Any]] = {}
    for run in content.runs:
        # The store is part of the key: a run is checked again whenever either file changes.
        store = hashes(run.store) if run.store is not None else "-"
        key = f"{run.name}:{hashes(run.report)}:{store}"
        cached = manifest.summaries.get(key)
        summary = _cached_summary(cached)
        if summary is None:
            cached = None
            try:
                report = Report.load(run.report)
                reason = None if run.store is None else disagreement(report, run.store)
            except ModelscapeError as error:
                warnings.append(f"{run.report}: skipped: {error}")
                continue
            if reason is not None:
                warnings.append(
                    f"{content.root / 'runs' / run.name}: run {run.name!r} skipped: its report "
                    f"and store disagree: {reason}"
                )
                continue
            loaded[run.name] = report
            summary = RunSummary.of(report, run.name)
        runs[run.name] = summary
        keys[run.name] = key
        kept[key] = cached if cached is not None else summary.model_dump(mode="json")
    return runs, keys, loaded, kept


def _plan(
    content: Content, theme: Theme, hashes: FileHashes, manifest: Manifest, warnings: list[str]
) -> tuple[list[Job], dict[str, dict[str, Any]]]:
    runs, keys, loaded, kept = _summaries(content, hashes, manifest, warnings)
    catalog = Catalog(runs, content.specs)
    maker = PageMaker(content, theme, catalog, loaded, warnings)
    base = (__version__, theme.digest, content.config.model_dump(mode="json"))
    jobs: list[Job] = []

    def copy(path: str, source: Path) -> None:
        jobs.append(Job(path, hashes(source), lambda: (source.read_bytes(), None, "")))

    for name, source in theme.static.items():
        copy(f"{ASSETS}/{name}", source)
    for name in (STYLESHEET, PLOTLY_FILE, PLOTLY_LICENSE):
        copy(f"{ASSETS}/{name}", maker.shared_asset(name))
    for path, source in content.files.items():
        copy(path, source)

    slugs = (catalog.scenario_pages, catalog.model_pages, catalog.run_pages)
    index = digest_of(base, "index", sorted(keys.values()), slugs, maker.method_page())
    jobs.append(Job("index.html", index, maker.index))
    # The leaderboard's data, made from what the index is made from.
    for path, make in leaderboard_files(catalog, title=content.config.title).items():
        jobs.append(Job(path, digest_of(base, path, sorted(keys.values()), slugs), make))
    for name in catalog.scenario_pages:
        spec = maker.spec_of(name)
        python = registered_scenario(name) if spec is None else None
        spec_inputs = (
            (spec.name, hashes(spec)) if spec is not None else python and python.identity.id
        )
        scenario_runs = sorted(keys[r.run] for r in catalog.by_scenario(name))
        jobs.append(
            Job(
                catalog.scenario_path(name),
                digest_of(base, "scenario", name, spec_inputs, scenario_runs, slugs[1:]),
                maker.scenario(name, spec),
            )
        )
    for run in content.runs:
        if run.name not in runs:
            continue
        run_inputs = [hashes(f) if f is not None else None for f in (run.store, run.notes)]
        summary = runs[run.name]
        neighbours = (
            catalog.scenario_pages[summary.scenario],
            [catalog.model_pages[h.target] for h in summary.targets],
        )
        path = catalog.report_path(run.name)
        jobs.append(
            Job(
                path,
                digest_of(base, "report", keys[run.name], run_inputs, neighbours),
                maker.report(run),
                partial(maker.attachments.pop, path, {}),
            )
        )
    for name in catalog.model_pages:
        model_runs = sorted(keys[run] for run in catalog.compared_runs(name))
        jobs.append(
            Job(
                catalog.model_path(name),
                digest_of(base, "model", name, model_runs, slugs),
                maker.model(name),
            )
        )
    for markdown in content.pages:
        # A page that embeds results shows the runs' numbers and links their report pages.
        uses = mentions(markdown.source.read_bytes().decode("utf-8", "replace"))
        runs_used = (sorted(keys.values()), slugs[2]) if uses else None
        jobs.append(
            Job(
                markdown.output,
                digest_of(base, "page", hashes(markdown.source), runs_used),
                maker.markdown(markdown),
            )
        )
    jobs.append(Job("search.html", digest_of(base, "search"), maker.search))
    jobs.append(Job("404.html", digest_of(base, "404"), maker.not_found))
    return jobs, kept


def _generated(output: OutputFolder, path: str, text: str, result: BuildResult) -> OutputRecord:
    """A file made from the whole site (search index, sitemap): written only when it changed."""
    try:
        same = output.target(path).read_text(encoding="utf-8") == text
    except (OSError, ValueError):
        same = False
    (result.reused if same else result.rendered).append(path)
    if not same:
        output.write(path, text)
    return OutputRecord(digest_of(text))


def _labels(root: Path, theme: Theme) -> Callable[[Path], str]:
    """How the manifest names an input file: relative to the content folder, the default theme
    or the modelscape package, never by its absolute local path (the manifest is published)."""
    bases = (
        ("content", root),
        ("theme", theme.default),
        ("modelscape", Path(modelscape.__file__).parent),
    )

    def label(path: Path) -> str:
        for name, base in bases:
            if path.is_relative_to(base):
                return f"{name}:{path.relative_to(base).as_posix()}"
        return "file:" + hashlib.sha256(os.fspath(path).encode()).hexdigest()[:20]

    return label


def _check_folders(root: Path, folder: Path, theme: str | None) -> None:
    """Refuse an output folder that holds the content folder or lies inside its inputs."""
    if folder.resolve() == root.resolve() or root.resolve().is_relative_to(folder.resolve()):
        raise SiteError(f"the output folder {folder} must not contain the content folder {root}")
    inputs = ["pages", "specs", "runs", *([theme] if theme else [])]
    for name in inputs:
        if folder.resolve().is_relative_to((root / name).resolve()):
            raise SiteError(
                f"the output folder {folder} lies inside the content's {name}/ folder; "
                "write the site elsewhere (-o site)"
            )


def _too_large(output: OutputFolder, paths: list[str], limit_mb: float) -> list[str]:
    """A warning for every file of the site larger than ``limit_mb`` megabytes."""
    warnings = []
    for path in sorted(paths):
        size = output.size(path)
        if size is not None and size > limit_mb * 1e6:
            warnings.append(
                f"{path}: {size / 1e6:.1f} MB, over the {limit_mb:g} MB limit (max_file_mb in "
                "site.yaml); GitHub Pages refuses files over 100 MB"
            )
    return warnings


def build_site(
    content: str | Path,
    output: str | Path = "site",
    *,
    base_url: str | None = None,
    strict: bool = False,
    force: bool = False,
    max_file_mb: float | None = None,
) -> BuildResult:
    """Render the content folder ``content`` into the site folder ``output``.

    Only outputs whose inputs changed since the last build are rendered (``force`` renders
    everything). ``base_url`` (the site's public address) overrides ``site.yaml``'s, and
    ``max_file_mb`` its size above which a file of the site is warned about. With
    ``strict``, any warning (a broken link, a run without its store or spec, a link out of
    the content folder, a file too large) raises a :class:`SiteError` listing them all.

    The site is built in a folder beside ``output`` and moved into its place only when the
    build succeeds (see :mod:`modelscape.site.staging`): a build that fails, strictly or
    otherwise, leaves ``output`` as it was. Without a base URL there is no ``sitemap.xml``
    (its addresses must be absolute); the build says so in ``notes``, which ``strict``
    does not count.

    The content is not trusted (see :mod:`modelscape.site.confine`): nothing outside the
    content folder is read, nothing outside ``output`` is written or removed, and theme
    templates render in Jinja's sandbox.
    """
    started = time.perf_counter()
    root, folder = Path(content), Path(output)
    found = discover(root, base_url=base_url)
    _check_folders(root, folder, found.config.theme)
    with staged(folder) as stage:
        result = _build(found, stage, force=force, max_file_mb=max_file_mb)
        result.output = folder
        if strict and result.warnings:
            raise SiteError(
                f"{len(result.warnings)} warning{'s' if len(result.warnings) != 1 else ''} "
                "(--strict), nothing written:\n  - " + "\n  - ".join(result.warnings)
            )
    result.seconds = time.perf_counter() - started
    return result


def _build(found: Content, folder: Path, *, force: bool, max_file_mb: float | None) -> BuildResult:
    """The build itself, into ``folder`` (the staged copy of the output folder)."""
    root = found.root
    site_theme = root / found.config.theme if found.config.theme else None
    theme = Theme(site_theme, content=root)
    manifest = Manifest() if force else Manifest.load(folder)
    hashes = FileHashes(manifest.files, label=_labels(root, theme))
    result = BuildResult(folder, warnings=list(found.warnings))
    jobs, summaries = _plan(found, theme, hashes, manifest, result.warnings)
    site = OutputFolder(folder)
    site.create()
    records: dict[str, OutputRecord] = {}
    for job in jobs:
        known = manifest.outputs.get(job.path)
        if (
            known is not None
            and known.digest == job.digest
            and all(site.size(p) is not None for p in (job.path, *known.files))
        ):
            records[job.path] = known
            records.update({p: OutputRecord(job.digest) for p in known.files})
            result.reused.extend([job.path, *known.files])
            result.warnings.extend(restored(known.warnings, root))
            continue
        before = len(result.warnings)
        data, title, text = job.make()
        site.write(job.path, data)
        made = job.files() if job.files is not None else {}
        for path, full in made.items():
            site.write(path, full)
            records[path] = OutputRecord(job.digest)
        links = links_of(data) if isinstance(data, str) and job.path.endswith(".html") else []
        met = portable(result.warnings[before:], root)
        records[job.path] = OutputRecord(job.digest, links, title, text, met, sorted(made))
        result.rendered.extend([job.path, *sorted(made)])
    config = found.config
    generated = {f"{ASSETS}/search-index.js", ".nojekyll"}
    if config.base_url is not None:
        generated.add("sitemap.xml")
    for path in sorted(set(manifest.outputs) - set(records) - generated):
        if site.remove(path):
            result.removed.append(path)
    pages = [p for p in records if p.endswith(".html") and p not in _UNLISTED]
    records[f"{ASSETS}/search-index.js"] = _generated(
        site, f"{ASSETS}/search-index.js", search_index(records), result
    )
    if config.base_url is not None:
        records["sitemap.xml"] = _generated(
            site, "sitemap.xml", sitemap(pages, config.base_url), result
        )
    else:
        result.notes.append(
            "sitemap.xml left out: its addresses must be absolute; give the site's public "
            "address with --base-url or base_url in site.yaml"
        )
    records[".nojekyll"] = _generated(site, ".nojekyll", "", result)
    result.warnings.extend(broken_links(records, config.base_path))
    limit = max_file_mb if max_file_mb is not None else config.max_file_mb
    result.warnings.extend(_too_large(site, list(records), limit))
    Manifest(records, hashes.seen, summaries).save(folder)
    return result
