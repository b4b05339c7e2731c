"""Measurement ids kept as point rows while a report is computed, made text once per record.

Every number of a report names the measurements behind it, and at a million observations a
scorecard names millions, most of them named again by the neighbouring transition. Removing
repeated strings with ``dict.fromkeys`` pays a hash lookup per id, scattered over memory; the
same ids as rows of the run's point measurements are removed by ``np.unique`` and turned into
text by one ``take`` of :attr:`~modelscape.records.run.IndexedRun.point_id_array`.

Rows and ids match one to one: a point row is one stored measurement, and a measurement's id
is unique in its store (the measurements table's primary key). So the first occurrence of each
row, in order, names the same ids in the same order as the first occurrence of each id: what
:meth:`IdRows.unique` returns is what ``dict.fromkeys`` over the ids returns.

A record validated by pydantic holds a copy of the tuple it was given. :class:`IdRows` keeps
the rows of every tuple it made, found again by the tuple's length and its ends and confirmed
by comparing the whole tuple (the same str objects, so a pointer comparison per id); a tuple it
did not make is read as text, as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain

import numpy as np

from modelscape.records.grid import Rows
from modelscape.records.run import Derived, IndexedRun

__all__ = ["IdParts", "IdRows", "first_occurrences"]

#: Ids given either as point rows or as text (a measure without point rows, a copied tuple).
IdParts = Sequence[Rows | Sequence[str]]

_Key = tuple[int, str, str]
#: Rows fewer than a table of every point over this are deduplicated by sorting instead.
_SORTED_BELOW = 8


def _key(ids: Sequence[str]) -> _Key:
    return (len(ids), ids[0], ids[-1]) if ids else (0, "", "")


def first_occurrences(rows: Rows, bound: int) -> Rows:
    """The first occurrence of each of ``rows`` (each in 0..bound-1), in their order.

    Many rows: each row's first position by ``np.minimum.at`` into a table of ``bound``
    positions, in linear time. Few rows against a large table: ``np.unique`` (a stable sort)
    rather than a table of every point. Both keep exactly the positions where a row is seen
    first.
    """
    count = len(rows)
    if count * _SORTED_BELOW < bound:
        _, first = np.unique(rows, return_index=True)
        sorted_: Rows = rows[np.sort(first)]
        return sorted_
    positions = np.arange(count, dtype=np.int64)
    earliest = np.full(bound, count, dtype=np.int64)
    np.minimum.at(earliest, rows, positions)
    found: Rows = rows[earliest[rows] == positions]
    return found


class IdRows(Derived):
    """The point rows behind the id tuples made for one run's records."""

    def __init__(self, records: IndexedRun) -> None:
        super().__init__(records)
        self._known: dict[_Key, list[tuple[tuple[str, ...], Rows]]] = {}

    @classmethod
    def of(cls, records: IndexedRun) -> IdRows:
        """The one registry of ``records``."""
        return records.derived(cls)

    def named(self, rows: Rows) -> tuple[str, ...]:
        """The ids of ``rows``, in order; their rows are kept for :meth:`unique`."""
        ids = self.text(rows)
        self._known.setdefault(_key(ids), []).append((ids, rows))
        return ids

    def rows(self, ids: Sequence[str]) -> Rows | None:
        """The rows of a tuple :meth:`named` made (or an equal one), else None."""
        for known, rows in self._known.get(_key(ids), ()):
            if known == ids:
                return rows
        return None

    def text(self, rows: Rows) -> tuple[str, ...]:
        """The ids of ``rows``, in order (not kept: for ids no record merges again)."""
        return tuple(self.run.point_id_array.take(rows).tolist())

    def unique_rows(self, rows: Rows) -> Rows:
        """The first occurrence of each row, in order."""
        return first_occurrences(rows, len(self.run.point_id_array))

    def unique(self, parts: IdParts, *, keep: bool = False) -> tuple[str, ...]:
        """Every id of ``parts`` in order, each once: ``tuple(dict.fromkeys(chain(*parts)))``.

        ``keep`` keeps the rows of the result too, for ids that another record merges again.
        """
        rows: list[Rows] = []
        for part in parts:
            found = part if isinstance(part, np.ndarray) else self.rows(part)
            if found is None:
                return tuple(dict.fromkeys(chain.from_iterable(self._text(parts))))
            rows.append(found)
        flat = np.concatenate(rows) if rows else np.empty(0, dtype=np.int64)
        found = self.unique_rows(flat)
        return self.named(found) if keep else self.text(found)

    def _text(self, parts: IdParts) -> Iterable[Sequence[str]]:
        table = self.run.point_id_array
        for part in parts:
            yield table.take(part).tolist() if isinstance(part, np.ndarray) else part
