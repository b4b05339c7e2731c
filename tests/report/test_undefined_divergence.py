"""A divergence against a target that hardly answers is n/a with the reason, never a finding.

With 7% of its outputs read, a target "differs" from any other at every coordinate because "no
answer" differs from an answer; `check --require 'divergent==0'` used to fail on that as if it
were a real divergence.
"""

from __future__ import annotations

import zlib
from pathlib import Path

from click.testing import CliRunner

from modelscape.cli import main
from modelscape.execution import CallableTarget, ExecutionConfig, Runner
from modelscape.report import Report, Requirement
from modelscape.specs import load_spec
from modelscape.store import SQLiteStore
from modelscape.target import TargetRequest


def steady(request: TargetRequest) -> str:
    return '{"answer": true}'


def mumbling(request: TargetRequest) -> str:
    # About one reply in fourteen can be read; which ones depends on the prompt only.
    text = request.prompt.messages[-1].content + str(request.repetition)
    return '{"answer": true}' if zlib.crc32(text.encode()) % 14 == 0 else "hmm, hard to say"


def test_a_divergence_against_a_target_that_hardly_answers_is_undefined(tmp_path: Path) -> None:
    scenario = load_spec("pressure").scenario()
    path = tmp_path / "runs.db"
    targets = [CallableTarget(steady, name="steady"), CallableTarget(mumbling, name="mumbler")]
    with SQLiteStore(path) as store:
        Runner(store=store).run(scenario.experiment(targets, ExecutionConfig()))
    output = tmp_path / "report.json"
    arguments = ["report", "--store", str(path), "-o", str(output), "--permutations", "200"]
    result = CliRunner().invoke(main, arguments, catch_exceptions=False)
    assert result.exit_code == 0, result.output
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
