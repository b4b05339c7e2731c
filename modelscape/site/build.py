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
from modelscape.site.plan import plan
from modelscape.site.render import ASSETS
from modelscape.site.search import pagefind_installed, pagefind_outputs
from modelscape.site.staging import staged
from modelscape.site.theme import Theme
from modelscape.site.workers import make_all, worker_count

__all__ = ["BuildResult", "Job", "build_site", "digest_of"]

#: Generated files that are not pages of the sitemap.
_UNLISTED = {"404.html", "search.html"}


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
    otherwise, leaves ``output`` as it was. Without a base URL there is no ``sitemap.xml``
    (its addresses must be absolute); the build says so in ``notes``, which ``strict``
    does not count.

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
    with staged(folder) as stage:
        result = _build(found, stage, force=force, max_file_mb=max_file_mb, workers=workers)
        result.output = folder
        if strict and result.warnings:
            raise SiteError(
                f"{len(result.warnings)} warning{'s' if len(result.warnings) != 1 else ''} "
                "(--strict), nothing written:\n  - " + "\n  - ".join(result.warnings)
            )
    result.seconds = time.perf_counter() - started
    return result


def _build(
    found: Content,
    folder: Path,
    *,
    force: bool,
    max_file_mb: float | None,
    workers: int | None,
) -> BuildResult:
    """The build itself, into ``folder`` (the staged copy of the output folder)."""
    root = found.root
    site_theme = root / found.config.theme if found.config.theme else None
    theme = Theme(site_theme, content=root)
    manifest = Manifest() if force else Manifest.load(folder)
    hashes = FileHashes(manifest.files, label=_labels(root, theme))
    result = BuildResult(folder, warnings=list(found.warnings))
    pagefind = pagefind_installed()
    jobs, summaries = plan(
        found, theme, hashes, manifest, result.warnings, pagefind=pagefind, workers=workers
    )
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
    _ = theme.environment
    result.workers = worker_count(workers, len(todo))
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
    if pagefind:
        records.update(pagefind_outputs(site, records, manifest.outputs, result))
    else:
        result.notes.append(
            "search: Pagefind is not installed, so the search page uses the single-script "
            "index only (pip install 'modelscape-map[search]' adds an index that loads per "
            "query when the site is served)"
        )
    # Last, once every output is known: the files of outputs the plan no longer has (and an
    # old Pagefind index's chunks) go.
    for path in sorted(set(manifest.outputs) - set(records)):
        if site.remove(path):
            result.removed.append(path)
    result.warnings.extend(broken_links(records, config.base_path))
    limit = max_file_mb if max_file_mb is not None else config.max_file_mb
    result.warnings.extend(_too_large(site, list(records), limit))
    Manifest(records, hashes.seen, summaries).save(folder)
    return result
