"""Making the pages of a build: in this process, or spread over forked worker processes.

Rendering is pure Python (Jinja, markdown, the report pages' tables), so a process per core is
the only way to use more than one. Workers are forked after the plan is made, so each inherits
the jobs, the catalog, the reports already read and the compiled templates, and nothing has to
be pickled on the way in; only what a page is made of (its text, search entry, the files made
with it and the warnings met) comes back. The build writes every file itself, in the plan's
order, whatever process made it: the output, the manifest and the order of the warnings are the
same for any number of workers.

A small build is made here alone (forking and sending pages back costs more than it saves), and
so is a build in a process that runs other threads (``modelscape serve``'s server), since a
fork copies locks another thread may hold. Platforms without ``fork`` build in one process.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from modelscape.site.config import SiteError
from modelscape.site.jobs import Job

__all__ = [
    "PARALLEL_MINIMUM",
    "REPORT_COST",
    "Made",
    "available_workers",
    "forked_map",
    "make_all",
    "worker_count",
]

T = TypeVar("T")

#: Fewer pages to make than this are made in one process: the fork and the transfer back
#: cost more than a second core saves (measured in ``docs/design/026-large-site.md``).
PARALLEL_MINIMUM = 200
#: Reading a report, or making its page, costs about as much as this many markdown pages.
REPORT_COST = 10


@dataclass(frozen=True)
class Made:
    """What making one job produced: its content, search entry, files and warnings."""

    data: str | bytes
    title: str | None
    text: str
    files: dict[str, str]
    warnings: list[str]


def available_workers() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not every platform can say; count them all
        return os.cpu_count() or 1


def _can_fork() -> bool:
    # macOS offers fork but its system libraries are not safe across it; Windows has none.
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def worker_count(requested: int | None, pages: int) -> int:
    """How many processes make ``pages`` pages: ``requested`` if given (1 where processes
    cannot be forked), else one per core for a large build in a single-threaded process."""
    if requested is not None:
        if requested < 1:
            raise SiteError(f"workers must be 1 or more, not {requested}")
        return requested if _can_fork() else 1
    if pages < PARALLEL_MINIMUM or not _can_fork() or threading.active_count() > 1:
        return 1
    return max(1, min(available_workers(), pages // (PARALLEL_MINIMUM // 2)))


def _make(job: Job, warnings: list[str]) -> Made:
    """Make one job; the warnings it adds to the shared list are taken out and returned."""
    before = len(warnings)
    data, title, text = job.make()
    files = job.files() if job.files is not None else {}
    met = warnings[before:]
    del warnings[before:]
    return Made(data, title, text, files, met)


# What a forked worker runs: set in the parent just before the fork, inherited by the copy.
_WORK: Callable[[int], Any] | None = None


def _work(index: int) -> tuple[Any, BaseException | None]:
    assert _WORK is not None
    try:
        return _WORK(index), None
    except Exception as error:  # sent back and raised by the parent, whatever it was
        try:
            pickle.loads(pickle.dumps(error))
        except Exception:  # an error that cannot travel goes back as its message
            error = SiteError(f"{type(error).__name__}: {error}")
        return None, error


def forked_map(work: Callable[[int], T], indexes: Sequence[int], *, workers: int) -> Iterator[T]:
    """``work(i)`` for each index, in order: here, or in ``workers`` forked processes (which
    inherit ``work`` and everything it reaches; only what it returns is sent back).

    An exception raised by ``work`` is raised here, as itself when it can be pickled.
    """
    if workers <= 1 or len(indexes) < 2:
        for index in indexes:
            yield work(index)
        return
    global _WORK
    _WORK = work
    # Small chunks keep every worker busy to the end (a report page costs ten markdown pages).
    chunk = max(1, min(32, len(indexes) // (workers * 16)))
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            for value, error in pool.imap(_work, indexes, chunk):
                if error is not None:
                    raise error
                yield value
    finally:
        _WORK = None


def make_all(
    jobs: Sequence[Job], todo: Sequence[int], warnings: list[str], *, workers: int
) -> Iterator[tuple[int, Made]]:
    """Make the jobs at the indexes ``todo``, yielding each in that order with what it made.

    ``warnings`` is the list the jobs report warnings to; each job's own come back with it.
    """
    made = forked_map(lambda index: _make(jobs[index], warnings), todo, workers=workers)
    yield from zip(todo, made, strict=True)
