"""Bytes a browser fetches for one search query, through each of the site's two indexes.

The site is served on 127.0.0.1 by a plain static server; Chromium (Debian's, through
Playwright) opens the search page, types the query and waits for results. Every response that
arrives after the page has loaded is counted: its body as served, and gzipped (as a static host
such as GitHub Pages sends it). For the single-script index the same site is served with its
``pagefind/`` folder answered 404, so the page falls back on the script, as it does when the
Pagefind files are missing.

    python benchmarks/search_bytes.py SITE [QUERY]
"""

from __future__ import annotations

import functools
import gzip
import http.server
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.support.browsertools import chromium  # noqa: E402 (the repository's own helper)


class _Handler(http.server.SimpleHTTPRequestHandler):
    hide_pagefind = False

    def log_message(self, format: str, *args: Any) -> None:
        """No request log."""

    def do_GET(self) -> None:
        """The file, or 404 for the Pagefind folder when it is hidden."""
        if self.hide_pagefind and self.path.startswith("/pagefind/"):
            self.send_error(404)
            return
        super().do_GET()


@contextmanager
def _served(site: Path, *, hide_pagefind: bool) -> Iterator[str]:
    handler = type("Handler", (_Handler,), {"hide_pagefind": hide_pagefind})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(site))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/search.html"
    finally:
        server.shutdown()
        server.server_close()


def _query(browser: Any, url: str, query: str) -> tuple[str, int, int, int, int]:
    """The index used, the responses, their bytes and gzipped bytes, and the results shown."""
    page = browser.new_page()
    page.goto(url)
    page.wait_for_load_state("networkidle")
    bodies: list[bytes] = []

    def count(response: Any) -> None:
        if response.status == 200:
            bodies.append(response.body())

    page.on("response", count)
    page.fill("#search-box", query)
    page.wait_for_selector("#search-results li", timeout=60_000)
    page.wait_for_load_state("networkidle")
    source = page.locator("#search-results").get_attribute("data-source")
    shown = page.locator("#search-results li").count()
    page.close()
    zipped = sum(len(gzip.compress(body, 6)) for body in bodies)
    return source, len(bodies), sum(map(len, bodies)), zipped, shown


def measure(site: Path, query: str) -> list[str]:
    """Lines that say what one query fetched through each index."""
    lines = []
    with chromium() as browser:
        for hide in (False, True):
            with _served(site, hide_pagefind=hide) as url:
                source, responses, size, zipped, shown = _query(browser, url, query)
            lines.append(
                f"query {query!r} via {source:8}: {responses:3} responses, "
                f"{size / 1000:8.1f} kB ({zipped / 1000:7.1f} kB gzipped), {shown} results shown"
            )
    return lines


if __name__ == "__main__":
    for line in measure(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "accuracy"):
        print(line)
