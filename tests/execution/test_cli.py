"""The run and runs commands, through click's test runner."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from modelscape.cli import Group
from modelscape.cli.execution import register


@pytest.fixture
def cli() -> click.Group:
    @click.group(cls=Group)  # the group, not each command, turns errors into messages
    def main() -> None:
        """A stand-in for the modelscape group."""

    register(main)
    return main


def test_run_a_shipped_spec_then_rerun_for_free(cli: click.Group, tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    arguments = ["run", "pressure", "--target", 'constant:{"answer": true}', "--store", str(store)]
    first = CliRunner().invoke(cli, arguments)
    assert first.exit_code == 0, first.output
    assert "360 asked, 0 reused, 0 failed" in first.output
    assert str(store) in first.output
    assert "360/360" in first.stderr
    second = CliRunner().invoke(cli, [*arguments, "--order", "grouped"])
    assert second.exit_code == 0, second.output
    assert "0 asked, 360 reused, 0 failed" in second.output  # the order is not in any identity
    listing = CliRunner().invoke(cli, ["runs", "--store", str(store)])
    assert listing.exit_code == 0, listing.output
    lines = listing.output.splitlines()
    assert lines[0].split() == ["experiment", "scenario", "targets", "ok", "failed", "created"]
    assert lines[1].split()[1:5] == ["pressure@1", "constant", "360", "0"]


def test_run_a_python_scenario_with_overrides(cli: click.Group, tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    result = CliRunner().invoke(
        cli,
        [
            "run", "python:tests.support.mapping_space:scenario",
            "--target", "python:tests.support.mapping_space:planted", "--target", "echo",
            "--store", str(store), "--repetitions", "1",
            "--concurrency", "2", "--timeout", "5",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "20 asked" in result.output  # 2 targets x 2 cases x 5 coordinates x 1 repetition


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["run", "pressure", "--target", "nope:x"], "unknown target 'nope:x'"),
        (["run", "no-such-spec", "--target", "echo"], "no scenario 'no-such-spec'"),
        (
            ["run", "python:tests.support.mapping_space:FAST", "--target", "echo"],
            "not a spec or scenario",
        ),
    ],
)
def test_errors_are_clean_messages(
    cli: click.Group, tmp_path: Path, arguments: list[str], message: str
) -> None:
    result = CliRunner().invoke(cli, [*arguments, "--store", str(tmp_path / "s.db")])
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output


def test_runs_of_a_missing_or_foreign_file(cli: click.Group, tmp_path: Path) -> None:
    missing = CliRunner().invoke(cli, ["runs", "--store", str(tmp_path / "none.db")])
    assert missing.exit_code != 0
    assert "no such store file" in missing.output
    foreign = tmp_path / "notes.txt"
    foreign.write_text("not a database at all, just some text that is long enough" * 20)
    result = CliRunner().invoke(cli, ["runs", "--store", str(foreign)])
    assert result.exit_code != 0
    assert "not a modelscape store" in result.output


def test_an_empty_store_says_so(cli: click.Group, tmp_path: Path) -> None:
    from modelscape.store.sqlite import SQLiteStore

    SQLiteStore(tmp_path / "empty.db").close()
    result = CliRunner().invoke(cli, ["runs", "--store", str(tmp_path / "empty.db")])
    assert result.exit_code == 0
    assert "holds no experiments" in result.output
