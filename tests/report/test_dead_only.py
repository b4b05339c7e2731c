"""A run whose only target failed every call still gets its report, and the command exits 1.

A wrong port is the likeliest first mistake; the report then lists the target with its failures
and first error and estimates nothing, instead of ending in an IndexError with no report.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from modelscape.cli import main
from modelscape.execution import ExecutionConfig, RetryPolicy, Runner
from modelscape.report import Report
from modelscape.specs import load_spec
from modelscape.store import SQLiteStore
from modelscape.targets import CallableTarget
from modelscape.targets.protocol import TargetRequest
from tests.targets.providers.loopback import free_port


def refused(request: TargetRequest) -> str:
    raise ConnectionError("connection refused: 127.0.0.1:9")


def check_dead_report(path: Path, observations: int, first_error: str) -> None:
    report = Report.load(path)
    assert report.targets == ("dead",)
    card = report.scorecard("dead")
    assert card.failed == card.observations == observations
    assert card.accuracy is None
    assert card.spurious_change is None
    assert card.undefined["accuracy"] == (
        f"no successful output ({observations} of {observations} calls failed)"
    )
    for profile in report.profiles:  # no shift is estimated from no outputs
        assert profile.candidate_boundaries == ()
        assert all(step.excess is None and step.cases == 0 for step in profile.local)
    (target,) = report.provenance.targets
    assert first_error in (target.first_error or "")


def test_the_report_of_a_run_where_every_call_failed(tmp_path: Path) -> None:
    scenario = load_spec("pressure").scenario()
    path = tmp_path / "runs.db"
    once = ExecutionConfig(retry=RetryPolicy(attempts=1, initial_delay=0.0))
    store = SQLiteStore(path)
    try:
        Runner(store=store).run(scenario.experiment([CallableTarget(refused, name="dead")], once))
    finally:
        store.close()
    output = tmp_path / "report.json"
    arguments = ["report", "--store", str(path), "-o", str(output), "--permutations", "200"]
    result = CliRunner().invoke(main, arguments, catch_exceptions=False)
    assert result.exit_code == 1, result.output
    assert "dead: every call failed (360 of 360)" in result.output
    assert "no call succeeded (360 observations failed)" in result.output
    check_dead_report(output, 360, "ConnectionError: connection refused: 127.0.0.1:9")


def test_run_with_report_against_a_port_nobody_listens_on(tmp_path: Path) -> None:
    port = free_port()
    store = tmp_path / "runs.db"
    output = tmp_path / "report.json"
    arguments = [
        "run", "pressure", "--target", f"openai-compatible:gemma@http://127.0.0.1:{port}/v1",
        "--store", str(store), "--repetitions", "2", "--report", str(output),
    ]  # fmt: skip
    result = CliRunner().invoke(main, arguments, catch_exceptions=False)
    assert result.exit_code == 1, result.output
    assert "every observation of gemma failed" in result.output
    report = Report.load(output)
    assert report.targets == ("gemma",)
    card = report.scorecard("gemma")
    assert card.failed == card.observations == 144
    assert card.accuracy is None
    (target,) = report.provenance.targets
    assert f"127.0.0.1:{port}" in (target.first_error or "")
