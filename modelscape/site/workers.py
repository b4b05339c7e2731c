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

Wherever the work is done, the garbage collector is paced to it (:mod:`modelscape._collector`):
a report page allocates hundreds of thousands of short-lived objects, and a worker keeps the
runs it loaded for the pages that show them again, so with the default thresholds it ran a full
collection over all of them every twenty report pages, a sixth of a report page's time.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

from modelscape._collector import paced_collector
from modelscape.site.config import SiteError
from modelscape.site.jobs import Job, Made

__all__ = [
    "PARALLEL_MINIMUM",
    "REPORT_COST",
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
#: How long a worker whose pipe has closed is given to be reaped, so its status can be told.
_REAPED_SECONDS = 30


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


def _make(job: Job) -> Made:
    """Make one job: everything it made comes back in what it returns."""
    return job.make()


def _attempt(work: Callable[[int], T], index: int) -> tuple[T | None, BaseException | None]:
    """``work(index)``, or the exception it raised in a form that can be sent back."""
    try:
        return work(index), None
    except Exception as error:  # sent back and raised by the parent, whatever it was
        try:
            pickle.loads(pickle.dumps(error))
        except Exception:  # an error that cannot travel goes back as its message
            error = SiteError(f"{type(error).__name__}: {error}")
        return None, error


def _serve(work: Callable[[int], Any], connection: Connection) -> None:
    """A worker's loop: a chunk of positions and indexes in, one answer per index out, until
    it is sent None."""
    with paced_collector():
        while (chunk := connection.recv()) is not None:
            for position, index in chunk:
                connection.send((position, *_attempt(work, index)))


def _death(process: BaseProcess) -> str:
    """How a worker ended, in words: the signal that killed it or its exit status."""
    # Its pipe has closed or its sentinel fired, so it has ended or is ending; on a loaded
    # machine the exit can take a while to be reaped, and the status is what the user needs.
    process.join(_REAPED_SECONDS)
    code = process.exitcode
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        how = f"killed by {name}"
        if -code == signal.SIGKILL:
            how += " (the out-of-memory killer's signal)"
        return how
    return f"exited with status {code}" if code is not None else "stopped answering"


def _dead(worker: _Worker, held: list[str]) -> str:
    """The message for a worker that died: how, while making what, and what else it held."""
    message = f"a site worker (process {worker.process.pid}) {_death(worker.process)}"
    message += f" while making {held[0]}"
    if len(held) > 1:
        more = f" and {len(held) - 11} more" if len(held) > 11 else ""
        message += f"; it also held {', '.join(held[1:11])}{more}"
    return message


@dataclass
class _Worker:
    """A forked worker, its end of the pipe, and the positions sent to it not yet answered."""

    process: BaseProcess
    connection: Connection
    held: list[int]


class _Pool:
    """Forked workers fed chunks of indexes; a worker that dies is noticed, not waited for.

    ``multiprocessing.Pool`` waits for ever for the answer of a worker killed from outside
    (the out-of-memory killer, a crash in a C extension); here every wait watches the
    workers' process sentinels as well as their pipes.
    """

    def __init__(self, work: Callable[[int], Any], workers: int) -> None:
        context = multiprocessing.get_context("fork")
        self.workers: list[_Worker] = []
        try:
            for _ in range(workers):
                ours, theirs = context.Pipe()
                process = context.Process(target=_serve, args=(work, theirs), daemon=True)
                process.start()
                theirs.close()  # so that a dead worker's pipe reads as closed here
                self.workers.append(_Worker(process, ours, []))
        except BaseException:  # a fork refused (no memory left): end those already started
            self.close()
            raise

    def send(self, worker: _Worker, chunk: list[tuple[int, int]] | None) -> None:
        worker.held.extend(position for position, _ in chunk or [])
        # A worker that died after its last answer has a broken pipe: the next wait sees it
        # closed and says how the worker ended and what it held, which the error here would not.
        with contextlib.suppress(BrokenPipeError):
            worker.connection.send(chunk)

    def answers(self) -> Iterator[tuple[_Worker, tuple[int, Any, BaseException | None] | None]]:
        """The answers ready now (waiting for one), each with its worker; a worker that died
        comes with None instead."""
        busy = [w for w in self.workers if w.held]
        waiting: dict[Any, _Worker] = {w.connection: w for w in busy}
        sentinels: dict[Any, _Worker] = {w.process.sentinel: w for w in busy}
        for ready in wait([*waiting, *sentinels]):
            worker = waiting.get(ready)
            if worker is None:
                worker = sentinels[ready]
                if worker.connection.poll():  # its last answers arrived before it ended
                    continue
            try:
                answer = worker.connection.recv()
            except (EOFError, OSError):
                yield worker, None
                return
            worker.held.remove(answer[0])
            yield worker, answer

    def close(self) -> None:
        for worker in self.workers:
            if worker.process.is_alive():
                worker.process.kill()
            worker.process.join()
            worker.connection.close()


def forked_map(
    work: Callable[[int], T],
    indexes: Sequence[int],
    *,
    workers: int,
    describe: Callable[[int], str] = str,
) -> Iterator[T]:
    """``work(i)`` for each index, in order: here, or in ``workers`` forked processes (which
    inherit ``work`` and everything it reaches; only what it returns is sent back).

    An exception raised by ``work`` is raised here, as itself when it can be pickled. A
    worker that dies (killed by a signal, or ending on its own) stops the map with a
    :class:`SiteError` that says how it ended and names, through ``describe``, the index it
    was working on and the others it held.
    """
    if workers <= 1 or len(indexes) < 2:
        with paced_collector():
            for index in indexes:
                yield work(index)
        return
    # Small chunks keep every worker busy to the end (a report page costs ten markdown pages).
    size = max(1, min(32, len(indexes) // (workers * 16)))
    numbered = list(enumerate(indexes))
    chunks = [numbered[start : start + size] for start in range(0, len(numbered), size)]
    chunks.reverse()  # popped from the end, in order
    pool = _Pool(work, workers)
    done: dict[int, tuple[Any, BaseException | None]] = {}
    try:
        for worker in pool.workers:  # two chunks each, so none waits between them
            for _ in range(2):
                if chunks:
                    pool.send(worker, chunks.pop())
        for position in range(len(indexes)):
            while position not in done:
                for worker, answer in pool.answers():
                    if answer is None:
                        raise SiteError(_dead(worker, [describe(indexes[p]) for p in worker.held]))
                    answered, value, error = answer
                    done[answered] = (value, error)
                    if not worker.held:
                        pool.send(worker, chunks.pop() if chunks else None)
                    elif len(worker.held) <= size and chunks:
                        pool.send(worker, chunks.pop())
            value, error = done.pop(position)
            if error is not None:
                raise error
            yield value
    finally:
        pool.close()


def make_all(
    jobs: Sequence[Job], todo: Sequence[int], *, workers: int
) -> Iterator[tuple[int, Made]]:
    """Make the jobs at the indexes ``todo``, yielding each in that order with what it made."""
    made = forked_map(
        lambda index: _make(jobs[index]),
        todo,
        workers=workers,
        describe=lambda index: jobs[index].path,
    )
    yield from zip(todo, made, strict=True)
