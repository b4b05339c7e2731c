"""Measures: point metrics of one output, and difference measures between two outputs.

A point metric scores one output of one variant (correct, answered, length, ...). A difference
measure compares two outputs; it is symmetric, zero for identical outputs and never negative.
Keyed measures (the answer-change measure among them) map each output to a key once and compare
keys; pairwise ones compare two responses directly. See docs/design/001-measurements.md.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, NamedTuple, TypeAlias

import numpy as np
from numpy.typing import NDArray

from modelscape._identity import AxisValue, Identity, JsonValue, canonical_json
from modelscape._model import FrozenModel, trusted
from modelscape.answers import Answer
from modelscape.errors import AnalysisError, ExecutionError
from modelscape.targets.protocol import TargetOutput
from modelscape.task.coordinate import same_value
from modelscape.task.space import Variant

__all__ = [
    "CallableDifference",
    "CallableMetric",
    "DifferenceFunction",
    "DifferenceMeasure",
    "KeyedDifference",
    "MeasureValue",
    "MetricFunction",
    "PointMetric",
    "Response",
    "answer_change",
    "answer_metrics",
    "key_distance",
    "key_distances",
    "key_numbers",
]

Distance: TypeAlias = Literal["discrete", "absolute", "euclidean"]


class MeasureValue(FrozenModel):
    """A number produced by a measure, with optional structured details (kept with it)."""

    value: float | None
    details: JsonValue = None


class Response(NamedTuple):
    """One output together with the variant that produced it.

    The variant carries the task, its attributes, reference, prompt and coordinate, so a
    measure can judge behaviour in context rather than from text alone.
    """

    variant: Variant
    output: TargetOutput


MetricResult: TypeAlias = float | int | bool | MeasureValue | None
MetricFunction: TypeAlias = Callable[
    [Variant, TargetOutput], MetricResult | Awaitable[MetricResult]
]
DifferenceFunction: TypeAlias = Callable[[Response, Response], float | Awaitable[float]]


async def _resolve(result: Any) -> Any:
    return await result if inspect.isawaitable(result) else result


def _as_measure_value(result: Any, where: str) -> MeasureValue:
    if isinstance(result, MeasureValue):
        return result
    if result is None:
        return MeasureValue(value=None)
    if isinstance(result, (bool, int, float)):
        return MeasureValue(value=float(result))
    raise ExecutionError(
        f"{where} returned {type(result).__name__}; return a number or MeasureValue"
    )


@dataclass(frozen=True)
class CallableMetric:
    """A point metric defined by a sync or async function of a variant and its output.

    The function returns a number (booleans count as 0/1), None when it does not apply, or a
    :class:`MeasureValue` with structured details.
    """

    function: MetricFunction
    name: str
    version: str = "1"
    parameters: Mapping[str, JsonValue] = field(default_factory=dict)

    @cached_property
    def identity(self) -> Identity:
        """The metric's name, version and parameters."""
        return Identity(
            kind="metric", name=self.name, version=self.version, parameters=dict(self.parameters)
        )

    async def measure(self, variant: Variant, output: TargetOutput) -> MeasureValue:
        """The metric's value for one output."""
        result = await _resolve(self.function(variant, output))
        return _as_measure_value(result, f"metric {self.name!r}")


@dataclass(frozen=True)
class CallableDifference:
    """A difference measure defined by a sync or async function of two responses.

    Each :class:`Response` exposes ``variant`` and ``output``, so the function can compare
    decisions, confidence, cited evidence or anything else relative to the task it answered.
    The function must be symmetric, zero on identical outputs and never negative. The excess
    change is only guaranteed to detect every difference for measures of negative type (0/1
    "differs", absolute difference, Euclidean distance); edit distance and 1 − cosine are not,
    and may miss some changes.
    """

    function: DifferenceFunction
    name: str
    version: str = "1"
    parameters: Mapping[str, JsonValue] = field(default_factory=dict)

    @cached_property
    def identity(self) -> Identity:
        """The measure's name, version and parameters."""
        return Identity(
            kind="difference",
            name=self.name,
            version=self.version,
            parameters=dict(self.parameters),
        )

    async def compare(self, first: Response, second: Response) -> float:
        """The distance between two responses, checked to be a finite number >= 0."""
        value = await _resolve(self.function(first, second))
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ExecutionError(f"difference {self.name!r} returned {value!r}; return a number")
        if not np.isfinite(value) or value < 0:
            raise ExecutionError(f"difference {self.name!r} returned {value!r}; it must be >= 0")
        return float(value)


@dataclass(frozen=True)
class KeyedDifference:
    """A difference measure computed from one key per output.

    ``key`` maps a response to a JSON value once; two outputs then differ by ``distance``:
    ``discrete`` (0 when the keys are equal, else 1), ``absolute`` (|x − y| of numbers) or
    ``euclidean`` (between vectors). All three are of negative type.
    """

    key: Callable[[Response], JsonValue]
    name: str
    version: str = "1"
    distance: Distance = "discrete"
    parameters: Mapping[str, JsonValue] = field(default_factory=dict)

    @cached_property
    def identity(self) -> Identity:
        """The measure's name, version and parameters (with how keys are compared)."""
        return Identity(
            kind="difference",
            name=self.name,
            version=self.version,
            parameters={**self.parameters, "keyed": True, "distance": self.distance},
        )

    async def key_of(self, response: Response) -> JsonValue:
        """The key of one response."""
        return await _resolve(self.key(response))  # type: ignore[no-any-return]


PointMetric: TypeAlias = CallableMetric
DifferenceMeasure: TypeAlias = CallableDifference | KeyedDifference


def key_numbers(
    distance: str, keys: Sequence[JsonValue], codes: dict[str, int] | None = None
) -> NDArray[np.float64] | None:
    """Keys as the numbers :func:`key_distances` compares, or None when a key does not fit.

    Discrete keys become a code per distinct key (``codes`` carries them across calls, so the
    keys of many cells share one code book), absolute keys their values, euclidean keys their
    vectors, one row each. An unknown distance is refused with its name.
    """
    if distance == "discrete":
        book = {} if codes is None else codes
        return np.array(
            [book.setdefault(canonical_json(k), len(book)) for k in keys], dtype=np.float64
        )
    if distance == "absolute":
        if not all(isinstance(k, int | float) for k in keys):
            return None
        return np.array([float(k) for k in keys], dtype=np.float64)  # type: ignore[arg-type]
    if distance == "euclidean":
        if not all(isinstance(k, list) for k in keys):
            return None
        try:
            vectors = np.array(keys, dtype=np.float64)
        except (TypeError, ValueError):
            return None
        return vectors if vectors.ndim == 2 else None
    raise AnalysisError(f"unknown key distance {distance!r}: use discrete, absolute or euclidean")


def key_distances(distance: str, numbers: NDArray[np.float64]) -> NDArray[np.float64]:
    """Distance matrices of stacked keys from :func:`key_numbers`: (cases, n) or
    (cases, n, dim) -> (cases, n, n). The one place each distance's formula is written."""
    if distance == "discrete":
        discrete: NDArray[np.float64] = (numbers[:, :, None] != numbers[:, None, :]).astype(
            np.float64
        )
        return discrete
    if distance == "absolute":
        absolute: NDArray[np.float64] = np.abs(numbers[:, :, None] - numbers[:, None, :])
        return absolute
    difference = numbers[:, :, None, :] - numbers[:, None, :, :]
    euclidean: NDArray[np.float64] = np.sqrt((difference**2).sum(axis=-1))
    return euclidean


def key_distance(distance: str, keys: Sequence[JsonValue]) -> NDArray[np.float64]:
    """The matrix of distances between keys, vectorised; says which keys do not fit."""
    numbers = key_numbers(distance, keys)
    if numbers is None:
        needs = "numeric keys" if distance == "absolute" else "vectors of one length"
        raise AnalysisError(f"an {distance} distance needs {needs} for every output")
    matrix: NDArray[np.float64] = key_distances(distance, numbers[None])[0]
    return matrix


def answer_metrics(answer: Answer) -> tuple[CallableMetric, CallableMetric]:
    """The built-in ``correct`` and ``answered`` metrics of an answer reader.

    ``correct`` is 1 when the read answer equals the variant's reference (None when the variant
    has no reference); ``answered`` is 1 when an answer could be read. Both keep the read answer
    in their details.
    """
    reader = answer.identity.model_dump(mode="json")

    def correct(variant: Variant, output: TargetOutput) -> MeasureValue:
        read = answer(output)
        if variant.reference is None:
            return trusted(MeasureValue, {"value": None, "details": {"answer": read}})
        same = read is not None and _same_answer(read, variant.reference)
        return trusted(MeasureValue, {"value": 1.0 if same else 0.0, "details": {"answer": read}})

    def answered(variant: Variant, output: TargetOutput) -> MeasureValue:
        read = answer(output)
        return trusted(
            MeasureValue, {"value": 0.0 if read is None else 1.0, "details": {"answer": read}}
        )

    return (
        CallableMetric(correct, name="correct", parameters={"answer": reader}),
        CallableMetric(answered, name="answered", parameters={"answer": reader}),
    )


def answer_change(answer: Answer) -> KeyedDifference:
    """The built-in ``answer_change`` measure: 1 when two read answers differ, else 0.

    "No answer" is a value of its own, so losing the answer counts as a change.
    """

    def key(response: Response) -> JsonValue:
        return answer(response.output)

    return KeyedDifference(
        key, name="answer_change", parameters={"answer": answer.identity.model_dump(mode="json")}
    )


def _same_answer(read: AxisValue, reference: AxisValue) -> bool:
    if isinstance(read, bool) or isinstance(reference, bool):
        return same_value(read, reference)  # a boolean answer is never 1 or 0
    if isinstance(read, (int, float)) and isinstance(reference, (int, float)):
        return float(read) == float(reference)
    if isinstance(read, str) and isinstance(reference, str):
        return " ".join(read.split()).casefold() == " ".join(reference.split()).casefold()
    return False
