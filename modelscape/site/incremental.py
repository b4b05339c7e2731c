"""One build that plans: the plan compared with the last build's records, then what changed
written.

:class:`IncrementalBuild` plans every output (see :mod:`modelscape.site.plan`) against the
records of the manifest the last build left (see :mod:`modelscape.site.manifest`), and the
output folder as :func:`~modelscape.site.ownership.inspect` found it. When the content's
listing is the last one, every output's record has the hash and the inputs the plan gives
it, and every file is still the one written, there is nothing to write
(:meth:`IncrementalBuild.unchanged`). Otherwise :meth:`IncrementalBuild.write` writes
into the staged output folder (:class:`~modelscape.site.staging.StagedFolder`): it
reuses the outputs whose inputs are unchanged and whose files are intact, makes the others,
writes the site-wide files, removes the outputs the plan no longer has, and says what it found
in the folder that it did not write.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from modelscape.site.confine import OutputFolder
from modelscape.site.content import Content
from modelscape.site.jobs import BuildResult, FileHashes, digest_of
from modelscape.site.manifest import Manifest, OutputRecord, kept_warnings, read_warnings
from modelscape.site.ownership import OutputState, listing, write_marker
from modelscape.site.search import pagefind_outputs
from modelscape.site.sitewide import broken_links, links_of, search_index, sitemap, too_large
from modelscape.site.staging import StagedFolder
from modelscape.site.theme import ASSETS, Theme
from modelscape.site.warning import warning_at
from modelscape.site.workers import make_all, worker_count

__all__ = ["UNLISTED", "IncrementalBuild"]

#: Generated files that are not pages of the sitemap.
UNLISTED = {"404.html", "search.html"}


def _generated(output: OutputFolder, path: str, text: str, result: BuildResult) -> OutputRecord:
    """A file made from the whole site (search index, sitemap): written only when it changed."""
    try:
        same = output.target(path).read_text(encoding="utf-8") == text
    except (OSError, ValueError):
        same = False
    (result.reused if same else result.rendered).append(path)
    if not same:
        output.write(path, text)
    data = text.encode("utf-8")
    return OutputRecord(digest_of(text), size=len(data), sha256=hashlib.sha256(data).hexdigest())


class IncrementalBuild:
    """One build: planned against the output folder as it is, then written into its staged
    copy, unless nothing would change.

    ``manifest`` is what the build reuses (empty when it is forced), ``known`` the last
    build's manifest whatever the options (what the build wrote, so what it may remove),
    ``state`` the output folder sorted against it, ``taken`` the files of a folder a forced
    build takes over, and ``pagefind`` the version of Pagefind (None: not installed).
    """

    def __init__(
        self,
        found: Content,
        folder: Path,
        manifest: Manifest,
        theme: Theme,
        *,
        label: Callable[[Path], str],
        known: Manifest,
        state: OutputState,
        taken: list[str],
        pagefind: str | None,
        limit: float,
        workers: int | None,
    ) -> None:
        # The page code, loaded only by a build that plans (see modelscape.site.unchanged).
        from modelscape.site.plan import plan

        self.found, self.folder, self.limit, self.requested = found, folder, limit, workers
        self.theme, self.manifest, self.known, self.state = theme, manifest, known, state
        self.taken = taken
        self.hashes = FileHashes(self.manifest.files, label=label)
        manifest.read_summaries(folder)
        self.result = BuildResult(folder, warnings=list(found.warnings))
        self.pagefind = pagefind is not None
        self.plan = plan(
            found, self.theme, self.hashes, self.manifest, pagefind=self.pagefind, workers=workers
        )
        self.jobs, self.summaries = self.plan.jobs, self.plan.summaries
        self.registered, self.damaged = self.plan.registered, self.plan.damaged
        self.result.warnings.extend(self.plan.warnings)
        self.planned = kept_warnings(self.plan.warnings, found.root)
        # The next build may be answered without planning only when the content's listing
        # and the records' input files decide the plan: not when a file elsewhere was read
        # (nor, see build_site, a scenario of another package).
        known_labels = ("content:", "theme:", "modelscape:")
        self.kept = all(key.startswith(known_labels) for key in self.hashes.seen)
        #: The hash of the content's listing and settings (set by build_site), and whether
        #: the next build with nothing changed may answer from the records alone.
        self.listing: str | None = None
        self.quick = False
        #: After :meth:`write`: the manifest's seal, the paths of the site's files, and
        #: those of them the build kept as they were (not written again).
        self.seal: str | None = None
        self.paths: list[str] = []
        self.untouched: list[str] = []

    def unchanged(self, notes: list[str]) -> BuildResult | None:
        """The result of a build that has nothing to write, or None if it has something.

        Nothing to write means: the same listing as the last build's (the settings and the
        versions with it, which decide the site-wide files), every output's record with the
        hash and the inputs the plan gives it, the same input files and caches (else the
        manifest changes), and every output still the file the build wrote, with nothing
        else in the folder.
        """
        manifest, result, plan = self.manifest, self.result, self.plan
        if (
            self.listing is None
            or manifest.listing != self.listing
            or manifest.order != [job.path for job in self.jobs]
            or self.hashes.seen != manifest.files
            or (self.summaries, self.damaged) != (manifest.summaries, manifest.damaged)
            or (plan.mentioned, plan.runs) != (manifest.mentions, manifest.runs)
            or self.planned != manifest.planned
        ):
            return None
        listed: list[str] = []
        for job in self.jobs:
            known = manifest.outputs.get(job.path)
            if known is None or known.digest != job.digest or known.inputs != list(job.inputs):
                return None
            listed.extend([job.path, *known.files])
            result.warnings.extend(read_warnings(known.warnings, self.found.root))
        listed.extend(sorted(set(manifest.outputs) - set(listed)))
        if not self.state.keeps(listed):
            return None
        result.reused.extend(listed)
        result.warnings.extend(read_warnings(manifest.checks, self.found.root))
        result.notes.extend(notes)
        return result

    def write(self, site: StagedFolder, notes: list[str]) -> BuildResult:
        """Make what changed into ``site`` (the output folder, staged)."""
        found, manifest, result, jobs = self.found, self.manifest, self.result, self.jobs
        root = found.root
        manifest.read_pages(self.folder)
        site.create()
        records: dict[str, OutputRecord] = {}
        checked: set[str] = set()  # kept with the links the last build checked
        todo = []
        for number, job in enumerate(jobs):
            known = manifest.outputs.get(job.path)
            # The staged folder keeps only intact files: one that is there is the one written.
            if (
                known is not None
                and known.digest == job.digest
                and all(site.size(p) is not None for p in (job.path, *known.files))
            ):
                known.inputs = list(job.inputs)
                records[job.path] = known
                checked.add(job.path)
                records.update(
                    {p: manifest.outputs.get(p) or OutputRecord(job.digest) for p in known.files}
                )
                result.reused.extend([job.path, *known.files])
                result.warnings.extend(read_warnings(known.warnings, root))
            else:
                todo.append(number)
        # The templates are compiled once, here, so forked workers inherit them.
        _ = self.theme.environment
        result.workers = worker_count(self.requested, len(todo))
        made_records: dict[str, OutputRecord] = {}
        for number, made in make_all(jobs, todo, workers=result.workers):
            job = jobs[number]
            site.write(job.path, made.data)
            for path, full in made.files.items():
                site.write(path, full)
                made_records[path] = OutputRecord(job.digest)
            data = made.data
            links = links_of(data) if isinstance(data, str) and job.path.endswith(".html") else []
            result.warnings.extend(made.warnings)
            met = kept_warnings(list(made.warnings), root)
            made_records[job.path] = OutputRecord(
                job.digest, links, made.title, made.text, met, sorted(made.files)
            )
            made_records[job.path].inputs = list(job.inputs)
            result.rendered.extend([job.path, *sorted(made.files)])
        # Every reader of the records sorts them, so which process made a page does not show.
        records.update(made_records)
        config = found.config
        pages = [p for p in records if p.endswith(".html") and p not in UNLISTED]
        index = f"{ASSETS}/search-index.js"  # modelscape.site.plan.SEARCH_INDEX
        records[index] = _generated(site, index, search_index(records), result)
        if config.base_url is not None:
            records["sitemap.xml"] = _generated(
                site, "sitemap.xml", sitemap(pages, config.base_url), result
            )
        records[".nojekyll"] = _generated(site, ".nojekyll", "", result)
        listing = self.listing
        if self.pagefind:
            made_index = pagefind_outputs(site, records, manifest.outputs, result)
            records.update(made_index)
            if not made_index:  # Pagefind failed: no listing, so the next build plans, finds
                listing = None  # no index among the records, and tries again
        result.notes.extend(notes)
        # Last, once every output is known: the files of outputs the plan no longer has (and
        # an old Pagefind index's chunks) go.
        state = self.state
        for path in sorted(set(self.known.outputs) - set(records)):
            if path in state.changed or (path in state.intact and site.remove(path)):
                result.removed.append(path)
        self._report_folder(records, result)
        _written(site, records)
        changed = set(records).symmetric_difference(manifest.outputs)
        checks = broken_links(records, config.base_path, checked=checked, changed=changed)
        checks.extend(too_large(records, self.limit))
        result.warnings.extend(checks)
        order = [job.path for job in jobs]
        kept = (kept_warnings(checks, root), listing, order, self.planned, self.plan.mentioned)
        saved = Manifest(
            records,
            self.hashes.seen,
            self.summaries,
            self.plan.runs,
            *kept,
            self.damaged,
            self.quick and listing is not None,
        )
        # The summaries are the last build's when every one is the one read (a cached
        # summary is kept as the same object): their file is then not written again.
        old = manifest.summaries
        kept_summaries = self.summaries.keys() == old.keys() and all(
            summary is old[key] for key, summary in self.summaries.items()
        )
        saved.summaries_sha256 = manifest.summaries_sha256
        saved.save(site.folder, summaries_kept=kept_summaries)
        self.seal, self.paths = saved.seal, sorted(records)
        self.untouched = [path for path in self.paths if path in site.kept]
        write_marker(site.folder)
        return result

    def _report_folder(self, records: dict[str, OutputRecord], result: BuildResult) -> None:
        """Say what the build found in the output folder that it did not keep."""
        state, where = self.state, self.folder
        if self.taken:
            result.notes.append(
                f"{where}: --force: the folder was not a modelscape build's; it now holds only "
                f"the site, which replaced its {_files(self.taken)}: {listing(self.taken)}"
            )
            return
        if state.changed:
            message = (
                f"{_files(state.changed)} of the site differed from what the last build wrote "
                f"(changed after it) and were made again: {listing(state.changed)}"
            )
            result.warnings.append(warning_at(where, message))
        if not state.foreign:
            return
        if self.known.seal is None:
            # No trusted manifest: the files of an earlier build cannot be told from others.
            gone = [p for p in state.foreign if p not in records]
            result.notes.append(
                f"{where}: the folder's manifest could not be checked (written by another "
                "version or on another machine, or changed), so every file was made again; "
                f"{_files(gone)} this build did not make again went"
                + (f": {listing(gone)}" if gone else "")
            )
            return
        message = (
            f"{_files(state.foreign)} the build did not write, found in the output folder, "
            f"removed: {listing(state.foreign)} (the folder holds only the site; publish a "
            "file through the content's pages/ folder)"
        )
        result.warnings.append(warning_at(where, message))


def _files(paths: list[str]) -> str:
    return f"{len(paths)} file{'s' if len(paths) != 1 else ''}"


def _written(site: OutputFolder, records: dict[str, OutputRecord]) -> None:
    """Give every record the size and sha256 of its file as it now is in ``site``."""
    for path, record in records.items():
        made = site.written.get(path)
        if made is not None:
            record.size, record.sha256 = made
        elif record.sha256 is None:  # kept without one: its file, read once
            data = site.target(path).read_bytes()
            record.size, record.sha256 = len(data), hashlib.sha256(data).hexdigest()
