"""The site on a phone and a desktop, light and dark: scripts/screenshots.py run on a build of
a whole site of the tests' own runs (tests.site.boards), its checks shown to catch what they
look for, and the pages it covers clean in the Nu HTML Checker and axe-core."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modelscape.site import build_site
from tests.site.boards import make_board
from tests.site.sitetools import REPO, make_content
from tests.support.browsertools import CHROMIUM, need

SCRIPT = REPO / "scripts" / "screenshots.py"

pytestmark = pytest.mark.slow  # starts a browser in a process of its own


def _script() -> Any:
    """The script as a module, for its checks and its choice of pages."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("screenshots", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("screenshots", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole site (every kind of page, findings that embed runs), built strictly and
    without a base URL (as locally)."""
    folder = tmp_path_factory.mktemp("board")
    site = folder / "site"
    build_site(make_board(folder / "content"), site, strict=True)
    return site


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 390, "height": 800})
    yield context.new_page()
    context.close()


def test_every_template_at_both_widths_and_schemes_is_clean(shipped: Path, tmp_path: Path) -> None:
    need(Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    pages = _script().pages_of(shipped)
    assert {"index", "scenario", "report", "model", "findings", "about", "search", "404"} <= set(
        pages
    )
    shots = tmp_path / "shots"
    run = subprocess.run(
        [sys.executable, str(SCRIPT), str(shipped), "-o", str(shots)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    made = sorted(p.name for p in shots.iterdir())
    assert len(made) == len(pages) * 4
    assert "findings--390-dark.png" in made
    assert all((shots / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for name in made)


def test_the_script_fails_on_a_page_that_overflows(tmp_path: Path) -> None:
    need(Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    content = make_content(tmp_path / "content")
    (content / "pages" / "wide.md").write_text("# Wide\n\n" + "x" * 400 + "\n", encoding="utf-8")
    build_site(content, tmp_path / "site", strict=True)
    site, shots = str(tmp_path / "site"), str(tmp_path / "shots")
    run = subprocess.run(
        [sys.executable, str(SCRIPT), site, "-o", shots, "--width", "390", "--scheme", "light"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 1
    assert "wide.html at 390 px, light: overflow: the page is" in run.stdout
    assert "index.html" not in run.stdout


_CHART = """<div class="chart" id="c" style="width:300px;height:200px">
<svg class="main-svg" width="300" height="200">
<g class="xtick"><text x="{a}" y="100" transform="rotate({turn},{a},100)">latin-america</text></g>
<g class="xtick"><text x="{b}" y="100" transform="rotate({turn},{b},100)">middle-east</text></g>
<g class="xtick"><text x="250" y="260">below</text></g>
</svg></div>"""


def test_chart_label_checks_follow_rotation_and_bounds(page: Any) -> None:
    checks = _script().CHECKS
    page.set_content(_CHART.format(a=20, b=60, turn=0))
    found = page.evaluate(checks)
    assert 'chart c: labels "latin-america" and "middle-east" overlap' in found
    assert 'chart c: label "below" is cut off' in found
    # Turned 60 degrees, the same two labels sit side by side without touching.
    page.set_content(_CHART.format(a=20, b=60, turn=60))
    assert [p for p in page.evaluate(checks) if "overlap" in p] == []


def test_clipped_text_is_found(page: Any) -> None:
    page.set_content(
        '<p style="width:80px;overflow:hidden;white-space:nowrap">a sentence far too long</p>'
    )
    assert [p for p in page.evaluate(_script().CHECKS) if p.startswith("clipped: p")]


def test_the_new_pages_pass_the_html_checker(vnu: list[str], shipped: Path) -> None:
    files = [shipped / "findings.html", shipped / "404.html", shipped / "scenarios/pressure.html"]
    checked = subprocess.run(
        [*vnu, *map(str, files)], capture_output=True, text=True, timeout=300, check=False
    )
    assert checked.returncode == 0, checked.stderr + checked.stdout


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", ["findings.html", "404.html"])
def test_the_new_pages_pass_axe(
    browser: Any, axe_source: str, shipped: Path, name: str, scheme: str
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 800}, color_scheme=scheme)
    errors: list[str] = []
    try:
        opened = context.new_page()
        opened.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        opened.goto((shipped / name).as_uri())
        if name == "findings.html":
            opened.wait_for_selector("html[data-charts='drawn']", state="attached", timeout=20_000)
        else:
            opened.wait_for_selector("html[data-root]", state="attached")
        assert errors == []
        opened.evaluate(axe_source)
        found = opened.evaluate(
            """async () => (await axe.run(document, { resultTypes: ["violations"] })).violations
                .filter(v => v.impact === "serious" || v.impact === "critical")
                .map(v => v.id + ": " + v.nodes.slice(0, 3).map(n => n.target.join(" ")))"""
        )
        assert found == []
    finally:
        context.close()


def test_a_wide_table_pins_its_first_column_and_says_so(page: Any, shipped: Path) -> None:
    page.goto((shipped / "findings.html").as_uri())
    region = page.locator(".embed-scorecard .table-wrap")
    assert region.get_attribute("data-wide") == ""  # tables.js: wider than its region
    hint = region.evaluate("r => getComputedStyle(r, '::before').content")
    assert hint == '"Scroll sideways for more columns →"'
    first = region.locator("tbody th").first
    before = first.bounding_box()
    region.evaluate("r => { r.scrollLeft = 200; }")
    after = first.bounding_box()
    assert before is not None
    assert after is not None
    assert region.evaluate("r => r.scrollLeft") > 0
    assert abs(after["x"] - before["x"]) < 1  # pinned while the other columns moved
    # At 1280 px the table fits its region: the hint goes, since it shows only when needed.
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_function(
        "() => !document.querySelector('.embed-scorecard .table-wrap').hasAttribute('data-wide')"
    )


# -- the leaderboard in view (note 045) ----------------------------------------------------------
#: Stylesheets that break the leaderboard, appended to a copy of the site's own, each with the
#: width it shows at and the problem the checks must report.
BROKEN = {
    "tall": (
        ".board::before { content: ''; display: block; height: 1200px; }",
        1280,
        "leaderboard: its first row ends at",
    ),
    "unpinned": (
        "table[data-matrix] th, table[data-matrix] thead { position: static !important; }",
        390,
        "leaderboard: the model cell of the first row, scrolled sideways to the end, is out of",
    ),
    "header": (
        "table[data-matrix] thead { position: static !important; }",
        390,
        "leaderboard: the header's model cell, scrolled down to the end, is out of view",
    ),
    "covered": (
        "table[data-matrix] tbody th[scope=row] { z-index: auto !important; }"
        " table[data-matrix] tbody td { position: relative; z-index: 5; }",
        390,
        "leaderboard: the model cell of the first row, scrolled sideways to the end, is covered",
    ),
}


def _broken(shipped: Path, folder: Path, style: str) -> Path:
    """A copy of the site whose stylesheet ends with ``style``."""
    copy = folder / "site"
    shutil.copytree(shipped, copy)
    sheet = copy / "assets" / "site.css"
    sheet.write_text(sheet.read_text(encoding="utf-8") + "\n" + style + "\n", encoding="utf-8")
    return copy


def _leaderboard(browser: Any, url: str, *, width: int) -> list[str]:
    """What the script's leaderboard checks find on ``url`` at ``width``, all columns shown."""
    context = browser.new_context(viewport={"width": width, "height": _script().FOLD})
    try:
        opened = context.new_page()
        opened.goto(url)
        opened.check("#leaderboard-every")
        found: list[str] = _script().leaderboard_problems(opened, width=width)
        return found
    finally:
        context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_the_leaderboard_is_in_view_at_both_widths(browser: Any, shipped: Path, width: int) -> None:
    assert _leaderboard(browser, (shipped / "index.html").as_uri(), width=width) == []


@pytest.mark.parametrize("broken", sorted(BROKEN))
def test_the_leaderboard_checks_find_a_broken_page(
    browser: Any, shipped: Path, tmp_path: Path, broken: str
) -> None:
    style, width, problem = BROKEN[broken]
    site = _broken(shipped, tmp_path, style)
    found = _leaderboard(browser, (site / "index.html").as_uri(), width=width)
    assert [p for p in found if p.startswith(problem)], found
    # The first-row check holds wide windows only: at 390 px the table may start lower.
    assert [p for p in found if "first row ends" in p] == ([] if width < 1280 else found[:1])


def test_the_script_fails_on_a_leaderboard_below_the_fold(shipped: Path, tmp_path: Path) -> None:
    need(Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    style, width, problem = BROKEN["tall"]
    site = _broken(shipped, tmp_path, style)
    shots = tmp_path / "shots"
    command = [sys.executable, str(SCRIPT), str(site), "-o", str(shots), "--page", "index.html"]
    run = subprocess.run(
        [*command, "--width", str(width), "--scheme", "dark"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"index.html at {width} px, dark: {problem}" in run.stdout
    assert [p.name for p in shots.iterdir()] == [f"index--{width}-dark.png"]


_REPORT = (
    "{before}<section data-report-tables><h2>Scorecards</h2>"
    "<table><tr><td>1</td></tr></table></section>{after}"
)
_FINDINGS = '<section id="findings"><p>One finding.</p></section>'


@pytest.mark.parametrize(
    ("before", "after", "problem"),
    [
        (_FINDINGS, "", None),
        ("", _FINDINGS, "findings: the findings section comes after a table"),
        ("", "", "findings: the report page has no findings section"),
    ],
)
def test_the_findings_check_finds_a_report_page_without_findings_first(
    page: Any, before: str, after: str, problem: str | None
) -> None:
    page.set_content(_REPORT.format(before=before, after=after))
    assert _script().findings_precede_tables(page) == ([] if problem is None else [problem])
    # A page that is not a report (a model page's scorecards are not marked) is never asked
    # for findings.
    page.set_content('<h2 id="scorecards-heading">Scores</h2><table><tr><td>1</td></tr></table>')
    assert _script().findings_precede_tables(page) == []


def test_the_shipped_report_pages_open_with_their_findings(page: Any, shipped: Path) -> None:
    reports = sorted((shipped / "reports").glob("*.html"))
    assert reports
    for report in reports:
        page.goto(report.as_uri())
        assert _script().findings_precede_tables(page) == [], report
