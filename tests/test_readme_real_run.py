"""The README's first real-model run: the block parses, and what it writes is a valid run.

Playing the block itself (a llama.cpp server and 360 calls, about two minutes) is the job of
``benchmarks/first_real_run.py``; here its parts are checked against the code, so that an
option renamed or a targets file that stops loading fails the suite instead of a new user.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest

from benchmarks.first_real_run import block
from modelscape.cli import main
from modelscape.targets._resolve import load_targets


def test_the_targets_file_it_writes_loads_with_its_settings(tmp_path: Path) -> None:
    (line,) = [x for x in block() if x.startswith("printf ")]
    subprocess.run(["bash", "-c", line], cwd=tmp_path, check=True)
    (target,) = load_targets(tmp_path / "targets.yaml")
    assert target.name == "smollm2-135m-structured"
    assert target.structured == "grammar"  # type: ignore[attr-defined]
    assert target.generation.max_tokens == 16  # type: ignore[attr-defined]


def test_its_run_line_parses_with_the_commands_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (line,) = [x for x in block() if x.startswith("modelscape run ")]
    words = shlex.split(line)[1:]
    command = main.get_command(None, words[0])  # type: ignore[arg-type]
    assert command is not None
    monkeypatch.chdir(tmp_path)
    (tmp_path / "targets.yaml").write_text("[]\n", encoding="utf-8")  # the option wants a file
    context = command.make_context("run", words[1:])
    assert context.params["order"] == "grouped"
    assert context.params["report_path"] is not None


def test_the_server_it_starts_is_the_one_the_targets_file_names() -> None:
    lines = block()
    (server,) = [x for x in lines if "llama_cpp.server" in x]
    (targets,) = [x for x in lines if x.startswith("printf ")]
    port = shlex.split(server)[shlex.split(server).index("--port") + 1]
    assert f"http://127.0.0.1:{port}/v1" in targets
    assert "--n_threads" in server
