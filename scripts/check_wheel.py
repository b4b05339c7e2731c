#!/usr/bin/env python3
"""Check a built wheel and sdist of modelscape-map before they are published.

    python scripts/check_wheel.py dist/*.whl dist/*.tar.gz [--tag v0.1.0] [--source .]

Each archive is opened and its file list checked; every problem is printed with the archive
and the file at fault, and the exit status is 1 if there is any.

What must be in: the vendored browser bundles (plotly's cartesian bundle and its licence, the
report and page scripts and styles under modelscape/pages/assets) and the site's default theme
(templates and static files; in the wheel under modelscape/_themes), the shipped specs and
py.typed. With --source (the repository, by default the folder above this script), every file
of the source tree's assets and theme must be in too, so a bundle added later is checked
without this list changing.

What must stay out, and why:

- tests/: the suite needs the repository around it (committed runs, page tools, a model
  server); shipped without them, it fails, so it is run from a checkout, never from an sdist;
- content/ and any SQLite store (*.db and its journals): the project's own site and its
  committed runs, tens of megabytes that are data, not the library;
- build/, dist/, .venv*, node_modules/, .git/ and the caches (__pycache__, *.pyc,
  .pytest_cache, .mypy_cache, .ruff_cache, .hypothesis): leftovers of a local build or session;
- in the wheel, anything outside modelscape/ and its .dist-info folder; in the sdist, anything
  but what builds the wheel and says what it is (pyproject.toml, README.md, CHANGELOG.md,
  PKG-INFO, .gitignore, modelscape/, themes/).

With --tag, the version both archives carry must be the tag without its leading "v".
"""

from __future__ import annotations

import argparse
import email.parser
import sys
import tarfile
import zipfile
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

DISTRIBUTION = "modelscape_map"
ASSETS = "modelscape/pages/assets"
# Every path is given as in the source tree; the wheel holds the theme under modelscape/_themes.
REQUIRED = (
    f"{ASSETS}/plotly-cartesian.min.js",
    f"{ASSETS}/plotly-cartesian.LICENSE",
    f"{ASSETS}/page.css",
    f"{ASSETS}/page.js",
    f"{ASSETS}/report.js",
    f"{ASSETS}/compare.js",
    "themes/default/templates/base.html.j2",
    "themes/default/templates/index.html.j2",
    "themes/default/static/site.css",
    "themes/default/static/site.js",
    "modelscape/specs/shipped/pressure.yaml",
    "modelscape/py.typed",
)
# The folders whose every file must ship (read from --source).
BUNDLED = (ASSETS, "themes/default")
STRAY_FOLDERS = {
    "tests": "tests are run from a checkout, not shipped",
    "content": "the project's own site content and runs are not the library",
    "build": "a local build folder",
    "dist": "built archives inside an archive",
    "node_modules": "npm packages of the page tools",
    ".git": "a git repository",
    "__pycache__": "byte code is made on install",
    ".pytest_cache": "a cache",
    ".mypy_cache": "a cache",
    ".ruff_cache": "a cache",
    ".hypothesis": "Hypothesis' example database",
    ".servers": "logs of local model servers",
}
STRAY_SUFFIXES = {
    ".pyc": "byte code is made on install",
    ".pyo": "byte code is made on install",
    ".db": "a SQLite store (runs are data, not the library)",
    ".db-wal": "a SQLite journal",
    ".db-shm": "a SQLite journal",
    ".db-journal": "a SQLite journal",
    ".sqlite": "a SQLite database",
}
SDIST_TOP = {"pyproject.toml", "README.md", "CHANGELOG.md", "PKG-INFO", ".gitignore"}
SDIST_FOLDERS = {"modelscape", "themes"}


def stray(path: PurePosixPath) -> str | None:
    """Why ``path`` must not ship, or None."""
    for part in path.parts[:-1]:
        if part in STRAY_FOLDERS:
            return STRAY_FOLDERS[part]
        if part.startswith(".venv"):
            return "a virtual environment"
    for suffix, reason in STRAY_SUFFIXES.items():
        if path.name.endswith(suffix):
            return reason
    return None


def required(source: Path | None) -> list[str]:
    """The source-tree paths that must ship: the fixed list and the bundled folders' files."""
    wanted = set(REQUIRED)
    if source is not None:
        for folder in BUNDLED:
            for file in (source / folder).rglob("*"):
                relative = PurePosixPath(file.relative_to(source).as_posix())
                if file.is_file() and stray(relative) is None:
                    wanted.add(relative.as_posix())
    return sorted(wanted)


def in_wheel(path: str) -> str:
    return path.replace("themes/", "modelscape/_themes/", 1) if path.startswith("themes/") else path


def check_wheel(wheel: Path, wanted: Iterable[str], tag: str | None) -> list[str]:
    problems = []
    with zipfile.ZipFile(wheel) as archive:
        names = [name for name in archive.namelist() if not name.endswith("/")]
        infos = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = archive.read(infos[0]).decode() if len(infos) == 1 else ""
    if len(infos) != 1:
        problems.append(f"{wheel.name}: {len(infos)} METADATA files, not one")
    info = infos[0].split("/", 1)[0] if infos else ""
    for name in names:
        path = PurePosixPath(name)
        why = stray(path)
        if why is not None:
            problems.append(f"{wheel.name}: stray file {name} ({why})")
        elif path.parts[0] not in ("modelscape", info):
            problems.append(f"{wheel.name}: stray file {name} (outside modelscape/ and {info}/)")
    present = set(names)
    for path in wanted:
        if in_wheel(path) not in present:
            problems.append(f"{wheel.name}: missing {in_wheel(path)}")
    problems += check_version(wheel, metadata, tag)
    return problems


def check_sdist(sdist: Path, wanted: Iterable[str], tag: str | None) -> list[str]:
    problems = []
    with tarfile.open(sdist) as archive:
        members = [m for m in archive.getmembers() if m.isfile()]
        top = {PurePosixPath(m.name).parts[0] for m in members}
        info = next((m for m in members if PurePosixPath(m.name).parts[1:] == ("PKG-INFO",)), None)
        reader = archive.extractfile(info) if info is not None else None
        metadata = reader.read().decode() if reader is not None else ""
    if len(top) != 1:
        problems.append(f"{sdist.name}: {len(top)} top-level folders, not one: {sorted(top)}")
    if info is None:
        problems.append(f"{sdist.name}: no PKG-INFO")
    present = set()
    for member in members:
        path = PurePosixPath(*PurePosixPath(member.name).parts[1:])
        present.add(path.as_posix())
        why = stray(path)
        if why is not None:
            problems.append(f"{sdist.name}: stray file {path} ({why})")
        elif len(path.parts) == 1 and path.name not in SDIST_TOP:
            problems.append(f"{sdist.name}: stray file {path} (not part of the source)")
        elif len(path.parts) > 1 and path.parts[0] not in SDIST_FOLDERS:
            problems.append(f"{sdist.name}: stray file {path} (outside modelscape/ and themes/)")
    for path in [*wanted, "pyproject.toml", "README.md", "CHANGELOG.md"]:
        if path not in present:
            problems.append(f"{sdist.name}: missing {path}")
    problems += check_version(sdist, metadata, tag)
    return problems


def check_version(archive: Path, metadata: str, tag: str | None) -> list[str]:
    headers = email.parser.Parser().parsestr(metadata, headersonly=True)
    name, version = headers.get("Name", ""), headers.get("Version", "")
    problems = []
    if name.replace("-", "_") != DISTRIBUTION:
        problems.append(f"{archive.name}: its metadata names {name!r}, not modelscape-map")
    if not archive.name.startswith(f"{DISTRIBUTION}-{version}"):
        problems.append(f"{archive.name}: its metadata says version {version!r}, its name another")
    if tag is not None and version != tag.removeprefix("v"):
        problems.append(f"{archive.name}: version {version!r} is not the tag {tag!r}")
    return problems


def main(arguments: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("archives", nargs="+", type=Path, help="a .whl and a .tar.gz")
    parser.add_argument("--tag", help="the release tag (vX.Y.Z) the archives must carry")
    parser.add_argument(
        "--source",
        type=Path,
        default=Path(__file__).resolve().parent.parent,
        help="the source tree whose bundles and theme must all ship (default: this repository)",
    )
    options = parser.parse_args(arguments)
    wanted = required(options.source if options.source.is_dir() else None)
    problems = []
    kinds = {".whl": 0, ".gz": 0}
    for archive in options.archives:
        if archive.suffix == ".whl":
            problems += check_wheel(archive, wanted, options.tag)
        elif archive.name.endswith(".tar.gz"):
            problems += check_sdist(archive, wanted, options.tag)
        else:
            problems.append(f"{archive}: neither a wheel (.whl) nor an sdist (.tar.gz)")
        kinds[archive.suffix if archive.suffix == ".whl" else ".gz"] += 1
    if kinds != {".whl": 1, ".gz": 1}:
        problems.append("give one wheel and one sdist, as a release publishes both")
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"checked {', '.join(a.name for a in options.archives)}: nothing stray or missing")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
