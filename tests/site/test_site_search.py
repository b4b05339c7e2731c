"""Search on a large site: the Pagefind index a build writes beside the single-script index,
how a rebuild keeps or replaces it, the search page's policy, and both indexes in Chromium
(Pagefind over HTTP, the script from ``file://`` and wherever the Pagefind files are missing).

Under ``CI=true`` Pagefind must be installed (the ``search`` extra, which ``dev`` includes).
"""

from __future__ import annotations

import functools
import html
import http.server
import re
import shutil
import threading
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modelscape.scaffold.project import pages_workflow
from modelscape.site import SiteError, build_site
from modelscape.site import build as build_module
from modelscape.site import search as search_module
from modelscape.site.manifest import OutputRecord
from modelscape.site.search import (
    PAGEFIND,
    REQUIREMENT,
    PagefindError,
    pagefind_files,
    pagefind_installed,
)
from tests.site.sitetools import REPO, make_content
from tests.support.browsertools import need

_POLICY = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)"')
HOSTILE_TITLE = '<img src=x onerror="document.title=1">Hostile & title'


def _need_pagefind() -> None:
    need(pagefind_installed(), "pagefind is not installed (pip install -e '.[search]')")


def _policy(page: Path) -> str:
    found = _POLICY.search(page.read_text(encoding="utf-8"))
    assert found is not None
    return html.unescape(found.group(1))


def _pagefind_files(site: Path) -> set[str]:
    return {p.relative_to(site).as_posix() for p in (site / PAGEFIND).rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def searchable(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site built with Pagefind, with a page of its own word and a page with a hostile title."""
    _need_pagefind()
    folder = tmp_path_factory.mktemp("searchable")
    content = make_content(folder / "content")
    (content / "pages" / "zebra.md").write_text(
        "# Zebra notes\n\nThe quagga is a zebra of the plains.\n", encoding="utf-8"
    )
    (content / "pages" / "hostile.md").write_text(
        f"# {HOSTILE_TITLE}\n\nThis page carries the word okapi.\n", encoding="utf-8"
    )
    build_site(content, folder / "site", strict=True)
    return folder / "site"


def test_the_build_writes_a_pagefind_index_of_every_searchable_page(searchable: Path) -> None:
    files = _pagefind_files(searchable)
    assert {"pagefind/pagefind.js", "pagefind/pagefind-entry.json"} <= files
    assert any(f.startswith("pagefind/fragment/") for f in files)
    assert any(f.startswith("pagefind/index/") for f in files)
    # Pagefind's own interfaces are not published: the search page has its own.
    assert not [f for f in files if "-ui." in f or "highlight" in f]
    entry = (searchable / "pagefind" / "pagefind-entry.json").read_text(encoding="utf-8")
    assert '"page_count":' in entry


def test_only_the_search_page_may_compile_webassembly_and_fetch(searchable: Path) -> None:
    search = _policy(searchable / "search.html")
    assert "'wasm-unsafe-eval'" in search.split("script-src", 1)[1].split(";", 1)[0]
    assert "connect-src 'self'" in search
    for other in ("index.html", "about.html", "zebra.html", "404.html"):
        policy = _policy(searchable / other)
        assert "wasm-unsafe-eval" not in policy
        assert "connect-src" not in policy
    page = (searchable / "search.html").read_text(encoding="utf-8")
    assert 'data-pagefind="pagefind/pagefind.js"' in page


def test_a_rebuild_keeps_the_index_until_a_page_changes(tmp_path: Path) -> None:
    _need_pagefind()
    content = make_content(tmp_path / "content")
    site = tmp_path / "site"
    build_site(content, site)
    before = _pagefind_files(site)
    again = build_site(content, site)
    assert [p for p in again.rendered if p.startswith("pagefind/")] == []
    assert _pagefind_files(site) == before
    about = content / "pages" / "about.md"
    about.write_text(about.read_text(encoding="utf-8") + "\nA capybara.\n", encoding="utf-8")
    changed = build_site(content, site)
    assert [p for p in changed.rendered if p.startswith("pagefind/fragment/")] != []
    after = _pagefind_files(site)
    # The old fragment of the page is gone, and no file is left that the index does not name.
    assert set(changed.removed) == before - after
    assert before - after != set()
    fresh = tmp_path / "fresh"
    build_site(content, fresh)
    assert after == _pagefind_files(fresh)
    for name in after:
        assert (site / name).read_bytes() == (fresh / name).read_bytes(), name


def test_without_pagefind_the_search_page_uses_the_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(build_module, "pagefind_installed", lambda: False)
    content = make_content(tmp_path / "content")
    result = build_site(content, tmp_path / "site", strict=True)
    assert not (tmp_path / "site" / PAGEFIND).exists()
    assert [n for n in result.notes if "Pagefind is not installed" in n]
    page = (tmp_path / "site" / "search.html").read_text(encoding="utf-8")
    assert "data-pagefind" not in page
    assert "wasm-unsafe-eval" not in _policy(tmp_path / "site" / "search.html")


def test_a_pagefind_failure_is_a_warning_and_fails_a_strict_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _need_pagefind()

    def broken(records: object) -> dict[str, bytes]:
        raise PagefindError("OSError: the binary could not start")

    monkeypatch.setattr(search_module, "pagefind_files", broken)
    content = make_content(tmp_path / "content")
    result = build_site(content, tmp_path / "site")
    assert [w for w in map(str, result.warnings) if w.startswith("pagefind/: the Pagefind index")]
    with pytest.raises(SiteError, match="Pagefind index could not be made"):
        build_site(content, tmp_path / "strict", strict=True)
    assert not (tmp_path / "strict").exists()
    # A failure is not "nothing changed": the next build tries again, reusing every page.
    again = build_site(content, tmp_path / "site")
    assert [w for w in map(str, again.warnings) if w.startswith("pagefind/: the Pagefind index")]
    assert [p for p in again.rendered if p.endswith(".html")] == []
    monkeypatch.undo()
    mended = build_site(content, tmp_path / "site")
    assert [p for p in mended.rendered if p.startswith(f"{PAGEFIND}/")]
    pages = [p for p in mended.rendered if p.endswith(".html")]
    assert [p for p in pages if not p.startswith(f"{PAGEFIND}/")] == []
    assert build_site(content, tmp_path / "site").rendered == []


def test_pagefind_is_given_the_titles_and_text_as_they_are(tmp_path: Path) -> None:
    """Records are data to Pagefind: markup in a title or text stays text, byte for byte."""
    _need_pagefind()
    records = {
        "a.html": OutputRecord("d", title=HOSTILE_TITLE, text="</script><b>bold</b> okapi"),
        "b.html": OutputRecord("d", title="Plain", text="quagga"),
        "c.html": OutputRecord("d"),  # not searchable: no title
    }
    files = pagefind_files(records)
    entry = files["pagefind/pagefind-entry.json"].decode("utf-8")
    assert '"page_count":2' in entry
    assert files == pagefind_files(dict(reversed(list(records.items()))))


# -- in the browser ---------------------------------------------------------------------------
class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """No request log in the test output."""


@pytest.fixture
def served() -> Iterator[Any]:
    """A plain static server on 127.0.0.1 for a site folder, as a Pages host would serve it."""
    servers: list[http.server.ThreadingHTTPServer] = []

    def serve(folder: Path) -> str:
        handler = functools.partial(_Quiet, directory=str(folder))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_port}/"

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def searcher(browser: Any) -> Iterator[Any]:
    """Open a search page, type a query, and return what the page shows and fetched."""
    contexts: list[Any] = []

    def search(url: str, query: str) -> dict[str, Any]:
        context = browser.new_context()
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url)
        page.wait_for_load_state("load")
        fetched: list[str] = []
        page.on("requestfinished", lambda request: fetched.append(request.url))
        page.fill("#search-box", query)
        page.wait_for_selector("#search-results li")
        results = page.locator("#search-results")
        return {
            "page": page,
            "source": results.get_attribute("data-source"),
            "links": [a.get_attribute("href") for a in results.locator("a").all()],
            "titles": [a.text_content() for a in results.locator("a").all()],
            "images": results.locator("img").count(),
            "fetched": fetched,
            "errors": errors,
        }

    yield search
    for context in contexts:
        context.close()


def test_served_over_http_the_search_page_finds_a_page_through_pagefind(
    searchable: Path, served: Any, searcher: Any
) -> None:
    found = searcher(served(searchable) + "search.html", "quagga")
    assert found["source"] == "pagefind"
    assert found["links"] == ["/zebra.html"]
    assert not [url for url in found["fetched"] if url.endswith("search-index.js")]
    assert [url for url in found["fetched"] if url.endswith(".pf_fragment")]
    found["page"].locator("#search-results a").first.click()
    found["page"].wait_for_url("**/zebra.html")
    assert found["errors"] == []


def test_from_file_the_search_page_finds_the_same_page_through_the_script(
    searchable: Path, searcher: Any
) -> None:
    found = searcher((searchable / "search.html").as_uri(), "quagga")
    assert found["source"] == "script"
    assert found["links"] == ["zebra.html"]
    assert found["errors"] == []


def test_without_the_pagefind_files_a_served_site_falls_back_on_the_script(
    searchable: Path, served: Any, searcher: Any, tmp_path: Path
) -> None:
    copy = tmp_path / "site"
    shutil.copytree(searchable, copy)
    shutil.rmtree(copy / PAGEFIND)
    found = searcher(served(copy) + "search.html", "quagga")
    assert found["source"] == "script"
    assert found["links"] == ["zebra.html"]


@pytest.mark.parametrize("how", ["pagefind", "script"])
def test_a_hostile_title_is_shown_as_text(
    searchable: Path, served: Any, searcher: Any, how: str
) -> None:
    url = served(searchable) + "search.html" if how == "pagefind" else None
    found = searcher(url or (searchable / "search.html").as_uri(), "okapi")
    assert found["source"] == how
    assert found["titles"] == [HOSTILE_TITLE]
    assert found["images"] == 0
    assert found["page"].title() != "1"  # the image's handler never ran
    assert found["errors"] == []


def test_the_search_extra_and_the_workflows_install_the_same_pagefind() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    extras = pyproject["project"]["optional-dependencies"]
    assert extras["search"] == [REQUIREMENT]
    assert REQUIREMENT in extras["dev"]  # the tests' install has it: CI runs these tests
    # The workflows install the search extra, which is that requirement.
    workflow = pages_workflow(install=".")
    assert "python -m pip install '.[search]'" in workflow


@pytest.mark.parametrize(
    ("script", "reason"),
    [
        ("exit 3", "stopped"),
        ("printf 'bm90IGpzb24=,'; cat > /dev/null", "not Pagefind's"),
        ("exec sleep 600", "did not answer within 2 s"),  # reads nothing, answers nothing
    ],
)
def test_a_broken_pagefind_binary_is_named_not_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str, reason: str
) -> None:
    monkeypatch.setattr(search_module, "_ANSWER_SECONDS", 2)
    binary = tmp_path / "pagefind"
    binary.write_text(f"#!/bin/sh\n{script}\n", encoding="utf-8")
    binary.chmod(0o755)
    monkeypatch.setenv("PAGEFIND_BINARY_PATH", str(binary))
    need(pagefind_installed(), "pagefind is not installed (pip install -e '.[search]')")
    with pytest.raises(PagefindError, match=reason):
        pagefind_files({"a.html": OutputRecord("d", title="A", text="okapi")})
