"""Measures: point metrics, pairwise and keyed differences, and the answer-based built-ins."""

from __future__ import annotations

import asyncio
import math

import numpy as np
import pytest

from modelscape.answers import json_field
from modelscape.errors import ModelscapeError
from modelscape.measures import (
    CallableDifference,
    CallableMetric,
    KeyedDifference,
    MeasureValue,
    Response,
    answer_change,
    answer_metrics,
    key_distance,
)
from modelscape.targets.protocol import TargetOutput
from modelscape.task.space import Variant
from tests.support.mapping_space import space

VARIANT = space().variant("case0")  # reference "yes"


def reply(answer: object) -> TargetOutput:
    import json

    return TargetOutput(text=json.dumps({"answer": answer}))


def test_metric_results_become_measure_values() -> None:
    def score(variant: Variant, output: TargetOutput) -> object:
        return {"text": 2.5, "flag": True, "none": None}[output.text]

    metric = CallableMetric(score, name="score")  # type: ignore[arg-type]
    assert asyncio.run(metric.measure(VARIANT, TargetOutput(text="text"))).value == 2.5
    assert asyncio.run(metric.measure(VARIANT, TargetOutput(text="flag"))).value == 1.0
    assert asyncio.run(metric.measure(VARIANT, TargetOutput(text="none"))).value is None


def test_async_metric_with_details() -> None:
    async def judged(variant: Variant, output: TargetOutput) -> MeasureValue:
        return MeasureValue(value=0.5, details={"why": "half"})

    value = asyncio.run(CallableMetric(judged, name="judge").measure(VARIANT, reply("yes")))
    assert value == MeasureValue(value=0.5, details={"why": "half"})


def test_a_metric_returning_text_is_an_error() -> None:
    metric = CallableMetric(lambda v, o: "high", name="bad")  # type: ignore[arg-type, return-value]
    with pytest.raises(ModelscapeError, match="metric 'bad' returned str"):
        asyncio.run(metric.measure(VARIANT, reply("yes")))


def test_difference_values_are_checked() -> None:
    first, second = Response(VARIANT, reply("yes")), Response(VARIANT, reply("no"))
    ok = CallableDifference(lambda a, b: 1, name="ok")
    assert asyncio.run(ok.compare(first, second)) == 1.0
    for bad in (-1.0, math.nan, True):
        measure = CallableDifference(lambda a, b, bad=bad: bad, name="bad")  # type: ignore[misc]
        with pytest.raises(ModelscapeError, match="difference 'bad'"):
            asyncio.run(measure.compare(first, second))


def test_identities_separate_kinds_versions_and_parameters() -> None:
    metric = CallableMetric(lambda v, o: 1, name="m", parameters={"k": 1})
    assert metric.identity.kind == "metric"
    assert CallableMetric(lambda v, o: 1, name="m", version="2").identity.id != metric.identity.id
    keyed = KeyedDifference(lambda r: 1, name="k", distance="absolute")
    assert keyed.identity.parameters == {"keyed": True, "distance": "absolute"}


def test_key_distances() -> None:
    discrete = key_distance("discrete", ["a", "b", "a", None])
    assert discrete.tolist() == [[0, 1, 0, 1], [1, 0, 1, 1], [0, 1, 0, 1], [1, 1, 1, 0]]
    assert key_distance("absolute", [1, 4]).tolist() == [[0, 3], [3, 0]]
    euclid = key_distance("euclidean", [[0, 0], [3, 4]])
    assert np.allclose(euclid, [[0, 5], [5, 0]])
    with pytest.raises(ModelscapeError):
        key_distance("absolute", ["x", 1])
    with pytest.raises(ModelscapeError):
        key_distance("cosine", [1])
    with pytest.raises(ModelscapeError, match="vectors of one length"):
        key_distance("euclidean", [[0, 0], [1]])  # ragged: refused, not a numpy error
    with pytest.raises(ModelscapeError, match="vectors of one length"):
        key_distance("euclidean", [1, 2])  # not vectors: refused, not distances of zero


def test_answer_metrics_and_answer_change() -> None:
    correct, answered = answer_metrics(json_field("answer", ["yes", "no"]))
    assert asyncio.run(correct.measure(VARIANT, reply("YES"))).value == 1.0
    assert asyncio.run(correct.measure(VARIANT, reply("no"))).value == 0.0
    assert asyncio.run(answered.measure(VARIANT, reply("perhaps"))).value == 0.0
    change = answer_change(json_field("answer", ["yes", "no"]))
    keys = [asyncio.run(change.key_of(Response(VARIANT, reply(a)))) for a in ("yes", "no", "x")]
    assert keys == ["yes", "no", None]
