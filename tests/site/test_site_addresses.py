"""Addresses and failed builds: the 404 page at any depth without a base URL, the sitemap's
absolute addresses, a strict build that fails writing nothing, and site.yaml's hints."""

from __future__ import annotations

import functools
import http.server
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modelscape.site import SiteError, build_site
from tests.site.sitetools import RUN


class _Pages(http.server.SimpleHTTPRequestHandler):
    """Serves a folder as GitHub Pages does a project: ``/project/404.html`` for any address
    that holds no file, with status 404."""

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        if code != 404:
            super().send_error(code, message, explain)
            return
        body = (Path(self.directory) / "project" / "404.html").read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def pages(content: Path, tmp_path: Path) -> Iterator[str]:
    """The small site built without a base URL, served under /project/ like GitHub Pages."""
    build_site(content, tmp_path / "root" / "project")
    handler = functools.partial(_Pages, directory=str(tmp_path / "root"))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/project/"
    finally:
        httpd.shutdown()
        httpd.server_close()


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.parametrize("missing", ["gone.html", "a/b/c", "reports/gone/deeper.html"])
def test_the_404_page_finds_the_site_at_any_depth(browser: Any, pages: str, missing: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.set_default_timeout(10_000)
        response = page.goto(pages + missing)
        assert response is not None
        assert response.status == 404
        page.wait_for_selector("html[data-root]", state="attached")
        assert page.evaluate("document.documentElement.dataset.root") == "/project/"
        hrefs = page.locator("a[href]").evaluate_all("links => links.map(a => a.href)")
        local = [h for h in hrefs if h.startswith(pages) and "#" not in h]
        assert pages + "index.html" in local
        assert pages + "search.html" in local
        assert [h for h in local if _status(h) != 200] == []
        # The stylesheet is inline, so the page is styled wherever it is shown.
        assert page.evaluate("getComputedStyle(document.body).maxWidth") == "1152px"
    finally:
        context.close()


def test_the_404_page_from_disk_finds_its_own_folder(browser: Any, built: Path) -> None:
    context = browser.new_context()
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto((built / "404.html").as_uri())
        page.wait_for_selector("html[data-root]", state="attached")
        root = page.evaluate("document.documentElement.dataset.root")
        assert root == built.as_uri().removeprefix("file://") + "/"
        assert errors == []  # the first folder probed is the right one: nothing failed to load
    finally:
        context.close()


def test_without_a_base_url_the_404_page_has_no_absolute_or_asset_links(built: Path) -> None:
    page = (built / "404.html").read_text(encoding="utf-8")
    assert 'href="/' not in page
    assert 'src="/' not in page
    assert "assets/page.css" not in page
    assert "<style>" in page  # nothing to load from a guess
    assert "<noscript>" in page


def test_the_sitemap_is_left_out_without_a_base_url(content: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    with_base = build_site(content, site, base_url="https://example.org/project/")
    assert [n for n in with_base.notes if n.startswith("sitemap")] == []
    locations = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert "<loc>https://example.org/project/about.html</loc>" in locations
    assert "<loc>about.html</loc>" not in locations
    without = build_site(content, site)
    assert not (site / "sitemap.xml").exists()  # the old one would hold a stale address
    assert without.warnings == []
    assert [n for n in without.notes if n.startswith("sitemap.xml left out")]


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def test_a_strict_build_that_fails_changes_nothing(content: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    (content / "pages" / "extra.md").write_text("# Extra\n", encoding="utf-8")
    (content / "pages" / "CNAME").write_text("example.org\n", encoding="utf-8")
    build_site(content, site, strict=True)
    before = _files(site)
    about = content / "pages" / "about.md"
    about.write_text(about.read_text(encoding="utf-8") + "\n[gone](nowhere.md)\n", "utf-8")
    (content / "pages" / "extra.md").unlink()
    with pytest.raises(SiteError, match=r"1 warning \(--strict\), nothing written"):
        build_site(content, site, strict=True)
    assert _files(site) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["content", "site"]  # no leftovers
    # A loose build then writes it all, keeps the published CNAME, and stays incremental.
    loose = build_site(content, site)
    assert "extra.html" in loose.removed
    assert sorted(p for p in loose.rendered if p.endswith(".html")) == ["about.html"]
    assert (site / "CNAME").read_text(encoding="utf-8") == "example.org\n"
    assert "nowhere.html" in (site / "about.html").read_text(encoding="utf-8")


def test_a_failed_build_names_the_output_folder_not_its_stage(
    content: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    (content / "runs" / RUN / "store.db").unlink()
    with pytest.raises(SiteError) as raised:
        build_site(content, site, strict=True)
    assert ".building-" not in str(raised.value)
    assert not site.exists()


def test_a_staged_build_does_not_write_into_the_published_files(
    content: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    build_site(content, site)
    old = site / "about.html"
    keep = old.open("rb")  # a reader of the old page (a server) keeps what it opened
    try:
        about = content / "pages" / "about.md"
        about.write_text(about.read_text(encoding="utf-8") + "\nNew words.\n", "utf-8")
        build_site(content, site)
        assert b"New words." not in keep.read()
    finally:
        keep.close()
    assert "New words." in old.read_text(encoding="utf-8")


def test_an_unknown_setting_names_the_nearest_one(content: Path, tmp_path: Path) -> None:
    (content / "site.yaml").write_text(
        "title: x\nbase_ur: https://example.org/\nnavigation:\n  - {title: A, ulr: a.html}\n",
        encoding="utf-8",
    )
    with pytest.raises(SiteError) as raised:
        build_site(content, tmp_path / "site")
    message = str(raised.value)
    assert "base_ur: Extra inputs are not permitted (did you mean 'base_url'?)" in message
    assert "navigation.0.ulr: Extra inputs are not permitted (did you mean 'url'?)" in message
    assert str(content / "site.yaml") in message
