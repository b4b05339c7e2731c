"""Reports: building, saving, loading, summaries, requirements and the report/check commands."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

from modelscape._collector import RUN_THRESHOLDS
from modelscape.cli import main
from modelscape.errors import AnalysisError, ReportError
from modelscape.execution import Runner
from modelscape.report import Report, Requirement
from modelscape.results.results import Results
from modelscape.scenario import Scenario
from modelscape.specs import load_spec
from modelscape.stats import Inference
from modelscape.store import SQLiteStore
from modelscape.targets._oracle import OracleTarget
from modelscape.targets._reference import Flip

INFERENCE = Inference(permutations=4000, resamples=500)


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    return load_spec("pressure").scenario()


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory, scenario: Scenario) -> tuple[Path, Results]:
    path = tmp_path_factory.mktemp("store") / "runs.db"
    sycophant = OracleTarget(
        scenario, flips=[Flip(marker="professor", answer=False)], noise=0.05, name="sycophant"
    )
    store = SQLiteStore(path)
    try:
        results = Runner(store=store).run(scenario.experiment([sycophant, OracleTarget(scenario)]))
    finally:
        store.close()
    return path, results


@pytest.fixture(scope="module")
def report(scenario: Scenario, stored: tuple[Path, Results]) -> Report:
    return scenario.report(stored[1], inference=INFERENCE)


def test_report_holds_every_target_and_group(report: Report) -> None:
    assert report.targets == ("sycophant", "oracle")
    assert report.groups == ("all", "true-claims", "false-claims")
    assert {(c.target, c.group) for c in report.scorecards} == {
        (t, g) for t in report.targets for g in report.groups
    }
    assert [(d.first, d.second) for d in report.divergences] == [("sycophant", "oracle")]
    assert {p.target for p in report.profiles} == {"sycophant", "oracle"}
    provenance = {t.name: t for t in report.provenance.targets}
    assert provenance["oracle"].models == {"oracle": 360}
    assert provenance["oracle"].observations == 360
    assert report.provenance.software["modelscape"]


def test_numbers_trace_back_to_outputs(report: Report, stored: tuple[Path, Results]) -> None:
    results = stored[1]
    card = report.scorecard("sycophant")
    trace = results.trace(card.accuracy_ids)
    assert len(trace.observations) == 360
    assert all(o.target == "sycophant" for o in trace.observations)
    (shift,) = card.axes[0].shifts
    behind = results.trace(shift)
    assert {o.coordinate["pressure"] for o in behind.observations} == {"disagreement", "authority"}
    assert {v.id for v in behind.variants} == {o.variant_id for o in behind.observations}


def test_save_and_load_round_trip(report: Report, tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    report.save(path)
    assert Report.load(path) == report


def test_a_report_written_before_departures_says_they_are_not_computed(
    report: Report, tmp_path: Path
) -> None:
    # An older file has no departures on any axis: read back, they are n/a with a reason,
    # not "0 departures".
    data = json.loads(report.model_dump_json())
    for card in data["scorecards"]:
        for axis in card["axes"]:
            del axis["departures"]
    path = tmp_path / "report.json"
    path.write_text(json.dumps(data))
    loaded = Report.load(path)
    card = loaded.scorecard("sycophant")
    assert "not computed" in card.undefined["invariant_departures"]
    assert "not computed" in card.axes[0].undefined["departures"]
    (violation,) = Requirement.parse("invariant_departures==0").violations(loaded, ["sycophant"])
    assert "n/a (not computed" in violation


def test_newer_format_fails_clearly(report: Report, tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    data = json.loads(report.model_dump_json())
    data["format"] = 99
    path.write_text(json.dumps(data))
    with pytest.raises(ReportError, match="format 99, newer than"):
        Report.load(path)
    path.write_text("{not json")
    with pytest.raises(ReportError, match="invalid JSON"):
        Report.load(path)
    with pytest.raises(ReportError, match="cannot read report"):
        Report.load(tmp_path / "missing.json")


def test_summary_is_aligned_and_names_the_boundary(report: Report) -> None:
    text = report.summary()
    assert "pressure (version 1)" in text
    assert "sycophant  pressure: disagreement → authority  invariant" in text
    header = next(line for line in text.splitlines() if line.startswith("target"))
    assert header.split() == [
        "target",
        "group",
        "accuracy",
        "at",
        "baseline",
        "answered",
        "spurious",
        "missed",
        "shifts",
        "(inv.)",
        "departures",
        "failed",
    ]


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("accuracy>=0.99", 1),
        ("accuracy>=0.5", 0),
        ("true-claims:spurious_change<=0.05", 1),
        ("invariant_shifts==0", 1),
        ("invariant_departures==0", 1),
        ("missed_change<=0.1", 2),  # no causal axis: cannot be measured, so it fails
        ("divergent==0", 1),
        ("divergence<=1", 0),
    ],
)
def test_requirements(report: Report, text: str, count: int) -> None:
    assert len(Requirement.parse(text).violations(report)) == count


def test_requirement_scope_and_errors(report: Report) -> None:
    requirement = Requirement.parse("invariant_shifts==0")
    assert requirement.violations(report, ["oracle"]) == []
    assert str(requirement) == "invariant_shifts==0"
    with pytest.raises(ReportError, match="did you mean 'accuracy'"):
        Requirement.parse("acuracy>=0.9")
    with pytest.raises(ReportError, match=r"\[GROUP:\]QUANTITY OP NUMBER"):
        Requirement.parse("accuracy is high")
    with pytest.raises(ReportError, match="no group 'contrl'"):
        Requirement.parse("contrl:accuracy>=0.9").violations(report)
    with pytest.raises(ReportError, match="unknown targets"):
        requirement.violations(report, ["nobody"])


def test_one_repetition_cannot_separate_noise(scenario: Scenario) -> None:
    from dataclasses import replace

    once = replace(scenario, repetitions=1)
    results = Runner().run(once.experiment([OracleTarget(once)]))
    with pytest.raises(AnalysisError, match="one repetition"):
        results.profile("pressure", "answer_change")


def test_report_and_check_commands(stored: tuple[Path, Results], tmp_path: Path) -> None:
    path, _ = stored
    runner = CliRunner()
    output = tmp_path / "report.json"
    result = runner.invoke(
        main, ["report", "--store", str(path), "-o", str(output), "--permutations", "4000"]
    )
    assert result.exit_code == 0, result.output
    assert "candidate boundaries" in result.output
    junit = tmp_path / "junit.xml"
    passing = runner.invoke(main, ["check", str(output), "--require", "accuracy>=0.5"])
    assert passing.exit_code == 0
    assert "1 of 1 requirements met" in passing.output
    failing = runner.invoke(
        main,
        [
            "check",
            str(output),
            "--require",
            "invariant_shifts==0",
            "--require",
            "answered>=0.99",
            "--junit",
            str(junit),
        ],
    )
    assert failing.exit_code == 1
    assert "sycophant · all: invariant_shifts 1 misses invariant_shifts==0" in failing.output
    suite = ElementTree.parse(junit).getroot()
    assert suite.get("tests") == "2"
    assert suite.get("failures") == "1"
    missing = runner.invoke(main, ["report", "--store", str(tmp_path / "none.db")])
    assert missing.exit_code == 1
    assert "no such store file" in missing.output
    assert "Traceback" not in missing.output


def test_a_report_leaves_the_collector_as_its_caller_set_it(
    scenario: Scenario, stored: tuple[Path, Results], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library function does not change the process's collector (docs/design/043); the
    command and the site's workers, whose processes are their own, pace it."""
    seen: list[tuple[int, ...]] = []
    scorecard = Results.scorecard

    def watched(self: Results, *arguments: object, **keywords: object) -> object:
        seen.append(gc.get_threshold())
        return scorecard(self, *arguments, **keywords)  # type: ignore[arg-type]

    monkeypatch.setattr(Results, "scorecard", watched)
    before = gc.get_threshold()
    assert before != RUN_THRESHOLDS  # else pacing could not be told apart
    scenario.report(stored[1], inference=INFERENCE)
    assert seen
    assert set(seen) == {before}
    assert gc.get_threshold() == before


def test_missed_change_carries_its_interval_everywhere() -> None:
    # The committed arithmetic run: its number axis moves the correct answer, and the
    # random reference target keeps its answer across a move now and then.
    from modelscape.pages import ReportPage
    from modelscape.report.summary import interval

    folder = Path(__file__).parents[2] / "content" / "runs" / "arithmetic-reference"
    report = Report.load(folder / "report.json")
    card = report.scorecard("random")
    assert card.missed_change is not None
    assert card.missed_low is not None
    assert card.missed_high is not None
    assert card.missed_low <= card.missed_change <= card.missed_high
    assert card.missed_low < card.missed_high
    shown = interval(card.missed_change, card.missed_low, card.missed_high, 3)
    assert shown in report.summary()
    assert shown in ReportPage(report, folder / "store.db").html()
    assert Requirement.parse("missed_high<=1").violations(report) == []
    (violation,) = Requirement.parse("missed_low<=-1").violations(report, ["random"])
    assert "missed_low" in violation
