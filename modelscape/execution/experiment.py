"""Experiments: a task space asked of targets, with repetitions and explicit measures."""

from __future__ import annotations

import hashlib
import random
import re
import time
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

from modelscape._identity import Identity
from modelscape.errors import ExecutionError
from modelscape.execution.config import ExecutionConfig
from modelscape.measures import DifferenceMeasure, PointMetric
from modelscape.records.stored import AxisRecord, ExperimentRecord, experiment_id, observation_id
from modelscape.targets._shape import AnswerShape
from modelscape.targets.protocol import Target
from modelscape.task.design import Grid, Sweep
from modelscape.task.space import TaskSpace, Variant
from modelscape.task.table import VariantTable

__all__ = ["Experiment", "ObservationIds", "PlannedObservation"]


class PlannedObservation(NamedTuple):
    """One call an experiment makes: which target, variant and repetition, under which id.

    The variant is named by its position in the experiment's :class:`VariantTable` and
    assembled when :attr:`variant` is read, so that blocks of planned observations waiting to
    be asked hold no variants of their own.
    """

    id: str
    target: int
    position: int
    repetition: int
    seed: int
    table: VariantTable

    @property
    def variant(self) -> Variant:
        """The variant asked (assembled anew on every read)."""
        return self.table.variant(self.position)


def seed_hint(observation: str) -> int:
    """The seed hint sent to a target: 31 bits of the observation's id, stable across runs."""
    return int(observation[:8], 16) & 0x7FFFFFFF


# Text that JSON writes as it is, between quotes: content ids are lowercase hexadecimal.
_HEX = re.compile(r"[0-9a-f]*")


class ObservationIds:
    """The ids of an experiment's observations, by target, variant and repetition.

    Equal to :func:`~modelscape.records.stored.observation_id`, made several times faster: a
    plan of a million observations makes a million ids, and a shard makes every id of the
    experiment to find its own. The canonical JSON of an id's content is written directly when
    every part is one that JSON writes as it is (an integer seed, hexadecimal target and variant
    ids, as content ids are); any other part goes through ``observation_id`` itself.
    """

    def __init__(self, seed: int, targets: Sequence[str], variants: Sequence[str]) -> None:
        self.seed = seed
        self.targets, self.variants = list(targets), list(variants)
        written = type(seed) is int  # not a bool, which JSON spells "true"
        # Per target the text around the repetition, or None to take the slow path; sorted
        # keys: repetition, seed, target, variant.
        self.middles = [
            f',"seed":{seed},"target":"{t}","variant":"' if written and _HEX.fullmatch(t) else None
            for t in self.targets
        ]
        self.plain = [_HEX.fullmatch(v) is not None for v in self.variants]

    def __call__(self, target: int, variant: int, repetition: int) -> str:
        """The id of repetition ``repetition`` of variant ``variant`` by target ``target``
        (positions in the experiment's targets and variants)."""
        middle = self.middles[target]
        if middle is None or not self.plain[variant]:
            return observation_id(
                self.seed, self.targets[target], self.variants[variant], repetition
            )
        text = f'observation\n{{"repetition":{repetition}{middle}{self.variants[variant]}"}}'
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True, kw_only=True, eq=False)
class Experiment:
    """A task space evaluated against targets, with repetitions and explicit measures.

    ``design`` selects the coordinates evaluated: a one-axis-at-a-time :class:`Sweep` around the
    baseline by default, or a :class:`Grid` when interactions between axes matter. ``seed`` is
    part of every observation's identity, fixes the randomized order of calls, and derives the
    seed hint passed to targets. ``execution`` says how calls are made and is never part of any
    identity, so changing it keeps every stored observation valid.

    ``answer_shape`` is the shape of the replies the answer reader can read; it is sent with
    every request, so that targets asked for structured answers can constrain their replies to
    it. It is not part of the experiment's identity: the scenario's answer reader is, and a
    structured target's identity says that it is one.
    """

    task_space: TaskSpace[Any]
    targets: Sequence[Target]
    repetitions: int = 1
    point_metrics: Sequence[PointMetric] = ()
    difference_measures: Sequence[DifferenceMeasure] = ()
    design: Sweep | Grid = field(default_factory=Sweep)
    execution: ExecutionConfig = field(default_factory=ExecutionConfig)
    seed: int = 0
    scenario: Identity | None = None
    answer_shape: AnswerShape | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "targets", tuple(self.targets))
        object.__setattr__(self, "point_metrics", tuple(self.point_metrics))
        object.__setattr__(self, "difference_measures", tuple(self.difference_measures))
        if self.repetitions < 1:
            raise ExecutionError(f"repetitions must be at least 1, not {self.repetitions}")
        if not self.targets:
            raise ExecutionError("an experiment needs at least one target")
        for target in self.targets:
            if not isinstance(target, Target):
                raise ExecutionError(
                    f"{target!r} is not a target: wrap a function in CallableTarget, or give "
                    "it name, version, parameters, identity and an async __call__"
                )
            check = getattr(target, "check_shape", None)
            if callable(check):  # a target that constrains its replies says if it can
                check(self.answer_shape)
        _unique("target", [t.name for t in self.targets])
        _unique(
            "measure",
            [m.name for m in self.point_metrics] + [m.name for m in self.difference_measures],
        )

    # -- what it asks ------------------------------------------------------------------------
    @cached_property
    def _table(self) -> VariantTable:
        # Built once and held for the experiment's life, in the table's compact form; the
        # task space does not keep the variants it builds for it.
        return VariantTable(self.task_space, self.design.coordinates(self.task_space))

    def variants(self) -> tuple[Variant, ...]:
        """Every variant asked of each target, case by case, each coordinate in design order.

        Assembled on every call from the compact form the experiment holds them in (see
        :meth:`variant_table`), so that keeping the result is the caller's choice.
        """
        return tuple(self._table)

    def variant_table(self) -> VariantTable:
        """The variants as the experiment holds them: compact, each assembled when read.

        What a run reads: a run of a million observations holds a hundred thousand variants
        for its whole length, at a fraction of their weight as models.
        """
        return self._table

    @cached_property
    def _record(self) -> ExperimentRecord:
        space = self.task_space
        content: dict[str, Any] = {
            "scenario": self.scenario,
            "language": space.language,
            "realizer": space.realizer_identity,
            "axes": tuple(
                AxisRecord(name=a.name, scale=a.scale, values=a.values, baseline=a.baseline)
                for a in space.axes
            ),
            "cases": tuple(space.cases),
            "coordinates": tuple(c.to_dict() for c in self.design.coordinates(space)),
            "design": self.design.model_dump(mode="json"),
            "targets": tuple(t.identity for t in self.targets),
            "repetitions": self.repetitions,
            "seed": self.seed,
            "point_metrics": tuple(m.identity for m in self.point_metrics),
            "difference_measures": tuple(m.identity for m in self.difference_measures),
            "groups": {},
        }
        record = ExperimentRecord(id="-", **content)
        # The id hashes everything the record holds except itself and the time of creation;
        # execution settings are not in the record at all.
        return record.model_copy(update={"id": experiment_id(record), "created": time.time()})

    def record(self) -> ExperimentRecord:
        """What this experiment asks, as stored: its id is a content hash of everything in it
        except the creation time (and never the execution settings)."""
        return self._record

    @property
    def id(self) -> str:
        """The experiment's content-hash id."""
        return self._record.id

    def plan(self) -> Iterator[PlannedObservation]:
        """Every call, in the order of ``execution.order``.

        Shuffled (the default): repetition by repetition, each in its own seeded random order.
        Shuffling spreads drift in a provider (load, caching, a silent model update) over every
        coordinate instead of confounding it with the order of the axes. Grouped: the variants
        in one seeded random order, the repetitions of each back to back. Either way the same
        observations, with the same ids and seed hints. With ``execution.shard``, only the
        observations of that shard, in the same order.
        """
        shard = self.execution.shard
        for planned in self._every():
            if shard is None or shard.holds(planned.id):
                yield planned

    def _every(self) -> Iterator[PlannedObservation]:
        """Every call of the experiment, in the order of ``execution.order``.

        Made as it is consumed: what is held is one number per (target, variant) pair, the
        shuffled order of the calls, never the planned observations themselves.
        """
        table = self._table
        count = len(table)
        ids = self._ids()

        def planned(call: int, repetition: int) -> PlannedObservation:
            target, variant = divmod(call, count)
            oid = ids(target, variant, repetition)
            return PlannedObservation(oid, target, variant, repetition, seed_hint(oid), table)

        # Call k is target k // count at variant k % count: the (target, variant) pairs target
        # by target. Shuffling their positions (8 bytes each) moves them exactly as shuffling
        # the pairs themselves would, as shuffle's swaps depend on the length alone.
        if self.execution.order == "grouped":
            order = self._shuffled(f"{self.seed}:grouped")
            for call in order:
                for repetition in range(self.repetitions):
                    yield planned(call, repetition)
            return
        for repetition in range(self.repetitions):
            order = self._shuffled(f"{self.seed}:{repetition}")
            for call in order:
                yield planned(call, repetition)

    def _shuffled(self, seed: str) -> array[int]:
        """The positions of the (target, variant) pairs in one seeded random order."""
        order = array("q", range(len(self.targets) * len(self._table)))
        random.Random(seed).shuffle(order)
        return order

    def _ids(self) -> ObservationIds:
        # Each target's identity hashed once, not once per call: it costs more than the rest.
        return ObservationIds(self.seed, [t.identity.id for t in self.targets], self._table.ids)

    def calls(self) -> int:
        """How many observations a full run holds (all shards together)."""
        return len(self.targets) * len(self._table) * self.repetitions

    def check_calls(self) -> None:
        """Refuse, with an :class:`~modelscape.errors.ExecutionError`, an experiment whose run
        would make more calls than ``execution.max_calls`` (a shard's share, with a shard)."""
        limit = self.execution.max_calls
        total = self.calls()
        shard = self.execution.shard
        asked = total if shard is None else -(-total // shard.count)  # about a shard's share
        if limit is None or asked <= limit:
            return
        part = "" if shard is None else f", about {asked:,} of them in shard {shard}"
        raise ExecutionError(
            f"this run would make {total:,} calls ({len(self.targets)} "
            f"target{'s' if len(self.targets) != 1 else ''} x "
            f"{len(self._table):,} variants x {self.repetitions:,} repetitions{part}), more than "
            f"the {limit:,} it may make: nothing was stored. Lower the repetitions or the "
            "variants, split the run into shards (--shard I/N), or raise the limit "
            "(--max-calls N; ExecutionConfig(max_calls=None) sets none)"
        )

    def planned(self) -> int:
        """How many observations :meth:`plan` holds: :meth:`calls`, or a shard's part of it.

        A shard's part is counted id by id (an observation's shard follows from its id), without
        holding the plan, so that a run's progress knows its total from the start.
        """
        shard = self.execution.shard
        if shard is None:
            return self.calls()
        ids = self._ids()
        return sum(
            shard.holds(ids(target, variant, repetition))
            for target in range(len(self.targets))
            for variant in range(len(self._table))
            for repetition in range(self.repetitions)
        )

    def __repr__(self) -> str:
        return (
            f"Experiment(targets={[t.name for t in self.targets]}, "
            f"variants={len(self._table)}, repetitions={self.repetitions}, seed={self.seed})"
        )


def _unique(kind: str, names: Sequence[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ExecutionError(
                f"two {kind}s are named {name!r}; results tell them apart by name, so rename one"
            )
        seen.add(name)
