"""Hostile values for the data layer's round-trip properties, and one experiment to hold them.

Text that breaks encoders and pages (lone UTF-16 halves, NUL and other control characters,
``</script>``, right-to-left marks, look-alike numbers, very long and empty text), JSON that
breaks readers (NaN and infinities, ``-0.0``, integers past 64 bits, deep nesting, keys that
only become equal once cleaned), and an experiment whose cases, axis values and target names
are hostile too: an axis whose values are ``1``, ``1.0``, ``True`` and ``"1"`` (four
different values that Python's ``==`` mixes up), ``10**30``, ``"1e999"`` and ``"0x10"``.

:func:`typed` turns any record dump into a value whose equality is strict about types and
NaN, so that a store reading ``1.0`` back as ``1`` (or NaN as None) cannot pass unnoticed.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st
from pydantic import BaseModel

from modelscape._identity import AxisValue, JsonValue
from modelscape.execution import Experiment
from modelscape.execution.measuring import difference_id, point_id
from modelscape.measures import CallableDifference, CallableMetric, MeasureValue, Response
from modelscape.records.stored import (
    DifferenceMeasurement,
    Observation,
    PointMeasurement,
    observation_id,
)
from modelscape.targets import CallableTarget
from modelscape.targets.protocol import TargetOutput, TargetRequest, Usage
from modelscape.task import Axis, Task, TaskSpace, attribute, perturbation
from modelscape.task.space import Variant

# -- text -----------------------------------------------------------------------------------------
#: Unpaired halves of UTF-16 pairs, and one whole pair split over two code points.
SURROGATES = ["\ud83d", "\ude00", "\udbff", "\udc00", "\ud83d\ude00"]
#: Pieces of text that other formats treat specially, every one valid Unicode.
PIECES = [
    "",
    "</script>",
    "<!--",
    "]]>",
    "\x00",
    "\x07\x1b[31m\x7f",
    "\r\n\t",
    "\u202e",
    "\u200f",
    "\ufeff",
    "e\u0301",
    "ü",
    "中",
    "😀",
    "\U0010ffff",
    "1e999",
    "0x10",
    "-0",
    "NaN",
    "Infinity",
    "null",
    "\"\\'",
    "\\ud83d",
    '{"answer":"yes","answer":"no"}',
]


def long_text(end: str = "") -> str:
    """About 12,000 characters of hostile text, then ``end`` (a strategy shows this name,
    where it would show the whole text of a constant)."""
    return "</script>\x00ü😀" * 1_000 + end


valid_text = st.one_of(
    st.lists(st.sampled_from(PIECES) | st.text(max_size=6), max_size=5).map("".join),
    st.builds(long_text),
)
#: Any text a target may send: valid Unicode or not.
raw_text = st.one_of(
    st.lists(
        st.sampled_from(PIECES + SURROGATES)
        | st.text(st.characters(exclude_categories=()), max_size=6),
        max_size=6,
    ).map("".join),
    st.builds(long_text, st.just("\ud83d")),
)

# -- numbers and JSON -----------------------------------------------------------------------------
NON_FINITE = [math.nan, math.inf, -math.inf]
finite = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(
    [-0.0, 0.0, 1e308, -1e308, 5e-324]
)
whole = st.integers(-(2**70), 2**70) | st.sampled_from([10**30, -(10**30), 2**63, -(2**63) - 1])
scalars = st.none() | st.booleans() | whole | finite | st.sampled_from(NON_FINITE)
#: Keys that differ as sent and become one key once lone surrogates are replaced.
COLLIDING = ["k\ud83d", "k\ude00", "k\ufffd"]


def nest(depth: int, leaf: JsonValue) -> JsonValue:
    """``leaf`` inside ``depth`` levels of lists and objects, alternating."""
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


#: Past the 200 levels pydantic's JSON parser reads, within the 254 its validation takes.
DEEP = 220


def json_values(text: st.SearchStrategy[str], *, depth: int = DEEP) -> st.SearchStrategy[Any]:
    """JSON values with hostile scalars and keys, a few of them nested up to ``depth`` deep."""
    keys = text | st.sampled_from(COLLIDING)
    tree = st.recursive(
        scalars | text,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
        max_leaves=8,
    )
    return tree | st.builds(nest, st.integers(1, depth), scalars | text)


def raw_outputs(*, depth: int = DEEP, errors: bool = True) -> st.SearchStrategy[TargetOutput]:
    """Outputs as a target may return them: any text, any JSON, any number (``errors``: some
    of them reporting an error)."""
    maybe = st.none() | raw_text
    return st.builds(
        TargetOutput,
        text=raw_text,
        data=st.none() | json_values(raw_text, depth=depth),
        model=maybe,
        usage=st.none()
        | st.builds(
            Usage,
            input_tokens=st.integers(0, 2**62),
            output_tokens=st.integers(-(2**31), 2**31),
            cost=st.none() | finite | st.sampled_from(NON_FINITE),
        ),
        finish_reason=maybe,
        latency=st.none() | finite | st.sampled_from(NON_FINITE),
        error=maybe if errors else st.none(),
    )


# -- comparing ------------------------------------------------------------------------------------
def typed(value: Any) -> Any:
    """``value`` with every scalar tagged by its type, NaN made equal to itself, the sign of a
    zero kept, and the order of keys kept: equal only when the JSON a record would be read as
    is the same."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, float):
        if math.isnan(value):
            return ("float", "nan")
        return ("float", repr(value))
    if isinstance(value, str):
        return ("str", value)
    if isinstance(value, dict):
        return ("dict", [(key, typed(item)) for key, item in value.items()])
    if isinstance(value, list | tuple):
        return ("list", [typed(item) for item in value])
    return ("other", value)


def fields(record: BaseModel) -> dict[str, Any]:
    """A record's fields by name, each :func:`typed` (a nested record's fields too).

    By name, not in the order a dump lists them: a record a store builds without validation
    lists its fields in another order, which no reader sees; the order of keys within JSON
    data is kept, since a reader of the data sees that.
    """
    return {
        name: fields(value) if isinstance(value, BaseModel) else typed(value)
        for name, value in ((name, getattr(record, name)) for name in type(record).model_fields)
    }


def same(left: Any, right: Any, how: str = "") -> None:
    """Assert ``left == right``, naming the first place they differ, each side cut short (a
    run holds texts of thousands of characters, which a whole diff would bury)."""

    def short(value: Any) -> str:
        text = repr(value)
        return text if len(text) <= 160 else text[:160] + f"... ({len(text)} characters)"

    def walk(a: Any, b: Any, path: str) -> None:
        if a == b:
            return
        if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
            for key in a:
                walk(a[key], b[key], f"{path}.{key}")
        elif isinstance(a, list | tuple) and isinstance(b, list | tuple) and len(a) == len(b):
            for index, (x, y) in enumerate(zip(a, b, strict=True)):
                walk(x, y, f"{path}[{index}]")
        raise AssertionError(f"{how} {path or 'value'}: {short(a)} != {short(b)}")

    walk(left, right, "")


def dumps(records: Any) -> list[Any]:
    """Each record's :func:`fields`."""
    return [fields(record) for record in records]


# -- the experiment -------------------------------------------------------------------------------
class Note(Task):
    """A note to repeat back, under a label of any kind."""

    body: str
    mark: str | int | float | bool

    @attribute
    def label(self) -> AxisValue:
        return self.mark

    def reference(self) -> AxisValue:
        return self.mark

    def prompt(self) -> str:
        return f"{self.body}\n[{self.mark!r}]"


@perturbation
def relabel(task: Note, value: AxisValue) -> Note:
    return task.model_copy(update={"mark": value})


#: Values Python's ``==`` mixes up (1, 1.0, True), numbers as text, a number past 64 bits.
LABELS: list[AxisValue] = [
    "1e999",
    1,
    1.0,
    True,
    "1",
    "0x10",
    10**30,
    -(10**30),
    -0.0,
    "</script>",
    "\x00\x1b",
    "ü中😀\u202e",
    "",
]
CASES = {
    "</script><!--": Note(body="x\x00</script>" * 3, mark="1e999"),
    "ü\u202e中\x00": Note(body="", mark="1e999"),
    "1e999": Note(body="0x10" * 2_000, mark="1e999"),
}


class Replies:
    """What the hostile target answers: set per example, looked up by prompt and repetition;
    ``calls`` counts the calls."""

    def __init__(self) -> None:
        self.outputs: dict[tuple[str, int], TargetOutput] = {}
        self.calls = 0

    def __call__(self, request: TargetRequest) -> TargetOutput:
        self.calls += 1
        return self.outputs.get((request.prompt.text, request.repetition), TargetOutput())


#: The score a metric gives an output of ``n`` characters: every kind of awkward number.
SCORES: list[float | None] = [math.nan, math.inf, -math.inf, -0.0, 1e308, 0.5, None, 5e-324]


def score(variant: Variant, output: TargetOutput) -> MeasureValue:
    """Any number at all (NaN included), with the output's data as its details."""
    return MeasureValue(value=SCORES[len(output.text) % len(SCORES)], details=output.data)


def differs(first: Response, second: Response) -> float:
    return float(first.output.text != second.output.text)


REPLIES = Replies()
TARGETS = [
    CallableTarget(REPLIES, name="t\u202e</script>"),
    CallableTarget(REPLIES, name="ü中\x00", parameters={"n": 10**30, "x": "1e999"}),
]
EXPERIMENT = Experiment(
    task_space=TaskSpace(CASES, [Axis("label", LABELS, relabel, scale="nominal")]),
    targets=TARGETS,
    repetitions=2,
    point_metrics=[CallableMetric(score, name="score\x00")],
    difference_measures=[CallableDifference(differs, name="differs</script>")],
    seed=-(2**40),
)
RECORD = EXPERIMENT.record()
VARIANTS = EXPERIMENT.variants()


# -- records of the experiment, made directly ----------------------------------------------------
@st.composite
def observations(
    draw: st.DrawFn, outputs: st.SearchStrategy[TargetOutput], *, most: int = 10
) -> list[Observation]:
    """Some of the experiment's observations, each asked once, in a random order, with their
    content ids, hostile outputs and any times."""
    plan = [
        (target, variant, repetition)
        for target in RECORD.targets
        for variant in VARIANTS
        for repetition in range(RECORD.repetitions)
    ]
    picked = draw(st.lists(st.integers(0, len(plan) - 1), max_size=most, unique=True))
    chosen = [plan[i] for i in picked]
    times = finite | st.just(0.0)
    return [
        Observation(
            id=observation_id(RECORD.seed, target, variant.id, repetition),
            experiment_id=RECORD.id,
            target=target.name,
            target_id=target.id,
            variant_id=variant.id,
            case=variant.case,
            coordinate=dict(variant.coordinate),
            repetition=repetition,
            seed=draw(whole),
            status=draw(st.sampled_from(["ok", "failed"])),
            output=draw(outputs),
            attempts=draw(st.integers(1, 2**40)),
            started=draw(times),
            duration=draw(times),
        )
        for target, variant, repetition in chosen
    ]


def measurements(
    draw: st.DrawFn,
    stored: list[Observation],
    values: st.SearchStrategy[float | None],
    details: st.SearchStrategy[Any],
) -> tuple[list[PointMeasurement], list[DifferenceMeasurement]]:
    """Point measurements of some observations and differences of some pairs, each with
    the content id a run gives it."""
    (metric,) = RECORD.point_metrics
    (measure,) = RECORD.difference_measures
    points = [
        PointMeasurement(
            id=point_id(metric.id, o.id),
            observation_id=o.id,
            measure=metric.name,
            measure_id=metric.id,
            value=draw(values),
            details=draw(details),
        )
        for o in stored
        if draw(st.booleans())
    ]
    pairs = sorted({tuple(sorted((a.id, b.id))) for a in stored for b in stored if a.id != b.id})
    differences = [
        DifferenceMeasurement(
            id=difference_id(measure.id, first, second),
            measure=measure.name,
            measure_id=measure.id,
            first=first,
            second=second,
            value=draw(st.floats(0, 1e308) | st.just(0.0)),
        )
        for first, second in pairs
        if draw(st.booleans())
    ]
    return points, differences
