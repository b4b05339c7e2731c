"""Bounds on rendering: how long a template or a markdown page may take, and how large it grows.

Jinja's sandbox keeps a theme's template from reaching Python, but not from looping for ever
(``{% for i in range(100000) %}{% for j in range(100000) %}``), recursing, or growing a page
without end; markdown-it can be made slow by a page built to be. A contributed theme or page
is built by CI, so each is bounded here, and a page past a bound is refused with the file (and
for a template the line) at fault, instead of a build that hangs or dies with a traceback:

- **time**: :func:`time_limit` stops the code rendering one template or one markdown document
  after :data:`RENDER_SECONDS`. A watchdog thread raises :class:`RenderTimeoutError` in the
  rendering thread (CPython's ``PyThreadState_SetAsyncExc``), which any thread can do, so
  the bound holds in ``modelscape serve``'s watcher thread as in a build's worker processes.
  The exception arrives between two steps of Python code, so one long step of C code (a huge
  number raised to a huge power) is bounded by the template sandbox instead (see
  :mod:`modelscape.site.theme`).
- **size**: a page may not grow past :data:`MAX_OUTPUT_CHARS` characters (GitHub Pages
  refuses files of 100 MB, so no larger page could be published); a template's output is
  counted as it streams, so the bound holds before the page is in memory.
"""

from __future__ import annotations

import ctypes
import gc
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from modelscape.site.config import SiteError

__all__ = [
    "MAX_OUTPUT_CHARS",
    "RENDER_SECONDS",
    "PageTooLargeError",
    "RenderTimeoutError",
    "time_limit",
]

#: The longest one template (or one markdown document) may take to render, in seconds: six
#: hundred times the slowest page of the benchmark's thousand-page site (its leaderboard,
#: 0.1 s), so only a page that does not end meets it.
RENDER_SECONDS = 60.0
#: The largest page a template or a markdown document may make, in characters.
MAX_OUTPUT_CHARS = 100_000_000


class RenderTimeoutError(SiteError):
    """Rendering took longer than :data:`RENDER_SECONDS` (raised inside the rendering code,
    so the template's traceback, and with it the line it was at, is kept)."""


class PageTooLargeError(SiteError):
    """A page grew past :data:`MAX_OUTPUT_CHARS` characters."""


def _raise_in(thread: int, error: type[BaseException]) -> None:
    """Have ``thread`` raise ``error`` at its next step of Python code."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread), ctypes.py_object(error))


class _TakenBack(BaseException):
    """Raised by a thread into itself, and caught at once, to take back a pending exception."""


def _take_back() -> None:
    """Take back, in this thread, any exception the watchdog raised that has not arrived.

    ``PyThreadState_SetAsyncExc(thread, NULL)`` would take it back too, but on CPython 3.11 it
    leaves the interpreter's "asynchronous exception pending" signal set with nothing pending,
    and a thread with a trace function (coverage's, a debugger's, a tracing profiler's) then
    never gets past the start of the next function it calls: a site build under coverage hung
    for good. Raising an exception of this module's own replaces a pending one, and once it is
    delivered and caught the signal is clear, as after any delivered exception.
    """
    try:
        _raise_in(threading.get_ident(), _TakenBack)
        while True:  # delivered at the next check of the signal: here, within a few steps
            pass
    except _TakenBack:
        pass


@contextmanager
def time_limit(seconds: float | None = None) -> Iterator[None]:
    """Raise :class:`RenderTimeoutError` in the code of the block if it runs past ``seconds``
    (default :data:`RENDER_SECONDS`, read when the block starts).

    The exception arrives in whatever Python code the thread is running, and code run by the
    garbage collector (its callbacks) would swallow it, so the collector's callbacks are set
    aside for the block, and the exception is raised again every tenth of a second until the
    block has ended. It never arrives after the ``with`` statement: its end tells the watchdog
    to stop, waits for it, and takes back anything it raised that has not arrived yet, and an
    exception that arrives during those steps (the limit ran out as the block was ending) is
    held until they are done, then raised by the ``with`` statement itself, unless the block
    is already leaving with an exception of its own.
    """
    limit = RENDER_SECONDS if seconds is None else seconds
    thread = threading.get_ident()
    running = [True]
    ended = threading.Event()

    def expire() -> None:
        waited = limit
        while not ended.wait(waited):
            if not running[0]:
                return
            _raise_in(thread, RenderTimeoutError)
            waited = 0.1

    callbacks = gc.callbacks[:]
    gc.callbacks.clear()
    watchdog = threading.Thread(target=expire, name="modelscape-time-limit", daemon=True)
    try:
        watchdog.start()  # inside: the watchdog may raise before start() has returned
        yield
    finally:
        # Every step of the stop is retried until it is done: an exception arriving in one of
        # them would otherwise leave the watchdog raising into the thread long after the block.
        late: RenderTimeoutError | None = None
        while True:
            try:
                running[0] = False
                ended.set()
                if watchdog.is_alive():
                    watchdog.join()
                _take_back()
            except RenderTimeoutError as error:
                late = error
                continue
            break
        gc.callbacks[:0] = callbacks
        if late is not None and sys.exc_info()[1] is None:
            raise late
