"""The site's search indexes: one script with every page's text, and a Pagefind index.

The script (``assets/search-index.js``, made by :func:`~modelscape.site.manifest.search_index`)
works everywhere, ``file://`` included, but every query loads all of it: about 80 kB gzipped
per thousand pages. A Pagefind index (``pagefind/``) splits the words into chunks and each
page's text into a fragment of its own, so a query fetches the search code and the few chunks
and fragments it needs, whatever the size of the site. It is fetched, and a browser refuses
``fetch`` from ``file://``, so the search page uses Pagefind when the site is served over
HTTP(S) and the script otherwise (see ``themes/default/static/search.js``).

Pagefind is optional (``pip install 'modelscape-map[search]'``, which brings the Python API
and the binary it drives). Both indexes hold the same entries: each page's title and the text
the build keeps for search, so a page is found by the same words either way. The entries are
given to Pagefind as records in the order of their paths, which makes its files the same, byte
for byte, for the same pages (Pagefind names them by the hash of their content).
"""

from __future__ import annotations

import asyncio
import tempfile
import threading
from collections.abc import Coroutine, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

from modelscape.site.config import SiteError
from modelscape.site.confine import OutputFolder
from modelscape.site.jobs import BuildResult, digest_of
from modelscape.site.manifest import OutputRecord

__all__ = [
    "PAGEFIND",
    "REQUIREMENT",
    "PagefindError",
    "pagefind_files",
    "pagefind_installed",
    "pagefind_outputs",
]

#: What installs Pagefind (the ``search`` extra of pyproject.toml says the same; a test checks),
#: written into the workflows ``modelscape init`` makes, whose builds publish the index.
REQUIREMENT = "pagefind[bin]>=1.5,<2"
#: The folder of the site that holds the Pagefind index.
PAGEFIND = "pagefind"
#: Pagefind's own search interfaces, which the search page does not use, are not published.
_UNUSED = ("pagefind-ui.", "pagefind-modular-ui.", "pagefind-component-ui.", "pagefind-highlight.")
#: The language the records are indexed in (word stems); the site's pages are in English.
LANGUAGE = "en"


class PagefindError(SiteError):
    """Pagefind was installed but could not make the index (the message says why); the
    build turns it into a warning and keeps the script index."""


def pagefind_installed() -> bool:
    """Whether the Pagefind API and a binary for it are installed."""
    try:
        from pagefind.service import get_executable
    except ImportError:
        return False
    return get_executable() is not None


def pagefind_files(records: Mapping[str, OutputRecord]) -> dict[str, bytes]:
    """The files of a Pagefind index of every searchable page, by site path under
    ``pagefind/``; :class:`PagefindError` if Pagefind could not make them."""
    entries = [
        (path, record.title, record.text)
        for path, record in sorted(records.items())
        if record.title is not None
    ]
    with tempfile.TemporaryDirectory(prefix="modelscape-pagefind-") as folder:
        try:
            _run(_write_index(entries, Path(folder)))
        except Exception as error:  # the binary's errors come in many kinds; all end here
            raise PagefindError(f"{type(error).__name__}: {error}") from None
        found = {}
        for path in sorted(Path(folder).rglob("*")):
            name = path.relative_to(folder).as_posix()
            if path.is_file() and not name.startswith(_UNUSED):
                found[f"{PAGEFIND}/{name}"] = path.read_bytes()
    if not any(name.endswith("pagefind-entry.json") for name in found):
        raise PagefindError("it wrote no pagefind-entry.json")
    return found


async def _write_index(entries: list[tuple[str, str, str]], folder: Path) -> None:
    from pagefind.index import PagefindIndex

    # Written by the service to a folder of ours, not returned through its pipe: the whole
    # index in one message can outgrow the pipe's buffer (Pagefind's documentation warns).
    async with PagefindIndex(config={"force_language": LANGUAGE}) as index:
        for url, title, text in entries:
            # One at a time, in path order: the index is then the same for the same pages.
            await index.add_custom_record(
                url=url, content=text or title, language=LANGUAGE, meta={"title": title}
            )
        await index.write_files(output_path=str(folder))
        # Leaving the block writes the files again (Pagefind's API does); the same files.


def _run(work: Coroutine[Any, Any, None]) -> None:
    """Run ``work`` to the end, in a thread of its own when this one runs an event loop
    already (a build started from async code or a notebook)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(work)
        return
    failure: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(work)
        except BaseException as error:
            failure.append(error)

    thread = threading.Thread(target=run, name="modelscape-pagefind")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]


def _version() -> str:
    try:
        return metadata.version("pagefind_bin")
    except metadata.PackageNotFoundError:  # a binary from PATH or PAGEFIND_BINARY_PATH
        return "external"


def pagefind_outputs(
    site: OutputFolder,
    pages: Mapping[str, OutputRecord],
    known: Mapping[str, OutputRecord],
    result: BuildResult,
) -> dict[str, OutputRecord]:
    """Write the Pagefind index of ``pages`` into ``site`` and return its files' records.

    The index is made again only when a page's search entry changed (or Pagefind did): its
    files' records carry the hash of every entry, as ``known`` (the last build's) shows.
    If Pagefind fails, the build warns and the search page falls back on the script index.
    """
    entries = [(p, r.title, r.text) for p, r in sorted(pages.items()) if r.title is not None]
    digest = digest_of(_version(), entries)
    old = sorted(p for p in known if p.startswith(f"{PAGEFIND}/"))
    if old and all(known[p].digest == digest and site.size(p) is not None for p in old):
        result.reused.extend(old)
        return {path: OutputRecord(digest) for path in old}
    try:
        files = pagefind_files(pages)
    except PagefindError as error:
        result.warnings.append(
            f"{PAGEFIND}/: the Pagefind index could not be made ({error}); the search page "
            "uses the single-script index"
        )
        return {}
    for path, data in files.items():
        try:
            same = output_bytes(site, path) == data
        except OSError:
            same = False
        (result.reused if same else result.rendered).append(path)
        if not same:
            site.write(path, data)
    return {path: OutputRecord(digest) for path in files}


def output_bytes(site: OutputFolder, path: str) -> bytes:
    """The bytes of a file of the site (OSError if it cannot be read)."""
    try:
        return site.target(path).read_bytes()
    except ValueError as error:  # a path the output folder refuses
        raise OSError(str(error)) from None
