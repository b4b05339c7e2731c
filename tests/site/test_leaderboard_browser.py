"""The leaderboard and model pages in headless Chromium (from ``file://``), the Nu HTML
Checker and axe-core: the table without scripts, sorting from the keyboard, filters, search,
hiding reference targets, the every-quantity toggle, the model page's chart, hostile names."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modelscape.report import Report
from tests.site.boards import BOARD_MODEL as MODEL_NAME
from tests.site.boards import build_full
from tests.site.test_site_browser import Opened, _audit

MODEL = f"models/{MODEL_NAME}.html"
HOSTILE_MODEL = "models/cmd-c-calc-a0.html"
ALL = 'section.matrix[data-group="all"]'
#: The reference targets of the board's runs (tests.site.boards.BOARD).
REFERENCES = {"oracle", "late", "sycophant", "random", "steady"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_full(tmp_path_factory.mktemp("board"))


def _reports(site: Path) -> list[Report]:
    """The reports the site was built from."""
    runs = site.parent / "content" / "runs"
    return [Report.load(file) for file in sorted(runs.glob("*/report.json"))]


def _targets(site: Path) -> set[str]:
    """Every target of every run: one row each on the leaderboard."""
    return {target for report in _reports(site) for target in report.targets}


@pytest.fixture
def opener(browser: Any) -> Iterator[Any]:
    contexts: list[Any] = []

    def open_at(url: str, **options: Any) -> Opened:
        context = browser.new_context(**{"viewport": {"width": 1280, "height": 900}, **options})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        opened = Opened(page, [])
        page.on(
            "console",
            lambda m: opened.errors.append(m.text) if m.type in ("error", "warning") else None,
        )
        page.on("pageerror", lambda error: opened.errors.append(str(error)))
        page.on("dialog", lambda dialog: opened.errors.append("dialog: " + dialog.message))
        page.goto(url)
        page.wait_for_load_state("load")
        return opened

    yield open_at
    for context in contexts:
        context.close()


def _visible_models(page: Any, section: str = ALL) -> list[str]:
    return list(page.locator(f"{section} tbody tr:visible th > a:first-child").all_inner_texts())


def test_without_javascript_the_whole_matrix_is_shown(opener: Any, site: Path) -> None:
    page = opener((site / "index.html").as_uri(), java_script_enabled=False).page
    assert not page.locator("#leaderboard-controls").is_visible()
    spurious = page.locator(f'{ALL} td[data-quantity="spurious"]')
    assert spurious.count() > 0
    assert spurious.first.is_visible()
    assert page.locator('section.matrix[data-group="approvals"]').is_visible()
    assert page.locator("th button.sort").count() == 0
    rows = page.locator(f"{ALL} tbody tr[data-kind]")
    assert rows.count() == len(_visible_models(page)) == len(_targets(site))
    assert set(_visible_models(page)) == _targets(site)


def test_with_javascript_accuracy_alone_until_every_quantity_is_asked(
    opener: Any, site: Path
) -> None:
    opened = opener((site / "index.html").as_uri())
    page = opened.page
    assert page.locator("#leaderboard-controls").is_visible()
    spurious = page.locator(f'{ALL} td[data-quantity="spurious"]').first
    accuracy = page.locator(f'{ALL} td[data-quantity="accuracy"]').first
    header = page.locator(f'{ALL} th[scope="colgroup"]').first
    assert accuracy.is_visible()
    assert not spurious.is_visible()
    assert header.get_attribute("colspan") == "1"
    assert not page.locator('section.matrix[data-group="approvals"]').is_visible()
    page.check("#leaderboard-every")
    assert spurious.is_visible()
    # Every quantity: accuracy, at baseline, spurious, missed, shifts, departures, answered.
    assert header.get_attribute("colspan") == "7"
    assert opened.errors == []


def test_the_ranking_sorts_from_the_keyboard(opener: Any, site: Path) -> None:
    page = opener((site / "index.html").as_uri()).page
    matrix = page.locator(ALL)
    rank = matrix.locator('th[data-column="1"]')
    mean = matrix.locator('th[data-column="2"]')
    # The ranked and unranked targets sort; the reference band stays below them, sorted apart.
    ranked_body = "tbody:not(.reference-band) tr td:nth-child(3)"
    anchors = page.locator(f"{ALL} tbody.reference-band tr th > a:first-child")
    band = anchors.all_inner_texts()
    assert set(band) == REFERENCES
    assert rank.get_attribute("aria-sort") == "ascending"  # the server's order
    ranked = _visible_models(page)
    mean.locator("button").focus()
    page.keyboard.press("Enter")
    assert mean.get_attribute("aria-sort") == "ascending"
    assert rank.get_attribute("aria-sort") is None
    values = matrix.locator(ranked_body).evaluate_all("cells => cells.map(c => c.dataset.value)")
    numbers = [float(v) for v in values if v]
    assert numbers == sorted(numbers)
    # A target that never answered has no mean accuracy: it stays last whichever way.
    assert "" in values
    assert values == [*(v for v in values if v), *(v for v in values if not v)]
    page.keyboard.press("Enter")
    assert mean.get_attribute("aria-sort") == "descending"
    # Sorting by mean accuracy, highest first, gives the ranking back (up to ties' order).
    shown = matrix.locator(ranked_body).evaluate_all("cells => cells.map(c => c.dataset.value)")
    scores = [float(v) for v in shown if v]
    assert scores == sorted(scores, reverse=True)
    assert shown == [*(v for v in shown if v), *(v for v in shown if not v)]
    assert sorted(_visible_models(page)) == sorted(ranked)
    # Highest mean accuracy first puts the places in order (unranked targets fall between).
    places = matrix.locator("tbody:not(.reference-band) tr td:nth-child(2)").evaluate_all(
        "cells => cells.map(c => c.dataset.value)"
    )
    assert [int(p) for p in places if p] == sorted(int(p) for p in places if p)
    assert sorted(anchors.all_inner_texts()) == sorted(band)
    apart = matrix.locator("tbody.reference-band tr td:nth-child(3)").evaluate_all(
        "cells => cells.map(c => c.dataset.value)"
    )
    assert [float(v) for v in apart] == sorted((float(v) for v in apart), reverse=True)


def test_reference_targets_are_badged_and_can_be_hidden(opener: Any, site: Path) -> None:
    page = opener((site / "index.html").as_uri()).page
    references = page.locator(f'{ALL} tbody tr[data-kind="reference"]')
    assert _targets(site) >= REFERENCES
    assert sorted(references.locator("th > a:first-child").all_inner_texts()) == sorted(REFERENCES)
    assert references.locator(".badge-reference").count() == references.count()
    total = page.locator(f"{ALL} tbody tr[data-kind]").count()
    assert page.locator(f"{ALL} tbody.reference-band tr.band-heading").is_visible()
    page.uncheck('#leaderboard-controls input[name="kind"][value="reference"]')
    assert page.locator(f'{ALL} tbody tr[data-kind="reference"]:visible').count() == 0
    # The band's heading row goes with its rows.
    shown = page.locator(f"{ALL} tbody tr:visible")
    assert shown.count() == total - references.count()
    kinds = set(shown.evaluate_all("rows => rows.map(r => r.dataset.kind)"))
    assert kinds == {"model", "other"}  # plain functions (hostile, flaky) are neither
    status = page.locator("#leaderboard-status").inner_text()
    assert status == f"Showing {total - references.count()} of {total} targets."
    # A real model's row links its provenance on its page.
    model = page.locator(f'{ALL} tbody tr[data-kind="model"]').first
    link = model.locator("a", has_text="provenance")
    assert link.get_attribute("href").endswith(".html#provenance")


def test_a_scenario_filter_hides_its_columns(opener: Any, site: Path) -> None:
    page = opener((site / "index.html").as_uri()).page
    page.click("#leaderboard-columns summary")  # the chooser is folded until it is opened
    page.uncheck('#leaderboard-controls input[name="scenario"][value="pressure"]')
    assert page.locator(f'{ALL} [data-scenario="pressure"]:visible').count() == 0
    assert page.locator(f'{ALL} [data-scenario="return-window"]:visible').count() > 0
    page.check('#leaderboard-controls input[name="scenario"][value="pressure"]')
    assert page.locator(f'{ALL} td[data-scenario="pressure"]:visible').count() == len(
        _targets(site)
    )


def test_the_group_filter_shows_one_group(opener: Any, site: Path) -> None:
    page = opener((site / "index.html").as_uri()).page
    page.select_option("#leaderboard-group", "approvals")
    assert not page.locator(ALL).is_visible()
    approvals = page.locator('section.matrix[data-group="approvals"]')
    assert approvals.is_visible()
    headers = approvals.locator('th[scope="colgroup"]').all_inner_texts()
    assert headers == ["fair-lending"]


def test_search_keeps_the_rows_that_match(opener: Any, site: Path) -> None:
    page = opener((site / "index.html").as_uri()).page
    page.fill("#leaderboard-search", "smollm2")
    assert sorted(_visible_models(page)) == ["smollm2-135m", "smollm2-135m-structured"]
    page.fill("#leaderboard-search", "structured grammar")
    assert sorted(_visible_models(page)) == [
        "gemma-3-270m-structured",
        "smollm2-135m-structured",
    ]
    page.fill("#leaderboard-search", "")
    assert len(_visible_models(page)) == len(_targets(site))


def test_a_model_page_draws_every_target_on_every_scenario(opener: Any, site: Path) -> None:
    opened = opener((site / MODEL).as_uri())
    page = opened.page
    page.wait_for_selector("html[data-charts='drawn']", state="attached", timeout=15_000)
    points = page.evaluate(
        """() => document.getElementById("comparison-chart").data
              .reduce((n, trace) => n + trace.x.length, 0)"""
    )
    table = page.locator("table.comparison tbody tr:not(.group-row)")
    accuracies = table.locator("td:nth-child(2)").all_inner_texts()
    defined = [t for t in accuracies if not t.startswith("n/a")]
    # Every target with an accuracy is a point; the one never reached has none, and its
    # reason instead, as a numbered note.
    reasons = table.locator("td:nth-child(2) .na-link").evaluate_all(
        "links => links.map(link => link.title)"
    )
    assert [r for r in reasons if r.startswith("no successful output")] != []
    assert points == len(defined) == table.count() - 1
    scenarios = {r.scenario for r in _reports(site) if MODEL_NAME in r.targets}
    assert len(scenarios) == 2
    assert page.locator("table.comparison tr.this-model").count() == len(scenarios)
    assert page.locator("#provenance td code").first.is_visible()
    assert opened.errors == []


def test_hostile_names_run_nothing(opener: Any, site: Path) -> None:
    for path in ("index.html", HOSTILE_MODEL):
        opened = opener((site / path).as_uri())
        page = opened.page
        if path == HOSTILE_MODEL:
            page.wait_for_selector("html[data-charts='drawn']", state="attached", timeout=15_000)
        page.wait_for_timeout(300)
        assert opened.errors == []
        assert page.locator("img").count() == 0
    index = opener((site / "index.html").as_uri()).page
    index.fill("#leaderboard-search", "onerror")
    assert _visible_models(index) == ['<img src=x onerror=alert("name")><b>bold</b>']


def test_nu_html_checker_finds_no_error(vnu: list[str], site: Path) -> None:
    files = [str(site / p) for p in ("index.html", MODEL, HOSTILE_MODEL, "method.html")]
    checked = subprocess.run([*vnu, *files], capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stderr + checked.stdout
    assert checked.stderr.strip() == ""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", ["index.html", MODEL])
def test_axe_finds_no_serious_violation(
    opener: Any, axe_source: str, site: Path, path: str, scheme: str
) -> None:
    opened = opener((site / path).as_uri(), color_scheme=scheme)
    page = opened.page
    if path == MODEL:
        page.wait_for_selector("html[data-charts='drawn']", state="attached", timeout=15_000)
    else:
        page.check("#leaderboard-every")  # every coloured cell visible, so contrast is checked
    page.wait_for_timeout(200)
    assert opened.errors == []
    assert _audit(opened, axe_source) == []


# -- the leaderboard in view (note 045) ----------------------------------------------------------
def test_the_column_chooser_works_from_the_keyboard_and_keeps_its_choice_in_the_link(
    opener: Any, site: Path
) -> None:
    opened = opener((site / "index.html").as_uri())
    page = opened.page
    boxes = page.locator('#leaderboard-columns input[name="scenario"]')
    assert not boxes.first.is_visible()  # folded until asked for
    summary = page.locator("#leaderboard-columns summary")
    assert summary.inner_text() == f"Columns ({boxes.count()} of {boxes.count()} scenarios)"
    summary.focus()
    page.keyboard.press("Enter")
    assert boxes.first.is_visible()
    pressure = page.locator('#leaderboard-columns input[value="pressure"]')
    pressure.focus()
    page.keyboard.press("Space")
    assert not pressure.is_checked()
    assert page.locator(f'{ALL} [data-scenario="pressure"]:visible').count() == 0
    assert page.locator(f'{ALL} td[data-scenario="fair-lending"]:visible').count() > 0
    link = page.evaluate("location.href")
    assert link.endswith("index.html#hide=pressure")
    count = boxes.count()
    assert summary.inner_text() == f"Columns ({count - 1} of {count} scenarios)"
    # The link reopens the same columns, in a new window.
    again = opener(link).page
    assert not again.locator('#leaderboard-columns input[value="pressure"]').is_checked()
    assert again.locator(f'{ALL} [data-scenario="pressure"]:visible').count() == 0
    assert again.locator(f'{ALL} td[data-scenario="return-window"]:visible').count() > 0
    # Ticked again, the default view needs no fragment.
    page.keyboard.press("Space")
    assert page.evaluate("location.hash") == ""
    assert page.locator(f'{ALL} td[data-scenario="pressure"]:visible').count() == len(
        _targets(site)
    )
    assert opened.errors == []


def test_a_link_can_ask_for_every_quantity(opener: Any, site: Path) -> None:
    page = opener((site / "index.html").as_uri() + "#every=1&hide=fair-lending").page
    assert page.locator("#leaderboard-every").is_checked()
    assert page.locator(f'{ALL} td[data-quantity="spurious"]:visible').count() > 0
    assert page.locator(f'{ALL} [data-scenario="fair-lending"]:visible').count() == 0
    # A fragment that is not a choice (a note's anchor) leaves the default view alone.
    other = opener((site / "index.html").as_uri() + "#na-1").page
    assert not other.locator("#leaderboard-every").is_checked()
    assert other.locator('#leaderboard-columns input[name="scenario"]:not(:checked)').count() == 0
    assert other.evaluate("location.hash") == "#na-1"


def test_the_band_heading_spans_the_columns_shown(opener: Any, site: Path) -> None:
    page = opener((site / "index.html").as_uri()).page
    heading = page.locator(f"{ALL} tr.band-heading th")
    header = page.locator(f"{ALL} thead tr:last-child th:visible")
    assert heading.get_attribute("colspan") == str(3 + header.count())
    page.check("#leaderboard-every")
    assert heading.get_attribute("colspan") == str(3 + header.count())
    # Sorting keeps the heading at the top of its band.
    page.locator(f'{ALL} th[data-column="2"] button').click()
    first = page.locator(f"{ALL} tbody.reference-band tr").first
    assert first.get_attribute("class") == "band-heading"


@pytest.mark.parametrize("width", [390, 1280])
def test_the_model_column_and_the_header_stay_while_the_table_scrolls(
    opener: Any, site: Path, width: int
) -> None:
    page = opener((site / "index.html").as_uri(), viewport={"width": width, "height": 900}).page
    page.check("#leaderboard-every")  # every column: wider than the window at both widths
    region = page.locator(f"{ALL} .table-wrap")
    model = region.locator("tbody tr[data-kind] th[scope=row]").first
    corner = region.locator("thead th").first
    accuracy = region.locator('thead th[data-quantity="accuracy"]').first
    before, head = model.bounding_box(), corner.bounding_box()
    moved = accuracy.bounding_box()
    region.evaluate("r => { r.scrollLeft = r.scrollWidth; }")
    assert region.evaluate("r => r.scrollLeft") > 0
    after = model.bounding_box()
    for box in (before, after, head, moved):
        assert box is not None
    assert abs(after["x"] - before["x"]) < 1  # pinned, while the scenario columns moved away
    gone = accuracy.bounding_box()
    assert gone is not None
    assert gone["x"] < moved["x"] - 100
    region.evaluate("r => { r.scrollTop = r.scrollHeight; }")
    assert region.evaluate("r => r.scrollTop") > 0
    top = corner.bounding_box()
    box = region.bounding_box()
    assert top is not None
    assert box is not None
    assert abs(top["y"] - box["y"]) < 1  # the header rows at the region's top
    assert abs(top["x"] - head["x"]) < 1
