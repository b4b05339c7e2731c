"""A run as one table for notebooks and SQL: a row per observation, a column per measure.

:func:`arrow_table` builds an Apache Arrow table from the columns the results already hold
(:class:`~modelscape.records.columns.ObservationColumns` and
:class:`~modelscape.records.columns.PointColumns`), a distinct value at a time: every
repeated name, text and coordinate is converted once and spread over its rows by its codes, so
no record is built for a run loaded from a store. Parquet, pandas and polars are conversions
of that one table (:func:`write_parquet`, :func:`pandas_frame`, :func:`polars_frame`), so all
four hold the same rows and columns.

The columns, in order (see docs/design/043-columns-for-users.md):

- ``observation``, ``target``, ``target_id``, ``variant``, ``case``: ids and names;
  ``target``, ``variant`` and ``case`` are dictionary-encoded.
- ``axis:<name>`` per axis of the experiment, typed from the axis's values (bool, int64,
  float64 or text; an axis whose values mix kinds holds each value's JSON text).
- ``repetition``, ``seed``, ``status`` (``ok`` or ``failed``), ``attempts``, ``started``,
  ``duration``: how the output was asked for.
- ``text``, ``data`` (the output's JSON data as JSON text; null when it had none), ``model``,
  ``finish_reason``, ``error``, ``latency``, ``input_tokens``, ``output_tokens``, ``cost``:
  the output as stored; usage columns are null for an output without usage.
- one column per measure with values per observation: a point metric's value (float64, null
  where it has none), and a keyed difference measure's key (JSON text: ``answer_change``
  holds the answer the scenario's reader read). A measure whose name is taken by a column
  above is called ``measure:<name>``. Pairwise measures compare two observations, so they
  have no place in a row; their values stay in the store (``store.load(id).differences``).

Text is valid Unicode as the store keeps it (a lone surrogate in hand-made records becomes
U+FFFD, as storing would make it); NUL and every other character are kept. Whole numbers
beyond 64 bits in ``seed`` or ``attempts`` are given as decimal text in that column.
"""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Callable, Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from numpy.typing import NDArray

from modelscape.errors import MissingExtraError
from modelscape.records.categorical import ABSENT, Categorical
from modelscape.records.columns import ObservationColumns, PointColumns
from modelscape.records.settings import DifferenceSettings
from modelscape.records.stored import ExperimentRecord
from modelscape.targets._cleaning import clean_text

if TYPE_CHECKING:
    import pandas
    import polars

__all__ = ["arrow_table", "pandas_frame", "polars_frame", "write_parquet"]

_INT64 = (-(2**63), 2**63 - 1)
#: The fixed columns, before the measures: a measure by one of these names is renamed.
FIXED = (
    "observation",
    "target",
    "target_id",
    "variant",
    "case",
    "repetition",
    "seed",
    "status",
    "attempts",
    "started",
    "duration",
    "text",
    "data",
    "model",
    "finish_reason",
    "error",
    "latency",
    "input_tokens",
    "output_tokens",
    "cost",
)


class RunColumns(Protocol):
    """What the export reads of the indexed run a :class:`~modelscape.results.Results` holds."""

    @property
    def experiment(self) -> ExperimentRecord: ...
    @property
    def columns(self) -> ObservationColumns: ...
    @property
    def point_columns(self) -> PointColumns: ...
    def point_rows(self, measure: str) -> NDArray[np.int64] | None: ...
    def difference(self, measure: str) -> DifferenceSettings | None: ...


def _require(module: str, extra: str, wanted: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(
            f"Results.{wanted}() needs {module}, which is not installed: "
            f'pip install "modelscape-map[{extra}]"'
        ) from None


def arrow_table(results: RunColumns, *, wanted: str = "to_arrow") -> Any:
    """The run as a ``pyarrow.Table``: one row per observation, in the results' order."""
    pa = _require("pyarrow", "arrow", wanted)
    columns = results.columns
    fields = _OutputFields.of(columns)
    named: dict[str, Any] = {
        "observation": pa.array(columns.ids, pa.string()),
        "target": _dictionary(pa, columns.target),
        "target_id": _strings(pa, fields.target_id),
        "variant": _dictionary(pa, columns.variant),
        "case": _dictionary(pa, columns.case),
    }
    for axis in results.experiment.axes:
        named[f"axis:{axis.name}"] = _axis(pa, columns.coordinate, axis.name, axis.values)
    status = np.where(columns.ok, 0, 1).astype(np.int32)
    named.update(
        repetition=pa.array(columns.repetition, pa.int64()),
        seed=_whole(pa, fields.seed),
        status=pa.DictionaryArray.from_arrays(pa.array(status), pa.array(["ok", "failed"])),
        attempts=_whole(pa, fields.attempts),
        started=pa.array(columns.started, pa.float64()),
        duration=pa.array(columns.duration, pa.float64()),
        text=_strings(pa, fields.text),
        data=_strings(pa, fields.data, _json_text),
        model=_strings(pa, columns.model),
        finish_reason=_strings(pa, fields.finish_reason),
        error=_strings(pa, fields.error),
        latency=pa.array(columns.latency, pa.float64(), mask=np.isnan(columns.latency)),
        input_tokens=pa.array(columns.input_tokens, pa.int64(), mask=~fields.usage),
        output_tokens=pa.array(columns.output_tokens, pa.int64(), mask=~fields.usage),
        cost=pa.array(columns.cost, pa.float64(), mask=np.isnan(columns.cost)),
    )
    for name in _measure_names(results):
        taken = name in named or name.startswith(("axis:", "measure:"))
        named[f"measure:{name}" if taken else name] = _measure(pa, results, name, len(columns))
    metadata = {"modelscape.experiment": results.experiment.id}
    return pa.table(named, metadata=metadata)


def write_parquet(results: RunColumns, path: str | PathLike[str]) -> Path:
    """Write :func:`arrow_table` to a Parquet file at ``path``; returns the path."""
    table = arrow_table(results, wanted="to_parquet")
    parquet = _require("pyarrow.parquet", "arrow", "to_parquet")
    target = Path(path)
    parquet.write_table(table, target)
    return target


def pandas_frame(results: RunColumns) -> pandas.DataFrame:
    """:func:`arrow_table` as a pandas DataFrame (names as categories, nulls as NaN/None)."""
    _require("pandas", "pandas", "to_pandas")
    frame: pandas.DataFrame = arrow_table(results, wanted="to_pandas").to_pandas()
    return frame


def polars_frame(results: RunColumns) -> polars.DataFrame:
    """:func:`arrow_table` as a polars DataFrame."""
    pl = _require("polars", "polars", "to_polars")
    frame: polars.DataFrame = pl.from_arrow(arrow_table(results, wanted="to_polars"))
    return frame


# -- the output's own fields ----------------------------------------------------------------
class _OutputFields:
    """The fields of the outputs that the public columns do not hold, as categorical columns
    (or, for ``seed`` and ``attempts``, numbers) over the rows."""

    def __init__(self, fields: dict[str, Any]) -> None:
        self.target_id: Categorical = fields["target_id"]
        self.text: Categorical = fields["text"]
        self.data: Categorical = fields["data"]
        self.finish_reason: Categorical = fields["finish_reason"]
        self.error: Categorical = fields["error"]
        #: True where the output had a usage record.
        self.usage: NDArray[np.bool_] = fields["usage"]
        self.seed: Any = fields["seed"]
        self.attempts: Any = fields["attempts"]

    @classmethod
    def of(cls, columns: ObservationColumns) -> _OutputFields:
        filed = columns.filed
        if filed is None:
            # Columns over records (a run held in memory): the records are there already.
            return cls.of_records(columns)
        outputs, numbers = filed.outputs, filed.numbers
        usage = outputs["usage"]
        present = np.asarray([isinstance(v, dict) for v in usage.values], dtype=np.bool_)
        return cls(
            {
                "target_id": filed.top["target_id"],
                "text": _defaulted(outputs["text"], ""),
                "data": _defaulted(outputs["data"], None),
                "finish_reason": _defaulted(outputs["finish_reason"], None),
                "error": _defaulted(outputs["error"], None),
                "usage": present[usage.codes] if len(present) else np.zeros(0, np.bool_),
                "seed": numbers["seed"],
                "attempts": _numbers_defaulted(numbers["attempts"], 1),
            }
        )

    @classmethod
    def of_records(cls, columns: ObservationColumns) -> _OutputFields:
        kept = list(columns)
        outputs = [o.output for o in kept]
        return cls(
            {
                "target_id": Categorical.of(o.target_id for o in kept),
                "text": Categorical.of(o.text for o in outputs),
                "data": Categorical.of(o.data for o in outputs),
                "finish_reason": Categorical.of(o.finish_reason for o in outputs),
                "error": Categorical.of(o.error for o in outputs),
                "usage": np.asarray([o.usage is not None for o in outputs], dtype=np.bool_),
                "seed": [o.seed for o in kept],
                "attempts": [o.attempts for o in kept],
            }
        )


def _defaulted(column: Categorical, default: Any) -> Categorical:
    """A filed column with a field a row did not have read as the field's default."""
    return Categorical(column.codes, [default if v is ABSENT else v for v in column.values])


def _numbers_defaulted(column: Any, default: int) -> Any:
    if isinstance(column, np.ndarray):
        return column
    return [default if v is ABSENT else v for v in column]


# -- Arrow columns --------------------------------------------------------------------------
def _dictionary(pa: Any, column: Categorical) -> Any:
    """A categorical column of text as an Arrow dictionary array (a category in pandas)."""
    values = [clean_text(str(v)) for v in column.values]
    return pa.DictionaryArray.from_arrays(
        pa.array(column.codes, pa.int32()), pa.array(values, pa.string())
    )


def _strings(
    pa: Any, column: Categorical, convert: Callable[[Any], str | None] | None = None
) -> Any:
    """A categorical column as plain text, null where the value is None: each distinct value
    converted once (``convert``, else as text), then taken by the codes."""
    if convert is None:
        values = [None if v is None else clean_text(str(v)) for v in column.values]
    else:
        values = [None if v is None else convert(v) for v in column.values]
    return pa.array(values, pa.string()).take(pa.array(column.codes, pa.int32()))


def _json_text(value: Any) -> str:
    """JSON data as JSON text; a number JSON cannot hold (NaN, an infinity) written as null,
    as the store would have it."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except ValueError:
        text = json.dumps(_finite(value), ensure_ascii=False, allow_nan=False)
    return clean_text(text)


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


def _whole(pa: Any, column: Any) -> Any:
    """Whole numbers as int64, or as decimal text when one of them does not fit."""
    if isinstance(column, np.ndarray):
        return pa.array(column, pa.int64())
    if all(type(v) is int and _INT64[0] <= v <= _INT64[1] for v in column):
        return pa.array(column, pa.int64())
    return pa.array([None if v is None else str(v) for v in column], pa.string())


def _axis(pa: Any, coordinates: Categorical, name: str, declared: Sequence[Any]) -> Any:
    """An axis's value per row, typed from the values the axis declares."""
    values = [c.get(name) if isinstance(c, dict) else None for c in coordinates.values]
    kinds = {type(v) for v in declared}
    if kinds == {bool}:
        kind = pa.bool_()
    elif kinds == {int} and all(_INT64[0] <= v <= _INT64[1] for v in declared):
        kind = pa.int64()
    elif kinds == {float}:
        kind = pa.float64()
    elif kinds == {str}:
        kind = pa.string()
        values = [None if v is None else clean_text(v) for v in values]
    else:
        kind = pa.string()
        values = [None if v is None else _json_text(v) for v in values]
    if kind != pa.string() and not all(v is None or type(v) in kinds for v in values):
        # A stored coordinate holding a value of another kind than its axis declares.
        kind = pa.string()
        values = [None if v is None else _json_text(v) for v in values]
    return pa.array(values, kind).take(pa.array(coordinates.codes, pa.int32()))


# -- measures -------------------------------------------------------------------------------
def _measure_names(results: RunColumns) -> list[str]:
    """The measures with values per observation: the experiment's point metrics and keyed
    measures in its order, then any other measure with stored points, by name."""
    experiment = results.experiment
    names = [m.name for m in experiment.point_metrics]
    for measure in experiment.difference_measures:
        settings = results.difference(measure.name)
        if settings is not None and settings.kind == "keyed" and measure.name not in names:
            names.append(measure.name)
    stored = sorted(set(results.point_columns.measure.values) - set(names))
    return [*names, *stored]


def _measure(pa: Any, results: RunColumns, name: str, size: int) -> Any:
    """One measure's column: a key's JSON text for a keyed measure, else a number."""
    settings = results.difference(name)
    keyed = settings is not None and settings.kind == "keyed"
    rows = results.point_rows(name)
    if rows is None:  # no observation was measured (none succeeded, say)
        return pa.nulls(size, pa.string() if keyed else pa.float64())
    points = results.point_columns
    found = rows >= 0
    at = np.where(found, rows, 0)
    if keyed:
        # A key per point, JSON text of each distinct key once; -1 (no point) reads null.
        details = points.details
        keys = [_json_text(v) for v in details.values] + [None]
        codes = np.where(found, details.codes[at] if len(details.codes) else -1, len(keys) - 1)
        return pa.array(keys, pa.string()).take(pa.array(codes, pa.int32()))
    values = points.values[at]
    missing = ~found | ~points.has_value[at]
    return pa.array(values, pa.float64(), mask=missing)
