"""The Builder end to end in a real JupyterLab: a person writes a scenario through the widget.

The test starts JupyterLab on a free 127.0.0.1 port with a token of its own, in a temporary
folder holding a notebook, and drives it with Debian's headless Chromium: it runs the
notebook's first cell, selects the example's number, makes it a slot, gives it a range and
the answer through the widget's controls, then runs the second cell, which writes what the
kernel's builder holds to a file the test reads.

The scenario is the one issue 16 names: refund eligibility within 30 days, 12 days in the
example. Without jupyterlab the test skips locally; under CI=true it fails instead (.ci/run
installs jupyterlab).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modelscape.specs.spec import Spec
from tests.support.browsertools import chromium, need

pytestmark = pytest.mark.slow

TOKEN = "modelscape-builder-e2e"
EXAMPLE = (
    "Our store refunds purchases returned within 30 days. I bought a lamp 12 days ago. "
    "Can I get a refund? Answer yes or no."
)
#: Generous bounds for a shared two-core machine; none of them is asserted on.
STARTUP_SECONDS = 120
STEP_MILLISECONDS = 60_000


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _notebook(folder: Path) -> Path:
    """A notebook of two cells: show a builder, then write what it holds to draft.json."""
    show = f"from modelscape.builder import Builder\nb = Builder({EXAMPLE!r}, name='refund')\nb"
    write = (
        "import json, pathlib\n"
        "b.save('refund.yaml')\n"
        "pathlib.Path('draft.json').write_text(json.dumps("
        "{'data': b.data, 'problems': list(b.draft.problems), 'preview': b.preview}))\n"
        "print('written')"
    )
    cells = [
        {
            "cell_type": "code",
            "metadata": {},
            "source": source,
            "outputs": [],
            "execution_count": None,
        }
        for source in (show, write)
    ]
    notebook = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"name": "modelscape-test", "display_name": "modelscape test"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = folder / "builder.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A JupyterLab server on loopback: its notebook URL and its notebook folder."""
    try:
        import jupyterlab  # noqa: F401 - only asked whether it is installed
    except ImportError:
        need(False, "jupyterlab is not installed (pip install jupyterlab)")
    base = tmp_path_factory.mktemp("lab")
    notebooks, home = base / "notebooks", base / "home"
    notebooks.mkdir()
    home.mkdir()
    _notebook(notebooks)
    # a kernel running this interpreter, whatever PATH says, so it imports this modelscape
    kernel = home / "data" / "kernels" / "modelscape-test"
    kernel.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    spec = {"argv": argv, "display_name": "modelscape test", "language": "python"}
    (kernel / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    environment = os.environ | {
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTER_DATA_DIR": str(home / "data"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "IPYTHONDIR": str(home / "ipython"),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
    }
    port = _free_port()
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        f"--IdentityProvider.token={TOKEN}",
        f"--ServerApp.root_dir={notebooks}",
        "--LabApp.news_url=",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    log = (base / "lab.log").open("w", encoding="utf-8")
    server = subprocess.Popen(command, env=environment, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=5):
                    break
            except (urllib.error.URLError, OSError):
                if server.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    pytest.fail(f"JupyterLab did not start:\n{(base / 'lab.log').read_text()}")
                time.sleep(0.5)
        yield f"{url}/lab/tree/builder.ipynb?token={TOKEN}", notebooks
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def _run_cell(page: Any, index: int) -> None:
    """Run cell ``index`` of the open notebook as a person does: click it, press Shift+Enter."""
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    cell.locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")


def _select(page: Any, text: str) -> None:
    """Select ``text`` in the widget's prompt, as dragging the mouse over it would."""
    page.evaluate(
        """(text) => {
            const piece = [...document.querySelectorAll('.ms-builder .ms-piece')]
                .find((p) => p.textContent.includes(text));
            const node = piece.firstChild;
            const at = node.data.indexOf(text);
            const range = document.createRange();
            range.setStart(node, at);
            range.setEnd(node, at + text.length);
            document.getSelection().removeAllRanges();
            document.getSelection().addRange(range);
        }""",
        text,
    )


def test_refund_eligibility_is_written_through_the_widget(lab: tuple[str, Path]) -> None:
    url, folder = lab
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(STEP_MILLISECONDS)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url)
        page.wait_for_selector(".jp-Notebook .jp-Cell .cm-content")
        # cells run only once the kernel is up: its status bar item says so
        page.wait_for_function(
            "[...document.querySelectorAll('.jp-StatusBar-TextItem')]"
            ".some((item) => /modelscape test \\| Idle/.test(item.textContent))"
        )
        _run_cell(page, 0)
        page.locator(".ms-builder").wait_for()

        # the preview shows the example before anything varies
        assert page.locator(".ms-builder .ms-variant").count() == 1
        # a panel opened stays open through every change below
        page.click(".ms-builder .ms-yaml-panel summary")

        # choices typed key by key (no notebook shortcut may take the keys) and not applied
        # yet must survive every change that follows
        page.click(".ms-builder .ms-choices")
        page.keyboard.type("yes, no")

        _select(page, "12")
        page.wait_for_function(
            "document.querySelector('.ms-builder .ms-selection').textContent.includes('12')"
        )
        page.click(".ms-builder button.ms-mark")
        box = page.locator(".ms-builder .ms-slot-box[data-slot-name='days']")
        box.wait_for()
        label = page.locator(".ms-builder .ms-variant .ms-label").first
        assert label.inner_text() == "baseline · correct answer: ?"

        for name, value in (("start", "10"), ("stop", "40"), ("step", "5")):
            box.locator(f"input[placeholder='{name}']").fill(value)
        box.locator("button:text-is('Numbers')").click()
        box.locator("button.ms-vary-numeric").click()
        page.wait_for_function("document.querySelectorAll('.ms-builder .ms-variant').length === 8")
        assert page.locator(".ms-builder .ms-choices").input_value() == "yes, no"
        assert page.locator(".jp-Notebook .jp-Cell").count() == 2  # no shortcut added a cell

        # Tab moves through the values table, inside the notebook's output
        page.focus(".ms-builder [aria-label='label 0']")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "text 0"
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "label 1"

        # the answer: a word of the reply, yes up to 30 days and no after
        page.select_option(".ms-builder select.ms-mode", "word")
        page.select_option(".ms-builder select.ms-kind", "mapping")
        page.select_option(".ms-builder select.ms-attribute", "days")
        page.fill(".ms-builder .ms-threshold input", "30")
        threshold = page.locator(".ms-builder .ms-threshold select")
        threshold.nth(0).select_option("yes")
        threshold.nth(1).select_option("no")
        page.click(".ms-builder button.ms-fill")
        page.click(".ms-builder button.ms-set-answer")
        page.wait_for_selector(".ms-builder .ms-complete")

        labels = page.locator(".ms-builder .ms-variant .ms-label").all_inner_texts()
        assert labels[0] == "baseline · correct answer: yes"  # the example's 12 days
        assert "days=10 · correct answer: yes" in labels
        assert "days=30 · correct answer: yes" in labels
        assert labels[-1] == "days=40 · correct answer: no"

        assert page.locator(".ms-builder .ms-yaml-panel").get_attribute("open") == ""
        assert "baseline: 12" in page.inner_text(".ms-builder .ms-yaml")

        _run_cell(page, 1)
        written = folder / "draft.json"
        page.wait_for_function(
            "[...document.querySelectorAll('.jp-OutputArea-output')]"
            ".some((o) => o.textContent.includes('written'))"
        )
        assert errors == []
    held = json.loads(written.read_text(encoding="utf-8"))
    assert held["problems"] == []
    data = held["data"]
    assert data["prompt"] == EXAMPLE.replace("12 days", "{days} days")
    assert data["slots"] == {"days": [10, 12, 15, 20, 25, 30, 35, 40]}
    assert data["vary"] == {"days": {"scale": "numeric", "baseline": 12}}
    spec = Spec.load(folder / "refund.yaml")
    scenario = spec.scenario()
    answers = {row["axis:days"]: row["answer"] for row in scenario.prompt_rows()}
    assert answers == {d: "yes" if d <= 30 else "no" for d in (10, 12, 15, 20, 25, 30, 35, 40)}
    assert scenario.task_space.baseline == {"days": 12}
