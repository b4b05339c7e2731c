"""``modelscape init``: a site project that builds in strict mode and deploys to Pages."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from modelscape._version import __version__
from modelscape.cli import main
from modelscape.scaffold import init_site
from modelscape.scaffold.project import pages_workflow
from modelscape.site import SiteError, build_site
from tests.site.sitetools import REPO


def test_init_scaffolds_a_project_that_builds_strictly(tmp_path: Path) -> None:
    project = tmp_path / "lab"
    result = CliRunner().invoke(main, ["init", str(project), "--title", "Lab models"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == f"next: modelscape build {project} -o site"
    for name in ("site.yaml", "pages/about.md", "specs/pressure.yaml", "runs/README.md"):
        assert (project / name).is_file(), name
    built = build_site(project, project / "site", strict=True)
    assert built.warnings == []
    index = (project / "site" / "index.html").read_text(encoding="utf-8")
    assert "<title>Lab models</title>" in index
    assert (project / "site" / "scenarios" / "pressure.html").is_file()


def test_the_workflow_builds_strictly_and_deploys_to_pages(tmp_path: Path) -> None:
    init_site(tmp_path / "lab")
    workflow = yaml.safe_load((tmp_path / "lab" / ".github/workflows/pages.yml").read_text())
    steps = [s.get("uses", "") for job in workflow["jobs"].values() for s in job["steps"]]
    for action in ("configure-pages", "upload-pages-artifact", "deploy-pages"):
        assert any(f"actions/{action}@" in step for step in steps), action
    commands = " ".join(str(s.get("run", "")) for s in workflow["jobs"]["build"]["steps"])
    assert "modelscape build . -o site --strict" in commands
    assert workflow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}


def test_this_repository_publishes_its_content_the_same_way() -> None:
    committed = (REPO / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8")
    assert committed == pages_workflow(install=".", content="content")
    assert "modelscape build content -o site --strict" in committed


def test_the_workflows_install_the_wheel_init_puts_in_vendor(tmp_path: Path) -> None:
    project = tmp_path / "lab"
    written = init_site(project)
    (wheel,) = (project / "vendor").glob("*.whl")
    assert wheel in written
    assert wheel.name == f"modelscape_map-{__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(f"modelscape_map-{__version__}.dist-info/METADATA").decode()
    assert f"Version: {__version__}" in metadata.splitlines()
    assert "modelscape/pages/assets/plotly-cartesian.min.js" in names
    workflow = yaml.safe_load((project / ".github/workflows/pages.yml").read_text())
    installs = [s["run"] for s in workflow["jobs"]["build"]["steps"] if "pip" in s.get("run", "")]
    assert installs == [f"python -m pip install './vendor/{wheel.name}[search]'"]
    readme = (project / "README.md").read_text(encoding="utf-8")
    assert f"`vendor/{wheel.name}`" in readme
    assert "modelscape init --from-index" in readme  # the way to a published release


def test_from_index_is_an_option_of_the_command(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["init", str(tmp_path / "lab"), "--from-index"])
    assert result.exit_code == 0, result.output
    assert "vendor" not in result.output
    readme = (tmp_path / "lab" / "README.md").read_text(encoding="utf-8")
    assert f"`modelscape-map=={__version__}` from the package index" in readme


def test_a_refused_init_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(SiteError, match="expression"):
        init_site(tmp_path / "lab", shards=1, targets=["openai:${{ secrets.KEY }}"])
    assert not (tmp_path / "lab").exists()


def test_init_refuses_a_folder_with_files(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(SiteError, match="is not empty"):
        init_site(tmp_path)
