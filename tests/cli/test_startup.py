"""The command line starts without the heavy libraries: help and the version need none of them.

Each case runs ``python -m modelscape ...`` in a fresh process (a test process has long since
imported numpy) and reads back which modules were loaded by the time the command exited.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

import modelscape
from modelscape.cli import COMMANDS, main

#: What a help text must not cost: each takes from tens of milliseconds to a second to import.
HEAVY = ("jinja2", "markdown_it", "numpy", "plotly", "pydantic", "scipy")

# `python -m modelscape ARGS` as __main__ runs it, then the heavy top-level packages loaded.
_WRAPPER = """
import json, runpy, sys
sys.argv = ["modelscape", *sys.argv[1:]]
code = 0
try:
    runpy.run_module("modelscape", run_name="__main__")
except SystemExit as stop:
    code = stop.code
loaded = sorted({name.split(".")[0] for name in sys.modules} & set(HEAVY))
sys.stdout.flush()
print(json.dumps({"code": code, "loaded": loaded}), file=sys.stderr)
"""


def _run(*arguments: str, status: int = 0) -> tuple[str, list[str]]:
    """The output of ``python -m modelscape ARGUMENTS``, which exits with ``status``, and the
    heavy packages it loaded."""
    # This checkout's modelscape, whatever else is installed.
    root = str(Path(modelscape.__file__).resolve().parents[1])
    paths = [root, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    done = subprocess.run(
        [sys.executable, "-c", f"HEAVY = {HEAVY!r}\n{_WRAPPER}", *arguments],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    *errors, last = done.stderr.strip().splitlines()
    report = json.loads(last)
    assert (report["code"] or 0) == status, done.stderr
    return done.stdout + "".join(f"{line}\n" for line in errors), report["loaded"]


def test_the_help_loads_no_heavy_library_and_lists_every_command() -> None:
    shown, loaded = _run("--help")
    assert loaded == []
    lines = shown.split("Commands:\n", 1)[1].splitlines()
    listed = dict(line.strip().split(maxsplit=1) for line in lines if line.strip())
    assert sorted(listed) == sorted(COMMANDS)
    context = click.Context(main)
    for name, text in listed.items():
        command = main.get_command(context, name)
        assert command is not None
        # Click shortens a long first sentence to fit the line, ending it with "...".
        assert command.get_short_help_str(limit=1000).startswith(text.removesuffix("...")), name


def test_the_version_loads_no_heavy_library() -> None:
    shown, loaded = _run("--version")
    assert loaded == []
    assert shown.strip() == f"modelscape, version {modelscape.__version__}"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_commands_help_loads_no_heavy_library(command: str) -> None:
    shown, loaded = _run(command, "--help")
    assert loaded == []
    assert shown.startswith(f"Usage: modelscape {command} ")


def test_a_run_without_a_target_is_refused_before_the_library_loads(tmp_path: Path) -> None:
    shown, loaded = _run("run", "pressure", "--store", str(tmp_path / "runs.db"), status=2)
    assert "name at least one target" in shown
    assert loaded == []
    assert not (tmp_path / "runs.db").exists()
