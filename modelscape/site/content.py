"""The content folder: what a user writes, found and checked before anything is rendered.

A content folder holds::

    site.yaml           settings (see modelscape.site.config); optional
    pages/*.md          markdown pages, one HTML page each (other files there are copied)
    specs/*.yaml        scenario specs, one scenario page each
    runs/NAME/          one stored run per folder:
        report.json     the report (modelscape report -o, or scenario.report(results).save)
        store.db        its SQLite store (or the one *.db file of the folder)
        README.md       how the run was made: command, versions (shown on the report page)

Problems that do not stop the build (a run without its store, a folder without a report) are
collected as warnings; ``--strict`` turns them into a failing exit.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from modelscape.site.config import SiteConfig, SiteError, load_config

__all__ = ["Content", "FileHashes", "PageSource", "RunFolder", "discover", "slug"]

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
    warnings: list[str] = field(default_factory=list)


class FileHashes:
    """Content hashes of input files, reused while a file's size and modification time hold.

    Stores can be large; hashing each once, and then only when it changes, keeps a rebuild
    with nothing changed fast.
    """

    def __init__(self, known: dict[str, list[object]] | None = None) -> None:
        self.known = dict(known or {})
        self.seen: dict[str, list[object]] = {}

    def __call__(self, path: Path) -> str:
        """The sha256 of a file's bytes (hex, shortened)."""
        key = os.fspath(path)
        stat = path.stat()
        cached = self.known.get(key)
        if cached is not None and cached[0] == stat.st_size and cached[1] == stat.st_mtime_ns:
            digest = str(cached[2])
        else:
            hasher = hashlib.sha256()
            with path.open("rb") as file:
                for block in iter(lambda: file.read(1 << 20), b""):
                    hasher.update(block)
            digest = hasher.hexdigest()[:20]
        self.seen[key] = [stat.st_size, stat.st_mtime_ns, digest]
        return digest


def _store_of(folder: Path) -> Path | None:
    preferred = folder / "store.db"
    if preferred.is_file():
        return preferred
    stores = sorted(folder.glob("*.db"))
    return stores[0] if len(stores) == 1 else None


def _runs(root: Path, warnings: list[str]) -> list[RunFolder]:
    folder = root / "runs"
    found: list[RunFolder] = []
    if not folder.is_dir():
        return found
    for run in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        report = run / "report.json"
        if not report.is_file():
            warnings.append(f"{run}: no report.json (make it with `modelscape report -o`)")
            continue
        store = _store_of(run)
        if store is None:
            several = len(list(run.glob("*.db"))) > 1
            warnings.append(
                f"{run}: "
                + (
                    "several *.db files and no store.db: name the run's store store.db"
                    if several
                    else "no store (store.db): the report page cannot open its outputs"
                )
            )
        notes = run / "README.md"
        found.append(RunFolder(run.name, report, store, notes if notes.is_file() else None))
    return found


def _specs(root: Path, warnings: list[str]) -> dict[str, Path]:
    """Spec files by scenario name (the ``name:`` inside, else the file name)."""
    from modelscape._yaml import load_yaml

    specs: dict[str, Path] = {}
    folder = root / "specs"
    if not folder.is_dir():
        return specs
    for path in sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")]):
        try:
            data = load_yaml(path.read_text(encoding="utf-8"))
        except Exception as error:
            warnings.append(f"{path}: not valid YAML ({error}); skipped")
            continue
        name = data.get("name") if isinstance(data, dict) else None
        name = str(name) if name else path.stem
        if name in specs:
            warnings.append(f"{path}: a second spec named {name!r} (first: {specs[name]})")
            continue
        specs[name] = path
    return specs


def _pages(root: Path) -> tuple[list[PageSource], dict[str, Path]]:
    folder = root / "pages"
    pages: list[PageSource] = []
    files: dict[str, Path] = {}
    if not folder.is_dir():
        return pages, files
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if not path.is_file() or any(part.startswith(".") for part in relative.parts):
            continue
        if path.suffix == ".md":
            pages.append(PageSource(path, relative.with_suffix(".html").as_posix()))
        else:
            files[relative.as_posix()] = path
    return pages, files


def discover(root: Path, *, base_url: str | None = None) -> Content:
    """Find the settings, specs, runs and pages of a content folder."""
    if not root.is_dir():
        raise SiteError(f"{root}: no such content folder (make one with `modelscape init`)")
    config = load_config(root, base_url=base_url)
    warnings: list[str] = []
    pages, files = _pages(root)
    return Content(
        root=root,
        config=config,
        specs=_specs(root, warnings),
        runs=_runs(root, warnings),
        pages=pages,
        files=files,
        warnings=warnings,
    )
