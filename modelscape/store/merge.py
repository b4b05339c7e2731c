"""Merging stores: the union of several stores' records, by content id, into one.

Every record a store keeps is named by a hash of its content, so two stores of one experiment
can only agree on what a shared id holds; their union is the set of their records. Merging
is therefore idempotent (merging again, or merging a store into itself, adds nothing) and
independent of the order of the stores, except that an ``ok`` observation always replaces a
``failed`` one of the same id, as it does within a store.

That only holds while each id is the hash of its record, so a merge checks it: every
experiment, variant, observation and measurement of every source has its id computed again
from its content (:func:`check_run`), and an observation must be one its experiment asks
for (one of its targets and variants, a repetition it makes). A record that fails, such as
one relabelled with a made-up id, would otherwise count twice ("9 of 8 observations") and
could never be reported. Every source is read and checked before anything is written, so a
merge refused on a bad or damaged record leaves the output as it was: not created, or
unchanged.

Stores of different experiments are refused unless ``mixed`` is set: the usual merge gathers the
shards of one run (``modelscape run --shard I/N``), and a store of another experiment among them
is more likely a mistake than a wish.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from modelscape.errors import StoreError
from modelscape.records.stored import (
    difference_id,
    experiment_id,
    observation_id,
    point_id,
)
from modelscape.store.protocol import Store, StoredRun
from modelscape.task.space import variant_id

__all__ = ["Merged", "check_run", "merge_stores"]


@dataclass(frozen=True)
class Merged:
    """What a merge did to one experiment: how many observations it read from the sources,
    how many the output lacked (or held only as failed) before, and how many are ``ok`` now."""

    experiment: str
    read: int
    added: int
    ok: int


def _task(task: Any) -> dict[str, Any]:
    return task if isinstance(task, dict) else task.model_dump(mode="json")


def check_run(run: StoredRun, where: str) -> None:
    """Raise a :class:`~modelscape.errors.StoreError` naming the first record of ``run`` (read
    from ``where``) whose id is not the one its content gives, or an observation its
    experiment never asks for."""
    experiment = run.experiment

    def refuse(kind: str, record: str, problem: str) -> None:
        raise StoreError(
            f"{where}: {kind} {record} of experiment {experiment.id} {problem}; it was changed "
            "after it was stored (relabelled, edited or damaged), so nothing was merged: "
            "leave that store out, or restore it from a copy"
        )

    if experiment_id(experiment) != experiment.id:
        refuse("the record", "itself", f"holds content whose id is {experiment_id(experiment)}")
    variants = set()
    for variant in run.variants:
        expected = variant_id(
            variant.language,
            variant.case,
            variant.coordinate,
            _task(variant.task),
            variant.prompt.model_dump(mode="json"),
            variant.reference,
        )
        if expected != variant.id:
            refuse("variant", variant.id, f"holds content whose id is {expected}")
        variants.add(variant.id)
    targets = {target.id for target in experiment.targets}
    for observation in run.observations:
        expected = observation_id(
            experiment.seed, observation.target_id, observation.variant_id, observation.repetition
        )
        if expected != observation.id:
            refuse("observation", observation.id, f"holds content whose id is {expected}")
        if observation.target_id not in targets:
            refuse(
                "observation",
                observation.id,
                f"is of target {observation.target_id}, not one of its targets",
            )
        if observation.variant_id not in variants:
            refuse(
                "observation",
                observation.id,
                f"is of variant {observation.variant_id}, not one of its variants",
            )
        if not 0 <= observation.repetition < experiment.repetitions:
            refuse(
                "observation",
                observation.id,
                f"is repetition {observation.repetition}, not one of the "
                f"{experiment.repetitions} it makes",
            )
    for point in run.points:
        if point_id(point.measure_id, point.observation_id) != point.id:
            refuse("measurement", point.id, "names another measure or observation than its id")
    for difference in run.differences:
        expected = difference_id(difference.measure_id, difference.first, difference.second)
        if expected != difference.id:
            refuse("measurement", difference.id, "names another measure or pair than its id")


def _experiments(named: Sequence[tuple[str, Store]], into: Store | None) -> dict[str, list[str]]:
    """Which stores hold each experiment id (the output under the name "the output")."""
    holders: dict[str, list[str]] = {}
    every = [*named] if into is None else [*named, ("the output", into)]
    for name, store in every:
        for record in store.experiments():
            holders.setdefault(record.id, []).append(name)
    return holders


def _single(holders: dict[str, list[str]], mixed: bool) -> None:
    if len(holders) > 1 and not mixed:
        listed = "; ".join(f"{eid[:12]} in {', '.join(names)}" for eid, names in holders.items())
        raise StoreError(
            f"the stores hold {len(holders)} different experiments ({listed}); merge the shards "
            "of one run, or pass --mixed to keep several experiments in one store"
        )


def merge_stores(
    sources: Sequence[tuple[str, Store]],
    into: Store | Callable[[], Store],
    *,
    mixed: bool = False,
) -> list[Merged]:
    """Copy every experiment of ``sources`` (each a name for messages, and a store) into
    ``into``, and return what was merged, one :class:`Merged` per experiment.

    ``into`` is the output store, or a function that opens it: it is then called only once
    every source was read and checked, so that a refused merge never creates the output.
    A :class:`~modelscape.errors.StoreError` names the stores when they hold more than one
    experiment (the output's own experiments included) and ``mixed`` is not set, and names
    the first record whose id is not its content's (:func:`check_run`); nothing is written
    then.
    """
    _single(_experiments(sources, None), mixed)
    # Read and check everything first: a bad record met halfway would leave a partial merge.
    for name, store in sources:
        for record in store.experiments():
            check_run(store.load(record.id), name)
    output = into if isinstance(into, Store) else into()
    _single(_experiments(sources, output), mixed)
    merged: dict[str, Merged] = {}
    for _, store in sources:
        for record in store.experiments():
            run = store.load(record.id)
            ids = [o.id for o in run.observations]
            before = output.observations(ids)
            fresh = sum(
                1
                for o in run.observations
                if o.status == "ok" and getattr(before.get(o.id), "status", None) != "ok"
            )
            output.save_experiment(run.experiment, run.variants)
            output.save_observations(run.observations)
            output.save_measurements(run.points, run.differences)
            previous = merged.get(record.id)
            read = len(ids) + (previous.read if previous else 0)
            added = fresh + (previous.added if previous else 0)
            merged[record.id] = Merged(record.id, read, added, 0)
    return [
        Merged(m.experiment, m.read, m.added, output.status_counts(m.experiment).get("ok", 0))
        for m in merged.values()
    ]
