"""``modelscape build``: a content folder rendered into a static site, incrementally.

:func:`build_site` reads as its stages:

1. content (:mod:`~modelscape.site.content`): the settings, pages, specs and runs, with the
   warnings met finding them; and the output folder with what the last build left in it;
2. pages (:mod:`~modelscape.site.plan`): every output file as a job, with the hash of what it
   is made from;
3. render (:mod:`~modelscape.site.workers`): the jobs whose hash changed or whose file is
   missing, each returning what it made (file, search entry, files beside it, warnings);
4. output (:mod:`~modelscape.site.incremental`): the files written beside the output folder
   (see :mod:`~modelscape.site.staging`), the outputs that no longer exist removed, the
   search index and sitemap rewritten, the links checked, and the manifest kept for the next
   build.

A build with nothing changed stops before stage 2, from the manifest alone (see
:mod:`modelscape.site.unchanged`), and one whose plan is the last build's stops before stage 3.

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
from dataclasses import dataclass
from pathlib import Path

import modelscape
from modelscape.site.config import SiteError
from modelscape.site.content import Content, discover
from modelscape.site.incremental import UNLISTED, IncrementalBuild
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
from modelscape.site.theme import ASSETS, Theme
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

    What the build makes is written into a folder beside ``output`` and moved into it only
    when the build succeeds (see :mod:`modelscape.site.staging`): a build that fails,
    strictly or otherwise, leaves ``output`` as it was. A build that finds nothing to make or remove
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

    # 1. Content: the settings, pages, specs and runs the folder holds, and the folder the
    #    site goes to (one a build made, or nothing), with what the last build left there.
    found = discover(root, base_url=base_url)
    _check_folders(root, folder, found.config.theme)
    taken = claim(folder, force=force)
    last = _LastBuild.read(folder, force=force)
    setting = _Setting.of(found, max_file_mb=max_file_mb)
    notes = _notes(found, setting.pagefind is not None)

    # Nothing changed since the last build: answered from the manifest before any page code
    # is loaded (see modelscape.site.unchanged).
    result = quick_result(
        found,
        folder,
        last.manifest,
        setting.fingerprint(found),
        _bases(root, setting.theme),
        last.state,
    )
    if result is not None:
        result.notes.extend(notes)
        _refuse_warnings(result, strict)
        _recheck(folder, last.known, last.state)
        result.seconds = time.perf_counter() - started
        return result

    # 2. Pages: every output of the site planned, each with the hash of what it is made from.
    build = _plan(found, folder, last, setting, taken=taken, workers=workers)
    result = build.unchanged(notes)
    if result is not None:  # the same plan as the last build's, every file intact
        _refuse_warnings(result, strict)
        _recheck(folder, last.known, last.state)
        result.seconds = time.perf_counter() - started
        return result

    # 3. Render and 4. write the output: the outputs whose hash changed are made, beside the
    #    output folder, which takes them only when the build succeeds.
    with staged(folder, last.state) as stage:
        result = build.write(stage, notes)
        result.output = folder
        _refuse_warnings(result, strict)
    # What the next build compares the files with: the kept files were not touched, so their
    # signatures are the ones found; the files moved in are looked at again.
    untouched = set(build.untouched)
    table = {path: last.state.intact[path] for path in build.untouched}
    table.update(signatures(folder, [p for p in build.paths if p not in untouched]))
    write_signatures(folder, build.seal, table)
    result.seconds = time.perf_counter() - started
    return result


@dataclass(frozen=True)
class _LastBuild:
    """What the last build left in the output folder: its manifest (``known``), the manifest
    this build reuses (empty when forced), and the folder's files sorted against it."""

    known: Manifest
    manifest: Manifest
    state: OutputState

    @classmethod
    def read(cls, folder: Path, *, force: bool) -> _LastBuild:
        known = Manifest.load(folder)
        state = inspect(folder, known.outputs, read_signatures(folder, known.seal))
        return cls(known, Manifest() if force else known, state)


@dataclass(frozen=True)
class _Setting:
    """What a build depends on besides the content's files: the theme, the file-size limit,
    Pagefind's version (None: not installed) and the scenarios installed packages register."""

    root: Path
    theme: Theme
    limit: float
    pagefind: str | None
    scenarios: list[list[str]]

    @classmethod
    def of(cls, found: Content, *, max_file_mb: float | None) -> _Setting:
        root, config = found.root, found.config
        theme = Theme(root / config.theme if config.theme else None, content=root)
        limit = max_file_mb if max_file_mb is not None else config.max_file_mb
        pagefind = pagefind_version() if pagefind_installed() else None
        return cls(root, theme, limit, pagefind, plugins())

    @property
    def label(self) -> Callable[[Path], str]:
        return _labels(self.root, self.theme)

    def fingerprint(self, found: Content) -> str:
        """The hash of everything the plan reads but its input files."""
        return fingerprint(
            found,
            label=self.label,
            theme=self.theme.digest,
            limit=self.limit,
            pagefind=self.pagefind,
            scenarios=self.scenarios,
        )


def _plan(
    found: Content,
    folder: Path,
    last: _LastBuild,
    setting: _Setting,
    *,
    taken: list[str],
    workers: int | None,
) -> IncrementalBuild:
    """The build planned against the output folder as it is (what the staged build keeps),
    with the hash of the content's listing, which a build with nothing changed may be
    answered from when the plan depends on nothing else."""
    build = IncrementalBuild(
        found,
        folder,
        last.manifest,
        setting.theme,
        label=setting.label,
        known=last.known,
        state=last.state,
        taken=taken,
        pagefind=setting.pagefind,
        limit=setting.limit,
        workers=workers,
    )
    build.listing = setting.fingerprint(found)
    build.quick = build.kept and own_scenarios(build.registered, setting.scenarios)
    return build


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
