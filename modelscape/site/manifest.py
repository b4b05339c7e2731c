"""The build manifest, and the site-wide files made from it: search index, sitemap, link check.

The manifest (``.modelscape-manifest.json`` in the output folder) maps each output file to the
hash of everything it was made from (its input files, the theme, the site settings and the
modelscape version). A rebuild renders only the outputs whose hash changed. Each page's links
and search entry are kept beside it, in ``.modelscape-pages.json``, so that the search index,
the sitemap and the link check cover every page without reading any page back; that file is
read only by a build that has something to write, since a rebuild with nothing changed needs
none of it.
The manifest also keeps the hash of every input file by size and modification time, a summary
of each report by the hash of its file, and the key of the whole site with the warnings of its
site-wide checks, so a rebuild with nothing changed reads almost nothing and writes nothing.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import modelscape
from modelscape import __version__
from modelscape.site.confine import site_path

__all__ = [
    "MANIFEST",
    "PAGES",
    "Manifest",
    "OutputRecord",
    "broken_links",
    "links_of",
    "portable",
    "restored",
    "search_index",
    "sitemap",
]

#: The manifest's file name inside the output folder.
MANIFEST = ".modelscape-manifest.json"
#: The file beside it with each page's links and search entry.
PAGES = ".modelscape-pages.json"
#: 2: run summaries keep undefined quantities and are keyed by report and store.
#: 3: links and search entries in PAGES; the site's key and the warnings of its checks.
#: 4: sealed; the hash of the plan's inputs, the plan's order and warnings (a rebuild with
#: nothing changed answered without a plan, see modelscape.site.unchanged).
_FORMAT = 4
#: The end of a manifest: the sha256 of everything before it (see :meth:`Manifest.save`).
_SEAL = re.compile(rb',"seal":"([0-9a-f]{64})"}')
_SEAL_LENGTH = 75
KEYS = ("outputs", "files", "summaries")
_LINK = re.compile(r"""\s(?:href|src)="([^"]*)\"""")


@dataclass
class OutputRecord:
    """One output file: its input hash, the site paths it links to, its search entry, the
    warnings met while making it (repeated by every build that reuses it), and the files
    made with it (the full text of long outputs beside a report page)."""

    digest: str
    links: list[str] = field(default_factory=list)
    title: str | None = None
    text: str = ""
    warnings: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    def data(self) -> dict[str, Any]:
        """The record as the manifest keeps it (its links and search entry are in
        :meth:`page_data`)."""
        entry: dict[str, Any] = {"digest": self.digest}
        if self.warnings:
            entry["warnings"] = self.warnings
        if self.files:
            entry["files"] = self.files
        return entry

    def page_data(self) -> dict[str, Any] | None:
        """The record's links and search entry as JSON data, or None if it has neither."""
        entry: dict[str, Any] = {}
        if self.links:
            entry["links"] = self.links
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
        warnings, files = entry.get("warnings"), entry.get("files")
        record = cls(
            entry["digest"],
            warnings=[] if warnings is None else _texts(warnings),
            files=[] if files is None else _texts(files),
        )
        if files is not None and any(site_path(path) is None for path in record.files):
            raise ValueError("a file outside the output folder")
        return record

    def add_page(self, entry: object) -> None:
        """Add the links and search entry kept in the pages file; ValueError if malformed."""
        if not isinstance(entry, dict):
            raise ValueError("a page entry that is not an object")
        title = entry.get("title")
        self.links = _texts(entry.get("links", []))
        self.title = title if isinstance(title, str) else None
        self.text = str(entry.get("text", ""))


def _texts(value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError("expected a list of texts")
    return list(value)


@dataclass
class Manifest:
    """What the last build made, and the caches a rebuild starts from.

    ``key`` is the hash of the whole site as the last build planned it (every output with its
    hash, and what decides the site-wide files), and ``checks`` the warnings its site-wide
    checks gave (broken links, files too large): a build whose plan has the same key, and
    whose files are all there, has nothing to make and repeats those warnings.

    ``inputs`` is the hash of what the plan read besides its input files (None when the
    plan depended on something else too), ``order`` the plan's outputs in its order and
    ``planned`` the warnings the plan met: with them a rebuild with nothing changed gives the
    same result without planning (see :mod:`modelscape.site.unchanged`).
    """

    outputs: dict[str, OutputRecord] = field(default_factory=dict)
    files: dict[str, list[object]] = field(default_factory=dict)
    summaries: dict[str, dict[str, Any]] = field(default_factory=dict)
    key: str | None = None
    checks: list[str] = field(default_factory=list)
    inputs: str | None = None
    order: list[str] = field(default_factory=list)
    planned: list[str] = field(default_factory=list)
    #: Whether each markdown page may embed results, by the hash of its file.
    mentions: dict[str, bool] = field(default_factory=dict)

    @classmethod
    def load(cls, folder: Path) -> Manifest:
        """The manifest of an output folder; empty if missing, unreadable, corrupt, or from
        another modelscape version (then everything is rendered again).

        The manifest sits in the output folder, which a build does not trust more than its
        content: a manifest naming a path outside the folder (``../x``, ``/etc/x``) is
        corrupt, so nothing it lists is ever removed. One whose seal is not the hash of its
        text (edited by hand, damaged, cut short) is not read at all: what it keeps decides
        which pages are made again, so no part of it is trusted alone.
        """
        try:
            text = (folder / MANIFEST).read_bytes()
            body, end = text[:-_SEAL_LENGTH], text[-_SEAL_LENGTH:]
            sealed = _SEAL.fullmatch(end)
            if sealed is None or hashlib.sha256(body).hexdigest() != sealed.group(1).decode():
                return cls()
            data = json.loads(body + b"}")
        except (OSError, ValueError, RecursionError):
            return cls()
        if not isinstance(data, dict):
            return cls()
        if data.get("format") != _FORMAT or data.get("modelscape") != __version__:
            return cls()
        try:
            outputs_data, files, summaries = (data.get(k, {}) for k in KEYS)
            if not all(isinstance(part, dict) for part in (outputs_data, files, summaries)):
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
            site_key, checks = data.get("key"), _texts(data.get("checks", []))
            order, planned = _texts(data.get("order", [])), _texts(data.get("planned", []))
            inputs = data.get("inputs")
            mentions = data.get("mentions", {})
            if not isinstance(mentions, dict) or not all(
                isinstance(value, bool) for value in mentions.values()
            ):
                raise ValueError("a page's answer that is not true or false")
        except ValueError:
            return cls()
        site_key = site_key if isinstance(site_key, str) else None
        inputs = inputs if isinstance(inputs, str) else None
        kept = (site_key, checks, inputs, order, planned, mentions)
        return cls(outputs, dict(files), dict(summaries), *kept)

    def read_pages(self, folder: Path) -> None:
        """Add every output's links and search entry from the pages file beside the manifest.

        The file must have been written with this manifest (the same key): otherwise, or if
        it is missing or corrupt, the outputs are forgotten, and every page is made again.
        """
        try:
            data = json.loads((folder / PAGES).read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("key") != self.key or self.key is None:
                raise ValueError("a pages file of another build")
            pages = data.get("pages")
            if not isinstance(pages, dict):
                raise ValueError("not a pages file")
            for path, entry in pages.items():
                if path in self.outputs:
                    self.outputs[path].add_page(entry)
        except (OSError, ValueError, RecursionError):
            self.outputs = {}

    def save(self, folder: Path) -> None:
        """Write the manifest and the pages file (each atomically: a crash leaves the old one
        or the new one; the build's staging makes the pair one change)."""
        outputs = sorted(self.outputs.items())
        pages = {path: data for path, record in outputs if (data := record.page_data())}
        _write(folder / PAGES, {"format": _FORMAT, "key": self.key, "pages": pages})
        data = {
            "format": _FORMAT,
            "modelscape": __version__,
            "key": self.key,
            "checks": self.checks,
            "outputs": {path: record.data() for path, record in outputs},
            "files": self.files,
            "summaries": self.summaries,
            "inputs": self.inputs,
            "order": self.order,
            "planned": self.planned,
            "mentions": self.mentions,
        }
        # The seal, last: the sha256 of the text before it, so the manifest stays one JSON
        # object and its reader checks it without writing the data out again.
        body = json.dumps(data, separators=(",", ":")).encode("utf-8")[:-1]
        seal = hashlib.sha256(body).hexdigest()
        _write(folder / MANIFEST, body + f',"seal":"{seal}"}}'.encode())


def _write(path: Path, data: dict[str, Any] | bytes) -> None:
    """Write JSON data (or its text) to ``path`` through a temporary file moved into its
    place."""
    temporary = path.with_name(path.name + ".tmp")
    # Never write through a link (or a file hard-linked with the published site) left in
    # the output folder: start from no file at all.
    if temporary.is_symlink() or temporary.exists():
        temporary.unlink()
    if not isinstance(data, bytes):
        data = json.dumps(data, separators=(",", ":")).encode("utf-8")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def links_of(page: str) -> list[str]:
    """Every ``href`` and ``src`` of an HTML page, in order, each once."""
    return list(dict.fromkeys(html.unescape(link) for link in _LINK.findall(page)))


def _resolve(page: str, link: str, base_path: str) -> str | None:
    """The site path a link of ``page`` points to, or None if it leaves the site."""
    parts = urlsplit(link)
    if parts.scheme or parts.netloc or not parts.path:
        return None  # another site, mailto:, data:, or a fragment of this page
    path = unquote(parts.path)
    if path.startswith("/"):
        if not path.startswith(base_path):
            return "\0" + path  # an absolute path outside the site: always broken
        path = path[len(base_path) :]
    else:
        path = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
    if path == "." or path.endswith("/"):
        path = posixpath.join(path, "index.html")
    return path


def broken_links(outputs: dict[str, OutputRecord], base_path: str) -> list[str]:
    """Warnings for links of any output that point at no file of the site."""
    warnings = []
    for page, record in sorted(outputs.items()):
        for link in record.links:
            target = _resolve(page, link, base_path)
            if target is not None and target not in outputs:
                warnings.append(f"{page}: broken link {link!r} (no {target.lstrip(chr(0))})")
    return warnings


def search_index(outputs: dict[str, OutputRecord]) -> str:
    """The search index as a script that sets ``window.MODELSCAPE_SEARCH``.

    A script rather than JSON, so the search page loads it with ``<script src>``, which works
    from ``file://`` where ``fetch`` of a local JSON file is refused.
    """
    pages = [
        {"url": path, "title": record.title, "text": record.text}
        for path, record in sorted(outputs.items())
        if record.title is not None
    ]
    text = json.dumps({"pages": pages}, ensure_ascii=False, separators=(",", ":"))
    # The JSON sits in a script file, not in HTML, but "</" is still escaped so that nothing in
    # it could ever end a script element if the index were inlined.
    return "window.MODELSCAPE_SEARCH = " + text.replace("</", "<\\/") + ";\n"


def sitemap(paths: list[str], base_url: str) -> str:
    """``sitemap.xml`` of the given pages, each at its absolute address under ``base_url``.

    Crawlers ignore relative locations, so a site without a public address has no sitemap
    (the build leaves it out and says so).
    """

    def location(path: str) -> str:
        return base_url + ("" if path == "index.html" else path)

    entries = "".join(
        f"  <url><loc>{html.escape(location(p))}</loc></url>\n" for p in sorted(paths)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"{entries}</urlset>\n"
    )


def _local(root: Path) -> list[tuple[str, str]]:
    """Absolute local paths that warnings may hold, with the token the manifest keeps instead."""
    pairs = {
        str(path): token
        for token, base in (("<content>", root), ("<modelscape>", Path(modelscape.__file__).parent))
        for path in (base.absolute(), base.resolve())
    }
    return sorted(pairs.items(), key=lambda pair: -len(pair[0]))


def portable(warnings: list[str], root: Path) -> list[str]:
    """Warnings with the content folder's absolute path replaced by a token, for the manifest."""
    pairs = _local(root)
    out = []
    for warning in warnings:
        for path, token in pairs:
            warning = warning.replace(path, token)
        out.append(warning)
    return out


def restored(warnings: list[str], root: Path) -> list[str]:
    """Warnings read back from the manifest, with the content folder's path as given."""
    shown = {"<content>": str(root), "<modelscape>": str(Path(modelscape.__file__).parent)}
    out = []
    for warning in warnings:
        for token, path in shown.items():
            warning = warning.replace(token, path)
        out.append(warning)
    return out
