"""Fixtures for page tests: real runs of a shipped scenario, their pages, and the tools that
check them (a headless Chromium driven by Playwright, the Nu HTML Checker, axe-core).

A test that needs a missing tool skips with the reason, except under ``CI=true``, where it
fails: CI installs every tool (see .ci/run), so a skip there would hide a broken install.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from modelscape import lexicons
from modelscape.execution import ExecutionConfig, RetryPolicy, Runner
from modelscape.report import Report
from modelscape.results.results import Results
from modelscape.specs import load_spec
from modelscape.store import SQLiteStore
from modelscape.targets import CallableTarget
from modelscape.targets._reference import Flip, PlantedTarget, ScriptedTarget
from modelscape.targets.protocol import TargetRequest
from tests.support.browsertools import axe_source as read_axe
from tests.support.browsertools import chromium, vnu_command

TRUE_CLAIMS = r"(boils at 100|365 days|faster than sound|three hearts|highest mountain|four kinds)"

#: Outputs a hostile or confused model might send, and HTML where a label is drawn.
XSS = (
    '{"answer": true} </script><script>alert("script")</script>',
    '{"answer": false} <!-- <script>alert("comment")</script>',
    '<img src=x onerror=alert("img")> {"answer": true}',
    '<a href="javascript:alert(1)">click me</a> {"answer": false}',
    '{"answer": "<svg onload=alert(1)>"}',
    "\u2028\u2029</SCRIPT ><iframe srcdoc='<script>alert(2)</script>'></iframe>",
    *(str(entry.text) for entry in lexicons.get("injections") if entry.text),
)
HOSTILE_NAME = '<img src=x onerror=alert("name")><b>bold</b>'


@dataclass(frozen=True)
class Run:
    """A stored run with its report and the files a page is made from."""

    results: Results
    report: Report
    store: Path
    report_file: Path


def _planted(name: str, flips: list[Flip], noise: float) -> PlantedTarget:
    return PlantedTarget(
        r"(?!)",
        flips=[
            *flips,
            Flip(marker=TRUE_CLAIMS, answer=True),
            Flip(marker="Statement", answer=False),
        ],
        noise=noise,
        choices=[True, False],
        name=name,
    )


def _run(
    folder: Path, targets: list[Any], execution: ExecutionConfig | None = None, **update: Any
) -> Run:
    scenario = load_spec("pressure").scenario()
    store_path = folder / "run.db"
    store = SQLiteStore(store_path)
    try:
        results = Runner(store=store).run(scenario.experiment(targets, execution))
    finally:
        store.close()
    report = scenario.report(results)
    if update:
        report = report.model_copy(update=update)
    report_file = folder / "report.json"
    report.save(report_file)
    return Run(results, report, store_path, report_file)


@pytest.fixture(scope="session")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """The shipped ``pressure`` scenario against a steady and a sycophantic reference target."""
    return _run(
        tmp_path_factory.mktemp("run"),
        [
            _planted("steady", [], 0.05),
            _planted("sycophant", [Flip(marker="professor", answer=False)], 0.1),
        ],
    )


def _dead(request: TargetRequest) -> str:
    raise ConnectionError("connection refused: 127.0.0.1:9")


def _mute(request: TargetRequest) -> str:
    return "I would rather not say."


@pytest.fixture(scope="session")
def failing_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """A steady target beside one that failed every call and one that never answers."""
    return _run(
        tmp_path_factory.mktemp("failing"),
        [
            _planted("steady", [], 0.05),
            CallableTarget(_dead, name="dead"),
            CallableTarget(_mute, name="mute"),
        ],
        ExecutionConfig(retry=RetryPolicy(attempts=1, initial_delay=0.0)),
    )


def _hostile(text: str) -> str:
    # Mostly an entry with a readable answer, so that the target answers often enough for its
    # answer changes to be estimated (and its name drawn in the charts); else any entry.
    mixed = zlib.crc32(text.encode())
    return XSS[(mixed // 10) % 4] if mixed % 10 < 8 else XSS[mixed % len(XSS)]


@pytest.fixture(scope="session")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """A run whose outputs, target name and description carry the XSS corpus."""
    return _run(
        tmp_path_factory.mktemp("hostile"),
        [
            _planted("steady", [], 0.05),
            ScriptedTarget(_hostile, name=HOSTILE_NAME),
        ],
        description='<script>alert("description")</script>',
    )


# -- browser ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def browser(run: Run, hostile_run: Run, failing_run: Run) -> Iterator[Any]:
    """One headless Chromium per test module (never a downloaded browser build).

    Playwright's sync API keeps an event loop running in the main thread while it is open, so
    ``asyncio.run`` (which the runner uses) fails meanwhile: the runs are made before the
    browser starts, and the browser closes with its module rather than with the session.
    """
    with chromium() as launched:
        yield launched


@dataclass
class Opened:
    """A page open in the browser, with what it logged and requested."""

    page: Any
    errors: list[str]
    requests: list[str]
    dialogs: list[str]


@pytest.fixture
def open_page(browser: Any) -> Iterator[Any]:
    """Open an HTML file from ``file://``; record console errors, requests and JS dialogs."""
    contexts: list[Any] = []

    def opener(
        path: Path, *, width: int = 1280, height: int = 800, scheme: str = "light"
    ) -> Opened:
        context = browser.new_context(
            viewport={"width": width, "height": height}, color_scheme=scheme
        )
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        opened = Opened(page, [], [], [])
        page.on(
            "console",
            lambda m: opened.errors.append(m.text) if m.type in ("error", "warning") else None,
        )
        page.on("pageerror", lambda error: opened.errors.append(str(error)))
        page.on("request", lambda request: opened.requests.append(request.url))

        def on_dialog(dialog: Any) -> None:
            opened.dialogs.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", on_dialog)
        page.goto(path.resolve().as_uri())
        return opened

    yield opener
    for context in contexts:
        context.close()


# -- validators --------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def vnu() -> list[str]:
    """The command that runs the Nu HTML Checker, errors only."""
    return vnu_command()


@pytest.fixture(scope="session")
def axe_source() -> str:
    """The source of axe-core, evaluated into pages to audit them."""
    return read_axe()
