"""The content folder: what a user writes, found and checked before anything is rendered.

A content folder holds::

    site.yaml           settings (see modelscape.site.config); optional
    pages/*.md          markdown pages, one HTML page each (plain files there are copied)
    specs/*.yaml        scenario specs, one scenario page each
    runs/NAME/          one stored run per folder:
        report.json     the report (modelscape report -o, or scenario.report(results).save)
        store.db        its SQLite store (or the one *.db file of the folder)
        README.md       how the run was made: command, versions (shown on the report page)

Problems that do not stop the build (a run without its store, a folder without a report) are
collected as warnings; ``--strict`` turns them into a failing exit. Content is not trusted:
a link that leaves the content folder, a page that would replace a file the build makes
(``pages/index.md``), and a file a browser would run (HTML, SVG, scripts) are left out with a
warning naming them (see :mod:`modelscape.site.confine`).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from modelscape._yaml import describe, read_yaml
from modelscape.errors import ModelscapeError
from modelscape.site.config import SiteConfig, SiteError, load_config
from modelscape.site.confine import (
    HardLinks,
    content_files,
    hidden_inside,
    lone_surrogate,
    site_path,
)
from modelscape.site.warning import BuildWarning, quoted, warning_at

__all__ = [
    "PUBLISHED_NAMES",
    "PUBLISHED_SUFFIXES",
    "RESERVED_FILES",
    "RESERVED_FOLDERS",
    "Content",
    "PageSource",
    "RunFolder",
    "discover",
    "internal",
    "reserved",
    "slug",
]

_SLUG = re.compile(r"[^a-z0-9]+")


def slug(name: str) -> str:
    """A file-name-safe form of a name: lowercase letters, digits and hyphens."""
    return _SLUG.sub("-", name.lower()).strip("-") or "item"


@dataclass(frozen=True)
class RunFolder:
    """One stored run: its report, its store (if found) and its notes (if any)."""

    name: str
    report: Path
    store: Path | None
    notes: Path | None


@dataclass(frozen=True)
class PageSource:
    """A markdown page and the site path it renders to (``pages/a/b.md`` -> ``a/b.html``)."""

    source: Path
    output: str


@dataclass
class Content:
    """Everything found in a content folder, and the warnings met while looking."""

    root: Path
    config: SiteConfig
    specs: dict[str, Path]
    runs: list[RunFolder]
    pages: list[PageSource]
    files: dict[str, Path]
    warnings: list[BuildWarning] = field(default_factory=list)


#: Site paths the build makes itself; a page or file of the content may not take them. Names
#: of other modules, written out here because a build with nothing to make never imports
#: those modules (a test checks that every file a build writes is reserved).
RESERVED_FILES = frozenset(
    {
        *("index.html", "search.html", "404.html", "sitemap.xml", ".nojekyll"),
        *("leaderboard.csv", "leaderboard.json"),  # modelscape.site.exports
        # The manifest, the pages file and the marker (modelscape.site.ownership).
        *(".modelscape-manifest.json", ".modelscape-pages.json", ".modelscape-build"),
    }
)
#: ``assets/`` holds the search index, the shared and the theme's files; ``pagefind/`` the
#: Pagefind index (modelscape.site.search).
RESERVED_FOLDERS = frozenset({"assets", "scenarios", "reports", "models", "pagefind"})
#: The kinds of file a page folder may publish beside its markdown pages. Anything a browser
#: would run as a document of the site (HTML, SVG, XML, scripts) is left out: it would run
#: with the site's address and outside its policy.
PUBLISHED_SUFFIXES = frozenset(
    {
        ".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".ico",
        ".pdf", ".txt", ".csv", ".tsv", ".json", ".jsonl", ".yaml", ".yml",
        ".zip", ".gz",
    }
)  # fmt: skip


#: Files without a suffix that a page folder may publish: ``CNAME``, the custom domain
#: GitHub Pages reads from the top of a site published from a branch.
PUBLISHED_NAMES = frozenset({"CNAME"})


def reserved(path: str) -> str | None:
    """Why the build keeps site path ``path`` for itself, or None if a page may use it.

    Compared without case: on a file system that ignores it (macOS, Windows),
    ``pages/Index.md`` would replace ``index.html``.
    """
    folded = path.casefold()
    first = folded.split("/", 1)[0]
    if folded in RESERVED_FILES or (first in RESERVED_FOLDERS and "/" in folded):
        return f"{first if '/' in folded else folded} is made by the build"
    return None


def internal(path: Path) -> bool:
    """Whether a file is an internal note, never published: ``notes.internal.md``,
    ``data.internal.csv``. Inside a published page or a run's notes, comments that start a
    line (``<!-- ... -->``) are left out instead (see ``markdown.hide_comments``).
    """
    return ".internal." in path.name


def _real(path: Path, known: dict[str, str]) -> str:
    """The real path of ``path``, as text; RuntimeError or OSError for a link loop.

    A path that is not a link is its parent's real path and its name, so a folder whose real
    path is in ``known`` (by its text) saves resolving each of its files, component by
    component (a thousand runs check four files each). Every path answered goes into
    ``known``.
    """
    parent = known.get(os.fspath(path.parent))
    if parent is None or path.is_symlink():
        real = os.fspath(path.resolve())
    else:
        real = os.path.join(parent, path.name)
    known[os.fspath(path)] = real
    return real


def _inside(
    path: Path,
    root: Path,
    warnings: list[BuildWarning],
    what: str,
    known: dict[str, str] | None = None,
) -> bool:
    """Whether ``path`` stays inside the content folder; if not, warn that it is skipped.

    ``root`` is the content folder already resolved (resolving it again for each file is
    most of the cost); ``known``: real paths already found (see :func:`_real`).
    """
    try:
        real = _real(path, {} if known is None else known)
        base = os.fspath(root)
        # Lexical, as Path.is_relative_to is, on the text of the real path.
        inside = real == base or real.startswith(base.rstrip(os.sep) + os.sep)
    except (OSError, RuntimeError):  # a link loop
        real, inside = "", False
    if not inside:
        warnings.append(
            warning_at(
                path,
                f"a link that leaves the content folder; {what} (links may point only to "
                "files inside the content folder)",
            )
        )
        return False
    secret = hidden_inside(real, base)
    if secret is not None:
        warnings.append(
            warning_at(
                path,
                f"a link into {secret}, a hidden file or folder (such as .git or .env), "
                f"which a build never reads; {what}",
            )
        )
        return False
    return True


def _listed(path: Path) -> bool:
    """Whether a folder lists ``path``: a file, a folder or a link (even one to nothing), as
    ``path.exists() or path.is_symlink()`` in one call instead of two."""
    try:
        os.lstat(path)
    except OSError:
        return False
    return True


def _store_of(
    run: Path, root: Path, warnings: list[BuildWarning], known: dict[str, str]
) -> Path | None:
    """The run's store: ``store.db``, else the folder's one ``*.db`` file, kept inside root
    (resolved)."""
    preferred = run / "store.db"
    candidates = [preferred] if _listed(preferred) else sorted(run.glob("*.db"))
    if len(candidates) != 1:
        message = (
            "several *.db files and no store.db: name the run's store store.db"
            if candidates
            else "no store (store.db): the report page cannot open its outputs"
        )
        warnings.append(warning_at(run, message))
        return None
    store = candidates[0]
    # SQLite also opens the journal files beside a store, and may write to them.
    for path in (store, *(Path(f"{store}{end}") for end in ("-wal", "-shm", "-journal"))):
        if _listed(path) and not _inside(
            path, root, warnings, "the report page cannot open the run's outputs", known
        ):
            return None
    if not store.is_file():
        warnings.append(
            warning_at(store, "not a regular file; the report page cannot open its outputs")
        )
        return None
    return store


def _regular(path: Path) -> os.stat_result | None:
    """The ``stat`` of a regular file (links followed), or None."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info if stat.S_ISREG(info.st_mode) else None


def _runs(root: Path, real: Path, warnings: list[BuildWarning]) -> list[RunFolder]:
    """The run folders of ``root`` (resolved: ``real``) that have a report."""
    folder = root / "runs"
    found: list[RunFolder] = []
    if not folder.is_dir():
        return found
    known = {os.fspath(folder): os.fspath(folder.resolve())}
    links = HardLinks()
    for run in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if not _inside(run, real, warnings, "skipped", known):
            continue
        if run.is_symlink():
            warnings.append(
                warning_at(
                    run,
                    "a link to a folder; skipped (links may point only to files inside "
                    "the content folder)",
                )
            )
            continue
        report = run / "report.json"
        info = _regular(report)
        if info is None:
            warnings.append(warning_at(run, "no report.json (make it with `modelscape report -o`)"))
            continue
        if not _inside(report, real, warnings, "the run is skipped", known):
            continue
        links.add(report, info)
        store = _store_of(run, real, warnings, known)
        notes: Path | None = run / "README.md"
        if notes is not None and _regular(notes) is None:
            notes = None
        if notes is not None and not _inside(
            notes, real, warnings, "its notes are left out", known
        ):
            notes = None
        for path in (store, notes):
            if path is not None and (info := _regular(path)) is not None:
                links.add(path, info)
        found.append(RunFolder(run.name, report, store, notes))
    elsewhere = links.elsewhere(warnings)
    if not elsewhere:
        return found
    return [
        RunFolder(
            run.name,
            run.report,
            None if run.store in elsewhere else run.store,
            None if run.notes in elsewhere else run.notes,
        )
        for run in found
        if run.report not in elsewhere
    ]


def _yaml_warning(path: Path, error: yaml.YAMLError) -> BuildWarning:
    """A spec that is not valid YAML, at the line the parser stopped on when it says."""
    mark = None
    if isinstance(error, yaml.MarkedYAMLError):
        mark = error.problem_mark or error.context_mark
    if mark is None:
        return warning_at(path, f"{describe(error)}; skipped")
    line = mark.line + 1
    problem = describe(error).removeprefix(f"line {line}, ")
    return warning_at(path, f"{problem}; skipped", line=line)


def _specs(root: Path, warnings: list[BuildWarning]) -> dict[str, Path]:
    """Spec files by scenario name (the ``name:`` inside, else the file name)."""
    specs: dict[str, Path] = {}
    folder = root / "specs"
    if not folder.is_dir():
        return specs
    links = HardLinks()
    for path in sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")]):
        if path.name.startswith(".") or not _inside(path, root.resolve(), warnings, "skipped"):
            continue
        try:
            links.add(path, path.stat())
            data = read_yaml(path)
        except OSError as error:
            warnings.append(warning_at(path, f"cannot read it ({error.strerror}); skipped"))
            continue
        except yaml.YAMLError as error:
            warnings.append(_yaml_warning(path, error))
            continue
        except ModelscapeError as error:  # a reader that names the problem itself
            warnings.append(warning_at(path, f"{quoted(error, root)}; skipped"))
            continue
        damage = lone_surrogate(data)
        if damage is not None:
            warnings.append(
                warning_at(
                    path,
                    f"{damage}, which UTF-8 cannot hold; the spec is skipped (write the "
                    "character itself, or remove the escape that made it)",
                )
            )
            continue
        name = data.get("name") if isinstance(data, dict) else None
        name = str(name) if name else path.stem
        if name in specs:
            warnings.append(
                warning_at(path, f"a second spec named {name!r} (first: {specs[name]})")
            )
            continue
        specs[name] = path
    elsewhere = links.elsewhere(warnings)
    return {name: path for name, path in specs.items() if path not in elsewhere}


def _pages(root: Path, warnings: list[BuildWarning]) -> tuple[list[PageSource], dict[str, Path]]:
    folder = root / "pages"
    pages: list[PageSource] = []
    files: dict[str, Path] = {}
    # Every file found lies under the folder by its text (content_files joins the names it
    # lists to it), so its site path is made from text, not with a Path each.
    prefix = os.fspath(folder) + os.sep
    for path in content_files(folder, root, warnings):
        if internal(path):
            continue
        relative = os.fspath(path)[len(prefix) :].replace(os.sep, "/")
        site = relative[: -len(".md")] + ".html" if path.suffix == ".md" else relative
        why = reserved(site)
        if why is not None:
            warnings.append(
                warning_at(path, f"would replace {site}, but {why}; rename it; skipped")
            )
        elif site_path(site) is None:
            warnings.append(warning_at(path, "its name cannot be a path of the site; skipped"))
        elif path.suffix == ".md":
            pages.append(PageSource(path, site))
        elif path.suffix.lower() not in PUBLISHED_SUFFIXES and site not in PUBLISHED_NAMES:
            warnings.append(
                warning_at(
                    path,
                    f"{path.suffix or 'a file without a suffix'} files are not published "
                    "(HTML, SVG and scripts would run outside the site's policy); write a markdown "
                    f"page, or use one of {', '.join(sorted(PUBLISHED_SUFFIXES))}; skipped",
                )
            )
        else:
            files[site] = path
    return pages, files


def discover(root: Path, *, base_url: str | None = None) -> Content:
    """Find the settings, specs, runs and pages of a content folder."""
    if not root.is_dir():
        raise SiteError(f"{root}: no such content folder (make one with `modelscape init`)")
    config = load_config(root, base_url=base_url)
    warnings: list[BuildWarning] = []
    linked = [name for name in ("pages", "specs", "runs") if (root / name).is_symlink()]
    for name in linked:  # pages -> . would publish the whole repository
        warnings.append(
            warning_at(
                root / name,
                "a link to a folder; skipped (links may point only to files inside "
                "the content folder)",
            )
        )
    pages, files = _pages(root, warnings) if "pages" not in linked else ([], {})
    specs = _specs(root, warnings) if "specs" not in linked else {}
    runs = _runs(root, root.resolve(), warnings) if "runs" not in linked else []
    if not (pages or specs or runs):
        warnings.append(
            warning_at(
                root,
                "no specs, no runs, no pages: the site would have only its leaderboard, "
                "search and 404 pages, all empty (is this the content folder? `modelscape init` "
                "makes one to start from)",
            )
        )
    return Content(root, config, specs, runs, pages, files, warnings)
