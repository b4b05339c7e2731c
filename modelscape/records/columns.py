"""Observations and point measurements held column by column, built as records when read.

A large run holds a million outputs and three million point measurements. As pydantic records
they take gigabytes, and every pass of the garbage collector walks them all; as columns
(a numpy array per number, a code per row for values that repeat, such as names, statuses and
coordinates) they take a fraction of that, and an analysis reads what it needs without
building a record. A record is built when one is read (``columns[i]``, iteration), exactly
as the record-by-record load would have built it.

:class:`ObservationColumns` and :class:`PointColumns` are read-only ``Sequence`` objects, so a
reader of :class:`~modelscape.records.run.IndexedRun` still sees sequences of records; the
indexes of ``IndexedRun`` read their columns directly. Either is made from records
(:meth:`ObservationColumns.of_records`, which keeps the records and returns them as they
are) or from the dicts a store parsed (:meth:`ObservationColumns.of_rows`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cached_property
from typing import Any, TypeVar, overload

import numpy as np

from modelscape._model import trusted
from modelscape.records.categorical import (
    ABSENT,
    BoolArray,
    Categorical,
    FloatArray,
    IntArray,
)
from modelscape.records.filing import FiledObservations, check_filed, file_rows, repetitions
from modelscape.records.stored import Observation, PointMeasurement

__all__ = ["ObservationColumns", "PointColumns"]

R = TypeVar("R", Observation, PointMeasurement)


class _Rows(Sequence[R]):
    """A read-only sequence of records held as columns: ``ids`` and a builder of row i.

    Equal to any sequence of the same records, as the list a row-by-row load returns.
    """

    ids: list[str]
    _build: Callable[[int], R]
    #: What one record is called, in messages.
    _noun = "record"

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, index: int) -> R: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[R, ...]: ...
    def __getitem__(self, index: int | slice) -> R | tuple[R, ...]:
        if isinstance(index, slice):
            return tuple(self._build(i) for i in range(*index.indices(len(self.ids))))
        if index < 0:
            index += len(self.ids)
        if not 0 <= index < len(self.ids):
            raise IndexError(f"{self._noun} {index} of {len(self.ids)}")
        return self._build(index)

    def __iter__(self) -> Iterator[R]:
        build = self._build
        return (build(i) for i in range(len(self.ids)))

    def at(self, rows: Iterable[int]) -> tuple[R, ...]:
        """The records of some rows, in that order."""
        return tuple(self._build(int(i)) for i in rows)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str | bytes):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return f"<{len(self.ids)} {self._noun}s held as columns>"


class ObservationColumns(_Rows[Observation]):
    """Observations as columns; ``columns[i]`` builds the i-th record.

    The columns every index reads are public: ``ids`` (a list of str), ``target``, ``case``,
    ``variant``, ``coordinate`` and ``model`` (:class:`Categorical`), and the arrays ``ok``,
    ``repetition``, ``started``, ``duration``, ``latency`` (NaN where the output has none),
    ``input_tokens`` and ``output_tokens`` (0 without usage), ``cost`` (NaN without one).
    """

    _noun = "observation"

    def __init__(
        self,
        ids: list[str],
        fields: dict[str, Any],
        build: Callable[[int], Observation],
    ) -> None:
        self.ids = ids
        self.target: Categorical = fields["target"]
        self.case: Categorical = fields["case"]
        self.variant: Categorical = fields["variant_id"]
        self.coordinate: Categorical = fields["coordinate"]
        self.model: Categorical = fields["model"]
        self.ok: BoolArray = fields["ok"]
        self.repetition: IntArray = fields["repetition"]
        self.started: FloatArray = fields["started"]
        self.duration: FloatArray = fields["duration"]
        self.latency: FloatArray = fields["latency"]
        self.input_tokens: IntArray = fields["input_tokens"]
        self.output_tokens: IntArray = fields["output_tokens"]
        self.cost: FloatArray = fields["cost"]
        self._build = build
        #: The filed rows these columns read, when they were made from stored rows.
        self.filed: FiledObservations | None = None

    # -- made from records --------------------------------------------------------------------
    @classmethod
    def of_records(cls, records: Sequence[Observation]) -> ObservationColumns:
        """Columns over records already built: reading one returns the record itself."""
        kept = tuple(records)
        usage = [o.output.usage for o in kept]
        fields: dict[str, Any] = {
            "target": Categorical.of(o.target for o in kept),
            "case": Categorical.of(o.case for o in kept),
            "variant_id": Categorical.of(o.variant_id for o in kept),
            "coordinate": Categorical.of(o.coordinate for o in kept),
            "model": Categorical.of(o.output.model for o in kept),
            "ok": np.asarray([o.status == "ok" for o in kept], dtype=np.bool_),
            "repetition": repetitions([o.repetition for o in kept], [o.id for o in kept]),
            "started": np.asarray([o.started for o in kept], dtype=np.float64),
            "duration": np.asarray([o.duration for o in kept], dtype=np.float64),
            "latency": np.asarray(
                [np.nan if o.output.latency is None else o.output.latency for o in kept],
                dtype=np.float64,
            ),
            "input_tokens": np.asarray([u.input_tokens if u else 0 for u in usage], np.int64),
            "output_tokens": np.asarray([u.output_tokens if u else 0 for u in usage], np.int64),
            "cost": np.asarray(
                [np.nan if u is None or u.cost is None else u.cost for u in usage], np.float64
            ),
        }
        return cls([o.id for o in kept], fields, kept.__getitem__)

    # -- made from stored rows ----------------------------------------------------------------
    @classmethod
    def of_rows(
        cls,
        blocks: Iterable[list[dict[str, Any]]],
        make: Callable[[dict[str, Any]], Observation],
        order: Callable[[Categorical, Categorical, IntArray], IntArray] | None = None,
    ) -> ObservationColumns:
        """Columns from the parsed JSON of stored observations, a block of rows at a time
        (filed by :func:`~modelscape.records.filing.file_rows`).

        ``make`` builds a record from one row's dict (the store's own reader), so a record
        read here is the record the row-by-row load makes. ``order``, given the ``target_id``
        and ``variant_id`` columns and the repetitions, returns the rows' order (a stable
        sort, such as :func:`~modelscape.store.protocol.canonical_order`'s).
        """
        filed = file_rows(blocks)
        if order is not None:
            filed.reorder(order(filed.top["target_id"], filed.top["variant_id"], filed.repetition))
        return cls.of_filed(filed, make)

    @classmethod
    def of_filed(
        cls, filed: FiledObservations, make: Callable[[dict[str, Any]], Observation]
    ) -> ObservationColumns:
        """Columns over observations already filed, in the order they are filed in.

        ``filed`` is kept as it is (a store may keep it to load the run again), so it must
        not be changed afterwards. A value no stored observation can hold is a
        :class:`~modelscape.errors.StoreError` naming its row (:func:`check_filed`).
        """
        check_filed(filed)
        ids, columns, repetition = filed.ids, filed.top, filed.repetition
        values, outputs, latencies, rest = filed.numbers, filed.outputs, filed.latency, filed.rest

        def build(row: int) -> Observation:
            data: dict[str, Any] = {"id": ids[row]}
            for name, column in columns.items():
                data[name] = column[row]
            data["repetition"] = int(repetition[row])
            for name, column in values.items():
                data[name] = _item(column[row])
            output: dict[str, Any] = {name: column[row] for name, column in outputs.items()}
            output["latency"] = _item(latencies[row])
            extra = rest[row]
            if extra is not None:
                data.update(extra[0])
                output.update(extra[1])
            data["output"] = {k: v for k, v in output.items() if v is not ABSENT}
            return make({k: v for k, v in data.items() if v is not ABSENT})

        usage = outputs["usage"]
        tokens = np.asarray([_tokens(u) for u in usage.values], np.int64).reshape(-1, 2)
        costs = np.asarray([_cost(u) for u in usage.values], np.float64)
        ok = columns["status"].code("ok")
        fields = {
            **columns,
            "model": _present(outputs["model"]),
            "ok": columns["status"].codes == ok if ok >= 0 else np.zeros(len(ids), np.bool_),
            "repetition": repetition,
            "started": _floats(values["started"]),
            "duration": _floats(values["duration"]),
            "latency": _floats(latencies, missing=np.nan),
            "input_tokens": tokens[usage.codes, 0],
            "output_tokens": tokens[usage.codes, 1],
            "cost": costs[usage.codes] if len(costs) else np.zeros(len(ids), np.float64),
        }
        made = cls(ids, fields, build)
        made.filed = filed
        return made

    @cached_property
    def rows_by_id(self) -> dict[str, int]:
        """Each observation's row, by id (the last row of an id that occurs twice)."""
        return {observation_id: row for row, observation_id in enumerate(self.ids)}


def _item(value: Any) -> Any:
    """A numpy scalar as the Python number it was stored as."""
    return value.item() if isinstance(value, np.generic) else value


def _present(column: Categorical) -> Categorical:
    """A categorical column with an absent value read as None (the field's default)."""
    return Categorical(column.codes, [None if v is ABSENT else v for v in column.values])


def _floats(column: Any, missing: float = 0.0) -> FloatArray:
    """Numbers as float64 for analysis; None, absent or not a number as ``missing``."""
    if isinstance(column, np.ndarray):
        return column.astype(np.float64, copy=False)
    return np.asarray(
        [float(v) if type(v) in (int, float) else missing for v in column], dtype=np.float64
    )


def _tokens(usage: Any) -> tuple[int, int]:
    """A stored usage's token counts (0 for anything that is not a whole number)."""
    if not isinstance(usage, dict):
        return (0, 0)
    counts = (usage.get("input_tokens", 0), usage.get("output_tokens", 0))
    return (
        counts[0] if type(counts[0]) is int else 0,
        counts[1] if type(counts[1]) is int else 0,
    )


def _cost(usage: Any) -> float:
    """A stored usage's cost, NaN when it has none (or one that is not a number)."""
    cost = usage.get("cost") if isinstance(usage, dict) else None
    if isinstance(cost, bool) or not isinstance(cost, (int, float)):
        return float("nan")
    return float(cost)


class PointColumns(_Rows[PointMeasurement]):
    """Point measurements as columns; ``columns[i]`` builds the i-th record.

    ``ids`` and ``observation_ids`` are lists of str; ``measure`` and ``measure_id`` are
    :class:`Categorical`; ``values`` is float64 with ``has_value`` False where the stored
    value is None; ``details`` is categorical over the parsed keys. ``rows``, when the
    maker knew them, holds each point's row among the run's observations, whose rows by id
    are ``index`` (see :meth:`rows_in`).
    """

    _noun = "point measurement"

    def __init__(
        self,
        ids: list[str],
        observation_ids: list[str],
        measure: Categorical,
        measure_id: Categorical,
        values: FloatArray,
        has_value: BoolArray,
        details: Categorical,
        build: Callable[[int], PointMeasurement] | None = None,
        *,
        rows: IntArray | None = None,
        index: Mapping[str, int] | None = None,
    ) -> None:
        self.ids = ids
        self.observation_ids = observation_ids
        self.measure = measure
        self.measure_id = measure_id
        self.values = values
        self.has_value = has_value
        self.details = details
        self.rows = rows
        self._index = index
        self._build = build or self._record

    @classmethod
    def of_records(cls, records: Sequence[PointMeasurement]) -> PointColumns:
        """Columns over records already built: reading one returns the record itself."""
        kept = tuple(records)
        values = [p.value for p in kept]
        return cls(
            [p.id for p in kept],
            [p.observation_id for p in kept],
            Categorical.of(p.measure for p in kept),
            Categorical.of(p.measure_id for p in kept),
            np.asarray([np.nan if v is None else v for v in values], dtype=np.float64),
            np.asarray([v is not None for v in values], dtype=np.bool_),
            Categorical.of(p.details for p in kept),
            kept.__getitem__,
        )

    def rows_in(self, index: Mapping[str, int]) -> IntArray | None:
        """Each point's row among the observations whose rows by id are ``index``, when these
        points were read against that very index (None: look each id up in it)."""
        return self.rows if self.rows is not None and self._index is index else None

    def _record(self, row: int) -> PointMeasurement:
        value = self.values[row].item() if self.has_value[row] else None
        return trusted(
            PointMeasurement,
            {
                "id": self.ids[row],
                "observation_id": self.observation_ids[row],
                "measure": self.measure[row],
                "measure_id": self.measure_id[row],
                "value": value,
                "details": self.details[row],
            },
        )
