"""A merge trusts no id: every record's content id is computed again and a store holding one
that differs (a record relabelled with a made-up id, a variant edited under its old id, an
observation its experiment never asks) is refused, before anything is written."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from modelscape.cli import main
from modelscape.errors import StoreError
from modelscape.execution.runner import Runner
from modelscape.records.stored import observation_id
from modelscape.store.merge import merge_stores
from modelscape.store.sqlite import SQLiteStore
from tests.support.mapping_space import FAST, planted, scenario

EXPERIMENT = scenario(cases=2, repetitions=2).experiment([planted("a")], FAST)


@pytest.fixture
def shard(tmp_path: Path) -> Path:
    """A store of one whole run."""
    path = tmp_path / "shard.db"
    with SQLiteStore(path) as store:
        Runner(store=store).run(EXPERIMENT)
    return path


def edited(source: Path, path: Path, *statements: tuple[str, tuple[object, ...]]) -> Path:
    shutil.copy(source, path)
    with sqlite3.connect(path) as connection:
        for sql, parameters in statements:
            connection.execute(sql, parameters)
    connection.close()
    return path


def relabelled(source: Path, path: Path) -> Path:
    """A copy holding one more observation: an existing one under a made-up id."""
    with sqlite3.connect(source) as connection:
        oid, record = connection.execute("SELECT id, record FROM observations LIMIT 1").fetchone()
    connection.close()
    fake = "f" * len(oid)
    copied = json.loads(record) | {"id": fake}
    return edited(
        source,
        path,
        (
            "INSERT INTO observations SELECT ?, experiment_id, target_id, variant_id, repetition, "
            "status, ? FROM observations WHERE id = ?",
            (fake, json.dumps(copied), oid),
        ),
        (
            "INSERT INTO experiment_observations VALUES (?, ?)",
            (EXPERIMENT.id, fake),
        ),
    )


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_relabelled_observation_is_refused_and_the_count_never_exceeds_the_plan(
    shard: Path, tmp_path: Path
) -> None:
    bad = relabelled(shard, tmp_path / "bad.db")
    output = tmp_path / "all.db"
    done = CliRunner().invoke(main, ["merge", str(shard), str(bad), "-o", str(output)])
    assert done.exit_code == 1
    assert f"error: {bad}: observation {'f' * 16} of experiment {EXPERIMENT.id}" in done.output
    assert "holds content whose id is" in done.output
    assert "nothing was merged" in done.output
    assert not output.exists()  # not even an empty store: every source is checked first


def test_a_refused_merge_leaves_an_existing_output_as_it_was(shard: Path, tmp_path: Path) -> None:
    output = tmp_path / "all.db"
    shutil.copy(shard, output)
    before = digest(output)
    good = tmp_path / "good.db"
    shutil.copy(shard, good)
    bad = relabelled(shard, tmp_path / "bad.db")
    sources = [(str(good), SQLiteStore(good)), (str(bad), SQLiteStore(bad))]
    with SQLiteStore(output) as into, pytest.raises(StoreError, match="holds content"):
        merge_stores(sources, into)
    for _, store in sources:
        store.close()
    assert digest(output) == before
    with SQLiteStore(output) as into:
        assert into.status_counts(EXPERIMENT.id)["ok"] == EXPERIMENT.calls()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            "UPDATE variants SET record = json_set(record, '$.reference', 'other') WHERE rowid = 1",
            "variant .* holds content whose id is",
        ),
        (
            "UPDATE experiments SET record = json_set(record, '$.repetitions', 3)",
            "the record itself .* holds content whose id is",
        ),
        (
            "UPDATE measurements SET observation_id = (SELECT max(observation_id) FROM "
            "measurements) WHERE rowid = (SELECT min(rowid) FROM measurements WHERE "
            "observation_id < (SELECT max(observation_id) FROM measurements))",
            "measurement.* names another measure or",
        ),
    ],
)
def test_a_record_edited_under_its_old_id_is_refused(
    shard: Path, tmp_path: Path, change: str, message: str
) -> None:
    bad = edited(shard, tmp_path / "bad.db", (change, ()))
    output = tmp_path / "all.db"
    with SQLiteStore(bad) as source, pytest.raises(StoreError, match=message):
        merge_stores([("bad", source)], lambda: SQLiteStore(output))
    assert not output.exists()


def test_an_observation_its_experiment_never_asks_is_refused(shard: Path, tmp_path: Path) -> None:
    with sqlite3.connect(shard) as connection:
        oid, record = connection.execute("SELECT id, record FROM observations LIMIT 1").fetchone()
    connection.close()
    data = json.loads(record)
    # Its id is the true one for a repetition the experiment does not make.
    extra = observation_id(EXPERIMENT.seed, data["target_id"], data["variant_id"], 7)
    data |= {"id": extra, "repetition": 7}
    bad = edited(
        shard,
        tmp_path / "bad.db",
        (
            "INSERT INTO observations SELECT ?, experiment_id, target_id, variant_id, 7, status, "
            "? FROM observations WHERE id = ?",
            (extra, json.dumps(data), oid),
        ),
        ("INSERT INTO experiment_observations VALUES (?, ?)", (EXPERIMENT.id, extra)),
    )
    with SQLiteStore(bad) as source, pytest.raises(StoreError, match="is repetition 7, not one"):
        merge_stores([("bad", source)], lambda: SQLiteStore(tmp_path / "all.db"))


def test_sound_shards_still_merge_to_the_whole_run(shard: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.db"
    shutil.copy(shard, copy)
    done = CliRunner().invoke(main, ["merge", str(shard), str(copy), "-o", str(tmp_path / "o.db")])
    assert done.exit_code == 0, done.output
    calls = EXPERIMENT.calls()
    assert f"{2 * calls} observations read, {calls} new, {calls} ok" in done.output
