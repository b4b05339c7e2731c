"""``modelscape serve``, and the built site served over HTTP under a project sub-path."""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from modelscape.scaffold.serve import SiteServer
from modelscape.site import SiteError, build_site
from tests.site.links import crawl, fetch


@pytest.fixture
def server(content: Path, tmp_path: Path) -> Iterator[SiteServer]:
    preview = SiteServer(content, tmp_path / "site", port=0, interval=0.1)
    preview.start()
    yield preview
    preview.stop()


def test_serve_builds_and_serves_pages_with_the_reload_script(server: SiteServer) -> None:
    assert server.url.startswith("http://127.0.0.1:")
    status, page = fetch(server.url)
    assert status == 200
    assert "modelscape leaderboard" in page
    assert '<script src="/__modelscape__/reload.js"></script>' in page
    assert "connect-src &#39;self&#39;" in page or "connect-src 'self'" in page
    status, script = fetch(server.url + "__modelscape__/reload.js")
    assert status == 200
    assert "location.reload" in script
    status, missing = fetch(server.url + "no/such/page.html")
    assert status == 404
    assert "Page not found" in missing


def test_the_files_on_disk_have_no_reload_script(server: SiteServer, tmp_path: Path) -> None:
    assert "__modelscape__" not in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")


def test_a_changed_file_is_rebuilt_and_the_version_moves(
    server: SiteServer, content: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, before = fetch(server.url + "__modelscape__/version")
    rebuilt = threading.Event()
    rebuild = server.rebuild

    def rebuild_and_tell() -> None:
        rebuild()
        rebuilt.set()

    monkeypatch.setattr(server, "rebuild", rebuild_and_tell)  # the watcher calls it
    page = content / "pages" / "about.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nFreshly added.\n", encoding="utf-8")
    assert rebuilt.wait(timeout=60)  # a guard against hanging, not a timing check
    assert fetch(server.url + "__modelscape__/version")[1] != before
    assert "Freshly added." in fetch(server.url + "about.html")[1]


def test_serve_listens_on_loopback_only(content: Path, tmp_path: Path) -> None:
    with pytest.raises(SiteError, match="loopback"):
        SiteServer(content, tmp_path / "site", host="0.0.0.0", port=0)


def test_the_site_works_under_a_project_sub_path(built: Path, tmp_path: Path) -> None:
    root = tmp_path / "pages-root"
    shutil.copytree(built, root / "project")
    handler = functools.partial(_Quiet, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{httpd.server_address[1]}/project/"
        fetched, broken = crawl(base + "index.html", inside=lambda url: url.startswith(base))
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert broken == []
    pages = {url.removeprefix(base) for url in fetched}
    # (the search page's script loads the search index itself: it is no link)
    assert {"index.html", "search.html", "about.html", "assets/search.js"} <= pages
    assert any(p.startswith("reports/") for p in pages)
    assert any(p.startswith("models/") for p in pages)


def test_the_404_page_links_from_the_base_path(content: Path, tmp_path: Path) -> None:
    build_site(content, tmp_path / "root" / "project", base_url="http://127.0.0.1/project/")
    handler = functools.partial(_Quiet, directory=str(tmp_path / "root"))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{httpd.server_address[1]}/project/"
        # A server shows 404.html at any depth; its links must work from there too.
        _, broken = crawl(base + "404.html", inside=lambda url: url.startswith(base))
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert broken == []


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def _get(url: str, host: str) -> int:
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    try:
        connection.putrequest("GET", "/index.html", skip_host=True)
        connection.putheader("Host", host)
        connection.endheaders()
        return connection.getresponse().status
    finally:
        connection.close()


def test_serve_answers_only_to_its_own_host_names(server: SiteServer) -> None:
    port = server.url.rstrip("/").rsplit(":", 1)[1]
    # DNS rebinding: a page of evil.example makes the browser ask for evil.example:PORT,
    # a name that now points at 127.0.0.1; the preview must not answer it.
    assert _get(server.url, f"evil.example:{port}") == 421
    assert _get(server.url, "127.0.0.1") == 421  # another port (80) is another origin
    assert _get(server.url, f"127.0.0.1:{port}") == 200
    assert _get(server.url, f"localhost:{port}") == 200
    assert _get(server.url, f"LOCALHOST:{port}") == 200


def test_serve_on_a_port_in_use_is_an_error(content: Path, tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(SiteError, match=rf"cannot serve on 127.0.0.1:{port}: the port is in"):
            SiteServer(content, tmp_path / "site", port=port)
