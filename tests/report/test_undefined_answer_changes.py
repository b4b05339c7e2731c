"""A target that hardly answers has its answer changes n/a with the reason, never a finding.

With 7% of its outputs read, a target "differs" from any other at every coordinate because "no
answer" differs from an answer; `check --require 'divergent==0'` used to fail on that as if it
were a real divergence. Its profiles showed flat zero lines and "largest excess 0.000" in the
sensitivity table: answers that never change because none was read. Each is n/a now, in the
report, on its page and in a report file written before the rule reached them.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from modelscape.cli import main
from modelscape.execution import ExecutionConfig, Runner
from modelscape.pages import ReportPage
from modelscape.report import Report, Requirement
from modelscape.specs import load_spec
from modelscape.store import SQLiteStore
from modelscape.targets import CallableTarget
from modelscape.targets.protocol import TargetRequest


def steady(request: TargetRequest) -> str:
    return '{"answer": true}'


def mumbling(request: TargetRequest) -> str:
    # About one reply in fourteen can be read; which ones depends on the prompt only.
    text = request.prompt.messages[-1].content + str(request.repetition)
    return '{"answer": true}' if zlib.crc32(text.encode()) % 14 == 0 else "hmm, hard to say"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A run of a steady target and a mumbling one, and its report file."""
    folder = tmp_path_factory.mktemp("mumbling")
    scenario = load_spec("pressure").scenario()
    path = folder / "runs.db"
    targets = [CallableTarget(steady, name="steady"), CallableTarget(mumbling, name="mumbler")]
    with SQLiteStore(path) as store:
        Runner(store=store).run(scenario.experiment(targets, ExecutionConfig()))
    output = folder / "report.json"
    arguments = ["report", "--store", str(path), "-o", str(output), "--permutations", "200"]
    result = CliRunner().invoke(main, arguments, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return path, output


def test_a_divergence_against_a_target_that_hardly_answers_is_undefined(
    made: tuple[Path, Path],
) -> None:
    _, output = made
    report = Report.load(output)
    answered = report.scorecard("mumbler").answered
    assert answered is not None
    assert answered < 0.2
    (divergence,) = report.divergences
    assert divergence.undefined is not None
    assert divergence.undefined.startswith("mumbler: answered ")
    assert "too few read answers" in divergence.undefined
    assert divergence.candidates == ()
    assert divergence.largest is None
    assert all(c.excess is None and c.insufficient for c in divergence.contrasts)
    assert divergence.measurement_ids  # the outputs behind it can still be opened
    # The requirement says why, instead of counting coordinates as divergent.
    (violation,) = Requirement.parse("divergent==0").violations(report)
    assert "divergent is n/a (mumbler: answered" in violation
    summary = report.summary()
    line = next(x for x in summary.splitlines() if x.strip().startswith("mumbler") and "n/a" in x)
    assert "coordinates" not in line
    checked = CliRunner().invoke(main, ["check", str(output), "--require", "divergent==0"])
    assert checked.exit_code == 1
    assert "n/a (mumbler: answered" in checked.output


def test_its_profiles_and_sensitivity_are_undefined(made: tuple[Path, Path]) -> None:
    _, output = made
    report = Report.load(output)
    mumbler = [p for p in report.profiles if p.target == "mumbler"]
    assert mumbler
    for profile in mumbler:
        assert profile.undefined is not None
        assert "too few read answers" in profile.undefined
        assert profile.candidate_boundaries == ()
        for t in (*profile.baseline, *profile.local):
            assert t.excess is None
            assert t.low is None
            assert t.p_value is None
            assert t.insufficient == profile.undefined
        assert profile.metrics  # accuracy along the axis is still defined
    steady_profiles = [p for p in report.profiles if p.target == "steady"]
    assert steady_profiles
    assert all(p.undefined is None for p in steady_profiles)
    assert {s.target for s in report.sensitivity} == {"steady"}


def test_a_file_written_before_the_rule_reads_as_one_made_today(
    made: tuple[Path, Path], tmp_path: Path
) -> None:
    # An older report kept the mumbler's profile estimates and sensitivity rows.
    _, output = made
    data = json.loads(output.read_text(encoding="utf-8"))
    steady_sensitivity = [s for s in data["sensitivity"] if s["target"] == "steady"]
    for profile in data["profiles"]:
        profile.pop("undefined", None)
        if profile["target"] == "mumbler":
            for t in (*profile["baseline"], *profile["local"]):
                t.update(excess=0.0, between=0.0, within=0.0, low=0.0, high=0.0, p_value=1.0)
                t.update(insufficient=None)
    data["sensitivity"] = [
        *steady_sensitivity,
        {**steady_sensitivity[0], "target": "mumbler", "excess": 0.0},
    ]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data), encoding="utf-8")
    report = Report.load(old)
    assert all(p.undefined for p in report.profiles if p.target == "mumbler")
    assert all(
        t.excess is None
        for p in report.profiles
        if p.target == "mumbler"
        for t in (*p.baseline, *p.local)
    )
    assert {s.target for s in report.sensitivity} == {"steady"}


def test_its_page_draws_no_line_and_says_why(made: tuple[Path, Path]) -> None:
    store, output = made
    page = ReportPage(output, store)
    html = page.html()
    context = page.context()
    for section in context["profiles"]:
        reasons = {u["target"]: u["reason"] for u in section["unestimated"]}
        assert set(reasons) == {"mumbler"}
        assert section["figure"] is not None
        names = {trace.get("name") for trace in section["figure"]["data"]}
        assert "mumbler" not in names
        assert "steady" in names
    assert "Not drawn, each comparison n/a: mumbler (answered" in html
    (line,) = context["sensitivity"]["unestimated"]
    assert line["target"] == "mumbler"
    sensitivity = html[html.index('id="sensitivity-heading"') :]
    row = sensitivity[sensitivity.index("<td>mumbler</td>") :].split("</tr>")[0]
    assert "n/a" in row
    assert "too few read answers" in row
    assert "0.000" not in row
