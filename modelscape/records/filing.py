"""Stored observation rows filed into columns, before any record is built from them.

A store parses its rows a block at a time and files each field into a column of its own
(:func:`file_rows`); :class:`FiledObservations` is what that leaves: the ids, a categorical
column per field whose values repeat, packed numbers, and a column of whatever a row holds
beyond the known fields. :class:`~modelscape.records.columns.ObservationColumns` reads records
back from it. It is also exactly what a store keeps of a run to load it again without parsing
a row (:mod:`~modelscape.store.snapshot`), so the two loads cannot file a row differently.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from pydantic import TypeAdapter, ValidationError

from modelscape.errors import StoreError
from modelscape.records.categorical import ABSENT, Categorical, Codes, IntArray, Numbers, key
from modelscape.records.stored import Observation
from modelscape.targets.protocol import TargetOutput

__all__ = [
    "KINDS",
    "OUTPUT",
    "OUTPUT_FIELDS",
    "ROW_FIELDS",
    "TOP",
    "FiledObservations",
    "check_filed",
    "file_rows",
    "repetitions",
]

# The fields of a stored observation (and of its output) that get a column of their own;
# anything else a row holds goes to one column of the rest, so nothing is lost.
TOP = ("experiment_id", "target", "target_id", "variant_id", "case", "coordinate", "status")
OUTPUT = ("text", "data", "model", "usage", "finish_reason", "error")
OUTPUT_FIELDS = frozenset({*OUTPUT, "latency"})
#: Numeric fields: the Python type each must have to be packed, and the array code to pack in.
KINDS: dict[str, tuple[type, str]] = {
    "seed": (int, "q"),
    "attempts": (int, "q"),
    "started": (float, "d"),
    "duration": (float, "d"),
}
ROW_FIELDS = frozenset({"id", "output", "repetition", *TOP, *KINDS})


class FiledObservations:
    """An experiment's stored observations, field by field.

    ``top`` holds a :class:`Categorical` per field of :data:`TOP` (``coordinate`` is each
    variant's first row's), ``outputs`` one per field of :data:`OUTPUT`; ``numbers`` holds
    ``seed``, ``attempts``, ``started`` and ``duration``, and ``latency`` the outputs'
    latencies, each a numpy array while every value was of its kind, else a list of the values
    as stored (:data:`~modelscape.records.categorical.ABSENT` where a row had none). ``rest``
    is None for a row with nothing beyond the known fields, else the pair of dicts it had
    beyond them (the row's, its output's).
    """

    __slots__ = ("ids", "latency", "numbers", "outputs", "repetition", "rest", "top")

    def __init__(
        self,
        ids: list[str],
        top: dict[str, Categorical],
        repetition: IntArray,
        numbers: dict[str, Any],
        outputs: dict[str, Categorical],
        latency: Any,
        rest: Categorical,
    ) -> None:
        self.ids = ids
        self.top = top
        self.repetition = repetition
        self.numbers = numbers
        self.outputs = outputs
        self.latency = latency
        self.rest = rest

    def __len__(self) -> int:
        return len(self.ids)

    def reorder(self, order: IntArray) -> None:
        """Put the rows in ``order`` (a permutation of the row numbers), in place."""
        self.ids = [self.ids[i] for i in order.tolist()]
        self.repetition = self.repetition[order]
        for categorical in (*self.top.values(), *self.outputs.values(), self.rest):
            categorical.codes = categorical.codes[order]
        self.numbers = {name: _take(column, order) for name, column in self.numbers.items()}
        self.latency = _take(self.latency, order)


def file_rows(blocks: Iterable[list[dict[str, Any]]]) -> FiledObservations:
    """File the parsed JSON of stored observations, a block of rows at a time.

    Each block goes to the columns field by field, so the rows never all exist at once. A
    row's ``output`` must be an object and its ``repetition`` a whole number; anything else is
    a :class:`~modelscape.errors.StoreError` naming the observation.
    """
    ids: list[str] = []
    top = {name: Codes() for name in TOP if name != "coordinate"}
    out = {name: Codes() for name in OUTPUT}
    numbers = {name: Numbers(kind, code) for name, (kind, code) in KINDS.items()}
    latency = Numbers(float, "d")
    extras = Codes()
    found_repetitions: list[Any] = []
    coordinates: dict[Any, Any] = {}
    for block in blocks:
        ids.extend([row["id"] for row in block])
        found_repetitions.extend([row.get("repetition", ABSENT) for row in block])
        for name, codes in top.items():
            codes.extend([row.get(name, ABSENT) for row in block])
        for row in block:
            coordinates.setdefault(
                key(row.get("variant_id", ABSENT)), row.get("coordinate", ABSENT)
            )
        for name, column in numbers.items():
            column.extend([row.get(name, ABSENT) for row in block])
        found = [row.get("output") for row in block]
        for row, output in zip(block, found, strict=True):
            if not isinstance(output, dict):
                raise StoreError(f"observation {row['id']!r} has no output object")
        given: list[dict[str, Any]] = found  # type: ignore[assignment]  # checked above
        for name, codes in out.items():
            codes.extend([output.get(name, ABSENT) for output in given])
        latency.extend([output.get("latency", ABSENT) for output in given])
        extras.extend([_extra(row, output) for row, output in zip(block, given, strict=True)])
    repetition = repetitions(found_repetitions, ids)
    del found_repetitions
    columns = {name: codes.column() for name, codes in top.items()}
    variant = columns["variant_id"]
    per_variant = Categorical.of(coordinates[key(v)] for v in variant.values)
    columns["coordinate"] = Categorical(
        per_variant.codes[variant.codes] if len(per_variant) else variant.codes,
        per_variant.values,
    )
    return FiledObservations(
        ids,
        {name: columns[name] for name in TOP},
        repetition,
        {name: column.column() for name, column in numbers.items()},
        {name: codes.column() for name, codes in out.items()},
        latency.column(),
        extras.column(),
    )


def _extra(row: dict[str, Any], output: dict[str, Any]) -> Any:
    """What a stored row holds beyond the known fields (None: nothing), kept so that a record
    built from the columns has it too."""
    if ROW_FIELDS.issuperset(row) and OUTPUT_FIELDS.issuperset(output):
        return None
    return (
        {k: v for k, v in row.items() if k not in ROW_FIELDS},
        {k: v for k, v in output.items() if k not in OUTPUT_FIELDS},
    )


def _take(column: Any, order: IntArray) -> Any:
    if isinstance(column, np.ndarray):
        return column[order]
    return [column[i] for i in order.tolist()]


def repetitions(values: list[Any], ids: list[str]) -> IntArray:
    """Repetitions as an int64 array; one that is not a whole number is named."""
    for value, observation in zip(values, ids, strict=True):
        if type(value) is not int:
            raise StoreError(
                f"observation {observation!r} has repetition {value!r}, not a whole number"
            )
    return np.asarray(values, dtype=np.int64)


# What each filed field may hold: the record's own field types, read in strict mode so that
# nothing is converted (a text "3" is not a seed). ``data`` is left out: any parsed JSON is a
# JSON value. ``experiment_id`` is set by the store itself.
_CHECKED: dict[str, tuple[Any, bool]] = {
    **{
        name: (
            Observation.model_fields[name].annotation,
            Observation.model_fields[name].is_required(),
        )
        for name in (*TOP, *KINDS)
        if name != "experiment_id"
    },
    **{
        f"output.{name}": (TargetOutput.model_fields[name].annotation, False)
        for name in (*OUTPUT, "latency")
        if name != "data"
    },
}
_ADAPTERS = {name: TypeAdapter(list[kind]) for name, (kind, _) in _CHECKED.items()}  # type: ignore[valid-type]


def check_filed(filed: FiledObservations) -> None:
    """Check that every filed value is one a stored observation can hold.

    Records are built from the columns without validation (they are what the store wrote),
    so a row changed by hand to hold, say, a status other than ``ok`` and ``failed`` or a case
    that is not text would otherwise be read as if it were sound. Each distinct value is
    checked once, so this costs little even for a million rows; the first row holding a
    value that fails is named in a :class:`~modelscape.errors.StoreError`.
    """
    columns: dict[str, Any] = {
        **filed.top,
        **filed.numbers,
        **{f"output.{name}": column for name, column in filed.outputs.items()},
        "output.latency": filed.latency,
    }
    for name, (_, required) in _CHECKED.items():
        column = columns[name]
        if isinstance(column, np.ndarray):
            continue  # packed numbers are of their kind already
        values = column.values if isinstance(column, Categorical) else column
        present = [v for v in values if v is not ABSENT]
        if required and len(present) < len(values):
            _refuse(filed, name, column, ABSENT)
        try:
            _ADAPTERS[name].validate_python(present, strict=True)
        except ValidationError as error:
            _refuse(filed, name, column, present[int(error.errors()[0]["loc"][0])])


def _refuse(filed: FiledObservations, name: str, column: Any, bad: Any) -> None:
    """Raise the error naming the first row whose ``name`` holds ``bad`` (an object of the
    column's own values, so found by identity)."""
    at = (
        int(np.flatnonzero(column.codes == _code_of(column.values, bad))[0])
        if isinstance(column, Categorical)
        else next(i for i, v in enumerate(column) if v is bad)
    )
    held = "nothing" if bad is ABSENT else repr(bad)[:80]
    # A variant's coordinate is filed once, from the first of its rows read.
    whose = (
        f"an observation of variant {filed.top['variant_id'][at]!r} has {held} as its coordinate"
        if name == "coordinate"
        else f"observation {filed.ids[at]!r} has {held} as its "
        + name.replace("output.", "output's ")
    )
    raise StoreError(
        f"{whose}, which a stored observation cannot hold (was the store edited by hand?)"
    )


def _code_of(values: list[Any], value: Any) -> int:
    return next(i for i, v in enumerate(values) if v is value)
