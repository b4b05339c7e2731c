"""Stores: where runs are kept, behind one small protocol.

- :mod:`~modelscape.store.protocol`: ``Store``, the seam another database can implement, and
  ``Leasing``, which lets two runs share a store without paying twice
- :mod:`~modelscape.store.connection`: opening a file without harming it; SQLite's errors
- :mod:`~modelscape.store.sqlite`: ``SQLiteStore``, one SQLite file (the default)
- :mod:`~modelscape.store.snapshot`: a run kept in its SQLite file as columns, so a load of a
  million observations reads a few arrays instead of parsing every row
- :mod:`~modelscape.store.damage` and :mod:`~modelscape.store.careful`: rows a damaged file no
  longer holds intact, read again one at a time, named, and refused or left out
- :mod:`~modelscape.store.merge`: the union of stores, every content id computed again
- :mod:`~modelscape.store.memory`: ``MemoryStore``, for runs that need not outlive the process
- :mod:`~modelscape.store.registry`: ``open_store``, which opens a store by path or URL, and the
  ``modelscape.stores`` entry point group through which other kinds of store plug in
"""

from __future__ import annotations

from modelscape.store.damage import DamagedStoreWarning
from modelscape.store.memory import MemoryStore
from modelscape.store.protocol import Checking, Leasing, Store, StoredRun, canonical_order
from modelscape.store.registry import StoreKind, open_store
from modelscape.store.sqlite import SQLiteStore

__all__ = [
    "Checking",
    "DamagedStoreWarning",
    "Leasing",
    "MemoryStore",
    "SQLiteStore",
    "Store",
    "StoreKind",
    "StoredRun",
    "canonical_order",
    "open_store",
]
