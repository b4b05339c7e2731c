"""Pages checked by real tools: the Nu HTML Checker, and axe-core at desktop and phone widths."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from modelscape.pages import ReportPage, ScenarioPage
from modelscape.specs import load_spec
from tests.pages.conftest import Run

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


@pytest.fixture(scope="module")
def pages(
    run: Run, hostile_run: Run, failing_run: Run, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("checked")
    return {
        "failing": ReportPage(failing_run.report, failing_run.results).save(folder / "f.html"),
        "scenario": ScenarioPage(load_spec("fair-lending").scenario()).save(folder / "s.html"),
        "report": ReportPage(run.report, run.results).save(folder / "r.html"),
        "hostile": ReportPage(hostile_run.report, hostile_run.results).save(folder / "h.html"),
        "bare": ReportPage(run.report).save(folder / "b.html"),
    }


def test_nu_html_checker_finds_no_error(vnu: list[str], pages: dict[str, Path]) -> None:
    checked = subprocess.run(
        [*vnu, *map(str, pages.values())], capture_output=True, text=True, timeout=300
    )
    assert checked.returncode == 0, checked.stderr + checked.stdout
    assert checked.stderr.strip() == ""


def _audit(opened: Any, axe_source: str) -> list[str]:
    page = opened.page
    page.evaluate(axe_source)  # evaluated by the driver: the page's policy stays as it is
    found = page.evaluate(
        """async () => {
          const result = await axe.run(document, { resultTypes: ["violations"] });
          return result.violations
            .filter(v => v.impact === "serious" || v.impact === "critical")
            .map(v => v.id + ": " + v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(" | "));
        }"""
    )
    return list(found)


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", ["scenario", "report", "failing"])
def test_axe_finds_no_serious_violation(
    open_page: Any, axe_source: str, pages: dict[str, Path], name: str, size: str, scheme: str
) -> None:
    width, height = SIZES[size]
    opened = open_page(pages[name], width=width, height=height, scheme=scheme)
    if name != "scenario":
        opened.page.wait_for_selector("html[data-charts]", state="attached", timeout=15_000)
    assert _audit(opened, axe_source) == []
    assert opened.errors == []


def test_axe_with_the_outputs_panel_open(
    open_page: Any, axe_source: str, pages: dict[str, Path]
) -> None:
    opened = open_page(pages["report"], width=390, height=844)
    page = opened.page
    # A scorecard number opens the list of outputs (the findings' first number is a step,
    # which opens the side-by-side view instead).
    scorecards = page.locator('section[aria-labelledby="scorecards-heading"]')
    scorecards.locator("button[data-evidence]").first.click()
    page.locator("#outputs-list > li summary").first.click()
    assert _audit(opened, axe_source) == []
