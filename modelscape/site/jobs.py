"""What a build plans and what it reports: one :class:`Job` per output file, what making it
gave (:class:`Made`), the :class:`FileHashes` of the input files its hashes are made of, and
the :class:`BuildResult`.

A job carries the hash of everything its output is made from, so a rebuild compares hashes and
makes only the outputs whose inputs changed; ``make`` is called only then, and returns
everything the output is: its bytes, its search entry, the files made beside it and the
warnings met making it. Nothing a job makes travels any other way, so a job made in a worker
process gives the build exactly what it would give here.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from modelscape.site.warning import BuildWarning

__all__ = ["RUNS", "BuildResult", "FileHashes", "Job", "Made", "digest_of"]

#: The input that stands, in an output's record, for the files of every run (reports and
#: stores): what the catalog is made of, which most pages show a part of (the leaderboard,
#: the neighbours of a report, a model's runs). Listed once in the manifest, not per page.
RUNS = "runs:"


@dataclass(frozen=True)
class Made:
    """What making one output gave: its content; for a page, its search entry (no title: not
    searchable); the files made with it by site path (the full text of long outputs beside a
    report page); and the warnings met while making it."""

    data: str | bytes
    title: str | None = None
    text: str = ""
    files: Mapping[str, str] = field(default_factory=dict)
    warnings: tuple[BuildWarning, ...] = ()


@dataclass(frozen=True)
class Job:
    """One output to make: its site path, the hash of its inputs, how to make it, and the
    input files its hash was made from (their labels, as :class:`FileHashes` recorded them
    while the planner computed the hash; :data:`RUNS` stands for every run's files)."""

    path: str
    digest: str
    make: Callable[[], Made]
    inputs: tuple[str, ...] = ()


@dataclass
class BuildResult:
    """What a build did: the pages rendered and reused, the files removed, and the warnings."""

    output: Path
    rendered: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    warnings: list[BuildWarning] = field(default_factory=list)
    #: What the user should know that ``--strict`` does not fail on (no sitemap without a
    #: base URL: a matter of how the build was called, not of the content).
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: The processes that rendered the pages (1: this one alone).
    workers: int = 1

    @property
    def pages(self) -> int:
        """The number of HTML pages the site holds (the search bundle's files are not pages)."""
        return sum(
            1
            for p in (*self.rendered, *self.reused)
            if p.endswith(".html") and not p.startswith("pagefind/")
        )

    def summary(self) -> str:
        """One line for the command line."""
        return (
            f"built {self.output}: {self.pages} pages, {len(self.rendered)} files written, "
            f"{len(self.reused)} unchanged, {len(self.removed)} removed, "
            f"{len(self.warnings)} warning{'s' if len(self.warnings) != 1 else ''} "
            f"in {self.seconds:.2f} s"
        )


def digest_of(*parts: Any) -> str:
    """A short hash of JSON-able parts."""
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


class FileHashes:
    """Content hashes of input files, reused while a file's size and modification time hold.

    Stores can be large; hashing each once, and then only when it changes, keeps a rebuild
    with nothing changed fast. Files are known by ``label`` (a path relative to where they
    live), because the table is saved in the published output folder.
    """

    def __init__(
        self,
        known: dict[str, list[object]] | None = None,
        *,
        label: Callable[[Path], str] = os.fspath,
    ) -> None:
        self.known = dict(known or {})
        self.seen: dict[str, list[object]] = {}
        self.label = label
        #: This build's answers by path, so a file many hashes use is looked at once.
        self._answers: dict[str, tuple[str, str]] = {}
        self._recorders: list[set[str]] = []

    def __call__(self, path: Path) -> str:
        """The sha256 of a file's bytes (hex, shortened)."""
        text = os.fspath(path)
        answer = self._answers.get(text)
        if answer is None:
            answer = self._answers[text] = self._hash(text)
        for recorder in self._recorders:
            recorder.add(answer[0])
        return answer[1]

    def _hash(self, text: str) -> tuple[str, str]:
        """The label and the hash of one file, read only when its size or time changed."""
        key = self.label(Path(text))
        info = os.stat(text)
        cached = self.known.get(key)
        if cached is not None and cached[0] == info.st_size and cached[1] == info.st_mtime_ns:
            digest = str(cached[2])
        else:
            hasher = hashlib.sha256()
            with open(text, "rb") as file:
                for block in iter(lambda: file.read(1 << 20), b""):
                    hasher.update(block)
            digest = hasher.hexdigest()[:20]
        self.seen[key] = [info.st_size, info.st_mtime_ns, digest]
        return key, digest

    @contextmanager
    def recording(self) -> Iterator[set[str]]:
        """The labels of the files hashed inside the block (an outer block sees them too):
        how the planner learns which files each output's hash was made from."""
        recorder: set[str] = set()
        self._recorders.append(recorder)
        try:
            yield recorder
        finally:
            self._recorders.pop()

    def note(self, label: str) -> None:
        """Record an input that is not one file (:data:`RUNS`) in the blocks open now."""
        for recorder in self._recorders:
            recorder.add(label)
