"""In a real browser, a number in the findings opens the outputs dialog with its outputs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from modelscape.pages import ReportPage
from modelscape.report.findings import findings
from tests.pages.conftest import Run

LOCAL = ("file:", "data:", "blob:")


@pytest.fixture(scope="module")
def report_file(run: Run, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ReportPage(run.report, run.results).save(tmp_path_factory.mktemp("f") / "r.html")


def _listed(page: Any) -> list[str]:
    """The observation ids the open dialog lists, after showing all of them."""
    more = page.locator("dialog[open] .dialog-body > button")
    while more.count():
        more.click()
    ids = page.eval_on_selector_all(
        "#outputs-list > li", "items => items.map(item => item.dataset.observation)"
    )
    return list(ids)


def test_clicking_a_findings_number_opens_its_outputs(
    open_page: Any, report_file: Path, run: Run
) -> None:
    opened = open_page(report_file)
    page = opened.page
    numbers = [n for f in findings(run.report) for n in f.numbers]
    buttons = page.locator("#findings button.num")
    assert buttons.count() == len(numbers)
    # The first (a candidate boundary's excess) and the last (the power statement's figure).
    for position in (0, len(numbers) - 1):
        buttons.nth(position).click()
        page.wait_for_selector("dialog[open]")
        listed = _listed(page)
        wanted = run.results.trace(numbers[position].measurement_ids).observations
        assert listed
        assert sorted(listed) == sorted(o.id for o in wanted)
        page.click("#outputs-close")
    # In the page as drawn, the findings come before the first table.
    assert page.evaluate(
        """() => {
          const findings = document.getElementById("findings");
          const table = document.querySelector("table");
          return Boolean(findings.compareDocumentPosition(table)
            & Node.DOCUMENT_POSITION_FOLLOWING);
        }"""
    )
    assert opened.errors == []
    assert [url for url in opened.requests if not url.startswith(LOCAL)] == []
