"""The store protocol: the one seam between runs and the database that keeps them.

The default is one SQLite file (:class:`~modelscape.store.sqlite.SQLiteStore`). Another database
can replace it by implementing these methods; nothing else in modelscape touches storage. The
contract a store keeps, beyond each method's own:

- **Thread-safe.** The runner never calls a store from its event loop: writes go through its
  write buffer's worker thread, claims, reuse lookups, measurements and the final load through
  threads of their own (:mod:`~modelscape.execution.runner`), and a background write may still
  be running when the next call starts. Every method may therefore be called from any thread,
  and from two threads at once; a store serializes what must not overlap (both shipped stores
  hold one lock around their state or connection).
- **Blocking is fine.** A method may block for as long as its database needs (a busy file, a
  network round trip): it never runs on the event loop, so calls in flight keep going.
- **Loading is by columns if it likes.** :meth:`Store.load` returns a :class:`StoredRun`, whose
  record sequences may be any ``Sequence``, such as a view over columns that builds a record
  when it is read, rather than lists of records built up front.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import NamedTuple, Protocol, runtime_checkable

from modelscape.records.stored import (
    DifferenceMeasurement,
    ExperimentRecord,
    Observation,
    PointMeasurement,
)
from modelscape.task.space import Variant

__all__ = ["Checking", "Leasing", "Store", "StoredRun", "canonical_order", "holder_alive"]


class StoredRun(NamedTuple):
    """Everything one experiment left in a store: what :meth:`Store.load` returns.

    The record of the experiment, then its records as sequences: ``variants`` in their stored
    order, ``observations`` in :func:`canonical_order` (each under this experiment's id), and
    the ``points`` and ``differences`` measured from them by the experiment's measures. A store
    fills each sequence as suits it: lists of records (the shipped stores) or read-only views
    that build a record on access (a columnar store); readers only iterate, index and take the
    length. Immutable, and a tuple, so ``experiment, variants, *_ = store.load(id)`` works too.
    """

    experiment: ExperimentRecord
    variants: Sequence[Variant]
    observations: Sequence[Observation]
    points: Sequence[PointMeasurement]
    differences: Sequence[DifferenceMeasurement]


@runtime_checkable
class Store(Protocol):
    """Where runs are kept. Writes are idempotent: a record with a stored id is not changed,
    except that a failed observation may be replaced by a later attempt.

    Every method may be called from any thread, and from several at once (see the module's
    docstring): the runner calls a store from worker threads, never from its event loop.
    """

    def save_experiment(self, experiment: ExperimentRecord, variants: Iterable[Variant]) -> None:
        """Store an experiment and its variants (records already stored are kept)."""
        ...

    def save_observations(self, observations: Iterable[Observation]) -> None:
        """Store observations as they arrive; an ``ok`` one replaces a ``failed`` one."""
        ...

    def save_measurements(
        self,
        points: Iterable[PointMeasurement] = (),
        differences: Iterable[DifferenceMeasurement] = (),
    ) -> None:
        """Store measurements (idempotent by id)."""
        ...

    def observations(self, ids: Iterable[str]) -> dict[str, Observation]:
        """The stored observations among ``ids``, by id."""
        ...

    def measured(self, measure_id: str, observation_ids: Iterable[str]) -> set[str]:
        """The ids among ``observation_ids`` that already have a point measurement of a measure."""
        ...

    def measurement_ids(self, ids: Iterable[str]) -> set[str]:
        """The ids among ``ids`` of measurements (point or difference) already stored."""
        ...

    def status_counts(self, experiment_id: str) -> dict[str, int]:
        """How many of an experiment's observations are ``ok`` and how many ``failed``."""
        ...

    def experiments(self) -> list[ExperimentRecord]:
        """Every experiment in the store, oldest first."""
        ...

    def load(self, experiment_id: str) -> StoredRun:
        """Everything one experiment left: its record, variants, observations, measurements,
        as a :class:`StoredRun`; a :class:`~modelscape.errors.StoreError` naming the experiments
        held when the store has no ``experiment_id``.

        Observations come in :func:`canonical_order`, so an analysis of a loaded run sees the
        same sequence as one of the run that produced it. An observation first stored by another
        experiment (same seed, target, variant and repetition) comes back under this one's id.
        """
        ...

    def close(self) -> None:
        """Release the connection."""
        ...


@runtime_checkable
class Leasing(Protocol):
    """A store that lets runs share it without paying twice for one observation.

    Before a run asks for an observation it claims a lease on it; a lease held by another live
    run is not granted, so that run's answer is waited for (or reused) instead. Storing an
    observation ends its lease. A lease ends by itself at its expiry, or when the process that
    holds it is gone, so a killed run never blocks the next one.
    """

    def claim(self, ids: Sequence[str], holder: str, seconds: float) -> set[str]:
        """Lease the ids among ``ids`` that are neither stored ``ok`` nor leased by another
        live holder, for ``seconds``; returns the ids now leased to ``holder``."""
        ...

    def release(self, holder: str) -> None:
        """End every lease ``holder`` still has."""
        ...


@runtime_checkable
class Checking(Protocol):
    """A store that can check its own files for damage, as ``modelscape runs`` does first."""

    def check(self) -> None:
        """Raise a :class:`~modelscape.errors.StoreError` naming what is damaged, if anything."""
        ...


def holder_alive(pid: object) -> bool:
    """Whether process ``pid`` on this machine still runs (leases are held by processes).

    A value that names no process (not a positive integer, or beyond what the system's process
    ids can be, as a hand-edited store may hold) is no live holder, so its lease is void.
    """
    # kill() reads 0 and negative numbers as process groups, which would always look alive.
    if not isinstance(pid, int) or pid <= 0:
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    except (OSError, OverflowError):  # OverflowError: too large for the system's pid_t
        return False
    return True


def canonical_order(
    experiment: ExperimentRecord, variants: Sequence[Variant], observations: Iterable[Observation]
) -> list[Observation]:
    """Observations sorted by target (experiment order), variant (stored order), repetition.

    Outputs arrive in a random order; sorting them makes every analysis independent of it.
    """
    targets = {t.id: i for i, t in enumerate(experiment.targets)}
    positions = {v.id: i for i, v in enumerate(variants)}
    far = len(positions)
    return sorted(
        observations,
        key=lambda o: (
            targets.get(o.target_id, -1),
            positions.get(o.variant_id, far),
            o.repetition,
        ),
    )
