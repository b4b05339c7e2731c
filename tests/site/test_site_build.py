"""Building a small content folder: the pages, the leaderboard, links, sitemap and search."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from modelscape.report import Report
from modelscape.site import build_site
from tests.pages.parsing import inline_notes
from tests.site.links import links, local_files
from tests.site.sitetools import RUN
from tests.support.runs import copy_run


def test_every_kind_of_page_is_built(built: Path) -> None:
    expected = [
        "index.html",
        "404.html",
        "search.html",
        "about.html",
        "method.html",
        "scenarios/return-window.html",
        "scenarios/pressure.html",
        f"reports/{RUN}.html",
        "models/oracle.html",
        "models/late.html",
        "models/sycophant.html",
        ".nojekyll",
        "assets/page.css",
        "assets/site.css",
        "assets/site.js",
        "assets/search.js",
        "assets/search-index.js",
        "assets/plotly-cartesian.min.js",
    ]
    assert [p for p in expected if not (built / p).is_file()] == []


def test_leaderboard_rows_link_every_number_to_its_report(built: Path) -> None:
    report = Report.load(built.parent / "content" / "runs" / RUN / "report.json")
    index = (built / "index.html").read_text(encoding="utf-8")
    card = report.scorecard("late")
    row = re.search(r'<th scope="row"><a href="models/late.html">late</a>.*?</tr>', index, re.S)
    assert row is not None
    found = re.findall(r'<td data-value="[^"]*"[^>]*><a href="([^"]+)">(.*?)</a>', row.group(0))
    # A number's text, without the tag that puts its interval on a line of its own.
    cells = [(href, re.sub(r"<[^>]*>", "", text)) for href, text in found]
    # Accuracy, at baseline, spurious, missed, shifts, departures, answered.
    assert [href for href, _ in cells] == [f"reports/{RUN}.html"] * 7
    accuracy = f"{card.accuracy:.2f} [{card.accuracy_low:.2f}, {card.accuracy_high:.2f}]"
    assert cells[0][1] == accuracy
    assert card.baseline_accuracy is not None
    assert cells[1][1].startswith(f"{card.baseline_accuracy:.2f} [")
    spurious = f"{card.spurious_change:.3f} [{card.spurious_low:.3f}, {card.spurious_high:.3f}]"
    assert cells[2][1] == spurious
    assert cells[6][1] == f"{card.answered:.2f}"
    # Without scripts the table is a plain table: headers are text, sort buttons come from JS.
    assert "<table data-sortable data-matrix>" in index
    assert "<button" not in index


def test_links_are_relative_and_resolve_on_disk(built: Path) -> None:
    assert local_files(built) == []
    for page in built.rglob("*.html"):
        for link in links(page.read_text(encoding="utf-8")):
            assert not link.startswith("/"), f"{page.name}: {link}"


def test_report_pages_share_assets_and_keep_their_outputs(built: Path) -> None:
    page = (built / "reports" / f"{RUN}.html").read_text(encoding="utf-8")
    assert '<link rel="stylesheet" href="../assets/page.css">' in page
    assert '<script src="../assets/plotly-cartesian.min.js" defer></script>' in page
    assert 'id="ms-plotly"' not in page  # the bundle is shared, not inlined
    evidence = re.search(r'<script type="application/json" id="ms-evidence">(.*?)</script>', page)
    assert evidence is not None
    assert json.loads(evidence.group(1))["observations"]
    assert "How this run was made" in page
    assert "script-src 'self' file: 'sha256-" in html.unescape(page)


def test_model_page_shows_versions_and_usage(built: Path) -> None:
    page = (built / "models" / "oracle.html").read_text(encoding="utf-8")
    assert "<code>oracle</code>" in page  # the model version the oracle reports
    assert page.count(f'href="../reports/{RUN}.html"') >= 2
    assert 'href="../reports/pressure-fixture.html"' in page


def test_sitemap_uses_the_base_url(content: Path, tmp_path: Path) -> None:
    build_site(content, tmp_path / "site", base_url="https://example.org/project")
    sitemap = (tmp_path / "site" / "sitemap.xml").read_text(encoding="utf-8")
    assert "<loc>https://example.org/project/</loc>" in sitemap
    assert f"<loc>https://example.org/project/reports/{RUN}.html</loc>" in sitemap
    assert "404.html" not in sitemap
    missing = (tmp_path / "site" / "404.html").read_text(encoding="utf-8")
    assert 'href="/project/index.html"' in missing
    assert 'href="/project/assets/site.css"' in missing


def test_search_index_is_a_script_of_titles_and_text(built: Path) -> None:
    text = (built / "assets" / "search-index.js").read_text(encoding="utf-8")
    assert text.startswith("window.MODELSCAPE_SEARCH = ")
    index = json.loads(text.removeprefix("window.MODELSCAPE_SEARCH = ").rstrip(";\n"))
    urls = {page["url"]: page for page in index["pages"]}
    assert urls["about.html"]["title"] == "About"
    assert "spurious" in urls["about.html"]["text"].lower()
    assert "models/late.html" in urls
    assert "404.html" not in urls
    # The search page loads the script when it needs it (not at all when Pagefind answers).
    search = (built / "search.html").read_text(encoding="utf-8")
    assert 'data-index="assets/search-index.js"' in search
    assert '<script src="assets/search.js"></script>' in search


def test_markdown_pages_escape_raw_html(content: Path, tmp_path: Path) -> None:
    (content / "pages" / "raw.md").write_text(
        "# Raw\n\n<script>alert(1)</script>\n\nSee [about](about.md#the-runs).\n",
        encoding="utf-8",
    )
    build_site(content, tmp_path / "site", strict=True)
    page = (tmp_path / "site" / "raw.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert '<a href="about.html#the-runs">about</a>' in page


def test_a_run_of_an_unknown_scenario_still_gets_pages(content: Path, tmp_path: Path) -> None:
    report = Report.load(content / "runs" / RUN / "report.json")
    other = content / "runs" / "elsewhere"
    other.mkdir()
    report.model_copy(update={"scenario": "elsewhere"}).save(other / "report.json")
    (other / "store.db").write_bytes((content / "runs" / RUN / "store.db").read_bytes())
    result = build_site(content, tmp_path / "site")
    assert any("spec 'elsewhere' is missing" in w for w in map(str, result.warnings))
    page = (tmp_path / "site" / "scenarios" / "elsewhere.html").read_text(encoding="utf-8")
    assert 'href="../reports/elsewhere.html"' in page


def test_run_notes_lose_links_into_their_folder(content: Path, tmp_path: Path) -> None:
    notes = content / "runs" / RUN / "README.md"
    notes.write_text(
        "# How\n\nThe [store](store.db), the [spec](../../specs/x.yaml) and "
        "[the docs](https://example.org/docs).\n",
        encoding="utf-8",
    )
    build_site(content, tmp_path / "site", strict=True)
    page = (tmp_path / "site" / "reports" / f"{RUN}.html").read_text(encoding="utf-8")
    assert "<h3>How</h3>" in page
    assert "The store, the spec and" in page
    assert '<a href="https://example.org/docs">the docs</a>' in page


def test_the_leaderboard_shows_n_a_with_its_reason(content: Path, tmp_path: Path) -> None:
    # The free-text stand-in for Gemma 3 270M never gives a readable answer on fair-lending:
    # its accuracy is a measured zero, its answer changes are n/a.
    run = copy_run("fair-lending-models-fixture", content, as_name="fair-lending-gemma")
    card = Report.load(run / "report.json").scorecard("gemma-3-270m")
    assert card.answered == 0.0
    assert card.spurious_change is None
    reason = card.undefined["spurious_change"]
    assert reason == "answered 0%: too few read answers (needs 70%)"
    build_site(content, tmp_path / "site", strict=True)
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    row = re.search(r'<a href="models/gemma-3-270m.html">gemma-3-270m</a>.*?</tr>', index, re.S)
    assert row is not None
    text = " ".join(re.sub(r"<[^>]+>", " ", inline_notes(row.group(0))).split())
    assert f"n/a ({reason})" in text
    assert "0.000" not in text
