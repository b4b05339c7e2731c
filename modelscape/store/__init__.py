"""Stores: where runs are kept, behind one small protocol.

- :mod:`~modelscape.store.protocol`: ``Store``, the seam another database can implement, and
  ``Leasing``, which lets two runs share a store without paying twice
- :mod:`~modelscape.store.connection`: opening a file without harming it; SQLite's errors
- :mod:`~modelscape.store.sqlite`: ``SQLiteStore``, one SQLite file (the default)
- :mod:`~modelscape.store.memory`: ``MemoryStore``, for runs that need not outlive the process
"""

from __future__ import annotations

import os

from modelscape.errors import StoreError
from modelscape.store.memory import MemoryStore
from modelscape.store.protocol import Checking, Leasing, Store, StoredRun, canonical_order
from modelscape.store.sqlite import SQLiteStore

__all__ = [
    "Checking",
    "Leasing",
    "MemoryStore",
    "SQLiteStore",
    "Store",
    "StoredRun",
    "canonical_order",
    "open_store",
]


def open_store(store: Store | str | os.PathLike[str]) -> Store:
    """A store from a store (returned as it is) or a file path (opened as a SQLite store).

    ``":memory:"`` gives a fresh in-memory store.
    """
    if isinstance(store, (str, os.PathLike)):
        if os.fspath(store) == ":memory:":
            return MemoryStore()
        return SQLiteStore(store)
    if isinstance(store, Store):
        return store
    raise StoreError(f"{store!r} is neither a store nor a path to a store file")
