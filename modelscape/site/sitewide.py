"""The files and checks made from every page of the site at once: search index, sitemap,
the link check and the file-size check.

Each is made from the records the manifest keeps for every output (see
:mod:`modelscape.site.manifest`), so a build that changes one page makes them again without
reading any other page back. The link check goes further: a page kept from the last build
keeps the broken links that build found, unless a path its links may reach was added or
removed since, so a build that changes one page resolves the links of that page alone.
"""

from __future__ import annotations

import html
import json
import posixpath
import re
from collections.abc import Collection, Mapping
from urllib.parse import unquote, urlsplit

from modelscape.site.manifest import OutputRecord
from modelscape.site.warning import BuildWarning

__all__ = ["broken_links", "links_of", "search_index", "sitemap", "too_large"]

_LINK = re.compile(r"""\s(?:href|src)="([^"]*)\"""")


def links_of(page: str) -> list[str]:
    """Every ``href`` and ``src`` of an HTML page, in order, each once."""
    return list(dict.fromkeys(html.unescape(link) for link in _LINK.findall(page)))


def _resolve(page: str, link: str, base_path: str) -> str | None:
    """The site path a link of ``page`` points to, or None if it leaves the site."""
    parts = urlsplit(link)
    if parts.scheme or parts.netloc or not parts.path:
        return None  # another site, mailto:, data:, or a fragment of this page
    path = unquote(parts.path)
    if path.startswith("/"):
        if not path.startswith(base_path):
            return "\0" + path  # an absolute path outside the site: always broken
        path = path[len(base_path) :]
    else:
        path = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
    if path == "." or path.endswith("/"):
        path = posixpath.join(path, "index.html")
    return path


def _may_reach(links: list[str], names: Collection[str]) -> bool:
    """Whether any of ``links`` may point at a file of one of ``names`` (file names): the
    name is in the link, or the link ends at a folder (its ``index.html``). A cheap test
    that never says no wrongly; resolving the link says for certain."""
    for link in links:
        text = unquote(link)
        if any(name in text for name in names):
            return True
        if "index.html" in names and urlsplit(text).path.endswith(("/", ".")):
            return True
    return False


def broken_links(
    outputs: Mapping[str, OutputRecord],
    base_path: str,
    *,
    checked: Collection[str] = (),
    changed: Collection[str] = (),
) -> list[BuildWarning]:
    """Warnings for links of any output that point at no file of the site; each record's
    ``broken`` is set to its broken links, for the next build.

    ``checked``: the outputs whose ``broken`` the last build found, and whose links are the
    ones it checked; ``changed``: the paths added or removed since. A checked output whose
    links may reach none of those keeps its answer; every other output's links are resolved.
    """
    names = {posixpath.basename(path) for path in changed}
    warnings = []
    for page, record in sorted(outputs.items()):
        if page not in checked or (names and _may_reach(record.links, names)):
            record.broken = [
                link
                for link in record.links
                if (target := _resolve(page, link, base_path)) is not None and target not in outputs
            ]
        for link in record.broken:
            missing = str(_resolve(page, link, base_path)).lstrip(chr(0))
            warnings.append(BuildWarning(page, None, f"broken link {link!r} (no {missing})"))
    return warnings


def search_index(outputs: dict[str, OutputRecord]) -> str:
    """The search index as a script that sets ``window.MODELSCAPE_SEARCH``.

    A script rather than JSON, so the search page loads it with ``<script src>``, which works
    from ``file://`` where ``fetch`` of a local JSON file is refused.
    """
    pages = [
        {"url": path, "title": record.title, "text": record.text}
        for path, record in sorted(outputs.items())
        if record.title is not None
    ]
    text = json.dumps({"pages": pages}, ensure_ascii=False, separators=(",", ":"))
    # The JSON sits in a script file, not in HTML, but "</" is still escaped so that nothing in
    # it could ever end a script element if the index were inlined.
    return "window.MODELSCAPE_SEARCH = " + text.replace("</", "<\\/") + ";\n"


def sitemap(paths: list[str], base_url: str) -> str:
    """``sitemap.xml`` of the given pages, each at its absolute address under ``base_url``.

    Crawlers ignore relative locations, so a site without a public address has no sitemap
    (the build leaves it out and says so).
    """

    def location(path: str) -> str:
        return base_url + ("" if path == "index.html" else path)

    entries = "".join(
        f"  <url><loc>{html.escape(location(p))}</loc></url>\n" for p in sorted(paths)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"{entries}</urlset>\n"
    )


def too_large(outputs: Mapping[str, OutputRecord], limit_mb: float) -> list[BuildWarning]:
    """A warning for every file of the site larger than ``limit_mb`` megabytes, by the size
    its record holds (the size of the file as written, or as found intact)."""
    warnings = []
    for path, record in sorted(outputs.items()):
        size = record.size
        if size is not None and size > limit_mb * 1e6:
            message = (
                f"{size / 1e6:.1f} MB, over the {limit_mb:g} MB limit (max_file_mb in "
                "site.yaml); GitHub Pages refuses files over 100 MB"
            )
            warnings.append(BuildWarning(path, None, message))
    return warnings
