"""The ``modelscape page`` command: a spec or a report (with its store) to one HTML file."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from modelscape.cli import main
from modelscape.results.results import run_of
from tests.pages.conftest import Run
from tests.pages.parsing import parse


def test_page_of_a_shipped_spec(tmp_path: Path) -> None:
    target = tmp_path / "scenario.html"
    result = CliRunner().invoke(main, ["page", "pressure", "-o", str(target)])
    assert result.exit_code == 0, result.output
    assert f"wrote {target}" in result.output
    assert "Scenario review" in target.read_text(encoding="utf-8")


def test_page_of_a_report_with_its_store(tmp_path: Path, run: Run) -> None:
    target = tmp_path / "report.html"
    result = CliRunner().invoke(
        main, ["page", str(run.report_file), "--store", str(run.store), "-o", str(target)]
    )
    assert result.exit_code == 0, result.output
    evidence = parse(target.read_text(encoding="utf-8")).data("ms-evidence")
    assert len(evidence["observations"]) == len(run_of(run.results).observations)


def test_page_default_output_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["page", "return-window"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "return-window.html").exists()


def test_page_errors_are_one_line(tmp_path: Path, run: Run) -> None:
    result = CliRunner().invoke(main, ["page", "pressure", "--store", str(run.store)])
    assert result.exit_code == 1
    assert "error: --store goes with a report file" in result.output
    missing = CliRunner().invoke(main, ["page", str(run.report_file), "--store", "missing.db"])
    assert missing.exit_code == 1
    assert "no such store file" in missing.output
    unknown = CliRunner().invoke(main, ["page", "no-such-spec", "-o", str(tmp_path / "x.html")])
    assert unknown.exit_code == 1
