"""``modelscape report`` opens its summary with the run's findings: the sentences the report
page opens with, generated from the report it writes, before any table."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from modelscape.cli import main
from modelscape.pages import ReportPage
from modelscape.report import Report
from modelscape.report.findings import findings
from tests.pages.test_findings import shown
from tests.support.runs import made


def _findings_lines(output: str) -> tuple[int, list[str]]:
    """Where the findings start in the printed summary, and their sentences."""
    lines = output.splitlines()
    start = lines.index("findings")
    said = []
    for line in lines[start + 1 :]:
        if not line.startswith("  - "):
            break
        said.append(line[4:])
    return start, said


@pytest.mark.parametrize("kind", ["pressure-fixture", "arithmetic-fixture", "failing-fixture"])
def test_the_printed_summary_opens_with_the_pages_findings(kind: str, tmp_path: Path) -> None:
    store = tmp_path / "store.db"
    shutil.copyfile(made(kind) / "store.db", store)
    written = tmp_path / "report.json"
    result = CliRunner().invoke(
        main,
        ["report", "--store", str(store), "-o", str(written), "--permutations", "300"],
    )
    assert result.exit_code == 0, result.output
    start, said = _findings_lines(result.stdout)
    report = Report.load(written)
    assert said == [finding.text for finding in findings(report)]
    # Only the two lines that name the run and its criterion come before them; the tables after.
    assert start == 3
    printed = result.stdout.splitlines()
    tables = next(i for i, line in enumerate(printed) if line.startswith("target "))
    assert tables > start + len(said)
    page = ReportPage(report, store).html()
    assert [item.text for item in shown(page).items] == said


def test_the_kinds_a_run_has_are_said(tmp_path: Path) -> None:
    store = tmp_path / "store.db"
    shutil.copyfile(made("arithmetic-fixture") / "store.db", store)
    result = CliRunner().invoke(main, ["report", "--store", str(store), "--permutations", "300"])
    assert result.exit_code == 0, result.output
    _, said = _findings_lines(result.stdout)
    # The arithmetic reference targets: the oracle's answers follow the causal axes, the
    # distracted one moves on an invariant axis, the random one misses changes.
    assert any(": candidate boundary on " in line for line in said)
    assert any("answers stayed the same where the correct answer moved" in line for line in said)
    assert any(line.startswith("On ") and "80% power" in line for line in said)
