"""Long outputs: a page embeds the start of each and keeps the whole one click away.

A model that answers with megabytes once made a report page larger than GitHub Pages takes.
A page now embeds at most ``OUTPUT_LIMIT`` characters of an output; a site writes the full
text beside the report page and links to it, and a standalone page (one file, by design)
says how long the output is and which observation holds it in the run's store.
"""

from __future__ import annotations

import itertools
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from modelscape.execution import Runner
from modelscape.pages import ReportPage
from modelscape.pages.evidence import OUTPUT_LIMIT
from modelscape.report import Report
from modelscape.results.results import Results, run_of
from modelscape.site import build_site
from modelscape.specs import load_spec
from modelscape.store import SQLiteStore
from modelscape.targets import CallableTarget, TargetRequest
from tests.pages.parsing import parse
from tests.site.sitetools import make_content

#: Two million characters of an answer followed by markup a browser must show as text.
LONG = '{"eligible": true} ' + "<b>bold?</b> " * 160_000


@dataclass(frozen=True)
class LongRun:
    """A run of return-window where exactly one output is long, and where it went."""

    results: Results
    report: Report
    store: Path
    observation: str
    text: str


@pytest.fixture(scope="module")
def long_run(tmp_path_factory: pytest.TempPathFactory) -> LongRun:
    scenario = load_spec("return-window").scenario()
    calls = itertools.count()
    lock = threading.Lock()

    def answer(request: TargetRequest) -> str:
        with lock:
            first = next(calls) == 0
        return LONG if first else '{"eligible": true}'

    folder = tmp_path_factory.mktemp("long")
    store = SQLiteStore(folder / "store.db")
    try:
        results = Runner(store=store).run(
            scenario.experiment([CallableTarget(answer, name="verbose")])
        )
    finally:
        store.close()
    (long,) = [o for o in run_of(results).observations if len(o.output.text or "") > OUTPUT_LIMIT]
    text = long.output.text or ""
    return LongRun(results, scenario.report(results), folder / "store.db", long.id, text)


def _evidence(html: str) -> dict[str, Any]:
    data: dict[str, Any] = parse(html).data("ms-evidence")
    return data


def test_a_standalone_page_cuts_a_long_output_and_names_it(long_run: LongRun) -> None:
    page = ReportPage(long_run.report, long_run.results)
    html = page.html()
    assert len(html.encode()) < 2_000_000  # not the megabytes of the output
    (observation,) = [o for o in _evidence(html)["observations"] if o["id"] == long_run.observation]
    assert observation["text"] == long_run.text[:OUTPUT_LIMIT]
    assert observation["text_length"] == len(long_run.text)
    assert "text_file" not in observation
    assert page.attachments == {}
    short = [o for o in _evidence(html)["observations"] if o["id"] != long_run.observation]
    assert all("text_length" not in o for o in short)


def test_a_site_writes_the_full_output_beside_the_report_page(
    long_run: LongRun, tmp_path: Path
) -> None:
    content = make_content(tmp_path / "content", runs=())
    run = content / "runs" / "verbose"
    run.mkdir(parents=True)
    long_run.report.save(run / "report.json")
    shutil.copyfile(long_run.store, run / "store.db")
    site = tmp_path / "site"
    result = build_site(content, site, strict=True)
    full = f"reports/verbose/{long_run.observation}.txt"
    assert full in result.rendered
    assert (site / full).read_text(encoding="utf-8") == long_run.text
    page = (site / "reports" / "verbose.html").read_text(encoding="utf-8")
    assert len(page.encode()) < 2_000_000
    (observation,) = [o for o in _evidence(page)["observations"] if "text_length" in o]
    assert observation["text_file"] == f"verbose/{long_run.observation}.txt"
    # An unchanged rebuild keeps the file; a run removed takes its files with it.
    again = build_site(content, site, strict=True)
    assert full in again.reused
    assert (site / full).is_file()
    shutil.rmtree(run)
    removed = build_site(content, site)
    assert full in removed.removed
    assert not (site / full).exists()


@pytest.fixture
def site_with_long_output(long_run: LongRun, tmp_path: Path) -> Path:
    content = make_content(tmp_path / "content", runs=())
    run = content / "runs" / "verbose"
    run.mkdir(parents=True)
    long_run.report.save(run / "report.json")
    shutil.copyfile(long_run.store, run / "store.db")
    build_site(content, tmp_path / "site", strict=True)
    return tmp_path / "site"


def _open_long_output(opened: Any, observation: str) -> Any:
    page = opened.page
    button = page.locator('button[data-label="verbose · all: accuracy"]').first
    button.click()
    page.wait_for_selector("dialog[open]")
    more = page.locator("dialog[open] .dialog-body > button")
    while more.count():
        more.click()
    item = page.locator(f'#outputs-list > li[data-observation="{observation}"]')
    item.locator("summary").click()
    return item


def test_the_full_output_is_one_click_away_on_a_site(
    long_run: LongRun, site_with_long_output: Path, open_page: Any
) -> None:
    opened = open_page(site_with_long_output / "reports" / "verbose.html")
    item = _open_long_output(opened, long_run.observation)
    note = item.locator(".output-cut").first
    assert note.inner_text().startswith(
        f"Showing the first {OUTPUT_LIMIT:,} of {len(long_run.text):,} characters of this output."
    )
    shown = item.locator("pre.output-text").inner_text()
    assert shown.startswith('{"eligible": true} <b>bold?</b>')  # markup shown as text
    assert item.locator("b").count() == 0
    link = note.locator("a")
    assert link.inner_text() == "Open the full output"
    link.click()
    opened.page.wait_for_url(f"**/reports/verbose/{long_run.observation}.txt")
    assert opened.page.locator("body").inner_text().startswith('{"eligible": true} <b>bold?</b>')
    assert opened.errors == []


def test_a_standalone_page_names_the_observation_of_a_long_output(
    long_run: LongRun, tmp_path: Path, open_page: Any
) -> None:
    path = ReportPage(long_run.report, long_run.results).save(tmp_path / "report.html")
    opened = open_page(path)
    item = _open_long_output(opened, long_run.observation)
    note = item.locator(".output-cut").inner_text()
    assert note.endswith(
        f"The full output is in the run's store: observation {long_run.observation}."
    )
    assert item.locator(".output-cut a").count() == 0
    assert opened.errors == []
