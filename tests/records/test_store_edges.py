"""The cases the round-trip properties found, each kept as a plain test of its own.

Every one failed before its fix: a difference read back with 15 significant digits, NaN and
infinities read back as they were from the memory store and as None from SQLite (in outputs
and in a metric's value), data nested past 200 levels stored and then failing every lookup
of a rerun, ``-0.0`` and ``0.0`` of two rows read back as one of them, and an infinite time
or difference accepted by the SQLite store and then failing every load of its run.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from modelscape.errors import StoreError
from modelscape.execution import ExecutionConfig, Experiment, RetryPolicy, Runner
from modelscape.execution.measuring import difference_id
from modelscape.measures import CallableMetric
from modelscape.records.stored import DifferenceMeasurement, Observation, observation_id
from modelscape.results.results import Results, run_of
from modelscape.store import MemoryStore, SQLiteStore, Store
from modelscape.targets import CallableTarget
from modelscape.targets.protocol import TargetOutput, Usage
from tests.records.hostile import RECORD, VARIANTS, nest
from tests.support.mapping_space import space

FAST = ExecutionConfig(concurrency=4, timeout=10.0, retry=RetryPolicy(attempts=1))


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    return SQLiteStore(tmp_path / "s.db") if request.param == "sqlite" else MemoryStore()


def observation(repetition: int, **fields: object) -> Observation:
    """An observation of the hostile experiment's first target and variant."""
    target, variant = RECORD.targets[0], VARIANTS[0]
    return Observation.model_validate(
        {
            "id": observation_id(RECORD.seed, target, variant.id, repetition),
            "experiment_id": RECORD.id,
            "target": target.name,
            "target_id": target.id,
            "variant_id": variant.id,
            "case": variant.case,
            "coordinate": variant.coordinate,
            "repetition": repetition,
            "seed": 0,
            "status": "ok",
            "output": TargetOutput(text="x"),
            **fields,
        }
    )


def run(store: Store, reply: TargetOutput, *metrics: CallableMetric) -> Results:
    """Every variant of the shared space answered with ``reply``, into ``store``."""
    target = CallableTarget(lambda request: reply, name="t")
    experiment = Experiment(
        task_space=space(1), targets=[target], point_metrics=metrics, execution=FAST
    )
    return Runner(store=store).run(experiment)


def test_a_difference_keeps_every_bit_of_its_value(store: Store) -> None:
    values = [0.1 + 0.2, 1 / 3, 1000000000000001.0, 5e-324, 1.7976931348623157e308]
    first, second = observation(0), observation(1)
    (measure,) = RECORD.difference_measures
    pairs = [
        DifferenceMeasurement(
            id=difference_id(measure.id, first.id, f"{second.id}{i}"),
            measure=measure.name,
            measure_id=measure.id,
            first=first.id,
            second=second.id,
            value=value,
        )
        for i, value in enumerate(values)
    ]
    store.save_experiment(RECORD, VARIANTS)
    store.save_observations([first, second])
    store.save_measurements(differences=pairs)
    loaded = sorted(store.load(RECORD.id).differences, key=lambda d: values.index(d.value))
    assert [d.value for d in loaded] == values  # not 0.3, 0.333333333333333, ...


def test_nan_and_infinities_in_an_output_read_back_as_none_from_either_store(
    store: Store,
) -> None:
    reply = TargetOutput(
        text="x",
        data={"answer": math.nan, "also": [math.inf, -math.inf, 1.5]},
        latency=math.nan,
        usage=Usage(input_tokens=1, cost=math.inf),
    )
    for results in (
        run(store, reply),
        Results.load(store, run_of(run(store, reply)).experiment.id),
    ):
        for output in (o.output for o in run_of(results).observations):
            assert output.data == {"answer": None, "also": [None, None, 1.5]}
            assert output.latency is None
            assert output.usage == Usage(input_tokens=1, cost=None)


def test_a_metrics_nan_is_stored_as_no_value_in_either_store(store: Store) -> None:
    nan = CallableMetric(lambda variant, output: math.nan, name="nan")
    infinite = CallableMetric(lambda variant, output: -math.inf, name="infinite")
    results = run(store, TargetOutput(text="x"), nan, infinite)
    values = {(p.measure, p.value) for p in run_of(results).point_measurements}
    assert values == {("nan", None), ("infinite", -math.inf)}
    assert {row["nan"] for row in results.table()} == {None}


def test_data_nested_past_200_levels_is_stored_and_a_rerun_still_reads_it(store: Store) -> None:
    # pydantic's JSON parser refuses past 200 levels: the first run stored such data, and
    # every rerun then failed in its first lookup, blaming a damaged file.
    reply = TargetOutput(text="x", data=nest(220, "x"))
    first = run(store, reply)
    assert {o.status for o in run_of(first).observations} == {"ok"}
    found = store.observations([o.id for o in run_of(first).observations])
    assert [found[o.id].output.data for o in run_of(first).observations] == [
        nest(220, "x") for _ in run_of(first).observations
    ]
    again = run(store, reply)
    assert list(run_of(again).observations) == list(run_of(first).observations)


def test_zero_and_negative_zero_of_two_rows_each_read_back_as_they_were(store: Store) -> None:
    rows = [
        observation(0, output=TargetOutput(text="x", data=[-0.0])),
        observation(1, output=TargetOutput(text="x", data=[0.0])),
    ]
    store.save_experiment(RECORD, VARIANTS)
    store.save_observations(rows)
    for loaded in (
        store.load(RECORD.id).observations,
        run_of(Results.load(store, RECORD.id)).observations,
    ):
        signs = [math.copysign(1.0, o.output.data[0]) for o in loaded]  # type: ignore[index]
        assert signs == [-1.0, 1.0]


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_a_time_or_difference_json_cannot_hold_is_refused_when_written(
    tmp_path: Path, value: float
) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    store.save_experiment(RECORD, VARIANTS)
    kept, second = observation(0), observation(1)
    store.save_observations([kept, second])
    for name in ("started", "duration"):
        odd = observation(1, **{name: value}).model_copy(update={"id": "odd"})
        with pytest.raises(StoreError, match=f"observation odd cannot be stored: its {name}"):
            store.save_observations([odd])
    (measure,) = RECORD.difference_measures
    pair = DifferenceMeasurement(
        id="pair", measure="m", measure_id=measure.id, first=kept.id, second=second.id, value=value
    )
    with pytest.raises(StoreError, match="measurement pair cannot be stored: its value"):
        store.save_measurements(differences=[pair])
    # Nothing of either was kept, and the run still loads.
    assert store.observations(["odd"]) == {}
    assert store.measurement_ids(["pair"]) == set()
    assert [o.id for o in store.load(RECORD.id).observations] == [kept.id, second.id]
    store.close()
