"""Reports that survive failures: a dead target, a target that answers nothing, old files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from modelscape.cli import main
from modelscape.execution import ExecutionConfig, RetryPolicy, Runner
from modelscape.report import Report, Requirement
from modelscape.results.results import Results
from modelscape.specs import load_spec
from modelscape.stats import Inference
from modelscape.store import SQLiteStore
from modelscape.targets import CallableTarget
from modelscape.targets._oracle import OracleTarget
from modelscape.targets.protocol import TargetRequest

INFERENCE = Inference(permutations=2000, resamples=200)
CONTENT = Path(__file__).resolve().parents[2] / "content" / "runs"


def dead(request: TargetRequest) -> str:
    raise ConnectionError("connection refused: 127.0.0.1:9")


def mute(request: TargetRequest) -> str:
    return "I cannot say."


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Results]:
    """A pressure run of a good target, a dead one and one that never gives an answer."""
    scenario = load_spec("pressure").scenario()
    path = tmp_path_factory.mktemp("failures") / "runs.db"
    once = ExecutionConfig(retry=RetryPolicy(attempts=1, initial_delay=0.0))
    targets = [
        OracleTarget(scenario, noise=0.05),
        CallableTarget(dead, name="dead"),
        CallableTarget(mute, name="mute"),
    ]
    store = SQLiteStore(path)
    try:
        results = Runner(store=store).run(scenario.experiment(targets, once))
    finally:
        store.close()
    return path, results


def test_the_report_command_covers_every_target_with_data(
    stored: tuple[Path, Results], tmp_path: Path
) -> None:
    path, _ = stored
    output = tmp_path / "report.json"
    result = CliRunner().invoke(
        main,
        ["report", "--store", str(path), "-o", str(output), "--permutations", "2000"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    report = Report.load(output)
    assert report.targets == ("oracle", "dead", "mute")
    oracle = report.scorecard("oracle")
    assert oracle.accuracy is not None
    assert oracle.accuracy > 0.8
    assert oracle.spurious_change is not None
    assert "spurious_change" not in oracle.undefined
    # The dead target is listed with its counts and first error, its numbers undefined.
    dead_card = report.scorecard("dead")
    assert dead_card.failed == dead_card.observations == 360
    assert dead_card.accuracy is None
    assert dead_card.undefined["accuracy"] == "no successful output (360 of 360 calls failed)"
    assert dead_card.undefined["baseline_accuracy"] == (
        "no successful output at the baseline (60 of 60 calls failed)"
    )
    assert "shifts" in dead_card.undefined
    provenance = {t.name: t for t in report.provenance.targets}
    assert provenance["dead"].first_error == "ConnectionError: connection refused: 127.0.0.1:9"
    assert provenance["oracle"].first_error is None
    assert "  dead: every call failed (360 of 360); first error: ConnectionError" in result.output
    # Its transitions are insufficient, with the reason, and never boundaries.
    profile = next(p for p in report.profiles if p.target == "dead")
    step = profile.steps[0]
    assert step.excess is None
    assert step.p_value is None
    assert step.insufficient == (
        "no case has two successful outputs on both sides (0 at none and 0 at doubt, over 12 cases)"
    )
    (divergence, _) = report.divergences
    assert divergence.second == "dead"
    assert divergence.candidates == ()
    assert all(c.excess is None and c.insufficient for c in divergence.contrasts)
    assert divergence.largest is None


def test_a_target_without_readable_answers_is_not_perfect(
    stored: tuple[Path, Results],
) -> None:
    _, results = stored
    scenario = load_spec("pressure").scenario()
    report = scenario.report(results, inference=INFERENCE)
    card = report.scorecard("mute")
    assert card.answered == 0.0
    assert card.accuracy == 0.0  # never correct: defined, and honest
    reason = "answered 0%: too few read answers (needs 70%)"
    assert card.spurious_change is None
    assert card.undefined["spurious_change"] == reason
    assert card.undefined["shifts"] == card.undefined["invariant_shifts"] == reason
    assert card.undefined["invariant_departures"] == reason
    assert all(axis.departures == () for axis in card.axes)
    assert all(axis.undefined["spurious_change"] == reason for axis in card.axes)
    assert all(axis.shifts == () for axis in card.axes)
    text = report.summary()
    row = next(line for line in text.splitlines() if line.startswith("mute    all"))
    assert row.count("n/a") == 4  # spurious, missed (no causal step), shifts, departures
    assert "answered 0%: too few read answers (needs 70%)" in text
    # A requirement on an undefined quantity fails and says why.
    departures = Requirement.parse("invariant_departures==0").violations(report, ["mute"])
    assert departures == [
        f"mute · all: invariant_departures is n/a ({reason}), so it misses invariant_departures==0"
    ]
    lines = Requirement.parse("invariant_shifts==0").violations(report, ["mute"])
    assert lines == [
        f"mute · all: invariant_shifts is n/a ({reason}), so it misses invariant_shifts==0"
    ]
    lines = Requirement.parse("spurious_high<=0.1").violations(report, ["mute"])
    assert lines == [
        f"mute · all: spurious_high is n/a ({reason}), so it misses spurious_high<=0.1"
    ]
    assert Requirement.parse("spurious_high<=0.1").violations(report, ["oracle"]) == []


def test_check_fails_on_an_undefined_quantity(stored: tuple[Path, Results], tmp_path: Path) -> None:
    _, results = stored
    path = tmp_path / "report.json"
    load_spec("pressure").scenario().report(results, inference=INFERENCE).save(path)
    runner = CliRunner()
    result = runner.invoke(main, ["check", str(path), "--require", "missed_change<=0.1"])
    assert result.exit_code == 1
    assert "oracle · all: missed_change is n/a (no step changes the correct answer)" in (
        result.output
    )
    result = runner.invoke(
        main, ["check", str(path), "--require", "baseline_accuracy>=0.9", "--target", "oracle"]
    )
    assert result.exit_code == 0, result.output


def test_a_format_1_report_still_loads_with_honest_gaps(tmp_path: Path) -> None:
    source = CONTENT / "fair-lending-local-models" / "report.json"
    data = json.loads(source.read_text(encoding="utf-8"))
    data["format"] = 1
    for card in data["scorecards"]:
        for key in ("undefined", "baseline_accuracy", "spurious_low", "spurious_high"):
            card.pop(key, None)
        card["answered"] = 0.0
        card["spurious_change"] = 0.0
        for axis in card["axes"]:
            for key in ("undefined", "spurious_low", "spurious_high"):
                axis.pop(key, None)
    for target in data["provenance"]["targets"]:
        target.pop("first_error", None)
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data), encoding="utf-8")
    report = Report.load(old)
    assert report.format == 1
    card = report.scorecards[0]
    assert card.spurious_change is None  # 0.000 from nothing read is not reported as perfect
    assert card.undefined["spurious_change"] == "answered 0%: too few read answers (needs 70%)"
    assert card.undefined["baseline_accuracy"] == "not measured (a format-1 report keeps no reason)"
    saved = tmp_path / "saved.json"
    report.save(saved)
    assert json.loads(saved.read_text(encoding="utf-8"))["format"] == 2
    assert Report.load(saved).scorecards[0].undefined == card.undefined
