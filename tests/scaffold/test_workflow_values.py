"""Every value ``modelscape init`` writes into a workflow reaches its commands as data.

GitHub expands ``${{ }}`` in a ``run:`` line before the shell reads it, so no quoting protects
text written there: a target such as ``openai:${{ secrets.X }}`` would paste the secret into
the script, and ``${{ github.event.issue.title }}`` anyone's text. Targets go through ``env:``
(GitHub's hardening guide), a target holding ``${{`` is refused, and the merge step's script,
run by bash with a stand-in ``modelscape``, hands every target over exactly as written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from modelscape.cli import main
from modelscape.scaffold import init_site
from modelscape.scaffold.runs_workflow import runs_workflow
from modelscape.site import SiteError

HOSTILE = [
    "echo",
    'constant:"; touch pwned-quote #',
    "constant:$(touch pwned-dollar)",
    "constant:`touch pwned-tick`",
    "constant:it's \\ fine; touch pwned-semicolon",
]


def workflow(text: str) -> dict[str, Any]:
    loaded: dict[Any, Any] = yaml.safe_load(text)
    return {("on" if k is True else k): v for k, v in loaded.items()}


def steps(flow: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in flow["jobs"].values() for step in job["steps"]]


def test_no_run_line_holds_a_target_or_an_expression() -> None:
    text = runs_workflow(install="x==1", scenarios=["pressure"], targets=HOSTILE, shards=2)
    flow = workflow(text)
    for step in steps(flow):
        script = str(step.get("run", ""))
        assert "${{" not in script, step
        for target in HOSTILE[1:]:
            assert target.split(":", 1)[1] not in script, (target, step)
    merge = next(s for s in flow["jobs"]["merge"]["steps"] if s.get("name", "").startswith("merge"))
    assert merge["env"]["TARGETS"].split("\n") == HOSTILE  # read back exactly, as data


def test_the_merge_script_hands_every_target_over_exactly(tmp_path: Path) -> None:
    flow = workflow(
        runs_workflow(install="x==1", scenarios=["pressure", "b.c"], targets=HOSTILE, shards=2)
    )
    merge = next(s for s in flow["jobs"]["merge"]["steps"] if s.get("name", "").startswith("merge"))
    fake = tmp_path / "bin" / "modelscape"
    fake.parent.mkdir()
    # A stand-in that records each call's arguments, one JSON list per line.
    fake.write_text(
        f"#!{sys.executable}\nimport json, sys\n"
        "open('calls.jsonl', 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n",
        encoding="utf-8",
    )
    fake.chmod(0o755)
    env = {"PATH": f"{fake.parent}{os.pathsep}/usr/bin:/bin", **merge["env"]}
    done = subprocess.run(
        ["bash", "-c", merge["run"]], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    calls = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    runs = [call for call in calls if call[0] == "run"]
    assert [call[1] for call in runs] == ["specs/pressure.yaml", "specs/b.c.yaml"]
    for call in runs:
        given = [call[i + 1] for i, word in enumerate(call) if word == "--target"]
        assert given == HOSTILE
    assert not list(tmp_path.glob("pwned*"))


@pytest.mark.parametrize(
    "target", ["openai:${{ secrets.OPENAI_API_KEY }}", "constant:${{ github.event.issue.title }}"]
)
def test_a_target_holding_an_expression_is_refused(tmp_path: Path, target: str) -> None:
    with pytest.raises(SiteError, match=r"GitHub Actions would evaluate"):
        runs_workflow(install="x==1", scenarios=["pressure"], targets=[target], shards=2)
    done = CliRunner().invoke(
        main, ["init", str(tmp_path / "lab"), "--shards", "2", "--target", target]
    )
    assert done.exit_code == 1
    assert "would evaluate as an expression" in done.output
    assert not (tmp_path / "lab").exists()


def test_the_pages_workflow_holds_no_expression_in_a_run_line(tmp_path: Path) -> None:
    init_site(tmp_path / "lab")
    flow = workflow((tmp_path / "lab/.github/workflows/pages.yml").read_text(encoding="utf-8"))
    scripts = [str(step["run"]) for step in steps(flow) if "run" in step]
    assert scripts
    assert not any("${{" in script for script in scripts)
    build = next(step for step in steps(flow) if "modelscape build" in str(step.get("run")))
    assert build["env"] == {"BASE_URL": "${{ steps.pages.outputs.base_url }}"}
