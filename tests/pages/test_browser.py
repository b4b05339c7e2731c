"""Pages in a real browser: offline from file://, traceable numbers, charts, and hostile text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from modelscape.pages import ReportPage, ScenarioPage
from modelscape.results.results import run_of
from modelscape.specs import load_spec
from tests.pages.conftest import HOSTILE_NAME, XSS, Opened, Run

LOCAL = ("file:", "data:", "blob:")


@pytest.fixture(scope="module")
def report_file(run: Run, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ReportPage(run.report_file, run.store).save(tmp_path_factory.mktemp("p") / "r.html")


@pytest.fixture(scope="module")
def hostile_file(hostile_run: Run, tmp_path_factory: pytest.TempPathFactory) -> Path:
    page = ReportPage(hostile_run.report, hostile_run.results)
    return page.save(tmp_path_factory.mktemp("p") / "hostile.html")


@pytest.fixture(scope="module")
def scenario_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    page = ScenarioPage(load_spec("fair-lending").scenario())
    return page.save(tmp_path_factory.mktemp("p") / "s.html")


def _drawn(opened: Opened) -> None:
    opened.page.wait_for_selector("html[data-charts]", state="attached", timeout=15_000)
    assert opened.page.get_attribute("html", "data-charts") == "drawn"


def _offline(opened: Opened) -> None:
    assert opened.errors == []
    assert [url for url in opened.requests if not url.startswith(LOCAL)] == []


def _listed(page: Any) -> list[str]:
    """The observation ids the outputs panel lists, after showing all of them."""
    more = page.locator("dialog[open] .dialog-body > button")
    while more.count():
        more.click()
    ids = page.eval_on_selector_all(
        "#outputs-list > li", "items => items.map(item => item.dataset.observation)"
    )
    return list(ids)


def _open(page: Any, label: str) -> list[str]:
    button = page.locator(f'button[data-label="{label}"]').first
    button.evaluate("b => { const d = b.closest('details'); if (d) d.open = true; }")
    button.click()
    page.wait_for_selector("dialog[open]")
    listed = _listed(page)
    page.click("#outputs-close")
    return listed


def test_report_opens_offline_and_draws_its_charts(open_page: Any, report_file: Path) -> None:
    opened = open_page(report_file)
    _drawn(opened)
    page = opened.page
    assert page.locator("#chart-profile-0 svg.main-svg").count() >= 1
    assert page.locator("#chart-profile-0 .scatterlayer .trace").count() == 3
    assert page.locator("#chart-sensitivity .barlayer .trace").count() == 2
    assert any(url.startswith("blob:") for url in opened.requests)  # the unpacked bundle
    _offline(opened)


def test_clicking_a_number_lists_exactly_its_outputs(
    open_page: Any, report_file: Path, run: Run
) -> None:
    opened = open_page(report_file)
    page = opened.page

    def traced(ids: tuple[str, ...]) -> list[str]:
        return sorted(o.id for o in run.results.trace(ids).observations)

    card = run.report.scorecard("sycophant")
    assert sorted(_open(page, "sycophant · all: accuracy")) == traced(card.accuracy_ids)
    assert sorted(_open(page, "sycophant · all: spurious change")) == traced(card.spurious_ids)
    group = run.report.scorecard("steady", "false-claims")
    assert sorted(_open(page, "steady · false-claims: accuracy")) == traced(group.accuracy_ids)
    shift = card.axes[0].shifts[0]
    label = f"sycophant · all · shift pressure: {shift.before} → {shift.after}"
    assert sorted(_open(page, label)) == traced(shift.measurement_ids)
    _offline(opened)


def test_an_output_shows_prompt_answer_and_raw_text(
    open_page: Any, report_file: Path, run: Run
) -> None:
    page = open_page(report_file).page
    page.locator('button[data-label="steady · all: accuracy"]').click()
    first = page.locator("#outputs-list > li").first
    observation_id = first.get_attribute("data-observation")
    first.locator("summary").click()
    body = first.locator(".output-body")
    observation = next(o for o in run_of(run.results).observations if o.id == observation_id)
    variant = run_of(run.results).variant(observation.variant_id)
    assert body.locator("pre.output-text").text_content() == observation.output.text
    text = body.text_content() or ""
    assert variant.prompt.messages[-1].content.strip() in text
    assert f"Repetition{observation.repetition}" in text
    assert "Correct answertrue" in text


def test_clicking_a_chart_point_opens_its_outputs(
    open_page: Any, report_file: Path, run: Run
) -> None:
    opened = open_page(report_file)
    _drawn(opened)
    page = opened.page
    profile = next(p for p in run.report.profiles if p.target == "sycophant")
    page.locator("#chart-profile-0").scroll_into_view_if_needed()
    point = page.locator("#chart-profile-0 .scatterlayer .trace").nth(1).locator(".points path")
    box = point.nth(4).bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_selector("dialog[open]")
    expected = sorted(o.id for o in run.results.trace(profile.baseline[4]).observations)
    assert sorted(_listed(page)) == expected
    _offline(opened)  # hover labels and clicks stay within the policy


def test_dark_scheme(open_page: Any, report_file: Path) -> None:
    opened = open_page(report_file, scheme="dark")
    _drawn(opened)
    background = opened.page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    assert background == "rgb(21, 23, 26)"
    tick = opened.page.locator("#chart-profile-0 .xtick text").first
    assert "232, 233, 236" in (tick.get_attribute("style") or "")
    _offline(opened)


def test_hostile_outputs_stay_text(open_page: Any, hostile_file: Path) -> None:
    opened = open_page(hostile_file)
    _drawn(opened)
    page = opened.page
    scripts = page.locator("script").count()
    label = f"{HOSTILE_NAME} · all: accuracy"
    page.locator(f"button[data-label={json.dumps(label, ensure_ascii=False)}]").first.click()
    _listed(page)
    summaries = page.locator("#outputs-list > li summary")
    for index in range(min(summaries.count(), 60)):
        summaries.nth(index).click()
    shown = page.eval_on_selector_all("pre.output-text", "pres => pres.map(p => p.textContent)")
    assert set(shown) <= set(XSS)
    assert {XSS[0], XSS[2]} <= set(shown) or len(set(shown)) >= 4
    # the chart drew the hostile target name as text
    legend = page.locator("#chart-profile-0 .legendtext").all_text_contents()
    assert HOSTILE_NAME in legend
    injected = page.evaluate(
        """() => {
          const bad = [];
          for (const node of document.querySelectorAll("*")) {
            for (const attribute of node.attributes) {
              if (attribute.name.startsWith("on")) bad.push(node.tagName + " " + attribute.name);
              if (/^\\s*javascript:/i.test(attribute.value)) bad.push(node.tagName + " href");
            }
          }
          const tags = ["img", "iframe", "b", "a:not(.skip):not(.na-link)", "object", "embed"];
          for (const tag of tags) {
            for (const node of document.querySelectorAll(tag)) bad.push(tag);
          }
          return bad;
        }"""
    )
    assert injected == []
    assert page.locator("script").count() == scripts + 0  # only the unpacked bundle was added
    assert opened.dialogs == []
    _offline(opened)


def test_scenario_page_filter_and_phone_width(open_page: Any, scenario_file: Path) -> None:
    opened = open_page(scenario_file, width=390, height=844)
    page = opened.page
    cases = page.locator("#case-list > details")
    total = cases.count()
    page.fill("#case-filter", "used-car")
    visible = page.locator("#case-list > details:not([hidden])").count()
    assert 1 <= visible < total
    assert "of" in (page.text_content("#case-filter-count") or "")
    page.fill("#case-filter", "")
    assert page.locator("#case-list > details:not([hidden])").count() == total
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    _offline(opened)


def test_notebook_frame_draws_its_charts(open_page: Any, run: Run, tmp_path: Path) -> None:
    frame_html = ReportPage(run.report, run.results)._repr_html_()
    notebook = tmp_path / "notebook.html"
    notebook.write_text(
        f'<!DOCTYPE html><html lang="en"><title>notebook</title>{frame_html}</html>',
        encoding="utf-8",
    )
    opened = open_page(notebook)
    frame = opened.page.frames[1]
    frame.wait_for_selector("html[data-charts]", state="attached", timeout=15_000)
    assert frame.get_attribute("html", "data-charts") == "drawn"
    assert frame.locator("svg.main-svg").count() >= 2
    _offline(opened)
