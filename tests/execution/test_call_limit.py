"""A run refuses to make more calls than its ExecutionConfig allows, before storing anything:
a spec asking a million repetitions of fifty thousand variants is a typo, not a plan."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from click.testing import CliRunner

from modelscape.cli import main
from modelscape.errors import ExecutionError
from modelscape.execution.config import MAX_CALLS, ExecutionConfig
from modelscape.execution.runner import Runner
from modelscape.execution.shard import Shard
from modelscape.results.results import run_of
from modelscape.store import SQLiteStore
from tests.support.mapping_space import FAST, planted, scenario

SPEC = """\
name: huge
prompt: "Is {n} prime?"
slots:
  n: {start: 0, stop: 9999, step: 1}
vary:
  n: numeric
answer:
  pattern: '\\b(yes|no)\\b'
  choices: [yes, no]
cases: 1
repetitions: 1000000
"""


def limited(max_calls: int | None, shard: Shard | None = None) -> ExecutionConfig:
    return FAST.model_copy(update={"max_calls": max_calls, "shard": shard})


def test_a_run_over_the_limit_is_refused_and_stores_nothing(tmp_path: Path) -> None:
    experiment = scenario(cases=2, repetitions=2).experiment([planted()], limited(10))
    assert experiment.calls() > 10
    store = SQLiteStore(tmp_path / "s.db")
    with pytest.raises(ExecutionError) as refused:
        Runner(store=store).run(experiment)
    message = str(refused.value)
    assert f"would make {experiment.calls():,} calls (1 target x " in message
    assert "more than the 10 it may make: nothing was stored" in message
    assert "--max-calls N" in message
    assert store.experiments() == []
    assert store._connection.execute("SELECT count(*) FROM variants").fetchone()[0] == 0
    store.close()


def test_at_the_limit_it_runs_and_no_limit_is_none() -> None:
    experiment = scenario(cases=2, repetitions=2).experiment([planted()], FAST)
    calls = experiment.calls()
    for limit in (calls, None):
        sized = dataclasses.replace(experiment, execution=limited(limit))
        assert len(run_of(Runner().run(sized)).observations) == calls
    assert sized.id == experiment.id  # the limit is no part of any identity


def test_a_shard_is_held_to_its_share() -> None:
    experiment = scenario(cases=2, repetitions=2).experiment([planted()], FAST)
    share = -(-experiment.calls() // 4)
    dataclasses.replace(experiment, execution=limited(share, Shard(index=1, count=4))).check_calls()
    narrow = dataclasses.replace(experiment, execution=limited(share - 1, Shard(index=1, count=4)))
    with pytest.raises(ExecutionError, match=f"about {share:,} of them in shard 1/4"):
        narrow.check_calls()


def test_the_default_is_in_the_millions() -> None:
    assert ExecutionConfig().max_calls == MAX_CALLS == 5_000_000
    with pytest.raises(ValueError, match="max_calls"):
        ExecutionConfig(max_calls=0)


def test_run_refuses_a_huge_spec_before_it_makes_a_store(tmp_path: Path) -> None:
    spec = tmp_path / "huge.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    store = tmp_path / "runs.db"
    done = CliRunner().invoke(main, ["run", str(spec), "--target", "echo", "--store", str(store)])
    assert done.exit_code == 1
    assert "error: this run would make 10,000,000,000 calls" in done.output
    assert f"more than the {MAX_CALLS:,} it may make" in done.output
    assert not store.exists()
    described = CliRunner().invoke(main, ["describe", str(spec)])
    assert described.exit_code == 0
    assert "calls      10000000000 per target" in described.output
    assert f"more than the {MAX_CALLS:,} calls `modelscape run` makes" in described.output


def test_max_calls_lets_a_run_through_or_holds_it_back(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    base = ["run", "pressure", "--target", "echo", "--store", str(store), "--repetitions", "2"]
    held = CliRunner().invoke(main, [*base, "--max-calls", "3"])
    assert held.exit_code == 1
    assert "more than the 3 it may make" in held.output
    assert not store.exists()
    done = CliRunner().invoke(main, [*base, "--max-calls", "100000"])
    assert done.exit_code == 0, done.output
