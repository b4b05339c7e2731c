"""Fixtures for the execution tests: a fresh store per test and call-counting targets."""

from __future__ import annotations

from pathlib import Path

import pytest

from modelscape.store import MemoryStore, Store
from modelscape.store.sqlite import SQLiteStore
from tests.support.mapping_space import Counting


@pytest.fixture
def store(tmp_path: Path) -> SQLiteStore:
    """A fresh SQLite store in the test's folder."""
    opened = SQLiteStore(tmp_path / "runs.db")
    yield opened
    opened.close()


@pytest.fixture
def counting() -> Counting:
    """A call-counting planted target (``.target`` is the target, ``.total`` the calls)."""
    return Counting()


@pytest.fixture(params=["sqlite", "memory"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    """A fresh store of each kind, for behaviour every store must share."""
    store: Store = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "a.db")
    yield store
    store.close()
