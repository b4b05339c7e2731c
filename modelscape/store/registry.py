"""Stores named by text: :func:`open_store`, and kinds of store as plugins.

A store is named by a path or by a URL whose scheme is a kind of store:

- a path (``runs.db``, ``data/runs.db``, a :class:`~pathlib.Path`): a SQLite file, as always;
- ``sqlite:///absolute/path/runs.db`` or ``sqlite:relative/runs.db``: the same, as a URL (the
  path of a ``file:`` URL: three slashes before an absolute path, none before a relative one);
- ``memory:`` (or SQLite's own ``:memory:``): a fresh store that lives in this process.

Every scheme is a :class:`StoreKind` that a distribution registers under the entry point group
:data:`ENTRY_POINT_GROUP`, by scheme, in its ``pyproject.toml``::

    [project.entry-points."modelscape.stores"]
    duck = "my_package.store:DUCK"

modelscape registers ``sqlite`` and ``memory`` the same way, so a store that ships in another
package (a columnar one, a server) is opened exactly as a shipped one is, by every command
that takes ``--store``. Paths never go through the registry: a file is a SQLite store even
where the package's metadata is out of date.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from urllib.parse import unquote, urlsplit

from pydantic import Field

from modelscape._model import FrozenModel
from modelscape._plugins import find_plugin, plugin_names
from modelscape.errors import StoreError
from modelscape.store.damage import Damage, Damaged
from modelscape.store.memory import MemoryStore
from modelscape.store.protocol import Store
from modelscape.store.sqlite import SQLiteStore

__all__ = [
    "ENTRY_POINT_GROUP",
    "MEMORY",
    "SCHEME_PATTERN",
    "SQLITE",
    "StoreKind",
    "find_store_kind",
    "open_store",
    "store_scheme",
    "store_schemes",
]

#: The entry point group that names every kind of store, by scheme.
ENTRY_POINT_GROUP = "modelscape.stores"
#: A scheme as URLs spell one (RFC 3986), in lower case as URLs compare them, and at least two
#: characters long: ``C:`` is a drive, not a kind of store.
SCHEME_PATTERN = r"^[a-z][a-z0-9+.-]+$"
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):")


class StoreKind(FrozenModel):
    """One kind of store, as its module declares it.

    ``open(location, *, read_only, create)`` returns the store that ``location`` (the whole
    URL, scheme included) names. With ``read_only`` the store must refuse every write; without
    ``create`` the caller only reads, so a store that does not exist yet should be refused
    (with a :class:`~modelscape.errors.StoreError`) rather than made. What is returned must
    keep the contract of :class:`~modelscape.store.protocol.Store`, thread safety included.
    """

    scheme: str = Field(pattern=SCHEME_PATTERN)
    open: Callable[..., Store]


def store_scheme(location: str | os.PathLike[str]) -> str | None:
    """The scheme of a store URL, lower case; None for a path (a SQLite file)."""
    if not isinstance(location, str):
        return None
    found = _SCHEME.match(location)
    return found.group(1).lower() if found else None


def open_store(
    store: Store | str | os.PathLike[str],
    *,
    read_only: bool = False,
    create: bool = True,
    damaged: Damaged = "refuse",
) -> Store:
    """The store that ``store`` names: a store (returned as it is), a path or a URL.

    A path or a ``sqlite:`` URL opens a SQLite file, ``memory:`` (or ``:memory:``) gives a
    fresh in-memory store, and any other scheme opens the kind registered for it. With
    ``read_only`` the store refuses writes; without ``create`` a store that does not exist is
    a :class:`~modelscape.errors.StoreError` instead of a new, empty one. ``damaged`` is what
    a SQLite store does with rows its file no longer holds intact (see
    :mod:`~modelscape.store.damage`); another kind of store keeps its own way.
    """
    opened = _open(store, read_only=read_only, create=create)
    if isinstance(opened, SQLiteStore) and not isinstance(store, SQLiteStore):
        opened.damaged = Damage(opened.path, "opening", damaged).policy
    return opened


def _open(store: Store | str | os.PathLike[str], *, read_only: bool, create: bool) -> Store:
    if isinstance(store, os.PathLike):
        return _open_file(os.fspath(store), read_only=read_only, create=create)
    if isinstance(store, str):
        if store == ":memory:":
            return MemoryStore()
        scheme = store_scheme(store)
        if scheme is None:
            return _open_file(store, read_only=read_only, create=create)
        kind = find_store_kind(scheme)
        if kind is None:
            # A file name with a colon looks like a URL: say how to name it as a path.
            hint = "" if "://" in store else f" (write ./{store} for such a file)"
            raise StoreError(
                f"no kind of store {scheme!r} (in {store!r}); the kinds installed are "
                f"{', '.join(store_schemes()) or 'none'}, and a path without a scheme is a "
                f"SQLite file{hint}"
            )
        opened = kind.open(store, read_only=read_only, create=create)
        if not isinstance(opened, Store):
            raise StoreError(f"the {scheme!r} kind of store opened {opened!r}, which is no Store")
        return opened
    if isinstance(store, Store):
        return store
    raise StoreError(f"{store!r} is neither a store nor a path or URL naming one")


def find_store_kind(scheme: str) -> StoreKind | None:
    """The kind registered for ``scheme``, or None when no installed distribution has one."""
    return find_plugin(
        ENTRY_POINT_GROUP,
        scheme,
        StoreKind,
        named=lambda kind: kind.scheme,
        field="scheme",
        what="kind of store",
        error=StoreError,
    )


def store_schemes() -> list[str]:
    """Every scheme the installed distributions register, sorted."""
    return plugin_names(ENTRY_POINT_GROUP)


def _open_file(path: str, *, read_only: bool, create: bool) -> SQLiteStore:
    if not create and not os.path.exists(path):
        raise StoreError(f"{path}: no such store file")
    return SQLiteStore(path, read_only=read_only)


def _location(url: str, scheme: str) -> str:
    """The path part of a ``scheme:`` URL, refused when it names a host, a query or a part."""
    parts = urlsplit(url)
    if parts.query or parts.fragment:
        raise StoreError(
            f"{url!r}: a {scheme}: URL takes no ?query or #fragment; write such characters in "
            "a file name as %3F and %23"
        )
    if parts.netloc not in ("", "localhost"):
        raise StoreError(
            f"{url!r} names the host {parts.netloc!r}; write {scheme}:///absolute/path or "
            f"{scheme}:relative/path"
        )
    return unquote(parts.path)


def _open_sqlite(location: str, *, read_only: bool = False, create: bool = True) -> Store:
    path = _location(location, "sqlite")
    if not path:
        raise StoreError(f"{location!r} names no file; write sqlite:///absolute/path/runs.db")
    return _open_file(path, read_only=read_only, create=create)


def _open_memory(location: str, *, read_only: bool = False, create: bool = True) -> Store:
    # A fresh store holds nothing to protect, so read_only and create change nothing.
    if _location(location, "memory"):
        raise StoreError(f"{location!r}: an in-memory store has no location; write memory:")
    return MemoryStore()


#: One SQLite file (:class:`~modelscape.store.sqlite.SQLiteStore`), the default.
SQLITE = StoreKind(scheme="sqlite", open=_open_sqlite)
#: A store that lives in this process (:class:`~modelscape.store.memory.MemoryStore`).
MEMORY = StoreKind(scheme="memory", open=_open_memory)
