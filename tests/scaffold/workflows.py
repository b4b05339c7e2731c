"""GitHub Actions workflows, read, validated and played locally by the site and release tests.

A workflow is checked twice: against GitHub's workflow schema (as check-jsonschema vendors it)
and by actionlint, which also knows each action's inputs and runtime. A step is played by
giving its ``run:`` script to bash with its ``env:``, after ``${{ }}`` is expanded from the
values the test gives, as Actions would (secrets are empty).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import yaml

__all__ = ["actionlint", "expand", "play", "schema", "validate", "workflow"]


def schema() -> dict[str, Any]:
    """GitHub's workflow schema, as check-jsonschema vendors it (``vendor.github-workflows``)."""
    vendor = resources.files("check_jsonschema.builtin_schemas.vendor")
    loaded: dict[str, Any] = json.loads(vendor.joinpath("github-workflows.json").read_text())
    return loaded


def workflow(text: str) -> dict[str, Any]:
    """A workflow's YAML as GitHub reads it."""
    # YAML 1.1 reads the key "on" as True; GitHub reads it as "on".
    loaded: dict[Any, Any] = yaml.safe_load(text)
    return {("on" if k is True else k): v for k, v in loaded.items()}


def actionlint(*files: Path) -> None:
    """Fail with actionlint's findings on ``files`` (each a workflow in .github/workflows)."""
    found = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which(
        "actionlint"
    )
    assert found is not None, "actionlint is not installed (the dev extra has it)"
    done = subprocess.run(
        [found, "-no-color", *map(str, files)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def validate(*files: Path) -> None:
    """Check each workflow file against GitHub's schema and with actionlint."""
    for file in files:
        jsonschema.validate(workflow(file.read_text(encoding="utf-8")), schema())
    actionlint(*files)


def expand(text: str, values: dict[str, str]) -> str:
    """``${{ expression }}`` replaced as Actions would, from ``values`` (secrets are empty)."""

    def one(match: re.Match[str]) -> str:
        expression = match[1].strip()
        return "" if expression.startswith("secrets.") else values[expression]

    return re.sub(r"\$\{\{(.*?)\}\}", one, text)


def play(
    step: dict[str, Any],
    folder: Path,
    values: dict[str, str],
    *,
    binaries: Path | None = None,
) -> str:
    """Run one step's script in ``folder`` and return what it printed; fail if it fails.

    ``binaries`` is the folder whose ``python`` (and the commands pip installs) the step finds
    first on PATH, as setup-python makes it on a runner: the test's own by default.
    """
    first = binaries or Path(sys.executable).parent
    env = {
        "PATH": f"{first}{os.pathsep}/usr/bin:/bin",
        "HOME": str(folder),
        "GITHUB_SHA": "0" * 40,
        # pip as configured here (its index settings and its cache, not the step's empty HOME)
        **{k: v for k, v in os.environ.items() if k.startswith("PIP_")},
        "PIP_CACHE_DIR": os.environ.get("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip")),
        **{k: expand(str(v), values) for k, v in step.get("env", {}).items()},
    }
    done = subprocess.run(
        ["bash", "-c", expand(step["run"], values)],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"{step.get('name')}: {done.stdout}\n{done.stderr}"
    return done.stdout
