"""Surfaces on report pages: a grid run's heatmaps, their tables, and cells that open outputs."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modelscape.analysis.surface import grid_pairs
from modelscape.pages import ReportPage
from modelscape.report.report import Report
from modelscape.results.results import Results, run_of
from modelscape.store import SQLiteStore
from tests.pages.parsing import parse
from tests.support.browsertools import chromium
from tests.support.runs import copy_run


@pytest.fixture(scope="module")
def evidence_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A copy of a run of the evidence grid (reading the made one would leave journal files
    beside it, and it is shared by every test)."""
    folder = copy_run("evidence-fixture", tmp_path_factory.mktemp("evidence"))
    return folder / "store.db", folder / "report.json"


@pytest.fixture(scope="module")
def page_file(evidence_run: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    store, report = evidence_run
    path = tmp_path_factory.mktemp("page") / "report.html"
    ReportPage(report, store).save(path)
    return path


def test_a_grid_run_shows_every_surface_with_its_table(
    evidence_run: tuple[Path, Path], page_file: Path
) -> None:
    store, report_file = evidence_run
    page = ReportPage(report_file, store)
    context = page.context()
    report = Report.load(report_file)
    surfaces = context["surfaces"]
    # oracle, first-told, random: accuracy and change each, and oracle minus each other one
    assert len(surfaces) == 3 * 2 + 2
    assert [s["title"] for s in surfaces[:2]] == [
        "accuracy of oracle",
        "change of oracle's answers from the baseline (answer change)",
    ]
    assert surfaces[-1]["title"] == "accuracy of oracle minus random"
    opened = SQLiteStore(store)
    try:
        results = Results.load(opened, report.experiment)
    finally:
        opened.close()
    expected = results.surface("leading", "rival", target="first-told", inference=report.inference)
    shown = surfaces[2]
    assert shown["columns"] == ["1", "3", "5", "7"]
    assert [r["value"] for r in shown["rows"]] == ["2", "4", "6"]
    for row, values in zip(shown["rows"], expected.rows(), strict=True):
        assert [c.text.split(" ")[0] for c in row["cells"]] == [f"{v:.2f}" for v in values]
    figure = next(f["figure"] for f in context["figures"] if f["id"] == shown["id"])
    assert figure["data"][0]["type"] == "heatmap"
    assert figure["data"][0]["z"] == expected.rows()
    text = page_file.read_text(encoding="utf-8")
    assert 'id="surfaces-heading"' in text
    visible = " ".join(parse(text).visible)
    assert "accuracy of oracle minus first-told" in visible


def test_a_sweep_run_has_no_surface(run: Any) -> None:
    assert grid_pairs(run_of(run.results)) == []
    assert ReportPage(run.report, run.store).context()["surfaces"] == []


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


def test_a_heatmap_cell_opens_its_outputs(browser: Any, page_file: Path) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(page_file.as_uri())
        page.wait_for_selector("html[data-charts]", state="attached", timeout=15_000)
        chart = page.locator("#surface-1")
        chart.scroll_into_view_if_needed()
        page.wait_for_selector("#surface-1 .hm", state="attached")
        box = page.locator("#surface-1 .nsewdrag").first.bounding_box()
        # the top-left cell: leading 1, rival 2 (rows run down the axis values in order)
        page.mouse.click(box["x"] + box["width"] / 8, box["y"] + box["height"] / 6)
        page.wait_for_selector("dialog[open]")
        title = page.text_content("#outputs-title")
        assert title == "accuracy of oracle at leading = 1, rival = 2"
        assert page.locator("#outputs-list li").count() > 0
        assert errors == []
    finally:
        context.close()


def test_the_page_stays_valid_html(vnu: list[str], page_file: Path) -> None:
    checked = subprocess.run([*vnu, str(page_file)], capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stderr + checked.stdout
