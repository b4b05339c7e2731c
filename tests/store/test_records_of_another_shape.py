"""A stored observation whose JSON is not an observation's shape is damage the load names.

The JSON of a row changed by hand may parse and still be no record: an array, a number, text,
null, or an object without a text id. The careful read names each such row as "not an
observation record" (and leaves it out when asked to skip damage); it never stops on an
error of its own, such as asking an array for its fields.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from modelscape.errors import StoreError
from modelscape.store import DamagedStoreWarning, SQLiteStore
from tests.store.store_records import stored_run

SHAPES = [
    "[1, 2]",
    '"an observation"',
    "7",
    "null",
    '{"output": {"text": "yes"}}',
    '{"id": 7, "output": {"text": "yes"}}',
    '{"id": null, "output": {"text": "yes"}}',
]


@pytest.mark.parametrize("record", SHAPES)
def test_a_record_that_is_no_observation_is_named_and_left_out_when_asked(
    tmp_path: Path, record: str
) -> None:
    path = tmp_path / "store.db"
    run = stored_run(path)
    with sqlite3.connect(path) as connection:
        connection.execute("DELETE FROM snapshots")  # so the rows themselves are read
        (oid,) = connection.execute("SELECT id FROM observations WHERE rowid = 2").fetchone()
        connection.execute("UPDATE observations SET record = ? WHERE rowid = 2", (record,))
        total = connection.execute("SELECT count(*) FROM observations").fetchone()[0]
    connection.close()
    named = "observations row 2: not an observation record"
    with SQLiteStore(path) as store, pytest.raises(StoreError, match=named):
        store.load(run)
    with (
        SQLiteStore(path, damaged="skip") as store,
        pytest.warns(DamagedStoreWarning, match=named),
    ):
        loaded = store.load(run).observations
    assert len(loaded) == total - 1
    assert oid not in set(loaded.ids)
