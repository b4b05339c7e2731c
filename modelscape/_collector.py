"""The cyclic garbage collector during a run or a report: collections paced to the work.

Every observation allocates a few dozen container objects (the request, the output, its record
and point measurements, the futures of the call), and those waiting in the write buffer live
long enough for CPython to move them into its oldest generation. With the default thresholds
(700, 10, 10) the collector then ran a young collection every few dozen observations and a
full one every several thousand, and a full collection walks every object the process holds,
every variant of the experiment among them. Measured on the scale benchmark at 200,000
observations, collections took about a quarter of the run stage's CPU time. How often the full
ones ran also depended on the shape of the heap (a full collection waits until the objects
promoted since the last one reach a quarter of those that survived it), so the streamed plan of
note 027, which holds far less for the whole run, made them more frequent and the run slower.
See docs/design/028-run-cpu-and-variants.md.

While a run is going, :func:`paced_collector` raises the thresholds to :data:`RUN_THRESHOLDS`:
young collections every ten thousand allocations, and full ones at most every million. Cyclic
garbage is still collected (a target whose errors hold tracebacks in cycles does not leak); it
waits a little longer. The thresholds are the process's, so they are put back when the last
run that raised them ends, and a threshold set higher than these (or a collector switched off
with a threshold of 0) is left as it was.

A report of a large run gains from the same pacing: the loaded run leaves over a million
tracked objects (its variants, prompts and ids), and every full collection the report's own
allocations set off walks them all again. The library's loading and reporting functions
(``Results.load``, :func:`~modelscape.report.build_report`) leave the collector alone, since
the process is their caller's; the processes that are the work's own pace it: the
``modelscape report`` command around its load and report, and the site's page workers. See
docs/design/043-columns-for-users.md.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

__all__ = ["RUN_THRESHOLDS", "paced_collector"]

#: The collector's thresholds (``gc.set_threshold``) while a run is going.
RUN_THRESHOLDS = (10_000, 10, 10)


class _Pacing:
    """How many runs are going in this process, and the thresholds to put back after them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.runs = 0
        self.saved: tuple[int, ...] | None = None

    def enter(self) -> None:
        with self.lock:
            if self.runs == 0:
                saved = gc.get_threshold()
                self.saved = saved
                if saved[0] > 0:  # 0 switches automatic collection off: left so
                    raised = zip(saved, RUN_THRESHOLDS, strict=True)
                    gc.set_threshold(*(max(mine, ours) for mine, ours in raised))
            self.runs += 1

    def exit(self) -> None:
        with self.lock:
            self.runs -= 1
            if self.runs == 0 and self.saved is not None:
                gc.set_threshold(*self.saved)
                self.saved = None


_PACING = _Pacing()


@contextlib.contextmanager
def paced_collector() -> Iterator[None]:
    """Raise the collector's thresholds to :data:`RUN_THRESHOLDS` for the block; runs that
    overlap (in threads, or two in one event loop) share one raise, undone by the last."""
    _PACING.enter()
    try:
        yield
    finally:
        _PACING.exit()
