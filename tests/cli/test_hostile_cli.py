"""Text from contributors into other formats, and output paths: each command escapes what it
writes and fails on one line, without a traceback, before doing any work it would lose.
"""

from __future__ import annotations

import csv
import io
import shutil
import socket
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner, Result

from modelscape._spreadsheet import spreadsheet_safe
from modelscape._yaml import load_yaml
from modelscape.cli import main
from modelscape.report import Report
from tests.site.sitetools import CONTENT
from tests.support.readonly import can_mount_read_only, run_with_read_only
from tests.support.runs import RUN, made

HOSTILE_NAME = 'x" injected="1\'><!-- & </testsuite>\x01\x1b\x0b'


def _run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def _one_line_error(result: Result, *expected: str) -> None:
    assert result.exit_code == 1, result.output
    assert result.output.startswith("error: "), result.output
    assert result.output.count("\n") == 1, result.output
    assert "Traceback" not in result.output
    for text in expected:
        assert text in result.output, result.output


@pytest.fixture
def run_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    shutil.copytree(made(RUN), folder)
    return folder


# -- check --junit -----------------------------------------------------------------------------
def test_junit_escapes_a_hostile_scenario_name(run_folder: Path, tmp_path: Path) -> None:
    report = Report.load(run_folder / "report.json")
    hostile = tmp_path / "hostile.json"
    hostile.write_text(
        report.model_copy(update={"scenario": HOSTILE_NAME}).model_dump_json(),
        encoding="utf-8",
    )
    junit = tmp_path / "junit.xml"
    result = _run(
        "check", str(hostile), "--require", "accuracy>=0", "--require", "accuracy>=2",
        "--junit", str(junit),
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    suite = ElementTree.parse(junit).getroot()  # well-formed XML, whatever the name held
    assert suite.tag == "testsuite"
    assert suite.attrib == {
        "name": "modelscape " + 'x" injected="1\'><!-- & </testsuite>\ufffd\ufffd\ufffd',
        "tests": "2",
        "failures": "1",
    }
    cases = suite.findall("testcase")
    assert len(cases) == 2
    assert {case.attrib["classname"] for case in cases} == {
        'modelscape.x" injected="1\'><!-- & </testsuite>\ufffd\ufffd\ufffd'
    }
    failure = cases[1].find("failure")
    assert failure is not None
    assert "accuracy" in (failure.text or "")


def test_junit_into_a_missing_folder_is_one_line_before_any_work(
    run_folder: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "nowhere" / "junit.xml"
    result = _run(
        "check", str(run_folder / "report.json"), "--require", "accuracy>=0",
        "--junit", str(missing),
    )  # fmt: skip
    _one_line_error(result, f"--junit {missing}: the folder", "does not exist")


# -- report -o, page -o, prompts -o, build -o --------------------------------------------------
def test_report_checks_its_output_before_the_analysis(
    run_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import modelscape.report.report as report_module

    def analysis(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the analysis ran before the output path was checked")

    monkeypatch.setattr(report_module, "build_report", analysis)
    missing = tmp_path / "nowhere" / "report.json"
    result = _run("report", "--store", str(run_folder / "store.db"), "-o", str(missing))
    _one_line_error(result, f"-o {missing}: the folder", "does not exist")


def test_report_into_a_read_only_folder_is_one_line(run_folder: Path, tmp_path: Path) -> None:
    if not can_mount_read_only():
        pytest.skip("needs unshare with user and mount namespaces to mount a folder read-only")
    locked = tmp_path / "locked"
    locked.mkdir()
    command = [sys.executable, "-c", "from modelscape.cli import main; main()", "report", "--store",
               str(run_folder / "store.db"), "-o", str(locked / "r.json")]  # fmt: skip
    done = run_with_read_only(locked, command)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("error: "), done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert "not writable" in done.stderr
    assert list(locked.iterdir()) == []


def test_page_into_a_missing_folder_is_one_line(run_folder: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "page.html"
    _one_line_error(_run("page", "pressure", "-o", str(missing)), f"-o {missing}: the folder")
    result = _run(
        "page", str(run_folder / "report.json"), "--store", str(run_folder / "store.db"),
        "-o", str(missing),
    )  # fmt: skip
    _one_line_error(result, "does not exist")


def test_prompts_into_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "prompts.csv"
    _one_line_error(_run("prompts", "pressure", "-o", str(missing)), f"-o {missing}")


def test_build_into_a_path_that_cannot_be_a_folder_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file\n", encoding="utf-8")
    result = _run("build", str(CONTENT), "-o", str(blocker / "site"))
    _one_line_error(result, "cannot create the output folder", "Not a directory")


def test_serve_on_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = _run("serve", str(CONTENT), "-o", str(tmp_path / "site"), "--port", str(port))
    _one_line_error(result, f"cannot serve on 127.0.0.1:{port}: the port is in use")
    assert not (tmp_path / "site").exists()


# -- init --title ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "title", ["Lab: results", "# not a comment", "[a, b]", "yes", "'quoted' \"both\"", "café ☕"]
)
def test_init_writes_any_one_line_title_as_text(tmp_path: Path, title: str) -> None:
    result = _run("init", str(tmp_path / "site"), "--title", title)
    assert result.exit_code == 0, result.output
    settings = load_yaml((tmp_path / "site" / "site.yaml").read_text(encoding="utf-8"))
    assert settings["title"] == title
    assert set(settings) == {"title", "description", "navigation"}
    build = _run("build", str(tmp_path / "site"), "-o", str(tmp_path / "out"), "--strict")
    assert build.exit_code == 0, build.output


@pytest.mark.parametrize("title", ["Lab\nnavigation: []", "a\rb", "tab\there", "", "  "])
def test_init_refuses_a_title_that_is_not_one_line(tmp_path: Path, title: str) -> None:
    result = _run("init", str(tmp_path / "site"), "--title", title)
    _one_line_error(result, "the site's title must be one line of printable text")
    assert not (tmp_path / "site").exists()


# -- prompts --format csv ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('=HYPERLINK("http://x","y")', '\'=HYPERLINK("http://x","y")'),
        ("+1+1", "'+1+1"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\r=1"),
        ("plain = text", "plain = text"),
        (-3, -3),
        (2.5, 2.5),
        (None, None),
    ],
)
def test_spreadsheet_cells_never_start_a_formula(value: object, expected: object) -> None:
    assert spreadsheet_safe(value) == expected


def test_prompts_csv_of_a_hostile_spec_is_safe_in_a_spreadsheet(tmp_path: Path) -> None:
    spec = tmp_path / "formula.yaml"
    spec.write_text(
        "name: formula\n"
        "prompt: '{cell} Is it true?'\n"
        "slots:\n  cell:\n    - \"=cmd|'/c calc'!A1\"\n    - '@SUM(1)'\n    - plain\n"
        "vary:\n  cell: nominal\n"
        "answer: {pattern: '(yes|no)', choices: [yes, no], correct: yes}\n",
        encoding="utf-8",
    )
    result = _run("prompts", str(spec), "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO(result.stdout)))
    for row in rows:
        for cell in row:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), cell
    prompts = [row[rows[0].index("prompt")] for row in rows[1:]]
    assert "'=cmd|'/c calc'!A1 Is it true?" in prompts
    jsonl = _run("prompts", str(spec), "--format", "jsonl")
    assert '"prompt": "=cmd|' in jsonl.stdout  # JSON lines keep the text as it is
