"""A site made by ``modelscape init`` installs and builds on a fresh runner, with no release.

The site repository is committed and cloned, as a runner checks it out; a new virtual
environment without system site packages stands for the runner's Python (pip fetches the
third-party dependencies as it would there). Every install and build step of ``pages.yml`` and
``runs.yml`` then runs in the clone with that environment's ``python`` and ``modelscape`` first
on PATH, artifacts passed on as Actions would. So the test fails if the workflows install
anything no index serves, or a wheel that lacks what building a site needs.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from modelscape.cli import main
from modelscape.scaffold import init_site
from modelscape.scaffold.vendored import FOLDER
from tests.scaffold.workflows import expand, play, validate, workflow

pytestmark = pytest.mark.slow

TARGETS = ["echo", 'constant:{"answer": true}']
PAGES = {"steps.pages.outputs.base_url": "https://pages.invalid/lab"}


def _git(*arguments: str, cwd: Path) -> None:
    env = {**os.environ, "HOME": str(cwd)}
    subprocess.run(
        ["git", "-c", "init.defaultBranch=main", *arguments], cwd=cwd, env=env, check=True
    )


def _clone(project: Path, into: Path) -> Path:
    """``project`` committed, pushed to a bare remote and cloned from it, as a runner would."""
    remote = into / "remote.git"
    _git("init", "-q", "--bare", str(remote), cwd=into)
    _git("init", "-q", cwd=project)
    _git("add", ".", cwd=project)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "site", cwd=project)
    _git("push", "-q", str(remote), "HEAD:main", cwd=project)
    _git("clone", "-q", str(remote), "checkout", cwd=into)
    return into / "checkout"


def _entries(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_both_workflows_install_and_build_from_a_fresh_clone(tmp_path: Path) -> None:
    project = tmp_path / "lab"
    arguments = ["init", str(project), "--shards", "1", *(f"--target={t}" for t in TARGETS)]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 0, result.output
    workflows = project / ".github" / "workflows"
    validate(workflows / "pages.yml", workflows / "runs.yml")
    checkout = _clone(project, tmp_path)
    (wheel,) = (checkout / FOLDER).glob("*.whl")  # committed, so the checkout has it

    venv = tmp_path / "runner"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    binaries = venv / "bin"

    pages = workflow((workflows / "pages.yml").read_text(encoding="utf-8"))
    job = tmp_path / "pages-job"
    shutil.copytree(checkout, job)
    for step in pages["jobs"]["build"]["steps"]:
        if "run" in step:
            play(step, job, PAGES, binaries=binaries)
    where = subprocess.run(
        [binaries / "python", "-c", "import modelscape; print(modelscape.__file__)"],
        cwd=job, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert Path(where).resolve().is_relative_to(venv.resolve())  # the wheel, not this tree
    assert (job / "site" / "index.html").is_file()
    assert (job / "site" / "pagefind").is_dir()  # installed with the search extra
    assert "https://pages.invalid/lab/" in (job / "site" / "sitemap.xml").read_text()

    runs = workflow((workflows / "runs.yml").read_text(encoding="utf-8"))
    matrix = runs["jobs"]["shard"]["strategy"]["matrix"]
    stores = tmp_path / "merge" / "stores"
    for number, (scenario, target, shard) in enumerate(
        itertools.product(matrix["scenario"], matrix["target"], matrix["shard"])
    ):
        job = tmp_path / f"shard{number}"
        shutil.copytree(checkout, job)
        values = {
            "matrix.scenario.name": scenario["name"],
            "matrix.scenario.key": scenario["key"],
            "matrix.target.spec": target["spec"],
            "matrix.target.slug": target["slug"],
            "matrix.shard": str(shard),
        }
        for step in runs["jobs"]["shard"]["steps"]:
            if "run" in step:
                play(step, job, values, binaries=binaries)
            elif step["uses"].startswith("actions/upload-artifact@"):
                name = expand(step["with"]["name"], values)
                (stores / name).mkdir(parents=True)
                shutil.copy(job / step["with"]["path"], stores / name / "store.db")
    merge = tmp_path / "merge"
    shutil.copytree(checkout, merge, dirs_exist_ok=True)
    said = {
        step["name"]: play(step, merge, PAGES, binaries=binaries)
        for step in runs["jobs"]["merge"]["steps"]
        if "run" in step
    }
    assert "0 asked, 720 reused, 0 failed" in said["merge, measure and report each scenario"]
    assert (merge / "site" / "index.html").is_file()

    # The installed wheel makes the next site's wheel from its RECORD: the same files.
    again = tmp_path / "again"
    subprocess.run(
        [binaries / "modelscape", "init", str(again)],
        cwd=tmp_path, capture_output=True, text=True, check=True,
    )  # fmt: skip
    (rebuilt,) = (again / FOLDER).glob("*.whl")
    assert rebuilt.name == wheel.name
    original, remade = _entries(wheel), _entries(rebuilt)
    record = next(name for name in original if name.endswith(".dist-info/RECORD"))
    assert set(original[record].decode().splitlines()) == set(
        remade.pop(record).decode().splitlines()
    )
    del original[record]
    assert remade == original

    # An installed file edited since is no release: init refuses to pass it on, naming it.
    (edited,) = venv.glob("lib/python*/site-packages/modelscape/site/search.py")
    edited.write_text(edited.read_text() + "\n# edited\n")
    refused = subprocess.run(
        [binaries / "modelscape", "init", str(tmp_path / "edited")],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert refused.returncode == 1
    assert f"{edited} differs from the file modelscape-map's wheel installed" in refused.stderr
    assert not (tmp_path / "edited").exists()


def test_from_index_writes_no_wheel_and_pins_the_release(tmp_path: Path) -> None:
    written = init_site(tmp_path / "lab", from_index=True, shards=1, targets=["echo"])
    assert not (tmp_path / "lab" / FOLDER).exists()
    assert all(FOLDER not in path.parts for path in written)
    text = (tmp_path / "lab" / ".github/workflows/runs.yml").read_text(encoding="utf-8")
    assert "vendor" not in text
    validate(
        tmp_path / "lab/.github/workflows/pages.yml", tmp_path / "lab/.github/workflows/runs.yml"
    )
