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
from modelscape.site.content import Content, discover
from modelscape.site.incremental import ASSETS, UNLISTED, IncrementalBuild
from modelscape.site.jobs import BuildResult, Job, digest_of
from modelscape.site.manifest import Manifest
from modelscape.site.ownership import (
    OutputState,
    claim,
    inspect,
    read_signatures,
    signatures,
    write_signatures,
)
from modelscape.site.seal import available, key_file
from modelscape.site.search import pagefind_installed, pagefind_version
from modelscape.site.staging import staged
from modelscape.site.theme import Theme
from modelscape.site.unchanged import fingerprint, own_scenarios, plugins, quick_result

__all__ = ["BuildResult", "Job", "build_site", "digest_of"]

#: Generated files that are not pages of the sitemap (kept here under the names the tests
#: and the other modules know them by).
_UNLISTED = UNLISTED
_ASSETS = ASSETS


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

    ``output`` must be missing, empty, or a folder a build made (it holds the marker
    ``.modelscape-build``); any other folder is refused with a list of its files, unless
    ``force``, which then replaces what it holds with the site. The output folder holds only
    what the build writes: a file or link it did not write is removed (never followed), and
    an output that is not the file the build wrote (see :mod:`modelscape.site.ownership`)
    is made again, each with a warning.

    The site is built in a folder beside ``output`` and moved into its place only when the
    build succeeds (see :mod:`modelscape.site.staging`): a build that fails, strictly or
    otherwise, leaves ``output`` as it was. A build that finds nothing to make or remove
    writes nothing at all (into the output folder: when it had to read outputs again to know
    that they are intact, it keeps their new signatures in the user's cache). Without a base
    URL there is no ``sitemap.xml`` (its addresses must be absolute); the build says so in
    ``notes``, which ``strict`` does not count.

    The content is not trusted (see :mod:`modelscape.site.confine`): nothing outside the
    content folder is read, nothing outside ``output`` is written or removed, and theme
    templates render in Jinja's sandbox, within a time and size limit.

    ``workers`` is the number of processes that render pages (see
    :mod:`modelscape.site.workers`): by default one per core when there are many pages to
    render, else one. The output is the same, byte for byte, whatever the number.
    """
    started = time.perf_counter()
    root, folder = Path(content), Path(output)
    found = discover(root, base_url=base_url)
    _check_folders(root, folder, found.config.theme)
    taken = claim(folder, force=force)
    limit = max_file_mb if max_file_mb is not None else found.config.max_file_mb
    known = Manifest.load(folder)
    manifest = Manifest() if force else known
    state = inspect(folder, known.outputs, read_signatures(folder, known.seal))
    site_theme = root / found.config.theme if found.config.theme else None
    theme = Theme(site_theme, content=root)
    pagefind = pagefind_version() if pagefind_installed() else None
    scenarios = plugins()
    label = _labels(root, theme)
    inputs = fingerprint(
        found, label=label, theme=theme.digest, limit=limit, pagefind=pagefind, scenarios=scenarios
    )
    notes = _notes(found, pagefind is not None)
    result = quick_result(found, folder, manifest, inputs, _bases(root, theme), state)
    if result is None:
        # Planned against the output folder as it is, which the staged copy starts from.
        build = IncrementalBuild(
            found,
            folder,
            manifest,
            theme,
            label=label,
            known=known,
            state=state,
            taken=taken,
            pagefind=pagefind,
            limit=limit,
            workers=workers,
        )
        if build.kept and own_scenarios(build.registered, scenarios):
            build.inputs = inputs
        result = build.unchanged(notes)
        if result is None:
            with staged(folder, state.intact) as stage:
                result = build.write(stage, notes)
                result.output = folder
                _refuse_warnings(result, strict)
            # Taken now that the old folder is gone (which changed the kept files' change
            # times): what the next build compares the files with.
            write_signatures(folder, build.seal, signatures(folder, build.paths))
            result.seconds = time.perf_counter() - started
            return result
    else:
        result.notes.extend(notes)
    _refuse_warnings(result, strict)
    _recheck(folder, known, state)
    result.seconds = time.perf_counter() - started
    return result


def _recheck(folder: Path, known: Manifest, state: OutputState) -> None:
    """After a build with nothing to write: when some outputs had to be read again to know
    they are intact (copied, touched), keep their new signatures so the next build need not."""
    if state.rechecked and known.seal is not None:
        write_signatures(folder, known.seal, state.intact)


def _refuse_warnings(result: BuildResult, strict: bool) -> None:
    if strict and result.warnings:
        raise SiteError(
            f"{len(result.warnings)} warning{'s' if len(result.warnings) != 1 else ''} "
            "(--strict), nothing written:\n  - " + "\n  - ".join(map(str, result.warnings))
        )


def _notes(found: Content, pagefind: bool) -> list[str]:
    notes = []
    if not available():
        notes.append(
            f"no key to seal the output folder's manifest ({key_file()} can be neither read "
            "nor made), so no build can trust the last one: every page is made every time"
        )
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
