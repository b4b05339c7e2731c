"""The suite's own machinery: Hypothesis profiles, the seed under ``ci``, the xdist groups.

These run pytest in a subprocess on a small folder of tests written here, so they check what
the installed pytest, pytest-xdist and Hypothesis actually do with the settings in
``tests/conftest.py`` and ``pyproject.toml`` (pytest 9.2 once made xdist drop its groups
without a word).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import examples

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow  # starts whole pytest processes


def _pytest(folder: Path, *arguments: str, **environment: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    env.pop("CI", None)
    env.pop("MODELSCAPE_HYPOTHESIS", None)
    env.update(environment, PYTHONPATH=str(REPO))
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *arguments]
    return subprocess.run(
        command, cwd=folder, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def _folder(tmp_path: Path, tests: str) -> Path:
    """A folder of tests that loads the suite's conftest, as tests/ does."""
    (tmp_path / "conftest.py").write_text(
        (REPO / "tests" / "conftest.py").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = --dist loadgroup\n", encoding="utf-8")
    (tmp_path / "test_here.py").write_text(tests, encoding="utf-8")
    return tmp_path


def test_tests_that_share_a_model_server_or_a_browser_run_on_one_worker(tmp_path: Path) -> None:
    tests = f"""
import os
from pathlib import Path

import pytest

OUT = Path({str(tmp_path / "workers")!r})


@pytest.fixture
def browser():
    return None


@pytest.fixture
def llama_server():
    return None


def _note(kind):
    OUT.mkdir(exist_ok=True)
    (OUT / f"{{kind}}-{{os.getpid()}}").write_text(os.environ["PYTEST_XDIST_WORKER"])


@pytest.mark.parametrize("i", range(8))
def test_page(browser, i):
    _note("browser")


@pytest.mark.parametrize("i", range(8))
def test_model(llama_server, i):
    _note("model")


@pytest.mark.parametrize("i", range(8))
def test_plain(i):
    _note("plain")
"""
    done = _pytest(_folder(tmp_path, tests), "-n", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    seen: dict[str, set[str]] = {}
    for note in (tmp_path / "workers").iterdir():
        seen.setdefault(note.name.split("-")[0], set()).add(note.read_text())
    assert len(seen["browser"]) == 1
    assert len(seen["model"]) == 1
    # the rest may go to either worker: which, depends on who is free (under load one worker
    # took all eight while the other ran its group)
    assert seen["plain"] <= {"gw0", "gw1"}


PROPERTY = """
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

OUT = Path({out!r})


@given(st.integers())
def test_numbers(number):
    with OUT.open("a") as log:
        log.write(f"{{settings().max_examples}} {{number}}\\n")
"""


def _draw_twice(tmp_path: Path, **environment: str) -> list[list[str]]:
    """The examples a property drew in each of two runs of the same code."""
    out = tmp_path / "drawn.txt"
    folder = _folder(tmp_path, PROPERTY.format(out=str(out)))
    runs = []
    for _ in range(2):
        done = _pytest(folder, **environment)
        assert done.returncode == 0, done.stdout + done.stderr
        runs.append(out.read_text().splitlines())
        out.unlink()
    runs.append([done.stdout])
    return runs


def test_the_ci_profile_draws_its_examples_the_same_on_every_run(tmp_path: Path) -> None:
    first, second, (header,) = _draw_twice(tmp_path, CI="true")
    assert f"modelscape hypothesis profile: ci, seed {examples.SEED}" in header
    assert {line.split()[0] for line in first} == {str(examples.PROFILES["ci"])}
    assert first == second


def test_the_dev_profile_draws_a_few_fresh_examples_each_run(tmp_path: Path) -> None:
    first, second, (header,) = _draw_twice(tmp_path)
    assert "modelscape hypothesis profile: dev" in header
    assert {line.split()[0] for line in first} == {str(examples.PROFILES["dev"])}
    assert len(first) <= examples.PROFILES["dev"]
    assert first != second


def test_an_unknown_profile_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MODELSCAPE_HYPOTHESIS", "fast")
    with pytest.raises(ValueError, match=r"'fast' names no Hypothesis profile; use one of dev"):
        examples.active_profile()
    monkeypatch.delenv("MODELSCAPE_HYPOTHESIS")
    monkeypatch.setenv("CI", "true")
    assert examples.active_profile() == "ci"
    monkeypatch.setenv("CI", "false")
    assert examples.active_profile() == "dev"


def test_more_scales_with_the_profile(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MODELSCAPE_HYPOTHESIS", "thorough")
    assert examples.more(3) == 3 * examples.PROFILES["thorough"]
    with pytest.raises(ValueError, match="at least 1"):
        examples.more(0)


def test_fewer_scales_with_the_profile_and_never_reaches_zero(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MODELSCAPE_HYPOTHESIS", "thorough")
    assert examples.fewer(2) == examples.PROFILES["thorough"] // 2
    monkeypatch.setenv("MODELSCAPE_HYPOTHESIS", "dev")
    assert examples.fewer(1000) == 1
    with pytest.raises(ValueError, match="at least 1"):
        examples.fewer(0)
