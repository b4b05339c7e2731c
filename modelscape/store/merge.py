"""Merging stores: the union of several stores' records, by content id, into one.

Every record a store keeps is named by a hash of its content, so two stores of one experiment
can only agree on what a shared id holds; their union is the set of their records. Merging
is therefore idempotent (merging again, or merging a store into itself, adds nothing) and
independent of the order of the stores, except that an ``ok`` observation always replaces a
``failed`` one of the same id, as it does within a store.

Stores of different experiments are refused unless ``mixed`` is set: the usual merge gathers the
shards of one run (``modelscape run --shard I/N``), and a store of another experiment among them
is more likely a mistake than a wish.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from modelscape.errors import StoreError
from modelscape.store.protocol import Store

__all__ = ["Merged", "merge_stores"]


@dataclass(frozen=True)
class Merged:
    """What a merge did to one experiment: how many observations it read from the sources,
    how many the output lacked (or held only as failed) before, and how many are ``ok`` now."""

    experiment: str
    read: int
    added: int
    ok: int


def _experiments(named: Sequence[tuple[str, Store]], into: Store) -> dict[str, list[str]]:
    """Which stores hold each experiment id (the output under the name "the output")."""
    holders: dict[str, list[str]] = {}
    for name, store in [*named, ("the output", into)]:
        for record in store.experiments():
            holders.setdefault(record.id, []).append(name)
    return holders


def merge_stores(
    sources: Sequence[tuple[str, Store]], into: Store, *, mixed: bool = False
) -> list[Merged]:
    """Copy every experiment of ``sources`` (each a name for messages, and a store) into
    ``into``, and return what was merged, one :class:`Merged` per experiment.

    A :class:`~modelscape.errors.StoreError` names the stores when they hold more than one
    experiment (the output's own experiments included) and ``mixed`` is not set; nothing is
    written then.
    """
    holders = _experiments(sources, into)
    if len(holders) > 1 and not mixed:
        listed = "; ".join(f"{eid[:12]} in {', '.join(names)}" for eid, names in holders.items())
        raise StoreError(
            f"the stores hold {len(holders)} different experiments ({listed}); merge the shards "
            "of one run, or pass --mixed to keep several experiments in one store"
        )
    merged: dict[str, Merged] = {}
    for _, store in sources:
        for record in store.experiments():
            run = store.load(record.id)
            ids = [o.id for o in run.observations]
            before = into.observations(ids)
            fresh = sum(
                1
                for o in run.observations
                if o.status == "ok" and getattr(before.get(o.id), "status", None) != "ok"
            )
            into.save_experiment(run.experiment, run.variants)
            into.save_observations(run.observations)
            into.save_measurements(run.points, run.differences)
            previous = merged.get(record.id)
            read = len(ids) + (previous.read if previous else 0)
            added = fresh + (previous.added if previous else 0)
            merged[record.id] = Merged(record.id, read, added, 0)
    return [
        Merged(m.experiment, m.read, m.added, into.status_counts(m.experiment).get("ok", 0))
        for m in merged.values()
    ]
