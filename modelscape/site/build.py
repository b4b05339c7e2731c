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
import os
import time
from collections.abc import Callable
from pathlib import Path

import modelscape
from modelscape import __version__
from modelscape.site.config import SiteError
from modelscape.site.confine import OutputFolder
from modelscape.site.content import Content, FileHashes, discover
from modelscape.site.jobs import BuildResult, Job, digest_of
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
from modelscape.site.search import pagefind_installed, pagefind_outputs, pagefind_version
from modelscape.site.staging import staged
from modelscape.site.theme import Theme
from modelscape.site.unchanged import fingerprint, own_scenarios, plugins, quick_result
from modelscape.site.workers import make_all, worker_count

__all__ = ["BuildResult", "Job", "build_site", "digest_of"]

#: Generated files that are not pages of the sitemap.
_UNLISTED = {"404.html", "search.html"}
#: The folder of the site's shared files (``modelscape.site.render.ASSETS``, not imported
#: here: the page code loads the statistics, which a build with nothing to make never needs).
_ASSETS = "assets"


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


def _bases(root: Path, theme: Theme) -> dict[str, Path]:
    """The folders the manifest names input files relative to, by the label's prefix."""
    return {
        "content": root,
        "theme": theme.default,
        "modelscape": Path(modelscape.__file__).parent,
    }


def _labels(root: Path, theme: Theme) -> Callable[[Path], str]:
    """How the manifest names an input file: relative to the content folder, the default theme
    or the modelscape package, never by its absolute local path (the manifest is published)."""
    bases = _bases(root, theme).items()

    # Compared as text, as Path.is_relative_to does (both are lexical), but without making
    # a Path for each of the ten thousand files of a large site.
    prefixes = [(name, os.fspath(base).rstrip(os.sep) + os.sep) for name, base in bases]

    def label(path: Path) -> str:
        text = os.fspath(path)
        for name, prefix in prefixes:
            if text.startswith(prefix):
                # A Path's text is already normalised: only the separator may need changing.
                relative = text[len(prefix) :]
                return f"{name}:{relative if os.sep == '/' else Path(relative).as_posix()}"
        return "file:" + hashlib.sha256(text.encode()).hexdigest()[:20]

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
    workers: int | None = None,
) -> BuildResult:
    """Render the content folder ``content`` into the site folder ``output``.

    Only outputs whose inputs changed since the last build are rendered (``force`` renders
    everything). ``base_url`` (the site's public address) overrides ``site.yaml``'s, and
    ``max_file_mb`` its size above which a file of the site is warned about. With
    ``strict``, any warning (a broken link, a run without its store or spec, a link out of
    the content folder, a file too large) raises a :class:`SiteError` listing them all.

    The site is built in a folder beside ``output`` and moved into its place only when the
    build succeeds (see :mod:`modelscape.site.staging`): a build that fails, strictly or
    otherwise, leaves ``output`` as it was. A build that finds nothing to make or remove
    writes nothing at all. Without a base URL there is no ``sitemap.xml`` (its addresses
    must be absolute); the build says so in ``notes``, which ``strict`` does not count.

    The content is not trusted (see :mod:`modelscape.site.confine`): nothing outside the
    content folder is read, nothing outside ``output`` is written or removed, and theme
    templates render in Jinja's sandbox.

    ``workers`` is the number of processes that render pages (see
    :mod:`modelscape.site.workers`): by default one per core when there are many pages to
    render, else one. The output is the same, byte for byte, whatever the number.
    """
    started = time.perf_counter()
    root, folder = Path(content), Path(output)
    found = discover(root, base_url=base_url)
    _check_folders(root, folder, found.config.theme)
    limit = max_file_mb if max_file_mb is not None else found.config.max_file_mb
    manifest = Manifest() if force else Manifest.load(folder)
    site_theme = root / found.config.theme if found.config.theme else None
    theme = Theme(site_theme, content=root)
    pagefind = pagefind_version() if pagefind_installed() else None
    scenarios = plugins()
    label = _labels(root, theme)
    inputs = fingerprint(
        found, label=label, theme=theme.digest, limit=limit, pagefind=pagefind, scenarios=scenarios
    )
    result = quick_result(found, folder, manifest, inputs, _bases(root, theme))
    if result is not None:
        result.notes.extend(_notes(found, pagefind is not None))
        _refuse_warnings(result, strict)
        result.seconds = time.perf_counter() - started
        return result
    # Planned against the output folder as it is, which the staged copy starts from.
    build = _Build(found, folder, manifest, theme, limit=limit, workers=workers)
    if build.kept and own_scenarios(build.registered, scenarios):
        build.inputs = inputs
    result = build.unchanged()
    if result is not None:
        _refuse_warnings(result, strict)
    else:
        with staged(folder) as stage:
            result = build.write(stage)
            result.output = folder
            _refuse_warnings(result, strict)
    result.seconds = time.perf_counter() - started
    return result


def _refuse_warnings(result: BuildResult, strict: bool) -> None:
    if strict and result.warnings:
        raise SiteError(
            f"{len(result.warnings)} warning{'s' if len(result.warnings) != 1 else ''} "
            "(--strict), nothing written:\n  - " + "\n  - ".join(result.warnings)
        )


def _notes(found: Content, pagefind: bool) -> list[str]:
    notes = []
    if found.config.base_url is None:
        notes.append(
            "sitemap.xml left out: its addresses must be absolute; give the site's public "
            "address with --base-url or base_url in site.yaml"
        )
    if not pagefind:
        notes.append(
            "search: Pagefind is not installed, so the search page uses the single-script "
            "index only (pip install 'modelscape-map[search]' adds an index that loads per "
            "query when the site is served)"
        )
    return notes


class _Build:
    """One build: planned against the output folder as it is, then written into its staged
    copy, unless nothing would change."""

    def __init__(
        self,
        found: Content,
        folder: Path,
        manifest: Manifest,
        theme: Theme,
        *,
        limit: float,
        workers: int | None,
    ) -> None:
        # The page code, loaded only by a build that plans (see modelscape.site.unchanged).
        from modelscape.site.plan import plan

        self.found, self.folder, self.limit, self.requested = found, folder, limit, workers
        self.theme, self.manifest = theme, manifest
        self.hashes = FileHashes(self.manifest.files, label=_labels(found.root, self.theme))
        self.result = BuildResult(folder, warnings=list(found.warnings))
        self.pagefind = pagefind_installed()
        self.registered: list[str] = []
        self.mentioned: dict[str, bool] = {}
        self.jobs, self.summaries = plan(
            found,
            self.theme,
            self.hashes,
            self.manifest,
            self.result.warnings,
            pagefind=self.pagefind,
            workers=workers,
            registered=self.registered,
            mentioned=self.mentioned,
        )
        self.planned = portable(self.result.warnings[len(found.warnings) :], found.root)
        # The hash of the plan's inputs is kept for the next build only when it and the input
        # files' table decide the plan: not when a file elsewhere was read (nor, see
        # build_site, a scenario of another package).
        known = ("content:", "theme:", "modelscape:")
        self.kept = all(key.startswith(known) for key in self.hashes.seen)
        self.inputs: str | None = None
        # What decides every output and site-wide file: when it is the last build's, and its
        # files are all there, there is nothing to make.
        self.key = digest_of(
            __version__,
            [(job.path, job.digest) for job in self.jobs],
            found.config.model_dump(mode="json"),
            limit,
            pagefind_version() if self.pagefind else None,
        )

    def _notes(self) -> list[str]:
        return _notes(self.found, self.pagefind)

    def unchanged(self) -> BuildResult | None:
        """The result of a build that has nothing to write, or None if it has something.

        Nothing to write means: the same key as the last build, the same input files and
        run summaries (else the manifest's caches change), and every output still there.
        """
        manifest, result = self.manifest, self.result
        if (
            manifest.key != self.key
            or self.hashes.seen != manifest.files
            or self.summaries != manifest.summaries
        ):
            return None
        site = OutputFolder(self.folder)
        listed: list[str] = []
        for job in self.jobs:
            known = manifest.outputs.get(job.path)
            if known is None or known.digest != job.digest:
                return None
            listed.extend([job.path, *known.files])
            result.warnings.extend(restored(known.warnings, self.found.root))
        listed.extend(sorted(set(manifest.outputs) - set(listed)))
        if any(site.size(path) is None for path in listed):
            return None
        result.reused.extend(listed)
        result.warnings.extend(restored(manifest.checks, self.found.root))
        result.notes.extend(self._notes())
        return result

    def write(self, folder: Path) -> BuildResult:
        """Make what changed into ``folder`` (the staged copy of the output folder)."""
        found, manifest, result, jobs = self.found, self.manifest, self.result, self.jobs
        root = found.root
        manifest.read_pages(self.folder)
        site = OutputFolder(folder)
        site.create()
        records: dict[str, OutputRecord] = {}
        todo = []
        for number, job in enumerate(jobs):
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
            else:
                todo.append(number)
        # The templates are compiled once, here, so forked workers inherit them.
        _ = self.theme.environment
        result.workers = worker_count(self.requested, len(todo))
        made_records: dict[str, OutputRecord] = {}
        for number, made in make_all(jobs, todo, result.warnings, workers=result.workers):
            job = jobs[number]
            site.write(job.path, made.data)
            for path, full in made.files.items():
                site.write(path, full)
                made_records[path] = OutputRecord(job.digest)
            data = made.data
            links = links_of(data) if isinstance(data, str) and job.path.endswith(".html") else []
            result.warnings.extend(made.warnings)
            met = portable(made.warnings, root)
            made_records[job.path] = OutputRecord(
                job.digest, links, made.title, made.text, met, sorted(made.files)
            )
            result.rendered.extend([job.path, *sorted(made.files)])
        # Every reader of the records sorts them, so which process made a page does not show.
        records.update(made_records)
        config = found.config
        pages = [p for p in records if p.endswith(".html") and p not in _UNLISTED]
        records[f"{_ASSETS}/search-index.js"] = _generated(
            site, f"{_ASSETS}/search-index.js", search_index(records), result
        )
        if config.base_url is not None:
            records["sitemap.xml"] = _generated(
                site, "sitemap.xml", sitemap(pages, config.base_url), result
            )
        records[".nojekyll"] = _generated(site, ".nojekyll", "", result)
        key, inputs = self.key, self.inputs
        if self.pagefind:
            made_index = pagefind_outputs(site, records, manifest.outputs, result)
            records.update(made_index)
            if not made_index:  # Pagefind failed: a key no plan has, so the next build tries
                key += ":incomplete"  # again (and still reads the pages file of this one)
                inputs = None
        result.notes.extend(self._notes())
        # Last, once every output is known: the files of outputs the plan no longer has (and
        # an old Pagefind index's chunks) go.
        for path in sorted(set(manifest.outputs) - set(records)):
            if site.remove(path):
                result.removed.append(path)
        checks = broken_links(records, config.base_path)
        checks.extend(_too_large(site, list(records), self.limit))
        result.warnings.extend(checks)
        order = [job.path for job in jobs]
        kept = (key, portable(checks, root), inputs, order, self.planned, self.mentioned)
        Manifest(records, self.hashes.seen, self.summaries, *kept).save(folder)
        return result
