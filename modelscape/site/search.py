"""The site's search indexes: one script with every page's text, and a Pagefind index.

The script (``assets/search-index.js``, made by :func:`~modelscape.site.manifest.search_index`)
works everywhere, ``file://`` included, but every query loads all of it: about 80 kB gzipped
per thousand pages. A Pagefind index (``pagefind/``) splits the words into chunks and each
page's text into a fragment of its own, so a query fetches the search code and the few chunks
and fragments it needs, whatever the size of the site. It is fetched, and a browser refuses
``fetch`` from ``file://``, so the search page uses Pagefind when the site is served over
HTTP(S) and the script otherwise (see ``themes/default/static/search.js``).

Pagefind is optional (``pip install 'modelscape-map[search]'``, which brings its Python
package and the binary, spoken to here in its service mode). Both indexes hold the same
entries: each page's title and the text the build keeps for search, so a page is found by the
same words either way. The entries are given to Pagefind as records in the order of their
paths, which makes its files the same, byte for byte, for the same pages (Pagefind names them
by the hash of their content).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import select
import subprocess
import threading
import time
from collections.abc import Mapping
from importlib import metadata
from typing import Any

from modelscape.site.config import SiteError
from modelscape.site.confine import OutputFolder, site_path
from modelscape.site.jobs import BuildResult, digest_of
from modelscape.site.manifest import OutputRecord
from modelscape.site.warning import BuildWarning

__all__ = [
    "PAGEFIND",
    "REQUIREMENT",
    "PagefindError",
    "pagefind_files",
    "pagefind_installed",
    "pagefind_outputs",
    "pagefind_version",
]

#: What installs Pagefind (the ``search`` extra of pyproject.toml says the same; a test checks),
#: written into the workflows ``modelscape init`` makes, whose builds publish the index.
REQUIREMENT = "pagefind[bin]>=1.5,<2"
#: The folder of the site that holds the Pagefind index.
PAGEFIND = "pagefind"
#: Pagefind's own search interfaces, which the search page does not use, are not published.
_UNUSED = ("pagefind-ui.", "pagefind-modular-ui.", "pagefind-component-ui.", "pagefind-highlight.")
#: How long the service may take to end once it has been told everything (it writes then).
_EXIT_SECONDS = 600
#: How long a batch of messages may wait for its answers: a service that hangs on some page's
#: text is stopped and named, not waited for forever.
_ANSWER_SECONDS = 600
#: Messages sent to Pagefind before their answers are read (their answers fit in a pipe).
_BATCH = 64
#: The language the records are indexed in (word stems); the site's pages are in English.
LANGUAGE = "en"


class PagefindError(SiteError):
    """Pagefind was installed but could not make the index (the message says why); the
    build turns it into a warning and keeps the script index."""


def _binary() -> str | None:
    """The Pagefind binary the ``pagefind`` package finds (its wheel's, else PATH's)."""
    try:
        from pagefind.service import get_executable
    except ImportError:
        return None
    found = get_executable()
    return None if found is None else str(found)


def pagefind_installed() -> bool:
    """Whether the Pagefind API and a binary for it are installed."""
    return _binary() is not None


def pagefind_files(records: Mapping[str, OutputRecord]) -> dict[str, bytes]:
    """The files of a Pagefind index of every searchable page, by site path under
    ``pagefind/``; :class:`PagefindError` if Pagefind could not make them."""
    binary = _binary()
    if binary is None:
        raise PagefindError("the pagefind binary is not installed")
    entries = [
        (path, record.title, record.text)
        for path, record in sorted(records.items())
        if record.title is not None
    ]
    with _Service(binary) as service:
        index = service.ask({"type": "NewIndex", "config": {"force_language": LANGUAGE}})
        number = index.get("index_id")
        # In path order (the index is then the same for the same pages), a batch at a time.
        additions = [
            {
                "type": "AddRecord",
                "index_id": number,
                "url": url,
                "content": text or title,
                "language": LANGUAGE,
                "meta": {"title": title},
                "filters": None,
                "sort": None,
            }
            for url, title, text in entries
        ]
        for start in range(0, len(additions), _BATCH):
            service.ask_all(additions[start : start + _BATCH])
        # The files come back in the answer, whole: a folder the service writes to could be
        # read before it has finished writing (an empty file was seen under load).
        answer = service.ask({"type": "GetFiles", "index_id": number})
    found = {}
    try:
        for file in answer["files"]:
            name = str(file["path"]).lstrip("/")
            if not name.startswith(_UNUSED):
                found[f"{PAGEFIND}/{name}"] = base64.b64decode(file["content"])
    except (KeyError, TypeError, ValueError) as error:
        raise PagefindError(f"its files are not in the form expected: {error}") from None
    if any(site_path(path) is None for path in found):
        raise PagefindError("it named a file outside its folder")
    found = dict(sorted(found.items()))
    if not found.get(f"{PAGEFIND}/pagefind-entry.json"):
        raise PagefindError("it wrote no pagefind-entry.json")
    return found


class _Service:
    """Pagefind's service mode (``pagefind --service``), spoken to directly: each message is
    base64 of its JSON followed by a comma, answered the same way.

    The ``pagefind`` package's own client polls for each answer every tenth of a second,
    which makes ten thousand pages a quarter of an hour; a blocking read answers at once.
    Messages go a batch at a time, the batch's answers read before the next is sent, so
    neither pipe can fill up while the other side waits.
    """

    def __init__(self, binary: str) -> None:
        self.binary = binary
        self.messages = 0
        #: Bytes read from the service that do not make a whole answer yet.
        self.pending = bytearray()

    def __enter__(self) -> _Service:
        try:
            self.process = subprocess.Popen(
                [self.binary, "--service"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError as error:
            raise PagefindError(f"{self.binary} could not start: {error}") from None
        return self

    def __exit__(self, *exception: object) -> None:
        assert self.process.stdin is not None
        # A service that died leaves a pipe nobody reads: there is nothing to flush to.
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        # The service may still be writing the index when it answers: it is read only once
        # the process has ended, and a service that does not end is a failure, not a result.
        try:
            self.process.wait(timeout=_EXIT_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            if exception[0] is None:
                raise PagefindError(
                    f"the pagefind service did not end within {_EXIT_SECONDS} s"
                ) from None
        finally:
            if self.process.stdout is not None:
                self.process.stdout.close()

    def ask(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Send one message and return the payload of its answer."""
        return self.ask_all([payload])[0]

    def ask_all(self, payloads: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Send a batch of messages, then read their answers, in order.

        A batch is small enough that its answers (a few hundred bytes each) fit in the
        pipe: the service never waits for us to read while we wait for it to read.
        """
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        deadline = time.monotonic() + _ANSWER_SECONDS
        # A service that stops reading would block the write below: stopping it ends the write.
        watchdog = threading.Timer(_ANSWER_SECONDS, self.process.kill)
        watchdog.start()
        try:
            return self._exchange(payloads, deadline)
        finally:
            watchdog.cancel()

    def _exchange(self, payloads: list[dict[str, Any]], deadline: float) -> list[dict[str, Any]]:
        assert self.process.stdin is not None
        sent = []
        for payload in payloads:
            self.messages += 1
            sent.append(self.messages)
            message = json.dumps({"message_id": self.messages, "payload": payload})
            try:
                self.process.stdin.write(base64.b64encode(message.encode("utf-8")) + b",")
            except OSError as error:
                raise PagefindError(f"the pagefind service stopped: {error}") from None
        try:
            self.process.stdin.flush()
        except OSError as error:
            raise PagefindError(f"the pagefind service stopped: {error}") from None
        answers: dict[int, dict[str, Any]] = {}
        while len(answers) < len(sent):
            answers.update(self._answers(deadline))
        return [answers[number] for number in sent]

    def _answers(self, deadline: float) -> list[tuple[int, dict[str, Any]]]:
        """The answers that arrived, at least one (each a message number and its payload)."""
        assert self.process.stdout is not None
        while b"," not in self.pending:
            ready, _, _ = select.select(
                [self.process.stdout], [], [], max(0.0, deadline - time.monotonic())
            )
            chunk = os.read(self.process.stdout.fileno(), 65536) if ready else b""
            if time.monotonic() >= deadline:  # the watchdog may have stopped it first
                self.process.kill()
                raise PagefindError(
                    f"the pagefind service did not answer within {_ANSWER_SECONDS} s"
                )
            if not chunk:
                raise PagefindError("the pagefind service stopped without answering")
            self.pending += chunk
        complete, _, self.pending = self.pending.rpartition(b",")
        self.pending = bytearray(self.pending)
        found = []
        for part in complete.split(b","):
            try:
                data = json.loads(base64.b64decode(bytes(part)))
                number, payload = data["message_id"], data["payload"]
            except (ValueError, KeyError, TypeError) as error:
                raise PagefindError(f"an answer that is not Pagefind's: {error}") from None
            if not isinstance(payload, dict) or payload.get("type") == "Error":
                raise PagefindError(f"Pagefind refused a message: {payload}")
            found.append((number, payload))
        return found


def pagefind_version() -> str:
    """The version of the Pagefind binary installed, which its files depend on."""
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
    digest = digest_of(pagefind_version(), entries)
    old = sorted(p for p in known if p.startswith(f"{PAGEFIND}/"))
    if old and all(known[p].digest == digest and site.size(p) is not None for p in old):
        result.reused.extend(old)
        return {path: known[path] for path in old}
    try:
        files = pagefind_files(pages)
    except PagefindError as error:
        message = (
            f"the Pagefind index could not be made ({error}); the search page uses the "
            "single-script index"
        )
        result.warnings.append(BuildWarning(f"{PAGEFIND}/", None, message))
        return {}
    for path, data in files.items():
        try:
            same = output_bytes(site, path) == data
        except OSError:
            same = False
        (result.reused if same else result.rendered).append(path)
        if not same:
            site.write(path, data)
    return {
        path: OutputRecord(digest, size=len(data), sha256=hashlib.sha256(data).hexdigest())
        for path, data in files.items()
    }


def output_bytes(site: OutputFolder, path: str) -> bytes:
    """The bytes of a file of the site (OSError if it cannot be read)."""
    try:
        return site.target(path).read_bytes()
    except ValueError as error:  # a path the output folder refuses
        raise OSError(str(error)) from None
