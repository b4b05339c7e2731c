"""The runner: storing as outputs arrive, reuse on reruns, retries, redaction, progress."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
from collections.abc import Iterable
from pathlib import Path

import pytest

from modelscape.errors import ExecutionError
from modelscape.execution.config import ExecutionConfig, RetryPolicy
from modelscape.execution.experiment import Experiment
from modelscape.execution.measuring import measure_pairs
from modelscape.execution.runner import Progress, Runner
from modelscape.measures import CallableDifference, CallableMetric, Response
from modelscape.records.stored import Observation, observation_id
from modelscape.results.results import Results, run_of
from modelscape.store import Store
from modelscape.store.memory import MemoryStore
from modelscape.store.protocol import StoredRun
from modelscape.store.sqlite import SQLiteStore
from modelscape.targets._callable import CallableTarget
from modelscape.targets.protocol import TargetError, TargetOutput, TargetRequest
from tests.support.mapping_space import FAST, Counting, experiment, planted, scenario


def test_a_run_stores_every_observation_and_its_measures(store: SQLiteStore) -> None:
    run = experiment([planted()], repetitions=2)
    results = Runner(store=store).run(run)
    indexed = run_of(results)
    assert len(indexed.observations) == run.calls() == 2 * 5 * 2
    assert all(o.status == "ok" for o in indexed.observations)
    assert set(indexed.measures()) == {"correct", "answered", "answer_change"}
    assert len(indexed.point_measurements) == 3 * run.calls()
    loaded = Results.load(store, run.id)
    assert [o.id for o in run_of(loaded).observations] == [o.id for o in indexed.observations]
    # The planted behaviour is what the results hold: correct below level 2, then "yes".
    for observation in indexed.observations:
        level = observation.coordinate["level"]
        expected = "yes" if level > 1 else indexed.variant(observation.variant_id).reference
        assert observation.output.data == {"answer": expected}


def test_observation_ids_and_seed_hints_follow_the_identity_rule() -> None:
    target = planted()
    run = experiment([target])
    for planned in run.plan():
        assert planned.id == observation_id(
            run.seed, target.identity, planned.variant.id, planned.repetition
        )
        assert planned.seed == int(planned.id[:8], 16) & 0x7FFFFFFF


def test_a_rerun_makes_no_call_and_returns_the_same_results(
    store: SQLiteStore, counting: Counting
) -> None:
    run = experiment([counting.target], repetitions=3)
    first = Runner(store=store).run(run)
    assert counting.total == run.calls()
    progress: list[Progress] = []
    second = Runner(store=SQLiteStore(store.path), on_progress=progress.append).run(run)
    assert counting.total == run.calls()  # not one call more
    assert progress[-1].reused == run.calls()
    assert progress[-1].done == 0
    assert [o.model_dump() for o in run_of(second).observations] == [
        o.model_dump() for o in run_of(first).observations
    ]


def test_execution_settings_are_not_part_of_identity(counting: Counting, any_store: Store) -> None:
    store = any_store
    run = experiment([counting.target])
    Runner(store=store).run(run)
    faster = dataclasses.replace(run, execution=ExecutionConfig(concurrency=1, timeout=5))
    assert faster.id == run.id
    Runner(store=store).run(faster)
    assert counting.total == run.calls()


def test_a_new_target_reuses_the_stored_outputs_of_the_old_one(
    counting: Counting, any_store: Store
) -> None:
    store = any_store
    Runner(store=store).run(experiment([counting.target]))
    calls = counting.total
    extra = Counting("second")
    results = Runner(store=store).run(experiment([counting.target, extra.target]))
    indexed = run_of(results)
    assert counting.total == calls
    assert extra.total == calls
    assert len(indexed.observations) == 2 * calls
    assert {o.experiment_id for o in indexed.observations} == {indexed.experiment.id}
    loaded = Results.load(store, indexed.experiment.id)
    assert [o.id for o in run_of(loaded).observations] == [o.id for o in indexed.observations]
    assert {o.experiment_id for o in run_of(loaded).observations} == {indexed.experiment.id}


def test_calls_run_in_a_seeded_random_order_per_repetition() -> None:
    run = experiment([planted()], repetitions=3, cases=4)
    order = [(p.repetition, p.variant.id) for p in run.plan()]
    assert order == [(p.repetition, p.variant.id) for p in run.plan()]
    repetitions = [[v for r, v in order if r == rep] for rep in range(3)]
    assert repetitions[0] != repetitions[1] != repetitions[2]
    assert sorted(repetitions[0]) == sorted(repetitions[1])
    assert [r for r, _ in order] == sorted(r for r, _ in order)
    reseeded = dataclasses.replace(run, seed=1)
    assert [p.variant.id for p in reseeded.plan()] != [v for _, v in order]


def test_grouped_order_asks_the_repetitions_of_a_variant_back_to_back(
    any_store: Store,
) -> None:
    run = experiment([planted(), planted("other")], repetitions=3, cases=4)
    grouped = dataclasses.replace(run, execution=ExecutionConfig(order="grouped"))
    order = list(grouped.plan())
    assert sorted(order) == sorted(run.plan())  # the same ids, seed hints and repetitions
    assert [p.id for p in order] == [p.id for p in grouped.plan()]  # seeded
    for start in range(0, len(order), 3):
        block = order[start : start + 3]
        assert {(p.target, p.variant.id) for p in block} == {(block[0].target, block[0].variant.id)}
        assert [p.repetition for p in block] == [0, 1, 2]
    firsts = [(p.target, p.variant.id) for p in order[::3]]
    assert firsts != sorted(firsts)  # the variants themselves in a random order
    assert grouped.id == run.id  # the order is not part of the experiment's identity
    results = Runner(store=any_store).run(grouped)
    assert len(run_of(results).observations) == grouped.calls()
    progress: list[Progress] = []
    Runner(store=any_store, on_progress=progress.append).run(run)
    assert progress[-1].reused == run.calls()  # the shuffled order finds every output stored
    assert progress[-1].done == 0


def flaky_target(name: str = "flaky") -> tuple[CallableTarget, dict[str, int]]:
    """Fails 30% of calls and hangs on 5%, decided per (seed, attempt) so runs repeat."""
    rule = planted(name)
    attempts: dict[int, int] = {}
    counts = {"calls": 0, "failures": 0, "hangs": 0}

    async def call(request: TargetRequest) -> TargetOutput:
        attempts[request.seed] = attempts.get(request.seed, 0) + 1
        counts["calls"] += 1
        draw = random.Random(f"{request.seed}:{attempts[request.seed]}").random()
        if draw < 0.30:
            counts["failures"] += 1
            if draw < 0.15:
                raise TargetError("503 overloaded", retry_after=0.001)
            raise TargetError("connection reset")  # a retryable failure, as providers raise
        if draw < 0.35:
            counts["hangs"] += 1
            await asyncio.sleep(30)
        return await rule(request)

    return CallableTarget(call, name=name), counts


def test_a_flaky_hanging_target_completes_under_the_retry_policy(store: SQLiteStore) -> None:
    target, counts = flaky_target()
    config = ExecutionConfig(
        concurrency=8,
        timeout=0.05,
        retry=RetryPolicy(attempts=12, initial_delay=0.001, max_delay=0.005),
    )
    run = dataclasses.replace(experiment([target], repetitions=4, cases=3), execution=config)
    progress: list[Progress] = []
    results = Runner(store=store, on_progress=progress.append).run(run)
    indexed = run_of(results)
    assert len(indexed.observations) == run.calls()
    assert not indexed.failed
    assert counts["failures"] > 0
    assert counts["hangs"] > 0
    assert progress[-1].retries == counts["calls"] - run.calls()
    assert max(o.attempts for o in indexed.observations) > 1


def test_persistent_failures_are_stored_counted_and_asked_again(store: SQLiteStore) -> None:
    broken = {"on": True}
    rule = planted("sometimes")

    async def call(request: TargetRequest) -> TargetOutput:
        if broken["on"] and "level: 3" in request.prompt.text:
            raise TargetError("invalid request", retryable=False)
        return await rule(request)

    target = CallableTarget(call, name="sometimes")
    run = experiment([target])
    results = Runner(store=store).run(run)
    failed = run_of(results).failed
    assert len(failed) == 2 * 2  # two cases, two repetitions at level 3
    assert all(o.attempts == 1 for o in failed)  # not retryable: one attempt only
    assert all("invalid request" in (o.output.error or "") for o in failed)
    assert store.status_counts(run.id) == {"ok": run.calls() - 4, "failed": 4}
    broken["on"] = False
    again = Runner(store=store).run(run)
    assert not run_of(again).failed
    assert store.status_counts(run.id) == {"ok": run.calls(), "failed": 0}


def test_an_error_output_counts_as_a_failed_attempt() -> None:
    run = experiment([CallableTarget(lambda r: TargetOutput(error="refused"), name="refuses")])
    # Without the breaker, which stops a target none of whose calls succeed.
    config = FAST.model_copy(update={"stop_after": None})
    results = Runner().run(run.__class__(**{**run.__dict__, "execution": config}))
    indexed = run_of(results)
    assert len(indexed.failed) == run.calls()
    assert {o.attempts for o in indexed.failed} == {FAST.retry.attempts}


def test_retry_after_hint_is_honoured() -> None:
    policy = RetryPolicy(attempts=3, initial_delay=10, max_delay=20, jitter=0)
    rng = random.Random(0)
    assert policy.delay(1, rng, retry_after=0.25) == 0.25
    assert policy.delay(1, rng) == 10
    assert policy.delay(3, rng) == 20  # capped
    jittery = RetryPolicy(initial_delay=1, jitter=0.5)
    delays = {jittery.delay(1, rng) for _ in range(20)}
    assert all(0.5 <= d <= 1 for d in delays)
    assert len(delays) > 1


def test_redaction_removes_a_secret_before_it_reaches_the_file(tmp_path: Path) -> None:
    secret = "sk-PLANTED-9f8e7d6c"

    async def leaky(request: TargetRequest) -> TargetOutput:
        if request.seed % 2:
            raise TargetError(f"401 for key {secret}", retryable=False)
        return TargetOutput(
            text=f"my key is {secret}",
            data={"key": secret, "nested": [secret, {secret: 1}]},
            model=f"model-{secret}",
        )

    path = tmp_path / "redacted.db"
    store = SQLiteStore(path)
    results = Runner(store=store, redact=lambda text: text.replace(secret, "[redacted]")).run(
        experiment([CallableTarget(leaky, name="leaky")])
    )
    store.close()
    texts = [o.output.text + (o.output.error or "") for o in run_of(results).observations]
    assert any("[redacted]" in t for t in texts)
    assert not any(secret in t for t in texts)
    files = [p for p in tmp_path.iterdir() if p.name.startswith("redacted.db")]
    assert files
    for file in files:
        assert secret.encode() not in file.read_bytes()


def test_progress_records_are_frozen_and_complete(store: SQLiteStore) -> None:
    progress: list[Progress] = []
    run = experiment([planted()])
    Runner(store=store, on_progress=progress.append).run(run)
    last = progress[-1]
    assert (last.done, last.failed, last.total, last.reused) == (run.calls(), 0, run.calls(), 0)
    assert last.remaining == 0
    assert last.rate > 0
    assert last.elapsed > 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        last.done = 3  # type: ignore[misc]


def test_the_sync_entry_point_works_inside_a_running_loop() -> None:
    run = experiment([planted()])

    async def notebook_cell() -> Results:
        return Runner().run(run)  # a plain call, as in a Jupyter cell

    results = asyncio.run(notebook_cell())
    assert len(run_of(results).observations) == run.calls()


def test_arun_is_the_async_core() -> None:
    run = experiment([planted()])
    results = asyncio.run(Runner().arun(run))
    assert len(run_of(results).observations) == run.calls()


def test_results_trace_any_observation_to_its_variant_and_prompt(store: SQLiteStore) -> None:
    run = experiment([planted()])
    Runner(store=store).run(run)
    results = Results.load(store, run.id)
    for point in run_of(results).point_measurements:
        trace = results.trace([point.id])
        (observation,) = trace.observations
        (variant,) = trace.variants
        assert observation.id == point.observation_id
        assert variant.id == observation.variant_id
        assert variant.coordinate == observation.coordinate
        assert f"Pressure level: {variant.coordinate['level']}" in variant.prompt.text
        assert isinstance(variant.task, dict)  # loaded from a store: the task as data


def test_measurements_are_not_computed_twice(any_store: Store) -> None:
    calls: list[str] = []

    def length(variant: object, output: TargetOutput) -> float:
        calls.append(output.text)
        return len(output.text)

    store = any_store
    run = dataclasses.replace(
        experiment([planted()]), point_metrics=(CallableMetric(length, name="length"),)
    )
    Runner(store=store).run(run)
    assert len(calls) == run.calls()
    Runner(store=store).run(run)
    assert len(calls) == run.calls()


def test_pairwise_differences_cover_cells_and_targets() -> None:
    def differs(first: Response, second: Response) -> float:
        return float(first.output.text != second.output.text)

    measure = CallableDifference(differs, name="differs")
    base = experiment([planted("a"), planted("b")], repetitions=2)
    run = dataclasses.replace(base, difference_measures=(measure,), point_metrics=())
    results = Runner().run(run)
    indexed = run_of(results)
    per_target_case = 5 * 2  # coordinates x repetitions
    within = 2 * 2 * per_target_case * (per_target_case - 1) // 2  # targets x cases x pairs
    across = 2 * 5 * 2 * 2  # cases x coordinates x (2 x 2 repetitions across targets)
    assert len(indexed.difference_measurements) == within + across
    for pair in indexed.difference_measurements:
        assert pair.first < pair.second
    matrix, ids = indexed.distances(
        "differs", indexed.cell("a", "case0", {"level": 0, "who": "Ann"})
    )
    assert matrix.shape == (2, 2)
    assert len(ids) == 1


def test_a_failing_measure_is_reported_after_the_outputs_are_stored() -> None:
    def broken(variant: object, output: TargetOutput) -> float:
        raise ValueError("bad metric")

    store = MemoryStore()
    run = dataclasses.replace(
        experiment([planted()]), point_metrics=(CallableMetric(broken, name="broken"),)
    )
    with pytest.raises(ExecutionError, match="measure 'broken' failed"):
        Runner(store=store).run(run)
    assert store.status_counts(run.id)["ok"] == run.calls()


def test_scenario_experiment_prescribes_measures_and_protocol() -> None:
    def length(first: Response, second: Response) -> float:
        return abs(len(first.output.text) - len(second.output.text))

    extra = CallableDifference(length, name="length")
    prescribed = scenario(repetitions=3, measures=(extra,))
    run = prescribed.experiment([planted()])
    assert run.repetitions == 3
    assert run.scenario == prescribed.identity
    assert [m.name for m in run.point_metrics] == ["correct", "answered"]
    assert [m.name for m in run.difference_measures] == ["answer_change", "length"]
    assert run.execution == ExecutionConfig()
    assert run.record().scenario == prescribed.identity


def test_experiment_checks_its_input() -> None:
    with pytest.raises(ExecutionError, match="two targets are named 'same'"):
        experiment([planted("same"), planted("same")])
    with pytest.raises(ExecutionError, match="at least one target"):
        Experiment(task_space=scenario().task_space, targets=[])
    with pytest.raises(ExecutionError, match="not a target"):
        Experiment(task_space=scenario().task_space, targets=["gpt"])  # type: ignore[list-item]
    with pytest.raises(ExecutionError, match="repetitions"):
        Experiment(task_space=scenario().task_space, targets=[planted()], repetitions=0)


def test_experiment_id_depends_on_what_is_asked() -> None:
    run = experiment([planted()])
    assert experiment([planted()]).id == run.id
    assert dataclasses.replace(run, seed=3).id != run.id
    assert dataclasses.replace(run, repetitions=5).id != run.id
    assert experiment([planted("other")]).id != run.id


def test_the_package_exports_runner_and_experiment_and_no_target() -> None:
    import modelscape.execution as execution
    from modelscape.execution import experiment as experiments
    from modelscape.execution import runner

    assert execution.Runner is runner.Runner
    assert execution.Progress is runner.Progress
    assert execution.Experiment is experiments.Experiment
    # Targets have one home, modelscape.targets; execution does not name them again.
    assert not {"CallableTarget", "resolve_target", "TargetRequest"} & set(execution.__all__)
    with pytest.raises(AttributeError, match=r"'modelscape\.execution' has no attribute 'Nothing'"):
        execution.Nothing  # noqa: B018


def test_an_experiment_is_frozen_with_the_documented_defaults() -> None:
    from modelscape.task.design import Sweep

    run = Experiment(task_space=scenario().task_space, targets=[planted()])
    assert (run.repetitions, run.seed, run.design, run.execution) == (
        1,
        0,
        Sweep(),
        ExecutionConfig(),
    )
    assert run.calls() == len(run.variants()) == 10
    bigger = dataclasses.replace(run, targets=[planted("a"), planted("b")], repetitions=3)
    assert bigger.calls() == 2 * 10 * 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.seed = 3  # type: ignore[misc]
    with pytest.raises(TypeError):  # every field by name, as the reference shows
        Experiment(scenario().task_space, [planted()])  # type: ignore[misc]


def test_health_counts_every_observation_of_each_target() -> None:
    def answer(request: TargetRequest) -> str:
        if "level: 3" in request.prompt.text:
            raise TargetError("refused", retryable=False)
        return '{"answer": "yes"}'

    run = experiment([CallableTarget(answer, name="t"), planted("p")])
    runner = Runner()
    runner.run(run)
    assert runner.health["t"].done == runner.health["p"].done == run.calls() // 2
    assert (runner.health["t"].failed, runner.health["t"].unasked) == (4, 0)
    assert runner.health["t"].first_error == "refused"
    assert (runner.health["p"].failed, runner.health["p"].first_error) == (0, None)


def test_an_output_too_deep_to_store_is_a_failed_observation() -> None:
    deep: object = "leaf"
    for _ in range(5_000):
        deep = [deep]
    too_deep = TargetOutput.model_construct(text="deep", data=deep, latency=0.1)

    async def answer(request: TargetRequest) -> TargetOutput:
        return too_deep

    store = MemoryStore()
    run = experiment([CallableTarget(answer, name="deep")])
    results = Runner(store=store).run(run)
    indexed = run_of(results)
    assert len(indexed.failed) == run.calls()
    assert store.status_counts(run.id) == {"ok": 0, "failed": run.calls()}
    for observation in indexed.failed:
        assert observation.attempts == 1  # asking again would return the same nesting
        assert "nested too deeply" in (observation.output.error or "")


class Recording(MemoryStore):
    """A memory store that records every lease claim: how many ids, for how long."""

    def __init__(self) -> None:
        super().__init__()
        self.claims: list[tuple[int, float]] = []

    def claim(self, ids: object, holder: str, seconds: float) -> set[str]:
        wanted = list(ids)  # type: ignore[call-overload]
        self.claims.append((len(wanted), seconds))
        return super().claim(wanted, holder, seconds)


def test_leases_cover_a_first_chunk_of_work_for_an_observations_budget() -> None:
    store = Recording()
    run = experiment([planted()], repetitions=4)  # 40 observations, concurrency 8
    Runner(store=store).run(run)
    first, *_ = store.claims
    assert first == (16, run.execution.budget() + 60)  # at least 16, and the budget plus a minute
    assert sum(size for size, _ in store.claims) == run.calls()
    unbounded = Recording()
    Runner(store=unbounded).run(
        dataclasses.replace(run, execution=FAST.model_copy(update={"timeout": None}))
    )
    assert unbounded.claims[0] == (16, 3600 + 60)  # no timeout: an hour, renewed by later claims


def test_a_first_claim_is_at_most_1024_observations_whatever_the_concurrency() -> None:
    store = Recording()
    run = dataclasses.replace(
        experiment([planted()], repetitions=11, cases=20),  # 1,100 observations
        execution=FAST.model_copy(update={"concurrency": 2_000}),
    )
    Runner(store=store).run(run)
    assert store.claims[0][0] == 1024
    assert sum(size for size, _ in store.claims) == run.calls()


def test_a_run_waiting_for_another_runs_leases_polls_instead_of_spinning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from modelscape.execution import feed

    monkeypatch.setattr(feed, "LEASE_POLL", 0.6)

    class Reading(MemoryStore):
        reads = 0

        def observations(self, ids: object) -> dict[str, object]:  # type: ignore[override]
            self.reads += 1
            return super().observations(ids)  # type: ignore[arg-type]

    store = Reading()
    run = experiment([planted()])
    # Another run (another holder in this process) leases everything for 0.5 s, then stops.
    assert store.claim([p.id for p in run.plan()], "other", 0.5) == {p.id for p in run.plan()}
    results = Runner(store=store).run(run)
    assert len(run_of(results).observations) == run.calls()
    # One read of what is stored, then one poll while the leases hold and one once they
    # expired (a poll that gets nothing sleeps 0.6 s): no busy loop of reads.
    assert store.reads <= 3


def test_a_measure_whose_details_hold_a_lone_surrogate_is_stored_as_cleaned(
    store: SQLiteStore,
) -> None:
    from modelscape.measures import MeasureValue

    def first_letter(variant: object, output: TargetOutput) -> MeasureValue:
        return MeasureValue(value=1.0, details={"half\ud83d": ["\ud83d" + output.text[:1]]})

    run = dataclasses.replace(
        experiment([planted()]), point_metrics=(CallableMetric(first_letter, name="letter"),)
    )
    fresh = Runner(store=store).run(run)
    loaded = Results.load(store, run.id)
    letters = [p for p in run_of(loaded).point_measurements if p.measure == "letter"]
    assert len(letters) == run.calls()
    assert {json.dumps(p.details) for p in letters} == {'{"half\\ufffd": ["\\ufffd{"]}'}
    assert sorted(p.model_dump_json() for p in run_of(loaded).point_measurements) == sorted(
        p.model_dump_json() for p in run_of(fresh).point_measurements
    )
    again = Runner(store=store).run(run)  # a rerun reuses everything, and reads it back
    assert len(run_of(again).point_measurements) == len(run_of(fresh).point_measurements)


def test_a_measure_that_fails_part_way_keeps_every_full_thousand_it_made(
    store: SQLiteStore,
) -> None:
    base = experiment([planted()], repetitions=11, cases=20)  # 1,100 outputs
    Runner(store=store).run(base)
    calls: list[str] = []

    def length(variant: object, output: TargetOutput) -> float:
        calls.append(output.text)
        if len(calls) == 1_001:
            raise ValueError("the measure's bug")
        return len(output.text)

    measured = dataclasses.replace(
        base,
        point_metrics=(*base.point_metrics, CallableMetric(length, name="length")),
        execution=FAST.model_copy(update={"concurrency": 1}),  # one at a time: a known order
    )
    with pytest.raises(ExecutionError, match="measure 'length' failed"):
        Runner(store=store).run(measured)  # the outputs are reused; only the measure runs
    calls.clear()
    calls.append("past the bug")
    results = Runner(store=store).run(measured)
    assert len(calls) - 1 == 100  # the first thousand were stored before the failure
    assert len([p for p in run_of(results).point_measurements if p.measure == "length"]) == 1_100


class _Reading(MemoryStore):
    """A memory store that notes its whole-run loads and the size of each lookup by id."""

    def __init__(self) -> None:
        super().__init__()
        self.loads = 0
        self.lookups: list[int] = []

    def load(self, experiment_id: str) -> StoredRun:
        self.loads += 1
        return super().load(experiment_id)

    def observations(self, ids: Iterable[str]) -> dict[str, Observation]:
        wanted = list(ids)
        self.lookups.append(len(wanted))
        return super().observations(wanted)


def test_pairwise_measures_read_a_case_at_a_time_and_the_run_loads_once() -> None:
    def differs(first: Response, second: Response) -> float:
        return float(first.output.text != second.output.text)

    measure = CallableDifference(differs, name="differs")
    base = experiment([planted("a", noise=0.5), planted("b")], repetitions=2, cases=3)
    run = dataclasses.replace(base, difference_measures=(measure,), point_metrics=())
    store = _Reading()
    results = Runner(store=store).run(run)
    assert store.loads == 1
    per_case = 2 * run.variant_table().width * 2  # targets x coordinates x repetitions
    # After the plan's own lookups, one per case, each of that case's outputs only.
    assert store.lookups[-3:] == [per_case] * 3
    # The same pairs, with the same values, as measuring every stored output at once.
    everything = MemoryStore()
    stored = store.load(run.id)
    everything.save_experiment(stored.experiment, stored.variants)
    everything.save_observations(stored.observations)
    at_once = asyncio.run(
        measure_pairs(run, stored.observations, run.variant_table().by_id(), everything)
    )
    assert sorted((d.id, d.value) for d in run_of(results).difference_measurements) == sorted(
        (d.id, d.value) for d in at_once
    )
