"""The run command fails loudly: dead endpoints, failure limits, gating, damaged stores."""

from __future__ import annotations

import socket
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from modelscape.cli import main
from modelscape.report import Report
from modelscape.store.sqlite import SQLiteStore


def invoke(*arguments: str) -> Result:
    return CliRunner().invoke(main, list(arguments))


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_dead_endpoint_stops_early_prints_why_and_exits_non_zero(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    store = tmp_path / "dead.db"
    result = invoke(
        "run", "pressure", "--target", f"openai-compatible:m@{url}", "--store", str(store)
    )
    assert result.exit_code == 1
    assert "Cannot connect to host 127.0.0.1" in result.stderr  # the reason, not just a count
    assert "first error:" in result.stderr
    assert result.stderr.count("stopped after 10 identical failures in a row") == 1
    assert "every observation of m failed" in result.stderr
    assert "Traceback" not in result.output
    opened = SQLiteStore(store)
    (record,) = opened.experiments()
    _, _, observations, _, _ = opened.load(record.id)
    opened.close()
    assert len(observations) == 360
    assert all(o.status == "failed" for o in observations)
    # Before the breaker this run made 1,440 attempts (360 calls and 1,080 retries) in 238 s.
    assert sum(o.attempts for o in observations) <= 10 + 8


def test_progress_to_a_log_is_lines_not_frames(tmp_path: Path) -> None:
    result = invoke(
        "run", "pressure", "--target", "oracle:pressure", "--store", str(tmp_path / "s.db")
    )
    assert result.exit_code == 0, result.output
    assert "\r" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("[")]
    assert lines[-1].startswith("[########################] 360/360")
    # A line when the run starts, then at most one every five seconds of the run (as its own
    # last line reports them), and a last one: never a line per observation.
    seconds = int(lines[-1].rsplit(maxsplit=1)[-1].removesuffix("s"))
    assert len(lines) <= 2 + int((seconds + 0.5) // 5)


def test_run_report_and_gate_in_one_command(tmp_path: Path) -> None:
    store, report, junit = tmp_path / "s.db", tmp_path / "r.json", tmp_path / "j.xml"
    passing = invoke(
        "run", "pressure", "--target", "oracle:pressure", "--store", str(store),
        "--report", str(report), "--require", "accuracy>=0.9", "--junit", str(junit),
    )  # fmt: skip
    assert passing.exit_code == 0, passing.output
    assert "1 of 1 requirements met" in passing.output
    assert Report.load(report).targets == ("oracle",)
    suite = ElementTree.parse(junit).getroot()
    assert (suite.get("tests"), suite.get("failures")) == ("1", "0")
    assert "accuracy" in passing.output  # the summary is printed
    failing = invoke(
        "run", "pressure", "--target", 'constant:{"answer": true}', "--store", str(store),
        "--report", str(report), "--require", "accuracy>=0.9",
        "--require", "invariant_shifts==0", "--junit", str(junit),
    )  # fmt: skip
    assert failing.exit_code == 1
    assert "requirements met" in failing.stderr
    suite = ElementTree.parse(junit).getroot()
    assert suite.get("tests") == "2"
    assert int(suite.get("failures") or 0) >= 1
    assert Report.load(report).targets == ("constant",)


def test_a_bad_requirement_fails_before_any_call(tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    result = invoke(
        "run", "pressure", "--target", "echo", "--store", str(store), "--require", "accuracy>>1"
    )
    assert result.exit_code == 1
    assert "cannot read requirement" in result.output
    assert not store.exists()


def test_junit_without_requirements_is_a_usage_error(tmp_path: Path) -> None:
    result = invoke(
        "run", "pressure", "--target", "echo", "--store", str(tmp_path / "s.db"),
        "--junit", str(tmp_path / "j.xml"),
    )  # fmt: skip
    assert result.exit_code == 2
    assert "--junit" in result.output


def failing_half(request: object) -> str:
    """Fails every call whose seed hint is odd."""
    from modelscape.targets.protocol import TargetError

    if request.seed % 2:  # type: ignore[attr-defined]
        raise TargetError("odd seed refused", retryable=False)
    return '{"answer": true}'


@pytest.mark.parametrize(
    ("limit", "code"), [(None, 0), ("1000", 0), ("10", 1), ("80%", 0), ("20%", 1)]
)
def test_max_failures_counts_or_shares(tmp_path: Path, limit: str | None, code: int) -> None:
    arguments = [
        "run", "pressure", "--target", f"python:{__name__}:failing_half",
        "--store", str(tmp_path / "s.db"),
    ]  # fmt: skip
    if limit is not None:
        arguments += ["--max-failures", limit]
    result = invoke(*arguments)
    assert result.exit_code == code, result.output
    assert "first error: odd seed refused" in result.stderr
    if code:
        assert "more than --max-failures" in result.stderr


@pytest.mark.parametrize("limit", ["-1", "ten", "1.5", "%"])
def test_max_failures_must_be_a_count_or_a_share(tmp_path: Path, limit: str) -> None:
    result = invoke(
        "run", "pressure", "--target", "echo", "--store", str(tmp_path / "s.db"),
        "--max-failures", limit,
    )  # fmt: skip
    assert result.exit_code == 2
    assert "--max-failures" in result.output


def damaged_store(tmp_path: Path) -> Path:
    store = tmp_path / "runs.db"
    ran = invoke("run", "pressure", "--target", "oracle:pressure", "--store", str(store))
    assert ran.exit_code == 0, ran.output
    data = bytearray(store.read_bytes())
    for start in range(4096, len(data), 8192):
        data[start + 100 : start + 1000] = b"\xff" * 900
    store.write_bytes(bytes(data))
    return store


@pytest.mark.parametrize("command", ["runs", "report", "run"])
def test_a_damaged_store_is_one_clear_error(tmp_path: Path, command: str) -> None:
    store = damaged_store(tmp_path)
    arguments = {
        "runs": ["runs", "--store", str(store)],
        "report": ["report", "--store", str(store)],
        "run": ["run", "pressure", "--target", "oracle:pressure", "--store", str(store)],
    }[command]
    result = invoke(*arguments)
    assert result.exit_code == 1
    assert str(store) in result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
