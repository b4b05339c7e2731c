"""Damaged records: what a load does with rows a store file no longer holds intact.

A failing disk, a copy cut short or a stray edit can leave a store that SQLite still opens
but whose rows no longer hold what modelscape wrote: text that is not UTF-8, JSON that does
not parse, a record with a field it cannot hold. Every read of records tries the fast way
first (:mod:`~modelscape.store.loading`, :class:`~modelscape.store.sqlite.SQLiteStore`); only
when that fails is the same query read again here, row by row, with text columns as raw
bytes, so a sound store pays nothing for the care. Each row that cannot be read becomes a
:class:`DamagedRecord` naming its table and row number (SQLite's ``rowid``).

What then happens is the store's policy (:data:`Damaged`):

- ``"refuse"`` (the default): a :class:`~modelscape.errors.StoreError` lists the damaged rows.
  A site build, a merge or a page never shows or copies part of a run without saying so.
- ``"skip"``: the damaged rows are left out and a :class:`DamagedStoreWarning` lists them, so
  the rest of the run still loads (``modelscape report`` and ``modelscape run`` ask for this).

Reading never writes: a damaged row is never repaired, replaced or deleted, and a load that
met one keeps no snapshot of what it read.
"""

from __future__ import annotations

import contextlib
import sqlite3
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal, NamedTuple, TypeVar

from pydantic import ValidationError

from modelscape.errors import StoreError

__all__ = [
    "DAMAGE",
    "Damage",
    "Damaged",
    "DamagedRecord",
    "DamagedStoreWarning",
    "careful",
    "either",
    "lenient_rows",
    "problem",
    "raw_rows",
    "text",
    "undecodable",
]

#: What a store does with records it cannot read: raise, or leave them out with a warning.
Damaged = Literal["refuse", "skip"]
#: What a fast read of records raises when some row is damaged (after SQLite's own errors).
DAMAGE = (ValueError, KeyError, TypeError, StoreError)
# Damaged rows named in one message; the rest are counted.
_SHOWN = 10
# Rows fetched at once when reading with care.
_BLOCK = 5000
R = TypeVar("R")


class DamagedStoreWarning(UserWarning):
    """Some records of a store could not be read and were left out of what was loaded."""


class DamagedRecord(NamedTuple):
    """One row that could not be read: its table, its ``rowid`` (None for a table without
    one) and what is wrong with it."""

    table: str
    row: int | None
    problem: str

    def __str__(self) -> str:
        where = self.table if self.row is None else f"{self.table} row {self.row}"
        return f"{where}: {self.problem}"


class Damage:
    """The damaged rows one read of ``path`` met while ``doing`` something, and the policy
    that decides what becomes of them (see the module's docstring)."""

    def __init__(self, path: str, doing: str, policy: Damaged) -> None:
        if policy not in ("refuse", "skip"):
            raise StoreError(f"damaged={policy!r}: a store either refuses or skips damaged rows")
        self.path = path
        self.doing = doing
        self.policy: Damaged = policy
        self.found: list[DamagedRecord] = []

    def note(self, table: str, row: int | None, what: str) -> None:
        """Note one row that cannot be read."""
        self.found.append(DamagedRecord(table, row, what))

    def message(self) -> str:
        """The damaged rows as one sentence naming the file and the first few rows."""
        count = len(self.found)
        listed = "; ".join(str(record) for record in self.found[:_SHOWN])
        more = f"; and {count - _SHOWN} more" if count > _SHOWN else ""
        rows = "a record" if count == 1 else f"{count} records"
        return f"{self.path} holds {rows} that cannot be read while {self.doing} ({listed}{more})"

    def settle(self) -> None:
        """Raise or warn about what was found, as the policy says; nothing when all was sound."""
        if not self.found:
            return
        recover = (
            "restore the file from a copy, or save what is readable with "
            f"`sqlite3 {self.path} .recover`"
        )
        if self.policy == "refuse":
            raise StoreError(
                f"{self.message()}: the file was changed outside modelscape or is damaged; "
                f'{recover} (`modelscape report`, or a store opened with damaged="skip", '
                "reads the rest and leaves these out)"
            )
        warnings.warn(
            DamagedStoreWarning(f"{self.message()}; left out of what was read: {recover}"),
            stacklevel=4,
        )


def undecodable(error: sqlite3.Error) -> bool:
    """Whether SQLite's error says a stored text is not UTF-8 (so the rows are read again
    with care) rather than that the file itself is broken."""
    return "decode" in str(error)


def either(fast: Callable[[], R], slow: Callable[[], R]) -> R:
    """What ``fast`` reads, or, when a damaged row stops it, what ``slow`` reads with care."""
    try:
        return fast()
    except sqlite3.OperationalError as error:
        if not undecodable(error):
            raise
    except DAMAGE:
        pass
    return slow()


def text(value: object) -> str:
    """A text column read as bytes, decoded strictly; anything else a ValueError."""
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, str):
        return value
    raise ValueError(f"holds {type(value).__name__} where text belongs")


def problem(error: BaseException) -> str:
    """What is wrong with a row, in a few words, from the error reading it raised."""
    if isinstance(error, UnicodeDecodeError):
        return "text that is not UTF-8"
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"{where}: {first['msg']}" if where else str(first["msg"])
    if isinstance(error, RecursionError):
        return "JSON nested deeper than can be read"
    return str(error)[:200] or type(error).__name__


@contextlib.contextmanager
def _raw_text(connection: sqlite3.Connection) -> Iterator[None]:
    # Text columns come back as the bytes stored, so one that is not UTF-8 fails one row,
    # not the whole query. The store's lock is held, so no other read sees the change.
    before = connection.text_factory
    connection.text_factory = bytes
    try:
        yield
    finally:
        connection.text_factory = before


def raw_rows(
    connection: sqlite3.Connection, sql: str, parameters: Sequence[Any] = ()
) -> Iterator[tuple[Any, ...]]:
    """Every row of ``sql`` with its text columns as bytes (see :func:`text`), a block at a
    time; iterate to the end before using the connection for anything else."""
    with _raw_text(connection):
        cursor = connection.execute(sql, parameters)
        while rows := cursor.fetchmany(_BLOCK):
            yield from rows


def lenient_rows(
    connection: sqlite3.Connection, sql: str, parameters: Sequence[Any] = ()
) -> list[tuple[Any, ...]]:
    """Every row of ``sql``, any text that is not UTF-8 decoded with U+FFFD in place of what
    it cannot read: for reads that only match stored text against sound text (an id asked
    for), where damaged text can never match and so need not fail the read. Read the fast
    way first; only a read that meets such text is made again."""
    try:
        return connection.execute(sql, parameters).fetchall()
    except sqlite3.OperationalError as error:
        if not undecodable(error):
            raise
    with _raw_text(connection):
        rows = connection.execute(sql, parameters).fetchall()
    return [
        tuple(v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in row)
        for row in rows
    ]


def careful(
    connection: sqlite3.Connection,
    sql: str,
    parameters: Sequence[Any],
    *,
    table: str,
    read: Callable[[tuple[Any, ...]], R],
    damage: Damage,
) -> list[tuple[int | None, R]]:
    """The rows of ``sql`` (its first column the ``rowid`` of ``table``), each as its rowid
    and what ``read`` makes of its other columns; a row ``read`` cannot make is noted in
    ``damage`` and left out."""
    found: list[tuple[int | None, R]] = []
    for row in raw_rows(connection, sql, parameters):
        try:
            found.append((row[0], read(row[1:])))
        except (*DAMAGE, RecursionError) as error:
            damage.note(table, row[0], problem(error))
    return found
