"""The sharded runs workflow that ``modelscape init --shards`` writes: valid, and it works.

The workflow is checked against GitHub's workflow schema (as vendored by check-jsonschema),
then played locally: every job of its matrix runs its commands in a copy of the project, each
store is passed on as the artifact would be, and the last job's commands merge, report, commit
to a local remote and build the site.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from modelscape.cli import main
from modelscape.scaffold import init_site
from modelscape.scaffold.runs_workflow import runs_workflow
from modelscape.site import SiteError
from tests.scaffold.workflows import actionlint, expand, play, schema, workflow

TARGETS = ["echo", 'constant:{"answer": true}']


@pytest.mark.parametrize("shards", [1, 4])
def test_the_workflow_is_valid_for_github(shards: int) -> None:
    text = runs_workflow(
        install="x==1", scenarios=["pressure", "a.b_c-d"], targets=TARGETS, shards=shards
    )
    jsonschema.validate(workflow(text), schema())


@pytest.mark.parametrize("install", ["./vendor/modelscape_map-1-py3-none-any.whl", "x==1"])
def test_actionlint_finds_nothing_to_fix(install: str, tmp_path: Path) -> None:
    text = runs_workflow(
        install=install, scenarios=["pressure"], targets=[*TARGETS, "openai:gpt-4o"], shards=3
    )
    file = tmp_path / ".github" / "workflows" / "runs.yml"
    file.parent.mkdir(parents=True)
    file.write_text(text, encoding="utf-8")
    actionlint(file)


def test_each_job_installs_the_extras_its_targets_need() -> None:
    flow = workflow(
        runs_workflow(
            install="./vendor/m.whl", scenarios=["p"], targets=["echo", "openai:x"], shards=1
        )
    )
    shard = next(s for s in flow["jobs"]["shard"]["steps"] if s.get("name") == "install")
    merge = next(s for s in flow["jobs"]["merge"]["steps"] if s.get("name") == "install")
    assert shard["run"] == "python -m pip install './vendor/m.whl[providers]'"
    assert merge["run"] == "python -m pip install './vendor/m.whl[providers,search]'"


def test_hostile_targets_never_reach_a_shell_line() -> None:
    hostile = ['constant:"; rm -rf / #', "constant:$(touch pwned)", "constant:`id` $x"]
    text = runs_workflow(install="x==1", scenarios=["pressure"], targets=hostile, shards=2)
    loaded = workflow(text)
    jsonschema.validate(loaded, schema())
    specs = [t["spec"] for t in loaded["jobs"]["shard"]["strategy"]["matrix"]["target"]]
    assert specs == hostile  # read back exactly, as data
    shard_run = loaded["jobs"]["shard"]["steps"][3]["run"]
    assert "$TARGET" in shard_run
    assert "rm -rf" not in shard_run
    merge = loaded["jobs"]["merge"]["steps"][4]
    assert "touch pwned" not in merge["run"]  # the targets are in its env, as data
    assert merge["env"]["TARGETS"].split("\n") == hostile


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"scenarios": [], "targets": ["echo"], "shards": 2}, "at least one scenario"),
        ({"scenarios": ["p"], "targets": [], "shards": 2}, "at least one target"),
        ({"scenarios": ["a b"], "targets": ["echo"], "shards": 2}, "letters, digits"),
        ({"scenarios": ["p"], "targets": ["echo", "echo"], "shards": 2}, "named twice"),
        ({"scenarios": ["p"], "targets": ["a\nb"], "shards": 2}, "one line"),
        ({"scenarios": ["p"], "targets": ["echo"], "shards": 300}, "at most 256"),
    ],
)
def test_bad_arguments_are_named(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(SiteError, match=message):
        runs_workflow(install="x==1", **arguments)


def test_init_writes_it_only_when_asked(tmp_path: Path) -> None:
    init_site(tmp_path / "plain")
    assert not (tmp_path / "plain/.github/workflows/runs.yml").exists()
    result = CliRunner().invoke(main, ["init", str(tmp_path / "x"), "--shards", "2"])
    assert result.exit_code == 2
    assert "--target" in result.output
    assert not (tmp_path / "x").exists()


@pytest.mark.slow
def test_its_commands_run_in_sequence_and_publish_the_merged_runs(tmp_path: Path) -> None:
    project = tmp_path / "lab"
    arguments = ["init", str(project), "--shards", "2", *(f"--target={t}" for t in TARGETS)]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 0, result.output
    flow = workflow((project / ".github/workflows/runs.yml").read_text())
    jsonschema.validate(flow, schema())
    remote = tmp_path / "remote.git"
    git = ["git", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", "--bare", str(remote)], check=True)
    for command in (
        [*git, "init", "-q"],
        ["git", "add", "."],
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "site"],
        ["git", "remote", "add", "origin", str(remote)],
        ["git", "push", "-q", "origin", "HEAD:main"],
        ["git", "branch", "-q", "--set-upstream-to=origin/main"],
    ):
        subprocess.run(command, cwd=project, check=True, env={**os.environ, "HOME": str(tmp_path)})
    matrix = flow["jobs"]["shard"]["strategy"]["matrix"]
    stores = tmp_path / "merge" / "stores"
    jobs = list(itertools.product(matrix["scenario"], matrix["target"], matrix["shard"]))
    assert len(jobs) == 1 * 2 * 2
    for number, (scenario, target, shard) in enumerate(jobs):
        job = tmp_path / f"job{number}"
        shutil.copytree(project, job)
        values = {
            "matrix.scenario.name": scenario["name"],
            "matrix.scenario.key": scenario["key"],
            "matrix.target.spec": target["spec"],
            "matrix.target.slug": target["slug"],
            "matrix.shard": str(shard),
        }
        for step in flow["jobs"]["shard"]["steps"]:
            if "run" in step and step.get("name") != "install":
                play(step, job, values)
            elif step.get("uses", "").startswith("actions/upload-artifact"):
                name = expand(step["with"]["name"], values)
                (stores / name).mkdir(parents=True)
                shutil.copy(job / step["with"]["path"], stores / name / "store.db")
    merge = tmp_path / "merge"
    shutil.copytree(project, merge, dirs_exist_ok=True)  # the checkout, beside the download
    said = {}
    for step in flow["jobs"]["merge"]["steps"]:
        if "run" in step and step.get("name") != "install":
            values = {"steps.pages.outputs.base_url": "https://pages.invalid/lab"}
            said[step["name"]] = play(step, merge, values)
    assert "0 asked, 720 reused, 0 failed" in said["merge, measure and report each scenario"]
    report = json.loads((merge / "runs/pressure/report.json").read_text())
    assert [t["name"] for t in report["provenance"]["targets"]] == ["echo", "constant"]
    assert (merge / "site/index.html").is_file()
    pushed = subprocess.run(
        ["git", "--git-dir", str(remote), "show", "--stat", "main"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "runs/pressure/store.db" in pushed
    assert "runs/pressure/report.json" in pushed
