"""Measuring a run: point metrics, keys of keyed measures, and pairwise differences.

Runs after the outputs are stored, over every ``ok`` observation of the experiment, and
computes only what the store does not hold yet. Which pairs a pairwise measure sees follows
docs/design/001-measurements.md: every pair of one target and case, and every pair of two
targets at one case and coordinate. Measurements are stored a thousand at a time, so a measure
that fails part way keeps every full thousand it made, and the next run computes the rest.
"""

from __future__ import annotations

import asyncio
import itertools
import math
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import TypeAlias, TypeVar

from modelscape._identity import canonical_json
from modelscape._model import trusted
from modelscape.errors import ExecutionError
from modelscape.execution.calls import run_workers
from modelscape.execution.experiment import Experiment, ObservationIds
from modelscape.measures import CallableDifference, CallableMetric, KeyedDifference, Response
from modelscape.records.stored import (
    DifferenceMeasurement,
    Observation,
    PointMeasurement,
    difference_id,
    point_id,
)
from modelscape.store.protocol import Store
from modelscape.targets._cleaning import clean_data
from modelscape.task.space import Variant
from modelscape.task.table import VariantTable

__all__ = [
    "PointMeasure",
    "difference_id",
    "measure_case_pairs",
    "measure_pairs",
    "measure_points",
    "measure_run",
    "point_id",
    "point_measures",
    "score_point",
]

Item = TypeVar("Item")
Saved = TypeVar("Saved", PointMeasurement, DifferenceMeasurement)
_BATCH = 1000


# Ids are hex content hashes, so joining them with a separator is already canonical; hashing
# the text directly skips a JSON encoding per measurement.
PointMeasure: TypeAlias = CallableMetric | KeyedDifference


def point_measures(experiment: Experiment) -> list[PointMeasure]:
    """The measures computed one observation at a time: point metrics, then keyed measures'
    keys (stored as point measurements with value None and the key as details)."""
    found: list[PointMeasure] = [*experiment.point_metrics]
    found.extend(m for m in experiment.difference_measures if isinstance(m, KeyedDifference))
    return found


async def score_point(
    measure: PointMeasure, measure_id: str, observation: Observation, variant: Variant
) -> PointMeasurement:
    """One point measurement of ``measure`` (whose identity id is ``measure_id``, passed in
    because measures build their identity anew on every access); a measure's error becomes
    an :class:`ExecutionError` naming it."""
    try:
        if isinstance(measure, KeyedDifference):
            key = await measure.key_of(Response(variant, observation.output))
            canonical_json(key)  # a key must be JSON, or it could not be stored
            value, details = None, key
        else:
            result = await measure.measure(variant, observation.output)
            value, details = result.value, result.details
            if value is not None and math.isnan(value):
                value = None  # no number: SQLite stores a NaN as NULL, so every store says so
        # Stored beside the outputs, so as clean as they are (and equal when loaded back).
        details = clean_data(details)
    except Exception as error:
        where = f"observation {observation.id}"
        raise _failure("measure", measure.name, where, error) from error
    # Trusted values built here: constructing skips a second validation.
    return trusted(
        PointMeasurement,
        {
            "id": point_id(measure_id, observation.id),
            "observation_id": observation.id,
            "measure": measure.name,
            "measure_id": measure_id,
            "value": value,
            "details": details,
        },
    )


async def _each(
    items: Sequence[Item], work: Callable[[Item], Awaitable[None]], concurrency: int
) -> None:
    """Apply ``work`` to every item with at most ``concurrency`` running at once.

    A fixed pool of workers, not one task per item: a sync measure then costs one await.
    """
    feed = iter(items)

    async def worker() -> None:
        for item in feed:
            await work(item)

    await run_workers(min(concurrency, len(items)), worker)


def _failure(kind: str, name: str, where: str, error: Exception) -> ExecutionError:
    return ExecutionError(
        f"{kind} {name!r} failed on {where}: {error!r}. The outputs are stored; fix the "
        "measure and run again to compute it"
    )


async def measure_run(
    experiment: Experiment,
    observations: Iterable[Observation],
    variants: Mapping[str, Variant],
    store: Store,
    known: frozenset[str] = frozenset(),
    pairs: Iterable[Observation] | None = None,
) -> tuple[list[PointMeasurement], list[DifferenceMeasurement]]:
    """Compute and store every measurement of ``experiment`` that the store lacks.

    ``known`` holds ids of point measurements already stored by the caller (made while the
    calls ran), which need no lookup. ``pairs``, when given, are the observations pairwise
    measures compare (point measures then look at ``observations`` only), so a caller that
    stored the point measurements of most outputs itself need not hold those outputs.
    Returns the measurements it computed.
    """
    ok = [o for o in observations if o.status == "ok"]
    points = await measure_points(experiment, ok, variants, store, known)
    differences = await measure_pairs(experiment, ok if pairs is None else pairs, variants, store)
    return points, differences


async def measure_points(
    experiment: Experiment,
    observations: Iterable[Observation],
    variants: Mapping[str, Variant],
    store: Store,
    known: frozenset[str] = frozenset(),
) -> list[PointMeasurement]:
    """Compute and store the point measurements of the ``ok`` ones among ``observations``
    that the store lacks (``known`` as in :func:`measure_run`); returns those computed.

    A run calls it a block of observations at a time, so that it never holds them all.
    """
    ok = [o for o in observations if o.status == "ok"]
    concurrency = experiment.execution.concurrency
    points: list[PointMeasurement] = []
    for measure in point_measures(experiment):
        points.extend(await _measure_points(measure, ok, variants, store, concurrency, known))
    return points


async def measure_pairs(
    experiment: Experiment,
    observations: Iterable[Observation],
    variants: Mapping[str, Variant],
    store: Store,
) -> list[DifferenceMeasurement]:
    """Compute and store the differences of every pairwise measure over the pairs of the
    ``ok`` ones among ``observations`` (all of a run: pairs span it); returns those computed."""
    ok = [o for o in observations if o.status == "ok"]
    concurrency = experiment.execution.concurrency
    differences: list[DifferenceMeasurement] = []
    for difference in experiment.difference_measures:
        if isinstance(difference, CallableDifference):
            differences.extend(await _measure_pairs(difference, ok, variants, store, concurrency))
    return differences


async def measure_case_pairs(experiment: Experiment, table: VariantTable, store: Store) -> int:
    """Compute and store the differences of every pairwise measure over the stored ``ok``
    observations of ``experiment``, reading them back a case at a time; returns how many.

    Every pair a pairwise measure sees lies within one case (:func:`pairs_of`), so one case's
    outputs at a time are all it needs: a run never holds the records of all its outputs, nor
    all its pairs. Every observation of the experiment is looked up, a shard's or not, as a
    load of the store would find them.
    """
    if not any(isinstance(d, CallableDifference) for d in experiment.difference_measures):
        return 0
    ids = ObservationIds(experiment.seed, [t.identity.id for t in experiment.targets], table.ids)
    variants = table.by_id()
    # The table holds the variants case by case, every case at every coordinate.
    width, targets, repetitions = table.width, len(experiment.targets), experiment.repetitions
    computed = 0
    for case in range(len(table.cases)):
        wanted = [
            ids(target, position, repetition)
            for target in range(targets)
            for position in range(case * width, (case + 1) * width)
            for repetition in range(repetitions)
        ]
        stored = await asyncio.to_thread(store.observations, wanted)
        found = [stored[i] for i in wanted if i in stored]
        computed += len(await measure_pairs(experiment, found, variants, store))
    return computed


def pairs_of(observations: Sequence[Observation]) -> list[tuple[Observation, Observation]]:
    """The pairs a pairwise measure is computed on, each ordered by id.

    All pairs of one target and case (within and between coordinates), and all pairs of two
    different targets at one case and coordinate.
    """
    by_cell: dict[tuple[str, str], list[Observation]] = defaultdict(list)
    across: dict[tuple[str, str], list[Observation]] = defaultdict(list)
    for observation in observations:
        by_cell[(observation.target_id, observation.case)].append(observation)
        across[(observation.case, observation.variant_id)].append(observation)
    found: list[tuple[Observation, Observation]] = []
    for group in by_cell.values():
        found.extend(itertools.combinations(group, 2))
    for group in across.values():
        found.extend(
            (a, b) for a, b in itertools.combinations(group, 2) if a.target_id != b.target_id
        )
    return [(a, b) if a.id < b.id else (b, a) for a, b in found]


async def _measure_points(
    measure: PointMeasure,
    observations: Sequence[Observation],
    variants: Mapping[str, Variant],
    store: Store,
    concurrency: int,
    known: frozenset[str] = frozenset(),
) -> list[PointMeasurement]:
    measure_id = measure.identity.id
    unknown = [o for o in observations if point_id(measure_id, o.id) not in known]
    done: set[str] = set()
    if unknown:
        done = await asyncio.to_thread(store.measured, measure_id, [o.id for o in unknown])
    todo = [o for o in unknown if o.id not in done]
    buffer: list[PointMeasurement] = []
    computed: list[PointMeasurement] = []

    def save(batch: list[PointMeasurement]) -> None:
        store.save_measurements(points=batch)

    async def score(observation: Observation) -> None:
        variant = variants[observation.variant_id]
        buffer.append(await score_point(measure, measure_id, observation, variant))
        if len(buffer) >= _BATCH:
            await _save(save, _taken(buffer), computed)

    await _each(todo, score, concurrency)
    await _save(save, _taken(buffer), computed)
    return computed


async def _measure_pairs(
    measure: CallableDifference,
    observations: Sequence[Observation],
    variants: Mapping[str, Variant],
    store: Store,
    concurrency: int,
) -> list[DifferenceMeasurement]:
    measure_id = measure.identity.id
    pairs = pairs_of(observations)
    ids = [difference_id(measure_id, a.id, b.id) for a, b in pairs]
    done = await asyncio.to_thread(store.measurement_ids, ids)
    todo = [(i, a, b) for i, (a, b) in zip(ids, pairs, strict=True) if i not in done]
    buffer: list[DifferenceMeasurement] = []
    computed: list[DifferenceMeasurement] = []

    def save(batch: list[DifferenceMeasurement]) -> None:
        store.save_measurements(differences=batch)

    async def compare(item: tuple[str, Observation, Observation]) -> None:
        mid, first, second = item
        try:
            value = await measure.compare(
                Response(variants[first.variant_id], first.output),
                Response(variants[second.variant_id], second.output),
            )
        except Exception as error:
            raise _failure(
                "difference", measure.name, f"observations {first.id} and {second.id}", error
            ) from error
        buffer.append(
            DifferenceMeasurement.model_construct(
                id=mid,
                measure=measure.name,
                measure_id=measure_id,
                first=first.id,
                second=second.id,
                value=value,
            )
        )
        if len(buffer) >= _BATCH:
            await _save(save, _taken(buffer), computed)

    await _each(todo, compare, concurrency)
    await _save(save, _taken(buffer), computed)
    return computed


def _taken(buffer: list[Saved]) -> list[Saved]:
    """The buffer's records, leaving it empty: other workers fill it while these are stored."""
    taken = buffer[:]
    buffer.clear()
    return taken


async def _save(
    save: Callable[[list[Saved]], None], batch: list[Saved], computed: list[Saved]
) -> None:
    """Count a batch computed (in the order it was made) and store it in a thread, off the
    event loop."""
    computed.extend(batch)
    if batch:
        await asyncio.to_thread(save, batch)
