"""A link checker of our own: every href and src of every page resolves to a file."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from collections.abc import Callable
from html import unescape
from pathlib import Path
from urllib.parse import urljoin, urlsplit

_LINK = re.compile(r"""\s(?:href|src)="([^"]*)\"""")


def links(html: str) -> list[str]:
    """Every href and src of a page."""
    return [unescape(link) for link in _LINK.findall(html)]


def local_files(site: Path) -> list[str]:
    """Broken links of a site on disk, each as ``page: link``, resolved as from file://."""
    broken = []
    for page in sorted(site.rglob("*.html")):
        for link in links(page.read_text(encoding="utf-8")):
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or not parts.path:
                continue
            target = (page.parent / parts.path).resolve()
            if not target.is_file():
                broken.append(f"{page.relative_to(site)}: {link}")
    return broken


def fetch(url: str) -> tuple[int, str]:
    """The status and text of a URL on the loopback server."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")


def crawl(start: str, *, inside: Callable[[str], bool]) -> tuple[set[str], list[str]]:
    """Fetch every page reachable from ``start`` and every file its pages link to.

    Returns the URLs fetched and the broken ones (``page -> link (status)``). Links that
    leave ``inside`` are not followed.
    """
    seen: set[str] = set()
    broken: list[str] = []
    queue = [(start, "start")]
    while queue:
        url, origin = queue.pop()
        url = url.split("#")[0]
        if url in seen:
            continue
        seen.add(url)
        status, text = fetch(url)
        if status != 200:
            broken.append(f"{origin} -> {url} ({status})")
            continue
        if not url.endswith((".html", "/")):
            continue
        for link in links(text):
            target = urljoin(url, link)
            if urlsplit(target).scheme in ("http", "https") and inside(target):
                queue.append((target, url))
    return seen, broken
