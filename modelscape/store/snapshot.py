"""Snapshots: a run's observations and point measurements kept in the store as columns.

Loading a run from its rows parses every observation's JSON and files each field of it
(:mod:`~modelscape.records.filing`): about 30 s for a million observations. A snapshot keeps
what that filing produced, and the point measurements' columns, in the ``snapshots`` table
(schema 3), as a few parts per experiment: the raw bytes of numpy arrays (never pickles) and
JSON lists of the few distinct values of each categorical column. A later load reads those
parts and builds the same columns without reading a row.

A snapshot is a cache; the rows stay the record. It is trusted only while it matches them:

- triggers (migration 3) delete every snapshot whenever a row of a table a load reads is
  inserted, changed or deleted, by modelscape or by hand, so a stale snapshot cannot
  survive a write;
- its header repeats what it was made from (how many observations and variants the
  experiment had, the highest row number of the observations and measurements, which
  measures), checked against the file before it is read;
- every part carries a CRC-32, and every column is checked for its length, type and codes.

A snapshot that fails any check is ignored and the run is read from its rows, as it would be
without one. Writing one is the store's choice (:class:`~modelscape.store.sqlite.SQLiteStore`
writes one when a store that wrote a run loads it).
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from modelscape.errors import StoreError
from modelscape.records.categorical import ABSENT, Categorical
from modelscape.records.columns import ObservationColumns, PointColumns
from modelscape.records.filing import KINDS, OUTPUT, TOP, FiledObservations
from modelscape.store.rows import observation_of

__all__ = ["FIRST_SCHEMA", "read_snapshot", "write_snapshot"]

#: The schema version that added the snapshots table.
FIRST_SCHEMA = 3
#: The layout of the parts; a snapshot of another layout is ignored.
_FORMAT = 1
# A part longer than this is stored in pieces: SQLite refuses values over about a gigabyte.
_PIECE = 1 << 26


class _MismatchError(Exception):
    """A snapshot that does not match the store or is malformed: read the rows instead.

    Raised and caught within this module only; nothing outside ever sees it.
    """


# -- encoding -------------------------------------------------------------------------------------
# The array types a snapshot holds, each named by two bytes; every one little-endian.
_TYPES: dict[bytes, np.dtype[Any]] = {
    b"u1": np.dtype("<u1"),
    b"u2": np.dtype("<u2"),
    b"u4": np.dtype("<u4"),
    b"i8": np.dtype("<i8"),
    b"f8": np.dtype("<f8"),
    b"b1": np.dtype("|b1"),
}
_NAMES: dict[np.dtype[Any], bytes] = {dtype: name for name, dtype in _TYPES.items()}


def _array(values: np.ndarray[Any, Any]) -> bytes:
    """``A``, the type's two-byte name, then the raw values: nothing a parser could trip on."""
    dtype = values.dtype.newbyteorder("<") if values.dtype.byteorder == ">" else values.dtype
    return b"A" + _NAMES[dtype] + np.ascontiguousarray(values, dtype=dtype).tobytes()


def _json(value: Any) -> bytes:
    # ASCII escapes keep text that UTF-8 cannot encode (a lone surrogate) as it was.
    return b"J" + json.dumps(value, allow_nan=True).encode("ascii")


def _wrapped(values: Sequence[Any]) -> list[Any]:
    """Values with ABSENT told apart from every JSON value: ``[]`` for it, ``[v]`` else."""
    return [[] if v is ABSENT else [v] for v in values]


def _codes(codes: np.ndarray[Any, Any], count: int) -> np.ndarray[Any, Any]:
    """Codes in the narrowest unsigned type that holds ``count`` distinct values."""
    for kind in (np.uint8, np.uint16, np.uint32):
        if count <= np.iinfo(kind).max + 1:
            return codes.astype(kind)
    return codes


def _categorical(name: str, column: Categorical) -> Iterator[tuple[str, bytes]]:
    yield f"{name}.codes", _array(_codes(column.codes, len(column.values)))
    if name == "obs.rest":  # None, or a pair of dicts (a tuple, which JSON would make a list)
        yield f"{name}.values", _json(column.values)
    else:
        yield f"{name}.values", _json(_wrapped(column.values))


def _numbers(column: Any) -> bytes:
    return _array(column) if isinstance(column, np.ndarray) else _json(_wrapped(column))


def _encode(
    filed: FiledObservations, points: PointColumns, rows: np.ndarray[Any, Any]
) -> Iterator[tuple[str, bytes]]:
    """The parts of a snapshot, one at a time (a million rows make parts of tens of MB)."""
    yield "obs.ids", _json(filed.ids)
    yield "obs.repetition", _array(filed.repetition)
    for name, column in filed.top.items():
        yield from _categorical(f"obs.top.{name}", column)
    for name, column in filed.outputs.items():
        yield from _categorical(f"obs.output.{name}", column)
    yield from _categorical("obs.rest", filed.rest)
    for name, numbers in filed.numbers.items():
        yield f"obs.number.{name}", _numbers(numbers)
    yield "obs.latency", _numbers(filed.latency)
    yield "points.ids", _json(points.ids)
    yield "points.rows", _array(_codes(rows, len(filed.ids)))
    for name in ("measure", "measure_id", "details"):
        yield from _categorical(f"points.{name}", getattr(points, name))
    yield "points.values", _array(points.values)
    yield "points.has_value", _array(points.has_value)


# -- decoding -------------------------------------------------------------------------------------
class _Parts:
    """The parts of one snapshot, each read from the file when it is decoded (so only one is
    held at a time) and checked: any surprise is a :class:`_MismatchError`."""

    def __init__(
        self, connection: sqlite3.Connection, experiment_id: str, crc: dict[str, Any]
    ) -> None:
        self.connection = connection
        self.experiment_id = experiment_id
        self.crc = crc

    def raw(self, name: str) -> bytes:
        if name not in self.crc:
            raise _MismatchError(f"no part {name}")
        pieces = self.connection.execute(
            "SELECT piece, data FROM snapshots WHERE experiment_id = ? AND part = ? ORDER BY piece",
            (self.experiment_id, name),
        ).fetchall()
        if [p[0] for p in pieces] != list(range(len(pieces))) or not pieces:
            raise _MismatchError(f"{name} is not in whole pieces")
        if not all(isinstance(p[1], bytes) for p in pieces):
            raise _MismatchError(f"{name} is not a blob")
        blob: bytes = pieces[0][1] if len(pieces) == 1 else b"".join(p[1] for p in pieces)
        if zlib.crc32(blob) != self.crc[name]:
            raise _MismatchError(f"{name} fails its CRC")
        return blob

    def json(self, name: str) -> Any:
        blob = self.raw(name)
        if blob[:1] != b"J":
            raise _MismatchError(f"{name} is not JSON")
        return json.loads(blob[1:])

    def array(self, name: str, kinds: str, length: int) -> np.ndarray[Any, Any]:
        blob = self.raw(name)
        if blob[:1] != b"A":
            raise _MismatchError(f"{name} is not an array")
        dtype = _TYPES.get(blob[1:3])
        if dtype is None or dtype.kind not in kinds:
            raise _MismatchError(f"{name} has the wrong type")
        raw = memoryview(blob)[3:]
        if len(raw) != length * dtype.itemsize:
            raise _MismatchError(f"{name} has the wrong length")
        if dtype.kind == "b" and length and np.frombuffer(raw, np.uint8).max() > 1:
            raise _MismatchError(f"{name} holds a truth value other than 0 and 1")
        # A copy: the array owns its memory and can be written, like one built in memory.
        values: np.ndarray[Any, Any] = np.frombuffer(raw, dtype).copy()
        return values

    def texts(self, name: str, length: int) -> list[str]:
        values = self.json(name)
        if not isinstance(values, list) or len(values) != length:
            raise _MismatchError(f"{name} has the wrong length")
        if not set(map(type, values)) <= {str}:
            raise _MismatchError(f"{name} holds something other than text")
        return values

    def categorical(self, name: str, length: int) -> Categorical:
        stored = self.json(f"{name}.values")
        if not isinstance(stored, list):
            raise _MismatchError(f"{name} has no list of values")
        values = _rest(stored) if name == "obs.rest" else _unwrapped(stored)
        codes = self.array(f"{name}.codes", "u", length)
        if length and int(codes.max()) >= len(values):
            raise _MismatchError(f"{name} has a code without a value")
        return Categorical(codes.astype(np.int32), values)

    def names(self, name: str, length: int) -> Categorical:
        """A categorical column whose every value is text (a measure's name or id)."""
        column = self.categorical(name, length)
        if not set(map(type, column.values)) <= {str}:
            raise _MismatchError(f"{name} holds something other than text")
        return column

    def numbers(self, name: str, dtype: type, length: int, *, packed: bool = False) -> Any:
        """A column of numbers: an array of ``dtype``, or (unless ``packed``) the values as
        they were stored, when some were not of their kind."""
        if not packed and self.raw(name)[:1] == b"J":
            stored = self.json(name)
            if not isinstance(stored, list) or len(stored) != length:
                raise _MismatchError(f"{name} has the wrong length")
            return _unwrapped(stored)
        values = self.array(name, np.dtype(dtype).kind, length)
        if values.dtype != dtype:
            raise _MismatchError(f"{name} has the wrong type")
        return values


def _unwrapped(stored: list[Any]) -> list[Any]:
    values = []
    for item in stored:
        if not isinstance(item, list) or len(item) > 1:
            raise _MismatchError("a value is not wrapped")
        values.append(item[0] if item else ABSENT)
    return values


def _rest(stored: list[Any]) -> list[Any]:
    values: list[Any] = []
    for item in stored:
        if item is None:
            values.append(None)
        elif isinstance(item, list) and len(item) == 2 and all(isinstance(d, dict) for d in item):
            values.append((item[0], item[1]))
        else:
            raise _MismatchError("a row's extra fields are not a pair of objects")
    return values


def _decode(parts: _Parts, count: int, point_count: int) -> tuple[ObservationColumns, PointColumns]:
    ids = parts.texts("obs.ids", count)
    filed = FiledObservations(
        ids,
        {name: parts.categorical(f"obs.top.{name}", count) for name in TOP},
        parts.array("obs.repetition", "i", count).astype(np.int64),
        {
            name: parts.numbers(
                f"obs.number.{name}", np.int64 if kind is int else np.float64, count
            )
            for name, (kind, _) in KINDS.items()
        },
        {name: parts.categorical(f"obs.output.{name}", count) for name in OUTPUT},
        parts.numbers("obs.latency", np.float64, count),
        parts.categorical("obs.rest", count),
    )
    observations = ObservationColumns.of_filed(filed, observation_of)
    rows = parts.array("points.rows", "u", point_count).astype(np.int64)
    if point_count and int(rows.max()) >= count:
        raise _MismatchError("a point measures no observation of the run")
    points = PointColumns(
        parts.texts("points.ids", point_count),
        # Taken in C from an array of the same str objects: no copy of any text.
        np.asarray(ids, dtype=object)[rows].tolist(),
        parts.names("points.measure", point_count),
        parts.names("points.measure_id", point_count),
        parts.numbers("points.values", np.float64, point_count, packed=True),
        parts.numbers("points.has_value", np.bool_, point_count, packed=True),
        parts.categorical("points.details", point_count),
        rows=rows,
        index=observations.rows_by_id,
    )
    return observations, points


# -- in the file ----------------------------------------------------------------------------------
def _stamp(connection: sqlite3.Connection, experiment_id: str) -> list[Any]:
    """What a snapshot of ``experiment_id`` was made from, as the file has it now."""
    return [
        connection.execute(
            "SELECT count(*) FROM experiment_observations WHERE experiment_id = ?",
            (experiment_id,),
        ).fetchone()[0],
        connection.execute(
            "SELECT count(*) FROM experiment_variants WHERE experiment_id = ?", (experiment_id,)
        ).fetchone()[0],
        connection.execute("SELECT max(rowid) FROM observations").fetchone()[0],
        connection.execute("SELECT max(rowid) FROM measurements").fetchone()[0],
    ]


def read_snapshot(
    connection: sqlite3.Connection, experiment_id: str, wanted: Sequence[str]
) -> tuple[ObservationColumns, PointColumns] | None:
    """The columns of ``experiment_id``'s run from its snapshot, or None when the file has no
    snapshot of it that matches its rows (see the module's docstring)."""
    if connection.execute("PRAGMA user_version").fetchone()[0] < FIRST_SCHEMA:
        return None
    try:
        stored = connection.execute(
            "SELECT piece, data FROM snapshots WHERE experiment_id = ? AND part = 'header'",
            (experiment_id,),
        ).fetchall()
        # The header is small, so always one piece.
        if [row[0] for row in stored] != [0] or not isinstance(stored[0][1], bytes):
            return None
        if stored[0][1][:1] != b"J":
            return None
        header = json.loads(stored[0][1][1:])
        names = {
            row[0]
            for row in connection.execute(
                "SELECT DISTINCT part FROM snapshots WHERE experiment_id = ?", (experiment_id,)
            )
        }
        if (
            not isinstance(header, dict)
            or header.get("format") != _FORMAT
            or header.get("experiment") != experiment_id
            or header.get("wanted") != list(wanted)
            or header.get("stamp") != _stamp(connection, experiment_id)
            or not isinstance(header.get("crc"), dict)
            or set(header["crc"]) != names - {"header"}
        ):
            return None
        count, point_count = header.get("observations"), header.get("points")
        if type(count) is not int or type(point_count) is not int:
            return None
        return _decode(_Parts(connection, experiment_id, header["crc"]), count, point_count)
    # ValueError: JSON that does not parse or decode; RecursionError: JSON nested deeper
    # than Python reads; StoreError: a value no stored observation can hold (the rows, read
    # instead, either hold a sound one or get the error naming theirs).
    except (_MismatchError, ValueError, RecursionError, StoreError):
        return None
    except sqlite3.OperationalError as error:
        # A part's name that is not UTF-8 is a damaged snapshot; anything else, the file's.
        if "decode" in str(error):
            return None
        raise


def write_snapshot(
    connection: sqlite3.Connection,
    experiment_id: str,
    wanted: Sequence[str],
    observations: ObservationColumns,
    points: PointColumns,
) -> bool:
    """Keep the columns of a run just read from its rows as ``experiment_id``'s snapshot.

    Call it within the transaction that read them, on a file of schema 3 or later: the
    stamp it records must describe the rows the columns were read from. False when the
    columns were not read from rows (nothing to keep).
    """
    filed = observations.filed
    rows = np.zeros(0, dtype=np.int64) if not len(points) else points.rows
    if filed is None or rows is None:
        return False
    connection.execute("DELETE FROM snapshots WHERE experiment_id = ?", (experiment_id,))
    crc: dict[str, int] = {}
    for name, data in _encode(filed, points, rows):
        crc[name] = zlib.crc32(data)
        _insert(connection, experiment_id, name, data)
        del data
    header = {
        "format": _FORMAT,
        "experiment": experiment_id,
        "wanted": list(wanted),
        "stamp": _stamp(connection, experiment_id),
        "observations": len(filed),
        "points": len(points),
        "crc": crc,
    }
    connection.execute(
        "INSERT INTO snapshots (experiment_id, part, piece, data) VALUES (?, 'header', 0, ?)",
        (experiment_id, _json(header)),
    )
    return True


def _insert(connection: sqlite3.Connection, experiment_id: str, name: str, data: bytes) -> None:
    connection.executemany(
        "INSERT INTO snapshots (experiment_id, part, piece, data) VALUES (?, ?, ?, ?)",
        (
            (experiment_id, name, index, data[start : start + _PIECE])
            for index, start in enumerate(range(0, max(len(data), 1), _PIECE))
        ),
    )
