"""Every "nothing found" carries what its tests could have found: check, pages, leaderboard.

The committed arithmetic-reference run has 8 cases at R = 3. Its invariant axis ``who`` has
five values (four tests under Holm), whose tests find only an excess of 0.44 or more with
80% power; ``noise`` has two (one test). The oracle and random targets find nothing on
either; the distracted target has one invariant shift and one departure.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from modelscape.cli import main
from modelscape.pages.report import ReportPage
from modelscape.report import Report, Requirement
from modelscape.site.catalog import Catalog, Entry, RunSummary
from modelscape.site.tables import entry_row
from modelscape.stats.power import detectable_excess
from tests.pages.parsing import parse

RUN = Path(__file__).parents[2] / "content" / "runs" / "arithmetic-reference" / "report.json"
WEAK = "could detect an excess of 0.44 or more with 80% power"


@pytest.fixture(scope="module")
def report() -> Report:
    return Report.load(RUN)


def test_the_figure_is_the_weakest_invariant_axis(report: Report) -> None:
    assert (report.cases, report.repetitions) == (8, 3)
    found = detectable_excess(cases=8, repetitions=3, family=4)
    assert found is not None
    assert f"{found:.2f}" == "0.44"


def test_a_requirement_that_nothing_is_found_warns_on_a_weak_design(report: Report) -> None:
    requirement = Requirement.parse("invariant_shifts==0")
    lines = requirement.weak(report)
    # Only the targets that found nothing: for distracted the requirement is violated anyway.
    assert [line.split(":")[0] for line in lines] == ["oracle · all", "random · all"]
    assert lines[0] == (
        "oracle · all: invariant_shifts==0 is weak evidence: its tests (8 cases, R = 3, 4 "
        "tests under Holm) find only an excess of 0.44 or more with 80% power, above 0.3; "
        "R = 5 would find 0.3"
    )
    assert Requirement.parse("invariant_departures<1").weak(report)
    # Bounds that do not ask for "nothing found", and quantities that are not counts: silent.
    assert Requirement.parse("invariant_shifts<=2").weak(report) == []
    assert Requirement.parse("accuracy>=0").weak(report) == []


def test_a_strong_design_does_not_warn(report: Report) -> None:
    strong = report.model_copy(update={"repetitions": 10})
    assert Requirement.parse("invariant_shifts==0").weak(strong) == []


def test_check_warns_and_strict_fails(tmp_path: Path) -> None:
    runner = CliRunner()
    arguments = ["check", str(RUN), "--require", "invariant_shifts==0", "--target", "oracle"]
    result = runner.invoke(main, arguments)
    assert result.exit_code == 0, result.output
    assert "warning: oracle · all: invariant_shifts==0 is weak evidence" in result.stderr
    assert "1 of 1 requirements met" in result.stdout
    strict = runner.invoke(main, [*arguments, "--strict"])
    assert strict.exit_code == 1
    assert "rests on tests too weak to find an excess of 0.3 (--strict)" in strict.stderr
    # The same requirement on a design that can find 0.3 passes under --strict.
    path = tmp_path / "strong.json"
    Report.load(RUN).model_copy(update={"repetitions": 10}).save(path)
    strong = runner.invoke(main, ["check", str(path), *arguments[2:], "--strict"])
    assert strong.exit_code == 0, strong.output
    assert "warning" not in strong.stderr


def test_the_report_page_says_it_beside_every_zero(report: Report) -> None:
    text = parse(ReportPage(report).html()).text
    # The scorecard table: oracle found no invariant departure; distracted found one.
    assert f"0 ({WEAK})" in text
    # The per-axis table and the profile heading of the invariant axis "who".
    assert f"none ({WEAK})" in text
    assert f"who nominal · 0 candidate boundaries ({WEAK})" in text
    # A count that found something gets no clause.
    assert "5 (1 invariant) (could" not in text


def test_the_leaderboard_says_it_beside_zero_invariant_shifts(report: Report) -> None:
    summary = RunSummary.of(report, "arithmetic-reference")
    by_target = {h.target: h for h in summary.targets}
    assert by_target["oracle"].invariant_power == WEAK
    catalog = Catalog({summary.run: summary}, {})
    oracle = entry_row(catalog, Entry(summary, by_target["oracle"]))
    assert oracle["shifts"]["power"] == WEAK
    assert oracle["departures"]["power"] == WEAK
    distracted = entry_row(catalog, Entry(summary, by_target["distracted"]))
    assert distracted["shifts"]["text"] == "1"
    assert distracted["shifts"]["power"] is None


def test_the_printed_summary_notes_it_beside_every_zero(report: Report) -> None:
    lines = report.summary().splitlines()
    rows = {tuple(re.split(r"\s{2,}", line)[:2]): re.split(r"\s{2,}", line) for line in lines}
    notes = dict(reversed(line.strip().split(" ", 1)) for line in lines if line.startswith("  ["))
    mark = notes[WEAK]
    # Columns: ..., shifts (inv.), departures, failed. Oracle found 5 shifts and no departure.
    assert rows[("oracle", "all")][-3:] == ["5 (0)", f"0 {mark}", "0"]
    assert rows[("random", "all")][-3] == f"0 (0) {mark}"
    assert rows[("distracted", "all")][-3:] == ["6 (1)", "1", "0"]
