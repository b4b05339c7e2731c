"""The release's archives: built from this tree, they pass twine and scripts/check_wheel.py, and
the check fails, naming the file, on a wheel or sdist with a stray file or a missing bundle.

The sdist and wheel are built once per module with ``python -m build --no-isolation`` (the
wheel from the sdist, as the release workflow does), using the hatchling of the dev extra, so
nothing is fetched. The release workflow itself is checked against GitHub's schema and by
actionlint.
"""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.scaffold.workflows import validate, workflow

REPO = Path(__file__).resolve().parents[2]
CHECK = REPO / "scripts" / "check_wheel.py"
PLOTLY = "modelscape/pages/assets/plotly-cartesian.min.js"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(REPO)],
        capture_output=True, check=True,
    )  # fmt: skip
    return out


def archives(folder: Path) -> tuple[Path, Path]:
    (wheel,) = folder.glob("*.whl")
    (sdist,) = folder.glob("*.tar.gz")
    return wheel, sdist


def check(*arguments: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(CHECK), *map(str, arguments)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip


def rewrite_wheel(wheel: Path, into: Path, change: Callable[[dict[str, bytes]], None]) -> Path:
    with zipfile.ZipFile(wheel) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    change(files)
    target = into / wheel.name
    with zipfile.ZipFile(target, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return target


def rewrite_sdist(sdist: Path, into: Path, extra: str) -> Path:
    target = into / sdist.name
    with tarfile.open(sdist) as source, tarfile.open(target, "w:gz") as copy:
        top = source.getnames()[0].split("/")[0]
        for member in source.getmembers():
            copy.addfile(member, source.extractfile(member) if member.isfile() else None)
        added = tarfile.TarInfo(f"{top}/{extra}")
        added.size = 4
        copy.addfile(added, io.BytesIO(b"data"))
    return target


def test_the_built_archives_pass_twine_and_the_check(dist: Path) -> None:
    wheel, sdist = archives(dist)
    twine = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert twine.returncode == 0, twine.stdout + twine.stderr
    done = check(wheel, sdist)
    assert done.returncode == 0, done.stderr
    assert "nothing stray or missing" in done.stdout


def test_the_sdist_holds_the_changelog_and_no_tests_or_content(dist: Path) -> None:
    _, sdist = archives(dist)
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert "CHANGELOG.md" in names
    assert "themes/default/templates/base.html.j2" in names
    assert not any(name.startswith(("tests/", "content/")) for name in names)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("tests/test_anything.py", "tests are run from a checkout"),
        ("modelscape/__pycache__/cli.cpython-311.pyc", "byte code"),
        ("modelscape/runs/store.db", "SQLite store"),
        (".venv-ci/lib/site.py", "virtual environment"),
        ("build/lib/modelscape/x.py", "local build"),
    ],
)
def test_a_wheel_with_a_stray_file_fails_naming_it(
    dist: Path, tmp_path: Path, name: str, reason: str
) -> None:
    wheel, sdist = archives(dist)
    bad = rewrite_wheel(wheel, tmp_path, lambda files: files.update({name: b"x"}))
    done = check(bad, sdist)
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"{wheel.name}: stray file {name} (")
    assert reason in line


def test_a_wheel_without_the_plotting_bundle_fails_naming_it(dist: Path, tmp_path: Path) -> None:
    wheel, sdist = archives(dist)
    bad = rewrite_wheel(wheel, tmp_path, lambda files: files.pop(PLOTLY))
    done = check(bad, sdist)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [f"{wheel.name}: missing {PLOTLY}"]


def test_a_wheel_without_a_theme_file_of_the_source_fails_naming_it(
    dist: Path, tmp_path: Path
) -> None:
    wheel, sdist = archives(dist)
    lost = "modelscape/_themes/default/static/leaderboard.js"  # not on the fixed list
    bad = rewrite_wheel(wheel, tmp_path, lambda files: files.pop(lost))
    done = check(bad, sdist)
    assert done.stderr.splitlines() == [f"{wheel.name}: missing {lost}"]


def test_an_sdist_with_a_stored_run_fails_naming_it(dist: Path, tmp_path: Path) -> None:
    wheel, sdist = archives(dist)
    bad = rewrite_sdist(sdist, tmp_path, "content/runs/gpt/store.db")
    done = check(wheel, bad)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"{sdist.name}: stray file content/runs/gpt/store.db "
        "(the project's own site content and runs are not the library)"
    ]


def test_a_tag_of_another_version_fails(dist: Path) -> None:
    wheel, sdist = archives(dist)
    done = check(wheel, sdist, "--tag", "v9.9.9")
    assert done.returncode == 1
    assert "is not the tag 'v9.9.9'" in done.stderr
    version = wheel.name.split("-")[1]
    assert check(wheel, sdist, "--tag", f"v{version}").returncode == 0


def test_the_release_workflow_is_valid_and_publishes_tags_by_trusted_publishing() -> None:
    file = REPO / ".github" / "workflows" / "release.yml"
    validate(file)
    flow = workflow(file.read_text(encoding="utf-8"))
    assert flow["on"]["push"]["tags"] == ["v*"]
    publish = flow["jobs"]["publish"]
    assert publish["if"] == "startsWith(github.ref, 'refs/tags/v')"
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    assert publish["steps"][-1]["uses"].startswith("pypa/gh-action-pypi-publish@")
    runs = " ".join(str(step.get("run", "")) for step in flow["jobs"]["build"]["steps"])
    assert "twine check --strict dist/*" in runs
    assert "scripts/check_wheel.py dist/*.whl dist/*.tar.gz" in runs
    assert yaml.safe_load(file.read_text())["permissions"] == {"contents": "read"}


def test_every_workflow_of_this_repository_passes_actionlint() -> None:
    validate(*sorted((REPO / ".github" / "workflows").glob("*.yml")))
