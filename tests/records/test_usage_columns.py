"""A stored usage missing a token count reads as zero tokens; one that is no count is refused.

A row written by an earlier version, or edited by hand, may hold a usage without one of its
counts. The store completes a record with the model's defaults (no tokens); the token columns
the reports add up are made from the same rows without building records, and must give the
same counts, never a made-up one. A count that is not a whole number is damage: the load
names the row, and a store told to skip damage reads the other rows without it.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from modelscape import CallableTarget
from modelscape.errors import StoreError
from modelscape.execution import ExecutionConfig, Experiment, RetryPolicy, Runner
from modelscape.store import DamagedStoreWarning, SQLiteStore
from modelscape.targets.protocol import TargetOutput, Usage
from tests.support.mapping_space import space

FAST = ExecutionConfig(concurrency=2, timeout=10.0, retry=RetryPolicy(attempts=1))


def stored_run(path: Path) -> tuple[str, list[str]]:
    """A run whose every output used 7 tokens in and 3 out; its id and its observations'."""
    usage = Usage(input_tokens=7, output_tokens=3)
    target = CallableTarget(lambda request: TargetOutput(text="yes", usage=usage), name="t")
    experiment = Experiment(task_space=space(2), targets=[target], execution=FAST)
    with SQLiteStore(path) as store:
        Runner(store=store).run(experiment)
    with sqlite3.connect(path) as connection:
        ids = [row[0] for row in connection.execute("SELECT id FROM observations ORDER BY id")]
    assert len(ids) >= 3
    return experiment.id, ids


def edit(path: Path, sql: str, *parameters: object) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute(sql, parameters)


def test_a_missing_token_count_reads_as_zero_in_the_columns_and_the_records(
    tmp_path: Path,
) -> None:
    path = tmp_path / "runs.db"
    experiment_id, ids = stored_run(path)
    removing = "UPDATE observations SET record = json_remove(record, ?) WHERE id = ?"
    edit(path, removing, "$.output.usage.input_tokens", ids[0])
    edit(path, removing, "$.output.usage.output_tokens", ids[1])
    with SQLiteStore(path) as store:
        columns = store.load(experiment_id).observations
    row_of = {columns.ids[i]: i for i in range(len(columns))}
    expected = {ids[0]: (0, 3), ids[1]: (7, 0), **dict.fromkeys(ids[2:], (7, 3))}
    for observation_id, counts in expected.items():
        row = row_of[observation_id]
        usage = columns[row].output.usage
        assert usage is not None
        assert (usage.input_tokens, usage.output_tokens) == counts
        assert (int(columns.input_tokens[row]), int(columns.output_tokens[row])) == counts


@pytest.mark.parametrize("count", ["7", 2.5, True, None, [3]])
def test_a_token_count_that_is_no_whole_number_is_damage(tmp_path: Path, count: object) -> None:
    path = tmp_path / "runs.db"
    experiment_id, ids = stored_run(path)
    setting = "UPDATE observations SET record = json_set(record, ?, json(?)) WHERE id = ?"
    edit(path, setting, "$.output.usage.output_tokens", json.dumps(count), ids[0])
    with SQLiteStore(path) as store, pytest.raises(StoreError, match="usage"):
        store.load(experiment_id)
    with (
        SQLiteStore(path, damaged="skip") as store,
        pytest.warns(DamagedStoreWarning, match="usage"),
    ):
        columns = store.load(experiment_id).observations
    assert sorted(columns.ids) == ids[1:]
    assert columns.output_tokens.tolist() == [3] * len(ids[1:])
