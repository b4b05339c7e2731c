"""A run's variants: held compactly by the experiment, assembled only while a call needs one.

The experiment keeps its variants in a :class:`VariantTable`; the task space keeps none of
them; a run holds a variant model only while it is being asked and measured; what is stored,
planned and returned is what the task space builds.
"""

from __future__ import annotations

import gc

from modelscape.execution.callable import CallableTarget
from modelscape.execution.runner import Runner
from modelscape.store.sqlite import SQLiteStore
from modelscape.target import TargetOutput, TargetRequest
from modelscape.task.space import Variant
from modelscape.task.table import VariantTable
from tests.support.mapping_space import FAST, experiment, planted, space


def _live_variants() -> int:
    return sum(1 for o in gc.get_objects() if isinstance(o, Variant))


def test_an_experiment_holds_its_variants_in_a_table_and_the_space_keeps_none() -> None:
    gc.collect()
    before = _live_variants()
    run = experiment([planted()], cases=12)
    table = run.variant_table()
    assert isinstance(table, VariantTable)
    assert len(table) == 12 * 5  # the baseline, three levels and one name
    gc.collect()
    assert _live_variants() == before
    assert not run.task_space._variants
    # Users still get every variant, built on demand and not kept.
    variants = run.variants()
    assert variants == tuple(table)
    assert not run.task_space._variants
    fresh = space(12)
    coordinates = run.design.coordinates(fresh)
    assert variants == tuple(fresh.variant(c, x) for c in fresh.cases for x in coordinates)


def test_the_plan_names_each_variant_by_its_position() -> None:
    run = experiment([planted("a"), planted("b")], repetitions=2, cases=3)
    table = run.variant_table()
    for planned in run.plan():
        assert planned.table is table
        assert planned.variant == table[planned.position]
        assert planned.variant.id == table.ids[planned.position]


class Watching:
    """A target that answers, and on every tenth call counts the variant models alive."""

    def __init__(self) -> None:
        self.calls = 0
        self.counts: list[int] = []
        self.answer = planted()

    async def __call__(self, request: TargetRequest) -> TargetOutput:
        self.calls += 1
        if self.calls % 10 == 1:
            self.counts.append(_live_variants())
        return await self.answer(request)


def test_a_run_holds_a_variant_model_only_while_a_call_needs_it(store: SQLiteStore) -> None:
    watching = Watching()
    run = experiment([CallableTarget(watching, name="watched")], repetitions=2, cases=30)
    gc.collect()
    before = _live_variants()
    results = Runner(store=store).run(run)
    assert len(results.observations) == watching.calls == 300
    assert len(watching.counts) == 30
    # At most one per call in flight (eight at a time) and one being measured; held as
    # models, the 150 variants would all be alive for the whole run.
    assert max(watching.counts) - before <= 2 * FAST.concurrency
    assert not run.task_space._variants


def test_what_a_run_stores_is_what_the_task_space_builds(store: SQLiteStore) -> None:
    run = experiment([planted()], repetitions=1, cases=4)
    Runner(store=store).run(run)
    loaded = store.load(run.id).variants
    fresh = space(4)
    coordinates = run.design.coordinates(fresh)
    built = [fresh.variant(c, x) for c in fresh.cases for x in coordinates]
    assert [v.model_dump_json() for v in loaded] == [v.model_dump_json() for v in built]
