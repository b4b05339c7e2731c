"""Incremental builds: unchanged inputs are not rendered again; changed ones are."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

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


def _use_a_theme(content: Path) -> None:
    """Give the content a theme of its own, with a 404 page that says "Gone."."""
    theme = content / "theme" / "templates"
    theme.mkdir(parents=True)
    (theme / "404.html.j2").write_text(
        '{% extends "default/404.html.j2" %}{% block content %}Gone.{% endblock %}',
        encoding="utf-8",
    )
    settings = content / "site.yaml"
    settings.write_text(settings.read_text(encoding="utf-8") + "theme: theme\n", encoding="utf-8")


def test_a_theme_change_renders_every_page(content: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    first = build_site(content, site)
    _use_a_theme(content)
    result = build_site(content, site)
    html = {p for p in first.rendered if p.endswith(".html")}
    assert html <= set(result.rendered)
    assert "Gone." in (site / "404.html").read_text(encoding="utf-8")


def _bytes(site: Path) -> dict[str, bytes]:
    """The files of a site but the manifest pair and the Pagefind index (whose chunks change
    with any page's text), by site path."""
    return {
        p.relative_to(site).as_posix(): p.read_bytes()
        for p in site.rglob("*")
        if p.is_file() and not p.name.startswith(".modelscape-") and "pagefind" not in p.parts
    }


def _change_page(content: Path) -> None:
    about = content / "pages" / "about.md"
    about.write_text(about.read_text(encoding="utf-8") + "\nA new sentence.\n", encoding="utf-8")


def _change_run(content: Path) -> None:
    file = content / "runs" / RUN / "report.json"
    report = Report.load(file)
    report.model_copy(update={"description": "A changed description."}).save(file)


def _change_theme(content: Path) -> None:
    page = content / "theme" / "templates" / "404.html.j2"
    page.write_text(page.read_text(encoding="utf-8").replace("Gone.", "Moved."), "utf-8")


def _change_settings(content: Path) -> None:
    settings = content / "site.yaml"
    text = settings.read_text(encoding="utf-8")
    settings.write_text(text.replace("title: modelscape leaderboard", "title: Renamed"), "utf-8")


#: Each kind of input, changed; the HTML pages whose bytes must change, and the other files
#: that may (the search index holds page texts; the leaderboard's data names the site).
CHANGES = {
    "page": (_change_page, {"about.html"}, {"assets/search-index.js"}),
    "run": (
        _change_run,
        {"index.html", f"reports/{RUN}.html"},  # the two that show its description
        {"assets/search-index.js"},
    ),
    "theme file": (_change_theme, {"404.html"}, set()),
    "settings": (_change_settings, None, {"assets/search-index.js", "leaderboard.json"}),
}


@pytest.mark.parametrize("kind", sorted(CHANGES))
def test_each_kind_of_change_remakes_what_shows_it_and_nothing_else(
    content: Path, tmp_path: Path, kind: str
) -> None:
    change, pages, others = CHANGES[kind]
    _use_a_theme(content)
    site = tmp_path / "site"
    build_site(content, site)
    before = _bytes(site)
    change(content)
    result = build_site(content, site)
    after = _bytes(site)
    changed = {path for path in before if before[path] != after.get(path)}
    html = {path for path in changed if path.endswith(".html")}
    if pages is None:  # a setting every page shows (the site's title)
        assert html == {path for path in before if path.endswith(".html")}
    else:
        assert html == pages
    assert changed - html <= others
    assert set(after) == set(before)
    assert html <= set(result.rendered)
    # Once made, the change is the site as it is: the next build has nothing to write.
    stamps = _stamps(site)
    again = build_site(content, site)
    assert again.rendered == []
    assert _stamps(site) == stamps


def _link_warnings(result: object) -> list[str]:
    return sorted(str(w) for w in result.warnings if "broken link" in str(w))  # type: ignore[attr-defined]


@pytest.mark.parametrize("link", ["later.html", "later.html#part", "./later.html?x=1"])
def test_a_kept_page_sees_the_pages_added_and_removed_around_it(
    content: Path, tmp_path: Path, link: str
) -> None:
    # A kept page keeps the last build's answer for its links only while no path they may
    # reach came or went: each build must warn as a clean build of the same content would.
    site = tmp_path / "site"
    (content / "pages" / "early.md").write_text(f"# Early\n\n[on]({link})\n", "utf-8")
    assert _link_warnings(build_site(content, site)) != []
    later = content / "pages" / "later.md"
    later.write_text("# Later\n", encoding="utf-8")
    added = build_site(content, site)
    assert "early.html" not in added.rendered
    assert _link_warnings(added) == _link_warnings(build_site(content, tmp_path / "clean-1"))
    assert _link_warnings(added) == []
    later.unlink()
    removed = build_site(content, site)
    assert _link_warnings(removed) == _link_warnings(build_site(content, tmp_path / "clean-2"))
    assert _link_warnings(removed) != []
    # An unrelated page changed: the kept page's warning is repeated, not lost.
    about = content / "pages" / "about.md"
    about.write_text(about.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    assert _link_warnings(build_site(content, site)) == _link_warnings(removed)
