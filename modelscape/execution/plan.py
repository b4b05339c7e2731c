"""A run's plan, streamed: blocks of planned observations, without what the store holds.

A run of a million observations never holds its plan. :class:`Blocks` makes the planned
observations a block at a time (``Experiment.plan`` is lazy), looks each block up in the store
and hands on the rest to be asked: the feed holds a block and the claims ahead of the workers,
not the whole run. What the store already holds ``ok`` goes to :class:`Reuse`, which counts it,
links an observation first stored by another experiment to this one, and keeps the ids of
those that some point measure has not scored yet (eight bytes each, in :class:`Ids`), for the
runner to read back and measure once the calls are done.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from modelscape.execution.experiment import PlannedObservation
from modelscape.records.stored import Observation
from modelscape.store.protocol import Store

__all__ = ["BLOCK", "Blocks", "Ids", "Reuse"]

#: Planned observations looked up in the store at once.
BLOCK = 4096

# An id that fits eight bytes and comes back spelled as it was: sixteen lowercase hex digits,
# as every content id is.
_PACKED = re.compile(r"[0-9a-f]{16}")


class Ids:
    """Observation ids kept in the order added, at eight bytes an id.

    A content id is sixteen hexadecimal digits, so it is kept as the number it spells in a
    numpy array; an id of any other form (none that the runner makes) is kept as it is, after
    the packed ones.
    """

    def __init__(self) -> None:
        self.packed: list[np.ndarray] = []
        self.numbers: list[int] = []  # added one at a time, not packed yet
        self.others: list[str] = []

    def add(self, oid: str) -> None:
        """Add one id."""
        if _PACKED.fullmatch(oid):
            self.numbers.append(int(oid, 16))
            if len(self.numbers) >= BLOCK:
                self._pack()
        else:
            self.others.append(oid)

    def extend(self, ids: Iterable[str]) -> None:
        """Add ``ids``."""
        for oid in ids:
            self.add(oid)
        self._pack()

    def _pack(self) -> None:
        if self.numbers:
            self.packed.append(np.array(self.numbers, dtype=np.uint64))
            self.numbers = []

    def __len__(self) -> int:
        return sum(len(p) for p in self.packed) + len(self.numbers) + len(self.others)

    def chunks(self, size: int) -> Iterator[list[str]]:
        """The ids as text, ``size`` at a time (only one chunk is ever spelled out)."""
        self._pack()
        numbers = np.concatenate(self.packed) if self.packed else np.empty(0, np.uint64)
        for start in range(0, len(numbers), size):
            yield [f"{int(n):016x}" for n in numbers[start : start + size]]
        for start in range(0, len(self.others), size):
            yield self.others[start : start + size]


class Reuse:
    """What a run takes from the store instead of asking for it.

    ``count`` is how many observations were reused; ``unmeasured`` holds the ids of those that
    lack a measurement of some point measure (``measures`` are their identity ids). Called from
    worker threads (every store call is made off the event loop), one block at a time.
    """

    def __init__(self, store: Store, experiment_id: str, measures: Sequence[str]) -> None:
        self.store = store
        self.experiment_id = experiment_id
        self.measures = list(measures)
        self.count = 0
        self.unmeasured = Ids()
        self._lock = threading.Lock()

    def take(self, stored: Mapping[str, Observation]) -> set[str]:
        """Reuse the ``ok`` observations among ``stored`` and return their ids; a blocking
        call, made in a thread."""
        ok = [o for o in stored.values() if o.status == "ok"]
        if not ok:
            return set()
        # An observation first stored by another experiment (the same seed, target, variant
        # and repetition) joins this one without a call.
        foreign = [
            o.model_copy(update={"experiment_id": self.experiment_id})
            for o in ok
            if o.experiment_id != self.experiment_id
        ]
        if foreign:
            self.store.save_observations(foreign)
        ids = [o.id for o in ok]
        missing: set[str] = set()
        for measure_id in self.measures:
            done = self.store.measured(measure_id, ids)
            missing.update(i for i in ids if i not in done)
        with self._lock:
            self.unmeasured.extend(i for i in ids if i in missing)
            self.count += len(ids)
        return set(ids)


class Blocks:
    """The plan of a run a block at a time, each without the observations the store holds.

    ``size`` planned observations are looked up at once (:data:`BLOCK` by default). ``looked``
    is called on the event loop after each block is looked up (the runner reports progress
    there, since reused observations count as finished).
    """

    def __init__(
        self,
        plan: Iterator[PlannedObservation],
        store: Store,
        reuse: Reuse,
        *,
        size: int | None = None,
        looked: Callable[[], None] | None = None,
    ) -> None:
        self.plan = plan
        self.store = store
        self.reuse = reuse
        self.size = BLOCK if size is None else size
        self.looked = looked

    def _take(self) -> list[PlannedObservation] | None:
        # In a thread: making a block's ids (a hash each) is work the event loop need not do.
        block = list(itertools.islice(self.plan, self.size))
        if not block:
            return None
        taken = self.reuse.take(self.store.observations([p.id for p in block]))
        return [p for p in block if p.id not in taken] if taken else block

    async def next(self) -> list[PlannedObservation] | None:
        """The next block's observations to ask (perhaps none), or None after the last block.

        Not to be awaited twice at once: the plan is one iterator.
        """
        block = await asyncio.to_thread(self._take)
        if self.looked is not None:
            self.looked()
        return block
