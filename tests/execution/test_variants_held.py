"""A run's variants: held compactly by the experiment, assembled only while a call needs one.

The experiment keeps its variants in a :class:`VariantTable`; the task space keeps none of
them; a run holds a variant model only while it is being asked and measured; what is stored,
planned and returned is what the task space builds.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable
from typing import Any

import pytest

from modelscape.execution.runner import Runner
from modelscape.results.results import run_of
from modelscape.store.sqlite import SQLiteStore
from modelscape.targets._callable import CallableTarget
from modelscape.targets.protocol import TargetOutput, TargetRequest
from modelscape.task.space import TaskSpace, Variant
from modelscape.task.table import VariantTable
from tests.support.mapping_space import FAST, experiment, planted, space

Live = Callable[[], int]


@pytest.fixture
def live(monkeypatch: pytest.MonkeyPatch) -> Live:
    """How many variant models made since the test began are still alive.

    Every place that makes a variant model for a run (the table assembling one, the task
    space building one) is watched through a weak reference, so counting costs nothing and
    sees only this test's variants, however large the rest of the process is.
    """
    alive = [0]

    def dropped() -> None:
        alive[0] -= 1

    def watched(make: Callable[..., Variant]) -> Callable[..., Variant]:
        def making(*args: Any, **kwargs: Any) -> Variant:
            variant = make(*args, **kwargs)
            alive[0] += 1
            weakref.finalize(variant, dropped)
            return variant

        return making

    monkeypatch.setattr(VariantTable, "variant", watched(VariantTable.variant))
    monkeypatch.setattr(TaskSpace, "variant", watched(TaskSpace.variant))
    monkeypatch.setattr(TaskSpace, "build_variant", watched(TaskSpace.build_variant))
    return lambda: alive[0]


def test_the_count_of_live_variants_sees_each_one_until_it_is_dropped(live: Live) -> None:
    held = [space(2).variant(case) for case in ("case0", "case1")]
    table = experiment([planted()], cases=2).variant_table()
    held.append(table[3])
    assert live() == 3
    del held[1:]
    gc.collect()  # nothing here is in a cycle; the collection only makes sure of it
    assert live() == 1


def test_an_experiment_holds_its_variants_in_a_table_and_the_space_keeps_none(
    live: Live,
) -> None:
    run = experiment([planted()], cases=12)
    table = run.variant_table()
    assert isinstance(table, VariantTable)
    assert len(table) == 12 * 5  # the baseline, three levels and one name
    gc.collect()
    assert live() == 0
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
    """A target that answers, and on every call counts the variant models alive."""

    def __init__(self, live: Live) -> None:
        self.calls = 0
        self.counts: list[int] = []
        self.answer = planted()
        self.live = live

    async def __call__(self, request: TargetRequest) -> TargetOutput:
        self.calls += 1
        self.counts.append(self.live())
        return await self.answer(request)


def test_a_run_holds_a_variant_model_only_while_a_call_needs_it(
    store: SQLiteStore, live: Live
) -> None:
    watching = Watching(live)
    run = experiment([CallableTarget(watching, name="watched")], repetitions=2, cases=30)
    results = Runner(store=store).run(run)
    assert len(run_of(results).observations) == watching.calls == 300
    assert len(watching.counts) == 300
    # At most one per call in flight (eight at a time) and one being measured; held as
    # models, the 150 variants would all be alive for the whole run.
    assert 1 <= max(watching.counts) <= 2 * FAST.concurrency
    assert not run.task_space._variants


def test_what_a_run_stores_is_what_the_task_space_builds(store: SQLiteStore) -> None:
    run = experiment([planted()], repetitions=1, cases=4)
    Runner(store=store).run(run)
    loaded = store.load(run.id).variants
    fresh = space(4)
    coordinates = run.design.coordinates(fresh)
    built = [fresh.variant(c, x) for c in fresh.cases for x in coordinates]
    assert [v.model_dump_json() for v in loaded] == [v.model_dump_json() for v in built]
