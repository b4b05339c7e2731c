"""A run's plan streamed: ids made fast, the order kept, a window held, reuse a block at a time."""

from __future__ import annotations

import asyncio
import dataclasses
import random
import threading
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from modelscape.execution import feed, plan
from modelscape.execution.config import ExecutionConfig
from modelscape.execution.experiment import Experiment, ObservationIds, PlannedObservation
from modelscape.execution.plan import Ids
from modelscape.execution.runner import Progress, Runner
from modelscape.execution.shard import Shard
from modelscape.measures import CallableMetric
from modelscape.records.stored import observation_id
from modelscape.results.results import Results, run_of
from modelscape.store.memory import MemoryStore
from modelscape.targets._callable import CallableTarget
from modelscape.targets.protocol import TargetOutput, TargetRequest
from tests.support.mapping_space import FAST, Counting, experiment, planted

HEX = st.text("0123456789abcdef", min_size=0, max_size=20)
SEEDS = st.one_of(st.integers(-(2**70), 2**70), st.booleans())


@given(
    SEEDS,
    # Hexadecimal ids as content ids are, and any text (quotes, escapes, capitals, surrogates)
    st.lists(st.one_of(HEX, st.text(max_size=8)), min_size=1, max_size=3),
    st.lists(st.one_of(HEX, st.text(max_size=8)), min_size=1, max_size=3),
    st.integers(0, 10**6),
)
def test_ids_made_fast_equal_the_identity_rule(
    seed: int, targets: list[str], variants: list[str], repetition: int
) -> None:
    ids = ObservationIds(seed, targets, variants)
    for t, target in enumerate(targets):
        for v, variant in enumerate(variants):
            try:
                expected = observation_id(seed, target, variant, repetition)
            except UnicodeEncodeError:  # a lone surrogate has no UTF-8: neither path has an id
                with pytest.raises(UnicodeEncodeError):
                    ids(t, v, repetition)
                continue
            assert ids(t, v, repetition) == expected


def _before(run: Experiment) -> list[tuple[int, str, int]]:
    """The plan's order as it was made before the plan was streamed: the (target, variant)
    pairs themselves shuffled, per repetition or once for the grouped order."""
    calls = [(index, v) for index in range(len(run.targets)) for v in run.variants()]
    if run.execution.order == "grouped":
        random.Random(f"{run.seed}:grouped").shuffle(calls)
        return [(i, v.id, r) for i, v in calls for r in range(run.repetitions)]
    order = []
    for repetition in range(run.repetitions):
        shuffled = list(calls)
        random.Random(f"{run.seed}:{repetition}").shuffle(shuffled)
        order.extend((i, v.id, repetition) for i, v in shuffled)
    return order


@pytest.mark.parametrize("order", ["shuffled", "grouped"])
@pytest.mark.parametrize("seed", [0, 11])
def test_the_streamed_plan_keeps_the_order_calls_were_always_made_in(order: str, seed: int) -> None:
    run = dataclasses.replace(
        experiment([planted("a"), planted("b")], repetitions=3, cases=3),
        execution=ExecutionConfig(order=order),  # type: ignore[arg-type]
        seed=seed,
    )
    planned = list(run.plan())
    assert [(p.target, p.variant.id, p.repetition) for p in planned] == _before(run)
    for p in planned:
        target = run.targets[p.target].identity.id
        assert p.id == observation_id(seed, target, p.variant.id, p.repetition)


@given(st.integers(1, 9), st.data())
def test_planned_counts_what_the_plan_holds_for_any_shard(count: int, data: st.DataObject) -> None:
    index = data.draw(st.integers(1, count))
    config = ExecutionConfig(shard=Shard(index=index, count=count))
    run = dataclasses.replace(experiment([planted()], repetitions=2, cases=2), execution=config)
    assert run.planned() == len(list(run.plan()))
    assert dataclasses.replace(run, execution=ExecutionConfig()).planned() == run.calls()


@given(st.lists(st.one_of(st.text("0123456789abcdef", min_size=16, max_size=16), st.text())))
def test_ids_keep_the_packed_in_order_then_the_others(ids: list[str]) -> None:
    kept = Ids()
    half = len(ids) // 2
    kept.extend(ids[:half])
    for oid in ids[half:]:
        kept.add(oid)
    assert len(kept) == len(ids)
    chunks = list(kept.chunks(3))
    assert all(0 < len(chunk) <= 3 for chunk in chunks)
    packed = [i for i in ids if plan._PACKED.fullmatch(i)]
    assert [i for chunk in chunks for i in chunk] == packed + [i for i in ids if i not in packed]


def test_ids_pack_a_block_at_a_time() -> None:
    kept = Ids()
    for number in range(plan.BLOCK + 5):
        kept.add(f"{number:016x}")
    assert [len(p) for p in kept.packed] == [plan.BLOCK]  # eight bytes an id, five waiting
    assert [int(i, 16) for c in kept.chunks(1000) for i in c] == list(range(plan.BLOCK + 5))


class Watched:
    """A run's plan counted as it is made, against the calls the target has seen."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.made = 0
        self.asked = 0
        self.ahead: list[int] = []
        whole = Experiment.plan

        def counted(run: Experiment) -> Iterator[PlannedObservation]:
            for planned in whole(run):
                self.made += 1
                yield planned

        monkeypatch.setattr(Experiment, "plan", counted)

    async def __call__(self, request: TargetRequest) -> TargetOutput:
        self.asked += 1
        self.ahead.append(self.made - self.asked)
        return TargetOutput(text='{"answer": "yes"}')


@pytest.mark.parametrize("leasing", [True, False])
def test_a_run_holds_only_a_window_of_its_plan(
    monkeypatch: pytest.MonkeyPatch, leasing: bool
) -> None:
    monkeypatch.setattr(plan, "BLOCK", 50)
    monkeypatch.setattr(feed, "_CHUNK_MOST", 40)
    watched = Watched(monkeypatch)
    run = experiment([CallableTarget(watched, name="w")], repetitions=40, cases=4)  # 800 calls

    class Plain(MemoryStore):  # a store that cannot lease: the feed hands out blocks as made
        claim = release = None  # type: ignore[assignment]

    store = MemoryStore() if leasing else Plain()
    looked: list[int] = []
    lookup = store.observations

    def observations(ids: object) -> object:
        wanted = list(ids)  # type: ignore[call-overload]
        looked.append(len(wanted))
        return lookup(wanted)

    monkeypatch.setattr(store, "observations", observations)
    results = Runner(store=store).run(run)
    assert len(run_of(results).observations) == watched.asked == run.calls() == 800
    assert max(looked) <= 50  # the store is asked a block at a time
    # Made ahead of the calls: at most a block being asked, the next one, and a claim ahead.
    assert max(watched.ahead) <= 2 * 50 + 40 + FAST.concurrency


def test_a_full_rerun_reports_reuse_as_each_block_is_looked_up(
    monkeypatch: pytest.MonkeyPatch, counting: Counting
) -> None:
    monkeypatch.setattr(plan, "BLOCK", 7)
    monkeypatch.setattr("modelscape.execution.runner._PROGRESS_INTERVAL", 0.0)
    store = MemoryStore()
    run = experiment([counting.target], repetitions=3, cases=2)  # 30 calls
    Runner(store=store).run(run)
    progress: list[Progress] = []
    Runner(store=store, on_progress=progress.append).run(run)
    reused = [p.reused for p in progress]
    assert reused == sorted(reused)
    assert reused[0] == 0
    assert reused[-1] == run.calls() == counting.total
    assert len(set(reused)) > 3  # it grew block by block
    assert {p.total for p in progress} == {run.calls()}


def test_a_shards_progress_knows_its_total_from_the_first_report() -> None:
    progress: list[Progress] = []
    config = FAST.model_copy(update={"shard": Shard(index=2, count=3)})
    run = dataclasses.replace(experiment([planted()], repetitions=3), execution=config)
    Runner(on_progress=progress.append).run(run)
    assert {p.total for p in progress} == {len(list(run.plan()))}
    assert progress[-1].done == len(list(run.plan()))


def test_claims_that_answer_slowly_lose_no_observation() -> None:
    """Workers that find the queue empty while a claim runs ahead wait for it, even once the
    plan is exhausted: the claim holds the last chunk until the store answers."""

    asked: list[int] = []
    handed = threading.Condition()

    class Slow(MemoryStore):
        """Answers each claim only once the workers hold nothing more to ask: every claim
        after the first is still running when they find the queue empty."""

        claimed = 0  # observations claimed so far
        claims = 0

        def claim(self, ids: object, holder: str, seconds: float) -> set[str]:
            with handed:
                assert handed.wait_for(lambda: len(asked) >= self.claimed, timeout=30)
            got = super().claim(ids, holder, seconds)  # type: ignore[arg-type]
            self.claimed += len(got)
            self.claims += 1
            return got

    async def answer(request: TargetRequest) -> TargetOutput:
        with handed:
            asked.append(request.seed)
            handed.notify_all()
        await asyncio.sleep(0)
        return TargetOutput(text='{"answer": "yes"}')

    run = experiment([CallableTarget(answer, name="slow")], repetitions=4)  # 40 calls
    store = Slow()
    runner = Runner(store=store)
    results = runner.run(run)
    assert store.claims >= 2  # a claim ran ahead while the workers waited
    assert (
        len(run_of(results).observations) == len(asked) == run.calls()
    )  # the last claim of 24 too
    assert runner.last is not None
    assert runner.last.done == run.calls()


def test_reused_outputs_without_a_new_measure_are_read_back_a_block_at_a_time(
    monkeypatch: pytest.MonkeyPatch, counting: Counting
) -> None:
    monkeypatch.setattr("modelscape.execution.runner.BLOCK", 9)
    store = MemoryStore()
    base = experiment([counting.target], repetitions=5, cases=2)  # 50 outputs
    Runner(store=store).run(base)
    seen: list[str] = []

    def length(variant: object, output: TargetOutput) -> float:
        seen.append(output.text)
        return len(output.text)

    read: list[int] = []
    lookup = store.observations

    def observations(ids: object) -> object:
        wanted = list(ids)  # type: ignore[call-overload]
        read.append(len(wanted))
        return lookup(wanted)

    monkeypatch.setattr(store, "observations", observations)
    measured = dataclasses.replace(
        base, point_metrics=(*base.point_metrics, CallableMetric(length, name="length"))
    )
    results = Runner(store=store).run(measured)
    assert counting.total == base.calls()  # nothing asked again
    assert len(seen) == base.calls()  # every reused output measured once
    assert len([p for p in run_of(results).point_measurements if p.measure == "length"]) == 50
    assert read[1:] == [9, 9, 9, 9, 9, 5]  # after the lookup, read back nine at a time


def test_two_runs_in_one_loop_share_the_work_and_ask_each_observation_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Small blocks, chunks and set-aside limits: the runs trade leases many times over, and
    # the feed looks at what it set aside before claiming more.
    monkeypatch.setattr(plan, "BLOCK", 16)
    monkeypatch.setattr(feed, "_CHUNK_MOST", 16)
    monkeypatch.setattr(feed, "_WAITING_MOST", 4)
    asked: Counter[int] = Counter()

    async def answer(request: TargetRequest) -> TargetOutput:
        asked[request.seed] += 1  # a seed hint per observation (31 bits of its id)
        await asyncio.sleep(0.001)
        return TargetOutput(text='{"answer": "yes"}')

    store = MemoryStore()
    run = experiment([CallableTarget(answer, name="shared")], repetitions=8, cases=4)  # 160

    async def both() -> list[Results]:
        first, second = Runner(store=store), Runner(store=store)
        return list(await asyncio.gather(first.arun(run), second.arun(run)))

    results = asyncio.run(both())
    assert len(asked) == run.calls() == 160
    assert set(asked.values()) == {1}  # each observation asked by one run only
    for result in results:
        assert len(run_of(result).observations) == run.calls()
        assert len(run_of(result).point_measurements) == 3 * run.calls()
