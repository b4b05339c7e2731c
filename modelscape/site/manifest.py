"""The build manifest: what the last build made, from what, and the caches a rebuild starts from.

The manifest (``.modelscape-manifest.json`` in the output folder) is one record per output
file: the hash of everything it was made from (its input files, the theme, the site settings
and the modelscape version), the input files that hash read (their labels, see
:class:`~modelscape.site.jobs.FileHashes`), and the size and sha256 of the file as the build
wrote it. These records are the build's one cache: a rebuild renders only the outputs whose
hash changed, keeps an output only while its file is still the one written (see
:mod:`modelscape.site.ownership`), and knows that nothing changed when the content's listing
is the same and every input of every record has its size and time (see
:mod:`modelscape.site.unchanged`). Each page's links and search entry
are kept beside it, in ``.modelscape-pages.json`` (whose sha256 the manifest holds), so that
the search index, the sitemap and the link check (:mod:`modelscape.site.sitewide`) cover
every page without reading any page back; that file is read only by a build that has
something to write, since a rebuild with nothing changed needs none of it.
The records' input files are listed once, in a table of their size, modification time and
hash (a file many pages read, such as a run's report, is looked at once); the manifest also
keeps a summary of each report by the hash of its file, the hash of the content's listing and
settings, and the warnings of the site-wide checks, so a rebuild with nothing changed reads
almost nothing and writes nothing.
It is sealed with a key kept outside the output folder (:mod:`modelscape.site.seal`).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from modelscape import __version__
from modelscape.site.confine import replace_file, site_path
from modelscape.site.seal import seal_of, sealed_body, signed
from modelscape.site.warning import BuildWarning, restored, stored

__all__ = [
    "MANIFEST",
    "PAGES",
    "SUMMARIES",
    "Manifest",
    "OutputRecord",
    "kept_warnings",
    "read_warnings",
]

#: The manifest's file name inside the output folder.
MANIFEST = ".modelscape-manifest.json"
#: The file beside it with each page's links and search entry.
PAGES = ".modelscape-pages.json"
#: The file beside it with the run summaries (read only by a build that plans, and written
#: only when a summary changed: at ten thousand pages they are most of the manifest's bytes).
SUMMARIES = ".modelscape-summaries.json"
#: 2: run summaries keep undefined quantities and are keyed by report and store.
#: 3: links and search entries in PAGES; the site's key and the warnings of its checks.
#: 4: sealed; the hash of the plan's inputs, the plan's order and warnings (a rebuild with
#: nothing changed answered without a plan, see modelscape.site.unchanged).
#: 5: sealed with a key kept outside the output folder; each output's size and sha256; the
#: pages file's sha256; the pages skipped as damaged.
#: 6: warnings kept as path, line and message, the path relative to the content folder.
#: 7: one cache layer: each output's record lists its input files; no key of the whole site
#: (the hash of the content's listing, ``listing``, is what the records do not hold); the
#: run summaries in SUMMARIES.
_FORMAT = 7
KEYS = ("outputs", "files")
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass
class OutputRecord:
    """One output file: its input hash, the site paths it links to, its search entry, the
    warnings met while making it (repeated by every build that reuses it), the files made
    with it (the full text of long outputs beside a report page), and the size and sha256 of
    the file as the build wrote it (None until it is written), and the labels of the input
    files its hash was made from (none for a file made from the whole site). Warnings are
    kept as :func:`~modelscape.site.warning.stored` gives them (see :func:`read_warnings`)."""

    digest: str
    links: list[str] = field(default_factory=list)
    title: str | None = None
    text: str = ""
    warnings: list[dict[str, Any]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    size: int | None = None
    sha256: str | None = None
    inputs: list[str] = field(default_factory=list)
    #: The links of the page that pointed at no file of the site (kept with its links).
    broken: list[str] = field(default_factory=list)

    def data(self) -> dict[str, Any]:
        """The record as the manifest keeps it (its links and search entry are in
        :meth:`page_data`)."""
        entry: dict[str, Any] = {"digest": self.digest}
        if self.size is not None and self.sha256 is not None:
            entry["size"], entry["sha256"] = self.size, self.sha256
        if self.warnings:
            entry["warnings"] = self.warnings
        if self.files:
            entry["files"] = self.files
        if self.inputs:
            entry["inputs"] = self.inputs
        return entry

    def page_data(self) -> dict[str, Any] | None:
        """The record's links and search entry as JSON data, or None if it has neither."""
        entry: dict[str, Any] = {}
        if self.links:
            entry["links"] = self.links
        if self.broken:
            entry["broken"] = self.broken
        if self.title is not None:
            entry["title"] = self.title
            entry["text"] = self.text
        return entry or None

    @classmethod
    def read(cls, entry: object) -> OutputRecord:
        """A record from the manifest's data; ValueError if it is not one this build wrote."""
        if not isinstance(entry, dict) or not isinstance(entry.get("digest"), str):
            raise ValueError("an output without its digest")
        # Most outputs have neither warnings nor files: nothing to check then.
        warnings, files, inputs = (entry.get(key) for key in ("warnings", "files", "inputs"))
        record = cls(
            entry["digest"],
            warnings=[] if warnings is None else _warnings(warnings),
            files=[] if files is None else _texts(files),
            inputs=[] if inputs is None else _texts(inputs),
        )
        if files is not None and any(site_path(path) is None for path in record.files):
            raise ValueError("a file outside the output folder")
        size, sha256 = entry.get("size"), entry.get("sha256")
        if isinstance(size, int) and size >= 0 and isinstance(sha256, str):
            valid = _SHA256.fullmatch(sha256) is not None
            record.size, record.sha256 = (size, sha256) if valid else (None, None)
        return record

    def add_page(self, entry: object) -> None:
        """Add the links and search entry kept in the pages file; ValueError if malformed."""
        if not isinstance(entry, dict):
            raise ValueError("a page entry that is not an object")
        title = entry.get("title")
        self.links = _texts(entry.get("links", []))
        self.broken = _texts(entry.get("broken", []))
        self.title = title if isinstance(title, str) else None
        self.text = str(entry.get("text", ""))


def _warnings(value: object) -> list[dict[str, Any]]:
    """Stored warnings, checked: each must read back as a warning."""
    if not isinstance(value, list):
        raise ValueError("expected a list of warnings")
    for entry in value:
        restored(entry, Path())
    return list(value)


def kept_warnings(warnings: list[BuildWarning], root: Path) -> list[dict[str, Any]]:
    """Warnings as the manifest keeps them (their paths relative to the content folder)."""
    return [stored(warning, root) for warning in warnings]


def read_warnings(entries: list[dict[str, Any]], root: Path) -> list[BuildWarning]:
    """Warnings the manifest kept, their paths under the content folder ``root``."""
    return [restored(entry, root) for entry in entries]


def _texts(value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError("expected a list of texts")
    return list(value)


@dataclass
class Manifest:
    """What the last build made, and the caches a rebuild starts from.

    ``outputs`` are the records, ``files`` the table of their input files (by label: size,
    modification time, hash) and ``runs`` the labels that an input named
    :data:`~modelscape.site.jobs.RUNS` stands for. ``checks`` are the warnings the site-wide
    checks gave (broken links, files too large), which a build with nothing to write repeats.

    ``listing`` is the hash of what the plan read besides its input files: the content's
    listing, the settings and the versions (None when the build is not to be taken as
    complete: its Pagefind index failed); ``order`` the plan's outputs in its order and
    ``planned`` the warnings the plan met. With them, and ``quick`` (the plan depended on
    nothing but the listing and the records' inputs), a rebuild with nothing changed gives
    the same result without planning (see :mod:`modelscape.site.unchanged`).
    """

    outputs: dict[str, OutputRecord] = field(default_factory=dict)
    files: dict[str, list[object]] = field(default_factory=dict)
    summaries: dict[str, dict[str, Any]] = field(default_factory=dict)
    runs: list[str] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)
    listing: str | None = None
    order: list[str] = field(default_factory=list)
    planned: list[dict[str, Any]] = field(default_factory=list)
    #: Whether each markdown page may embed results, by the hash of its file.
    mentions: dict[str, bool] = field(default_factory=dict)
    #: Markdown pages skipped as damaged, by the hash of their file: where the damage is.
    damaged: dict[str, str] = field(default_factory=dict)
    quick: bool = False
    #: The seal the manifest was written or read with (what the marker is bound to), and
    #: the sha256 of the pages file written with it; both set by :meth:`save` and
    #: :meth:`load`.
    seal: str | None = field(default=None, compare=False)
    pages_sha256: str | None = field(default=None, compare=False)
    #: The sha256 of the summaries file (``summaries`` are read from it by
    #: :meth:`read_summaries`, not by :meth:`load`).
    summaries_sha256: str | None = field(default=None, compare=False)

    @classmethod
    def load(cls, folder: Path) -> Manifest:
        """The manifest of an output folder; empty if missing, unreadable, corrupt, or from
        another modelscape version (then everything is rendered again).

        The manifest sits in the output folder, which a build does not trust more than its
        content: a manifest naming a path outside the folder (``../x``, ``/etc/x``) is
        corrupt, so nothing it lists is ever removed. One whose seal is not the one the
        build's key gives (edited by hand or by anyone who can write the folder, damaged, cut
        short, written on another machine) is not read at all: what it keeps decides which
        pages are made again and which files are kept, so no part of it is trusted alone.
        """
        try:
            text = (folder / MANIFEST).read_bytes()
            body = sealed_body(text)
            if body is None:
                return cls()
            data = json.loads(body)
        except (OSError, ValueError, RecursionError):
            return cls()
        if not isinstance(data, dict):
            return cls()
        if data.get("format") != _FORMAT or data.get("modelscape") != __version__:
            return cls()
        try:
            outputs_data, files = (data.get(k, {}) for k in KEYS)
            if not all(isinstance(part, dict) for part in (outputs_data, files)):
                raise ValueError("not a manifest")
            outputs = {}
            for path, entry in outputs_data.items():
                if site_path(path) is None:
                    raise ValueError(f"an output outside the output folder: {path!r}")
                outputs[path] = OutputRecord.read(entry)
            for key, known in files.items():
                valid = isinstance(known, list) and len(known) == 3
                if not valid or not all(isinstance(part, int | str) for part in known):
                    raise ValueError(f"a file hash that is not [size, time, digest]: {key!r}")
            runs, checks = _texts(data.get("runs", [])), _warnings(data.get("checks", []))
            order, planned = _texts(data.get("order", [])), _warnings(data.get("planned", []))
            listing, pages, quick = data.get("listing"), data.get("pages"), data.get("quick")
            summaries = data.get("summaries")
            mentions, damaged = data.get("mentions", {}), data.get("damaged", {})
            if not isinstance(mentions, dict) or not all(
                isinstance(value, bool) for value in mentions.values()
            ):
                raise ValueError("a page's answer that is not true or false")
            if not isinstance(damaged, dict) or not all(
                isinstance(value, str) for value in damaged.values()
            ):
                raise ValueError("a damaged page's place that is not text")
        except ValueError:
            return cls()
        listing = listing if isinstance(listing, str) else None
        kept = (runs, checks, listing, order, planned, mentions, damaged)
        manifest = cls(outputs, dict(files), {}, *kept, quick is True)
        manifest.seal = seal_of(text)
        manifest.summaries_sha256 = summaries if isinstance(summaries, str) else None
        manifest.pages_sha256 = pages if isinstance(pages, str) else None
        return manifest

    def read_pages(self, folder: Path) -> None:
        """Add every output's links and search entry from the pages file beside the manifest.

        The file must be the one written with this manifest (its sha256 is the one the
        manifest keeps): otherwise, or if it is missing or corrupt, the outputs are
        forgotten, and every page is made again.
        """
        try:
            text = (folder / PAGES).read_bytes()
            if self.pages_sha256 is None or hashlib.sha256(text).hexdigest() != self.pages_sha256:
                raise ValueError("a pages file of another build")
            data = json.loads(text)
            if not isinstance(data, dict):
                raise ValueError("not a pages file")
            pages = data.get("pages")
            if not isinstance(pages, dict):
                raise ValueError("not a pages file")
            for path, entry in pages.items():
                if path in self.outputs:
                    self.outputs[path].add_page(entry)
        except (OSError, ValueError, RecursionError):
            self.outputs = {}

    def read_summaries(self, folder: Path) -> None:
        """Read the run summaries from the summaries file beside the manifest, if it is the
        one written with it (its sha256 is the one the manifest keeps); else none."""
        self.summaries = {}
        try:
            text = (folder / SUMMARIES).read_bytes()
            if self.summaries_sha256 != hashlib.sha256(text).hexdigest():
                return
            data = json.loads(text)
        except (OSError, ValueError, RecursionError):
            return
        found = data.get("summaries") if isinstance(data, dict) else None
        if isinstance(found, dict) and all(isinstance(value, dict) for value in found.values()):
            self.summaries = found

    def save(self, folder: Path, *, summaries_kept: bool = False) -> None:
        """Write the manifest, the pages file and the summaries file (each atomically: a
        crash leaves the old one or the new one). With ``summaries_kept``, the summaries
        file is the one already in the output folder (``summaries_sha256``), not written."""
        if not summaries_kept or self.summaries_sha256 is None:
            listed = {"format": _FORMAT, "summaries": self.summaries}
            encoded = json.dumps(listed, separators=(",", ":")).encode()
            written = replace_file(folder / SUMMARIES, encoded)
            self.summaries_sha256 = hashlib.sha256(written).hexdigest()
        outputs = sorted(self.outputs.items())
        pages = {path: data for path, record in outputs if (data := record.page_data())}
        listed = {"format": _FORMAT, "pages": pages}
        written = replace_file(folder / PAGES, json.dumps(listed, separators=(",", ":")).encode())
        self.pages_sha256 = hashlib.sha256(written).hexdigest()
        data = {
            "format": _FORMAT,
            "modelscape": __version__,
            "checks": self.checks,
            "outputs": {path: record.data() for path, record in outputs},
            "files": self.files,
            "runs": self.runs,
            "summaries": self.summaries_sha256,
            "listing": self.listing,
            "quick": self.quick,
            "order": self.order,
            "planned": self.planned,
            "mentions": self.mentions,
            "damaged": self.damaged,
            "pages": self.pages_sha256,
        }
        # The seal, last, so the manifest stays one JSON object and its reader checks it
        # without writing the data out again.
        body = json.dumps(data, separators=(",", ":")).encode()[:-1]
        text = replace_file(folder / MANIFEST, signed(body))
        self.seal = seal_of(text)
