"""Merging stores: a union by content id that is idempotent and refuses what does not belong."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from modelscape.cli import Group
from modelscape.cli.merge import register
from modelscape.errors import StoreError
from modelscape.execution.runner import Runner
from modelscape.execution.shard import Shard
from modelscape.store.merge import merge_stores
from modelscape.store.sqlite import SQLiteStore
from modelscape.targets._callable import CallableTarget
from modelscape.targets.protocol import TargetError, TargetOutput, TargetRequest
from tests.support.mapping_space import FAST, planted, scenario


class Flaky:
    """Answers like a planted target, or fails every call while ``down``."""

    def __init__(self) -> None:
        self.rule = planted("flaky")
        self.down = False

    async def __call__(self, request: TargetRequest) -> TargetOutput:
        if self.down:
            raise TargetError("the service is down", kind="connection")
        return await self.rule(request)


def run_into(
    path: Path, *, shard: Shard | None = None, seed: int = 0, flaky: Flaky | None = None
) -> SQLiteStore:
    targets = [planted("a", noise=0.2)] if flaky is None else [CallableTarget(flaky, name="flaky")]
    config = FAST.model_copy(update={"shard": shard, "stop_after": None})
    experiment = scenario(cases=3, repetitions=2, seed=seed).experiment(targets, config)
    store = SQLiteStore(path)
    Runner(store=store).run(experiment)
    return store


def contents(store: SQLiteStore) -> tuple[set[str], set[str], dict[str, str]]:
    (record,) = store.experiments()
    run = store.load(record.id)
    return (
        {v.id for v in run.variants},
        {p.id for p in run.points},
        {o.id: o.status for o in run.observations},
    )


@pytest.fixture
def cli() -> click.Group:
    @click.group(cls=Group)
    def main() -> None:
        """A stand-in for the modelscape group."""

    register(main)
    return main


def test_the_union_of_shards_is_the_whole_run_and_merging_again_adds_nothing(
    tmp_path: Path,
) -> None:
    shards = [
        (f"s{i}", run_into(tmp_path / f"s{i}.db", shard=Shard(index=i, count=3))) for i in (1, 2, 3)
    ]
    whole = run_into(tmp_path / "whole.db")
    into = SQLiteStore(tmp_path / "all.db")
    (first,) = merge_stores(shards, into)
    assert first.read == first.added == first.ok == 3 * 5 * 2
    assert contents(into) == contents(whole)
    # again, in another order, and the whole run on top: nothing new, nothing changed
    (second,) = merge_stores([*reversed(shards), ("whole", whole)], into)
    assert (second.added, second.ok) == (0, 30)
    assert contents(into) == contents(whole)


def test_an_ok_observation_replaces_a_failed_one_in_either_order(tmp_path: Path) -> None:
    flaky = Flaky()
    flaky.down = True
    failed = run_into(tmp_path / "failed.db", flaky=flaky)
    flaky.down = False
    ok = run_into(tmp_path / "ok.db", flaky=flaky)
    assert set(contents(failed)[2].values()) == {"failed"}
    for name, order in [("a.db", [failed, ok]), ("b.db", [ok, failed])]:
        into = SQLiteStore(tmp_path / name)
        (merged,) = merge_stores([(str(i), s) for i, s in enumerate(order)], into)
        assert merged.ok == 30
        assert set(contents(into)[2].values()) == {"ok"}


def test_stores_of_different_experiments_are_refused_unless_mixed(tmp_path: Path) -> None:
    one = run_into(tmp_path / "one.db", seed=1)
    two = run_into(tmp_path / "two.db", seed=2)
    into = SQLiteStore(tmp_path / "all.db")
    with pytest.raises(StoreError, match=r"2 different experiments .* in one\.db.* in two\.db"):
        merge_stores([("one.db", one), ("two.db", two)], into)
    assert into.experiments() == []  # nothing was written
    merged = merge_stores([("one.db", one), ("two.db", two)], into, mixed=True)
    assert len(merged) == 2
    assert len(into.experiments()) == 2
    # the output's own experiments count too
    three = run_into(tmp_path / "three.db", seed=3)
    with pytest.raises(StoreError, match="the output"):
        merge_stores([("three.db", three)], into)


def test_the_command_merges_and_says_what_it_did(cli: click.Group, tmp_path: Path) -> None:
    for i in (1, 2):
        run_into(tmp_path / f"s{i}.db", shard=Shard(index=i, count=2)).close()
    sources = [str(tmp_path / "s1.db"), str(tmp_path / "s2.db")]
    output = str(tmp_path / "all.db")
    first = CliRunner().invoke(cli, ["merge", *sources, "-o", output])
    assert first.exit_code == 0, first.output
    assert "30 observations read, 30 new, 30 ok in" in first.output
    again = CliRunner().invoke(cli, ["merge", *sources, "-o", output])
    assert "30 observations read, 0 new, 30 ok" in again.output


@pytest.mark.parametrize(
    ("sources", "message"),
    [
        (["missing.db"], "missing.db"),
        (["s1.db", "all.db"], "both a source and the output"),
        (["foreign.db"], "foreign.db"),
    ],
)
def test_bad_sources_are_named_and_nothing_is_written(
    cli: click.Group, tmp_path: Path, sources: list[str], message: str
) -> None:
    run_into(tmp_path / "s1.db").close()
    (tmp_path / "foreign.db").write_bytes(b"not a database at all" * 100)
    arguments = ["merge", *(str(tmp_path / s) for s in sources), "-o", str(tmp_path / "all.db")]
    result = CliRunner().invoke(cli, arguments)
    assert result.exit_code == 1
    assert message in result.output
    assert not (tmp_path / "all.db").exists()
    assert (tmp_path / "foreign.db").read_bytes() == b"not a database at all" * 100
