"""Fixtures for the store tests: every store kind; the shared task space lives with the
execution tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from modelscape.store import MemoryStore, SQLiteStore, Store


@pytest.fixture(params=["sqlite", "memory"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """A fresh store of each kind."""
    store: Store = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "s.db")
    yield store
    store.close()
