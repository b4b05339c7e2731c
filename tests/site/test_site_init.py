"""``modelscape init``: a site project that builds in strict mode and deploys to Pages."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from modelscape.cli import main
from modelscape.site import SiteError, build_site, init_site
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
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "pages.yml").read_text())
    commands = " ".join(str(s.get("run", "")) for s in workflow["jobs"]["build"]["steps"])
    assert "modelscape build content -o site --strict" in commands


def test_init_refuses_a_folder_with_files(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(SiteError, match="is not empty"):
        init_site(tmp_path)
