"""Sharded runs: disjoint parts of one experiment, merged into what one run stores."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from modelscape.cli import Group
from modelscape.cli.execution import register
from modelscape.execution.config import ExecutionConfig
from modelscape.execution.runner import Runner
from modelscape.execution.shard import Shard
from modelscape.measures import CallableDifference
from modelscape.report.report import Report
from modelscape.results.results import run_of
from tests.support.mapping_space import FAST, planted, scenario

REPO = Path(__file__).resolve().parents[2]
TARGETS = [
    "--target", "python:tests.execution.sharded_targets:swayed",
    "--target", "python:tests.execution.sharded_targets:coin",
]  # fmt: skip


@pytest.fixture
def cli() -> click.Group:
    @click.group(cls=Group)
    def main() -> None:
        """A stand-in for the modelscape group."""

    register(main)
    return main


@pytest.mark.parametrize(
    ("text", "index", "count"), [("1/4", 1, 4), (" 4 / 4 ", 4, 4), ("1/1", 1, 1)]
)
def test_a_shard_is_read_from_i_slash_n(text: str, index: int, count: int) -> None:
    shard = Shard.parse(text)
    assert (shard.index, shard.count) == (index, count)
    assert str(shard) == f"{index}/{count}"


@pytest.mark.parametrize("text", ["0/4", "5/4", "1/0", "a/b", "1", "-1/4", "1/4/2", "", "½/2"])
def test_a_malformed_shard_says_what_form_it_needs(text: str) -> None:
    with pytest.raises(ValueError, match="1/4"):
        Shard.parse(text)


@given(st.text("0123456789abcdef", min_size=16, max_size=16), st.integers(1, 64))
def test_each_observation_belongs_to_exactly_one_shard(observation: str, count: int) -> None:
    holders = [i for i in range(1, count + 1) if Shard(index=i, count=count).holds(observation)]
    assert len(holders) == 1


@pytest.mark.parametrize("order", ["shuffled", "grouped"])
def test_the_shards_of_a_plan_partition_it_in_its_order(order: str) -> None:
    def plan(shard: Shard | None) -> list[str]:
        config = ExecutionConfig(order=order, shard=shard)  # type: ignore[arg-type]
        experiment = scenario(cases=3, repetitions=3).experiment([planted()], config)
        return [p.id for p in experiment.plan()]

    whole = plan(None)
    parts = [plan(Shard(index=i, count=3)) for i in (1, 2, 3)]
    assert sorted(i for part in parts for i in part) == sorted(whole)
    assert all(parts)
    for part in parts:  # each shard keeps the whole plan's order
        assert part == [i for i in whole if i in set(part)]


def test_sharded_runs_merged_and_remeasured_equal_one_run(tmp_path: Path) -> None:
    """In process: two shards, their stores merged, then one rerun without a shard."""
    from modelscape.report.report import build_report
    from modelscape.store.merge import merge_stores
    from modelscape.store.sqlite import SQLiteStore

    targets = [planted("a", noise=0.3), planted("b", noise=0.1)]
    # A pairwise measure: its pairs span shards, unlike the answer's keyed difference.
    lengths = CallableDifference(
        lambda a, b: abs(len(a.output.text or "") - len(b.output.text or "")), name="length"
    )
    spec = scenario(cases=4, repetitions=3, measures=[lengths])
    stores = []
    for index in (1, 2):
        config = FAST.model_copy(update={"shard": Shard(index=index, count=2)})
        experiment = spec.experiment(targets, config)
        store = SQLiteStore(tmp_path / f"shard{index}.db")
        Runner(store=store).run(experiment)
        stores.append((f"shard{index}.db", store))
    merged = SQLiteStore(tmp_path / "all.db")
    (summary,) = merge_stores(stores, merged)
    assert summary.read == summary.added == summary.ok == experiment.calls()
    whole = spec.experiment(targets, FAST)
    runner = Runner(store=merged)
    again = runner.run(whole)
    assert runner.last is not None
    assert runner.last.done == 0
    single = Runner(store=SQLiteStore(tmp_path / "one.db")).run(whole)
    # the pairs that spanned the two shards were measured by the rerun
    ids = [{d.id for d in run_of(r).difference_measurements} for r in (again, single)]
    assert ids[0] == ids[1]
    assert ids[0]
    assert _numbers(build_report(again)) == _numbers(build_report(single))


def _numbers(report: Report) -> dict[str, Any]:
    """A report without its provenance (times and latencies differ between runs)."""
    return report.model_dump(mode="json", exclude={"provenance"})


@pytest.mark.slow
def test_four_shard_processes_merged_report_as_one_run(tmp_path: Path) -> None:
    def modelscape(*arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "modelscape", *arguments],
            cwd=tmp_path,
            env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            check=False,
        )

    processes = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "modelscape",
                "run",
                "pressure",
                *TARGETS,
                "--store",
                f"s{i}.db",
                "--shard",
                f"{i}/4",
            ],
            cwd=tmp_path,
            env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in (1, 2, 3, 4)
    ]
    asked = 0
    for process in processes:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        line = next(x for x in out.splitlines() if x.startswith("observations"))
        assert "of 720, shard" in line
        assert " 0 reused" in line
        asked += int(line.split(": ")[1].split()[0])
    assert asked == 720  # the shards cover the run and never overlap
    shards = ["s1.db", "s2.db", "s3.db", "s4.db"]
    merged = modelscape("merge", *shards, "-o", "all.db")
    assert merged.returncode == 0, merged.stderr
    assert "720 observations read, 720 new, 720 ok in all.db" in merged.stdout
    again = modelscape("merge", *shards, "-o", "all.db")
    assert "720 observations read, 0 new, 720 ok" in again.stdout  # idempotent
    final = modelscape("run", "pressure", *TARGETS, "--store", "all.db", "--report", "m.json")
    assert final.returncode == 0, final.stderr
    assert "0 asked, 720 reused, 0 failed" in final.stdout
    single = modelscape("run", "pressure", *TARGETS, "--store", "one.db", "--report", "s.json")
    assert single.returncode == 0, single.stderr
    reports = [json.loads((tmp_path / name).read_text()) for name in ("m.json", "s.json")]
    for report in reports:
        report.pop("provenance")
    assert reports[0] == reports[1]


def test_a_shard_gives_no_report(cli: click.Group, tmp_path: Path) -> None:
    store = str(tmp_path / "s.db")
    for extra in (["--report", str(tmp_path / "r.json")], ["--require", "accuracy>=0.5"]):
        result = CliRunner().invoke(
            cli, ["run", "pressure", "--target", "echo", "--store", store, "--shard", "1/2", *extra]
        )
        assert result.exit_code == 2
        assert "merge the shards" in result.output
    assert not (tmp_path / "s.db").exists()  # refused before anything was opened
    bad = CliRunner().invoke(cli, ["run", "pressure", "--target", "echo", "--store", store,
                                   "--shard", "3/2"])  # fmt: skip
    assert bad.exit_code == 2
    assert "--shard" in bad.output
    assert "1 to N" in bad.output
