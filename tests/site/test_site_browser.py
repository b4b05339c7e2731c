"""Site pages in real tools: the Nu HTML Checker, and axe-core in headless Chromium opened from
``file://`` (which also proves the pages' policy lets their shared scripts run from disk)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from modelscape.scaffold.serve import SiteServer
from tests.site.sitetools import RUN

PAGES = {
    "index": "index.html",
    "scenario": "scenarios/return-window.html",
    "report": f"reports/{RUN}.html",
    "model": "models/late.html",
    "markdown": "about.html",
    "search": "search.html",
    "404": "404.html",
}


@dataclass
class Opened:
    """A page open in the browser, with the errors and warnings it logged."""

    page: Any
    errors: list[str]


@pytest.fixture
def open_page(browser: Any) -> Iterator[Any]:
    contexts: list[Any] = []

    def opener(url: str, *, width: int = 1280, height: int = 800) -> Opened:
        context = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        opened = Opened(page, [])
        page.on(
            "console",
            lambda m: opened.errors.append(m.text) if m.type in ("error", "warning") else None,
        )
        page.on("pageerror", lambda error: opened.errors.append(str(error)))
        page.goto(url)
        return opened

    yield opener
    for context in contexts:
        context.close()


def test_nu_html_checker_finds_no_error(vnu: list[str], built: Path) -> None:
    files = [str(built / path) for path in PAGES.values()]
    checked = subprocess.run([*vnu, *files], capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stderr + checked.stdout
    assert checked.stderr.strip() == ""


def _audit(opened: Opened, axe_source: str) -> list[str]:
    opened.page.evaluate(axe_source)  # evaluated by the driver: the page's policy stays
    found = opened.page.evaluate(
        """async () => {
          const result = await axe.run(document, { resultTypes: ["violations"] });
          return result.violations
            .filter(v => v.impact === "serious" || v.impact === "critical")
            .map(v => v.id + ": " + v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(" | "));
        }"""
    )
    return list(found)


@pytest.mark.parametrize("name", sorted(PAGES))
def test_axe_finds_no_serious_violation_from_file(
    open_page: Any, axe_source: str, built: Path, name: str
) -> None:
    opened = open_page((built / PAGES[name]).as_uri())
    page = opened.page
    page.wait_for_load_state("load")
    if name == "report":
        page.wait_for_selector("html[data-charts='drawn']", state="attached", timeout=15_000)
    if name == "index":
        # site.js ran from file://: every sortable header of the matrices has its button
        sortable = page.locator("thead th[data-column]").count()
        assert sortable > 0
        assert page.locator("th button.sort").count() == sortable
    page.wait_for_timeout(200)
    assert opened.errors == []  # before axe, whose own reads of the stylesheets CSP refuses
    assert _audit(opened, axe_source) == []


def test_the_leaderboard_sorts_from_the_keyboard(open_page: Any, built: Path) -> None:
    page = open_page((built / "index.html").as_uri()).page
    matrix = page.locator('section.matrix[data-group="all"]')
    where = '[data-scenario="return-window"][data-quantity="accuracy"]'
    column = matrix.locator(f"th{where}")
    column.locator("button").focus()
    page.keyboard.press("Enter")
    assert column.get_attribute("aria-sort") == "ascending"
    values = matrix.locator(f"tbody tr td{where}").evaluate_all(
        "cells => cells.map(c => c.dataset.value)"
    )
    numbers = [float(v) for v in values if v]
    assert numbers == sorted(numbers)
    assert values == [*(v for v in values if v), *(v for v in values if not v)]  # not run: last
    page.keyboard.press("Enter")
    assert column.get_attribute("aria-sort") == "descending"
    first = matrix.locator("tbody tr[data-kind]").first.locator("th a").first.inner_text()
    assert first == "oracle"


def test_search_works_offline_from_file(open_page: Any, built: Path) -> None:
    opened = open_page((built / "search.html").as_uri())
    page = opened.page
    page.fill("#search-box", "sycophant")
    # The script index is fetched on the first query, so the results come a moment later.
    page.wait_for_function("document.querySelectorAll('#search-results li').length >= 2")
    assert "models/sycophant.html" in [
        link.get_attribute("href") for link in page.locator("#search-results a").all()
    ]
    page.locator("#search-results a", has_text="Model sycophant").click()
    page.wait_for_url("**/models/sycophant.html")
    assert opened.errors == []


def test_served_pages_poll_and_reload_on_rebuild(
    open_page: Any, tmp_path: Path, built: Path
) -> None:
    content = built.parent / "content"
    preview = SiteServer(content, tmp_path / "site", port=0, interval=0.1)
    preview.start()
    try:
        opened = open_page(preview.url + "about.html")
        page = opened.page
        about = content / "pages" / "about.md"
        original = about.read_text(encoding="utf-8")
        try:
            with page.expect_navigation(timeout=15_000):
                about.write_text(original + "\nReloaded text.\n", encoding="utf-8")
        finally:
            about.write_text(original, encoding="utf-8")
        assert "Reloaded text." in page.content()
        assert opened.errors == []
    finally:
        preview.stop()
