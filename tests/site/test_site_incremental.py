"""Incremental builds: unchanged inputs are not rendered again; changed ones are."""

from __future__ import annotations

import shutil
from pathlib import Path

from modelscape.report import Report
from modelscape.site import build_site
from tests.site.sitetools import RUN


def test_a_rebuild_with_nothing_changed_renders_nothing(content: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    first = build_site(content, site)
    stamps = _stamps(site)
    second = build_site(content, site)
    assert second.rendered == []
    assert second.removed == []
    assert set(second.reused) >= set(first.rendered)
    assert second.warnings == first.warnings
    # Nothing is written, not even the manifest, and the folder is not staged and swapped:
    # every file and the folder itself are the same ones, untouched.
    assert _stamps(site) == stamps
    assert sorted(p.name for p in tmp_path.iterdir()) == ["content", "site"]


def _stamps(site: Path) -> dict[Path, tuple[int, int]]:
    """Each file's and folder's inode and modification time."""
    return {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in [site, *site.rglob("*")]}


def test_a_changed_page_is_rendered_alone(content: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_site(content, site)
    about = content / "pages" / "about.md"
    about.write_text(about.read_text(encoding="utf-8") + "\nA new sentence.\n", encoding="utf-8")
    result = build_site(content, site)
    # the page, and the search indexes that hold its text (Pagefind's when it is installed)
    own = sorted(p for p in result.rendered if not p.startswith("pagefind/"))
    assert own == ["about.html", "assets/search-index.js"]
    assert "A new sentence." in (site / "about.html").read_text(encoding="utf-8")


def test_a_changed_report_renders_the_pages_that_show_it(content: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_site(content, site)
    file = content / "runs" / RUN / "report.json"
    report = Report.load(file)
    report.model_copy(update={"description": "A changed description."}).save(file)
    result = build_site(content, site)
    pages = {p for p in result.rendered if p.endswith(".html")}
    assert pages == {
        "index.html",
        f"reports/{RUN}.html",
        "scenarios/return-window.html",
        "models/late.html",
        "models/oracle.html",
        "models/random.html",
    }


def test_removed_inputs_remove_their_pages(content: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_site(content, site)
    (content / "pages" / "method.md").unlink()
    shutil.rmtree(content / "runs" / RUN)
    result = build_site(content, site)
    assert "method.html" in result.removed
    assert f"reports/{RUN}.html" in result.removed
    assert not (site / "method.html").exists()
    assert not (site / "models" / "late.html").exists()


def test_a_deleted_output_file_is_made_again(content: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_site(content, site)
    (site / "models" / "oracle.html").unlink()
    assert build_site(content, site).rendered == ["models/oracle.html"]


def test_a_theme_change_renders_every_page(content: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    first = build_site(content, site)
    theme = content / "theme" / "templates"
    theme.mkdir(parents=True)
    (theme / "404.html.j2").write_text(
        '{% extends "default/404.html.j2" %}{% block content %}Gone.{% endblock %}',
        encoding="utf-8",
    )
    settings = content / "site.yaml"
    settings.write_text(settings.read_text(encoding="utf-8") + "theme: theme\n", encoding="utf-8")
    result = build_site(content, site)
    html = {p for p in first.rendered if p.endswith(".html")}
    assert html <= set(result.rendered)
    assert "Gone." in (site / "404.html").read_text(encoding="utf-8")
