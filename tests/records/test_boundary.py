"""What a run stores is exactly what its targets returned, cleaned as documented, in every store.

Outputs cross into a store through one boundary (:mod:`modelscape.targets._cleaning`): lone
surrogates become U+FFFD (a pair split over two code points is joined), NaN and infinities
become None, and everything else is kept as it is, NUL, ``</script>`` and right-to-left marks
included. These properties run the hostile experiment of :mod:`tests.records.hostile` into
each store kind with any outputs at all and check that the stored records are the cleaned
outputs, that both stores agree, that the ids are the content ids, and that each record comes
back by id too (what a rerun looks up first); and that the cleaning is exactly the documented
rule, and cleaning twice changes nothing more.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modelscape.execution import ExecutionConfig, Experiment, RetryPolicy, Runner
from modelscape.execution.measuring import difference_id, point_id
from modelscape.records.stored import observation_id
from modelscape.results.results import Results, run_of
from modelscape.store import MemoryStore, SQLiteStore, Store
from modelscape.targets._cleaning import clean_data, clean_output, clean_text
from modelscape.targets.protocol import TargetOutput
from modelscape.task import Axis, TaskSpace
from tests.records import hostile
from tests.records.hostile import SCORES, TARGETS, dumps, fields, same, typed

pytestmark = pytest.mark.filterwarnings(
    "ignore:Generating overly large repr:hypothesis.errors.HypothesisWarning"
)
SETTINGS = settings(
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)

#: The hostile experiment, small enough to run many times: one case, the labels that Python's
#: ``==`` mixes up, one target, two repetitions (8 observations).
RUN = Experiment(
    task_space=TaskSpace(
        dict(list(hostile.CASES.items())[:1]),
        [Axis("label", ["1e999", 1, 1.0, True], hostile.relabel, scale="nominal")],
    ),
    targets=TARGETS[:1],
    repetitions=2,
    point_metrics=hostile.EXPERIMENT.point_metrics,
    difference_measures=hostile.EXPERIMENT.difference_measures,
    seed=hostile.EXPERIMENT.seed,
    execution=ExecutionConfig(concurrency=8, timeout=10.0, retry=RetryPolicy(attempts=1)),
)
ASKED = [(v, r) for v in RUN.variants() for r in range(RUN.repetitions)]


# -- the documented rule, written out on its own --------------------------------------------------
_HALVES = re.compile("[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]")


def documented_text(text: str) -> str:
    """Lone surrogates replaced by U+FFFD, a high one followed by a low one joined into the
    character the pair spells, every other code point kept."""

    def replace(match: re.Match[str]) -> str:
        halves = match.group()
        if len(halves) == 1:
            return "\ufffd"
        high, low = ord(halves[0]) - 0xD800, ord(halves[1]) - 0xDC00
        return chr(0x10000 + (high << 10) + low)

    return _HALVES.sub(replace, text)


def documented_data(value: Any, *, numbers: bool = True) -> Any:
    """JSON data with its text (keys too) cleaned and, with ``numbers``, every NaN or
    infinity made None; keys that become equal are one key, holding the value of the last."""
    if isinstance(value, str):
        return documented_text(value)
    if numbers and isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [documented_data(item, numbers=numbers) for item in value]
    if isinstance(value, dict):
        cleaned: dict[str, Any] = {}
        for key, item in value.items():
            cleaned[documented_text(key)] = documented_data(item, numbers=numbers)
        return cleaned
    return value


def finite(number: float | None) -> float | None:
    return None if number is None or not math.isfinite(number) else number


def documented_output(raw: TargetOutput) -> dict[str, Any]:
    """The fields of the output a run stores for ``raw``, by the documented rule."""
    usage = None
    if raw.usage is not None:
        usage = {**raw.usage.model_dump(), "cost": finite(raw.usage.cost)}
    return {
        "text": documented_text(raw.text),
        "data": documented_data(raw.data),
        "model": None if raw.model is None else documented_text(raw.model),
        "usage": usage,
        "finish_reason": None if raw.finish_reason is None else documented_text(raw.finish_reason),
        "latency": finite(raw.latency),
        "error": None if raw.error is None else documented_text(raw.error),
    }


@SETTINGS
@given(text=hostile.raw_text)
def test_cleaned_text_is_the_documented_rule_and_cleaning_again_changes_nothing(
    text: str,
) -> None:
    cleaned = clean_text(text)
    assert cleaned == documented_text(text)
    assert clean_text(cleaned) == cleaned
    cleaned.encode("utf-8")  # storable


@SETTINGS
@given(raw=hostile.raw_outputs())
def test_a_cleaned_output_is_the_documented_rule_and_cleaning_again_changes_nothing(
    raw: TargetOutput,
) -> None:
    cleaned = clean_output(raw)
    expected = documented_output(raw)
    for name, value in expected.items():
        if name == "usage":
            value = None if value is None else {k: typed(v) for k, v in value.items()}
            got = None if cleaned.usage is None else fields(cleaned.usage)
            same(got, value, name)
        else:
            same(typed(getattr(cleaned, name)), typed(value), name)
    if cleaned.data is None:  # nothing left to clean: returned as it is
        assert clean_output(cleaned) is cleaned
    same(fields(clean_output(cleaned)), fields(cleaned), "cleaned twice")
    cleaned.model_dump_json().encode("utf-8")


@SETTINGS
@given(details=hostile.json_values(hostile.raw_text))
def test_a_measures_details_are_cleaned_as_text_is_their_numbers_kept(details: Any) -> None:
    cleaned = clean_data(details)
    same(typed(cleaned), typed(documented_data(details, numbers=False)))
    same(typed(clean_data(cleaned)), typed(cleaned), "cleaned twice")


# -- a run with any outputs -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SQLiteStore]:
    """One SQLite file for every example: each runs the experiment under a seed of its own, so
    it asks everything anew, beside the runs of the examples before it."""
    store = SQLiteStore(tmp_path_factory.mktemp("runs") / "runs.db")
    yield store
    store.close()


_seeds = itertools.count(RUN.seed)


def run_into(store: Store, outputs: list[TargetOutput], seed: int) -> Results:
    """Run the small experiment under ``seed`` into ``store`` with these outputs (one per
    asked call)."""
    hostile.REPLIES.outputs = {
        (variant.prompt.text, repetition): output
        for (variant, repetition), output in zip(ASKED, outputs, strict=True)
    }
    return Runner(store=store).run(dataclasses.replace(RUN, seed=seed))


#: Stands for a latency the run measured itself (the target reported none).
MEASURED = ("measured",)


def expected(outputs: list[TargetOutput], seed: int) -> dict[str, dict[str, Any]]:
    """By observation id, the fields of the output the documented rule stores for each
    asked call, :func:`typed`."""
    (target,) = dataclasses.replace(RUN, seed=seed).record().targets
    found: dict[str, dict[str, Any]] = {}
    for (variant, repetition), raw in zip(ASKED, outputs, strict=True):
        oid = observation_id(seed, target, variant.id, repetition)
        cleaned = documented_output(raw)
        usage = cleaned.pop("usage")
        found[oid] = {name: typed(value) for name, value in cleaned.items()}
        found[oid]["usage"] = (
            typed(None) if usage is None else {k: typed(v) for k, v in usage.items()}
        )
        if raw.latency is None:
            found[oid]["latency"] = MEASURED
    return found


def check(results: Results, wanted: dict[str, dict[str, Any]], how: str) -> None:
    """The run's records hold the outputs as the documented rule cleans them."""
    indexed = run_of(results)
    assert sorted(o.id for o in indexed.observations) == sorted(wanted), how
    for observation in indexed.observations:
        output = wanted[observation.id]
        assert observation.status == "ok", how
        stored = fields(observation.output)
        if output["latency"] is MEASURED:  # the call's own time, recorded instead
            assert math.isfinite(observation.output.latency or math.nan), how
            stored["latency"] = MEASURED
        same(stored, output, f"{how}: output of {observation.id}")
    (metric,) = RUN.record().point_metrics
    by_id = {o.id: o for o in indexed.observations}
    for point in indexed.point_measurements:
        data = by_id[point.observation_id].output
        score = SCORES[len(data.text) % len(SCORES)]
        expected_value = None if score is None or math.isnan(score) else score + 0.0
        value = None if point.value is None else point.value + 0.0  # SQLite keeps no -0.0
        same(typed(value), typed(expected_value), f"{how}: value of {point.id}")
        same(typed(point.details), typed(data.data), f"{how}: details of {point.id}")
        assert point.id == point_id(metric.id, point.observation_id), how
    for pair in indexed.difference_measurements:
        first, second = by_id[pair.first], by_id[pair.second]
        assert pair.value == float(first.output.text != second.output.text), how
        assert pair.id == difference_id(pair.measure_id, pair.first, pair.second), how


def untimed(results: Results) -> list[Any]:
    """The observations' fields apart from their outputs (checked on their own) and the
    times a run measures."""
    return [
        {name: value for name, value in fields(o).items() if name not in UNTIMED}
        for o in run_of(results).observations
    ]


UNTIMED = {"output", "started", "duration"}


@SETTINGS
@given(
    outputs=st.lists(
        hostile.raw_outputs(errors=False),
        min_size=len(ASKED),
        max_size=len(ASKED),
    )
)
def test_a_run_stores_what_its_target_returned_cleaned_in_every_store(
    shared: SQLiteStore, outputs: list[TargetOutput]
) -> None:
    seed = next(_seeds)
    wanted = expected(outputs, seed)
    found = []
    for kind, store in (("sqlite", shared), ("memory", MemoryStore())):
        results = run_into(store, outputs, seed)  # the runner's own load of the store
        check(results, wanted, kind)
        loaded = Results.load(store, run_of(results).experiment.id)  # from its snapshot, for SQLite
        check(loaded, wanted, f"{kind}, loaded again")
        # What a rerun looks up first: the stored observations by id.
        ids = [o.id for o in run_of(results).observations]
        by_id = store.observations(ids)
        same(dumps(by_id[i] for i in ids), dumps(run_of(results).observations), f"{kind}, by id")
        found.append(untimed(loaded))
    same(found[0], found[1], "sqlite and memory")
