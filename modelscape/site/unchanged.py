"""A rebuild with nothing changed, recognised before the site is planned.

The plan (see :mod:`modelscape.site.plan`) is a function of what it reads: the content
folder's listing (pages, files, specs, runs, and the warnings met finding them), the settings
and build options, the theme, the modelscape version, Pagefind's version, and the input files
it hashes. A build that writes keeps a hash of all but the last in the manifest
(``listing``); the last are the inputs each output's record lists, whose size, modification
time and hash the manifest's table holds once per file. When a new build finds the same
listing, every input of every record (and every file the plan read for no output: a page
skipped as damaged) with the same size and time, every output of the manifest still the
file the build wrote and nothing else in the output folder (see
:mod:`modelscape.site.ownership`), its plan would be the last one, output for output, and the
site as it stands is what it would make: it returns at once, without loading the report and
page code or planning 11,000 jobs.

Scenarios written in Python are found among the installed packages' entry points: the hash
holds every entry of that group with its package and version, so installing, removing or
upgrading one is seen. A plan that used a scenario of another package than modelscape, whose
code may change in place without a new version, or an input outside the content folder, the
theme and modelscape, is never answered this way: such a build's manifest is not marked
``quick``, and the next build plans as before. (Modelscape's own scenarios go with its
version, as its page code and templates do.)

The manifest is sealed with a key kept outside the output folder (see
:mod:`modelscape.site.seal`): one edited by hand or damaged is not read at all, so none of what
it keeps can make a stale page survive.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from importlib.metadata import entry_points
from pathlib import Path

from modelscape import __version__
from modelscape._plugins import SCENARIO_GROUP
from modelscape._version import DISTRIBUTION
from modelscape.site.content import Content
from modelscape.site.jobs import RUNS, BuildResult, digest_of
from modelscape.site.manifest import Manifest, kept_warnings, read_warnings
from modelscape.site.ownership import OutputState

__all__ = ["fingerprint", "own_scenarios", "plugins", "quick_result"]


def plugins() -> list[list[str]]:
    """Every scenario an installed package registers: its name, object, package, version."""
    found = [
        [
            entry.name,
            entry.value,
            *((entry.dist.name, entry.dist.version) if entry.dist else ("", "")),
        ]
        for entry in entry_points(group=SCENARIO_GROUP)
    ]
    return sorted(found)


def own_scenarios(names: Iterable[str], listed: list[list[str]]) -> bool:
    """Whether every scenario of ``names`` is registered by modelscape itself or by no
    package at all (then a package that registers it later changes the listing)."""
    wanted = set(names)
    return all(entry[2] == DISTRIBUTION for entry in listed if entry[0] in wanted)


def fingerprint(
    found: Content,
    *,
    label: Callable[[Path], str],
    theme: str,
    limit: float,
    pagefind: str | None,
    scenarios: list[list[str]],
) -> str:
    """The hash of everything a plan reads but its input files: the content's listing, the
    settings, the file-size limit, the theme's digest, Pagefind's version (None when it is
    not installed) and the scenarios installed packages register (see :func:`plugins`).
    Paths are hashed by their labels, so the hash does not depend on where the content
    folder is."""
    return digest_of(
        "inputs",
        __version__,
        found.config.model_dump(mode="json"),
        limit,
        pagefind,
        theme,
        scenarios,
        [(label(page.source), page.output) for page in found.pages],
        {site: label(path) for site, path in found.files.items()},
        {name: label(path) for name, path in found.specs.items()},
        [
            [run.name, *map(_optional(label), (run.report, run.store, run.notes))]
            for run in found.runs
        ],
        kept_warnings(found.warnings, found.root),
    )


def _optional(label: Callable[[Path], str]) -> Callable[[Path | None], str | None]:
    return lambda path: None if path is None else label(path)


def _same_files(table: dict[str, list[object]], bases: dict[str, Path]) -> bool:
    """Whether every file of the table still has its size and modification time."""
    # Joined as text: a Path for each of ten thousand files costs more than its stat.
    folders = {kind: os.fspath(base) for kind, base in bases.items()}
    for key, (size, modified, _digest) in table.items():
        kind, _, relative = key.partition(":")
        base = folders.get(kind)
        # A build labels only files under their folder; any other label is not one it wrote,
        # and nothing outside the folders is looked at.
        if base is None or relative.startswith("/") or ".." in relative.split("/"):
            return False
        try:
            stat = os.stat(os.path.join(base, relative))
        except OSError:
            return False
        if stat.st_size != size or stat.st_mtime_ns != modified:
            return False
    return True


def quick_result(
    found: Content,
    folder: Path,
    manifest: Manifest,
    listing: str,
    bases: dict[str, Path],
    state: OutputState,
) -> BuildResult | None:
    """The result of a build with nothing to write, as the planning build would give it (the
    same outputs reused, the same warnings in the same order), or None when something may
    have changed: an input, or the output folder (``state``: an output that is not the file
    the build wrote, or anything else in the folder)."""
    if not manifest.quick or manifest.listing is None or manifest.listing != listing:
        return None
    outputs, table = manifest.outputs, manifest.files
    if not all(path in outputs for path in manifest.order):
        return None
    # Every record's inputs are files of the table (RUNS: the runs' files), so checking the
    # table checks each of them once, and the files the plan read for no output with them.
    if not all(label in table for label in manifest.runs) or not all(
        label == RUNS or label in table for path in manifest.order for label in outputs[path].inputs
    ):
        return None
    if not _same_files(table, bases):
        return None
    listed: list[str] = []
    for path in manifest.order:
        listed.extend([path, *outputs[path].files])
    listed.extend(sorted(set(outputs) - set(listed)))
    if not state.keeps(listed):
        return None
    root = found.root
    result = BuildResult(folder, warnings=list(found.warnings))
    result.warnings.extend(read_warnings(manifest.planned, root))
    for path in manifest.order:
        if outputs[path].warnings:
            result.warnings.extend(read_warnings(outputs[path].warnings, root))
    result.warnings.extend(read_warnings(manifest.checks, root))
    result.reused.extend(listed)
    return result
