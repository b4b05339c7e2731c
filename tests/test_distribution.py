"""The distribution's name: every install line names ``modelscape-map``, never ``modelscape``.

Another project owns ``modelscape`` on the package index, so a line that installs
``modelscape`` (bare, pinned, or with an extra) installs that project, whose command cannot build
a site. These tests read the repository's own files, the workflow ``modelscape init`` writes
and the extras the target kinds name.
"""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml

from modelscape._version import DISTRIBUTION, __version__, requirement
from modelscape.scaffold import init_site
from modelscape.site.search import REQUIREMENT
from modelscape.targets.registry import find_provider, provider_kinds

REPO = Path(__file__).resolve().parents[1]

# ``modelscape`` as a pip requirement: not followed by a letter, digit, hyphen or underscore
# (``modelscape-map`` is ours) and preceded by an installer's words or a quote.
_WRONG = re.compile(
    r"""(?:pip\s+install|uv\s+add|uv\s+pip\s+install|pip\s+download)\s+(?:-\S+\s+)*['"]?"""
    r"""modelscape(?![\w-])"""
    r"""|['"]modelscape\[|(?<![\w./-])modelscape\[\w+\]"""
)


def _tracked() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode()
    return [REPO / name for name in listed.split("\0") if name]


def test_the_distribution_is_not_named_modelscape() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == DISTRIBUTION == "modelscape-map"
    assert project["scripts"]["modelscape"] == "modelscape.cli:main"
    assert requirement("bedrock") == "modelscape-map[bedrock]"


@pytest.mark.parametrize(
    "line",
    [
        "pip install modelscape",
        "pip install 'modelscape[providers]'",
        'uv add "modelscape[pandas]"',
        "python -m pip install modelscape==0.1.0",
        "pip install -U modelscape",
        "    extra='modelscape[llama]'",
    ],
)
def test_the_check_sees_a_wrong_install_line(line: str) -> None:
    assert _WRONG.search(line)


@pytest.mark.parametrize(
    "line",
    [
        "pip install modelscape-map",
        "pip install 'modelscape-map[providers]'",
        "pip install .",
        "python -m modelscape build",
        "import modelscape",
    ],
)
def test_the_check_passes_a_right_line(line: str) -> None:
    assert not _WRONG.search(line)


def test_no_file_of_the_repository_installs_the_other_project() -> None:
    wrong = []
    for path in _tracked():
        if path.resolve() == Path(__file__).resolve() or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # a store or an image
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if _WRONG.search(line):
                wrong.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert wrong == []


def test_the_quickstart_installs_from_the_checkout() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- quickstart -->", 1)[1].split("<!-- /quickstart -->", 1)[0]
    commands = [line for line in block.splitlines() if line.startswith("pip install")]
    assert commands
    assert all(re.match(r"pip install '?\.(\[\w+\])?'? ", line) for line in commands)
    assert "pip install modelscape-map" in readme  # how to install once published


def test_a_new_site_installs_this_release_by_its_own_name(tmp_path: Path) -> None:
    init_site(tmp_path / "lab", from_index=True)
    workflow = yaml.safe_load((tmp_path / "lab/.github/workflows/pages.yml").read_text())
    installs = [
        step["run"]
        for step in workflow["jobs"]["build"]["steps"]
        if "pip install" in str(step.get("run", ""))
    ]
    # with Pagefind (the search extra), so the published site has its search index
    assert installs == [f"python -m pip install 'modelscape-map[search]=={__version__}'"]
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert extras["search"] == [REQUIREMENT]


def test_every_kind_names_its_extra_by_the_distribution() -> None:
    for kind in provider_kinds():
        provider = find_provider(kind)
        assert provider is not None
        if provider.extra is not None:
            assert provider.extra.startswith(f"{DISTRIBUTION}["), kind
