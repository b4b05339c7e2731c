"""The files and checks made from every page of the site at once: search index, sitemap,
the link check and the file-size check.

Each is made from the records the manifest keeps for every output (see
:mod:`modelscape.site.manifest`), so a build that changes one page makes them again without
reading any other page back.
"""

from __future__ import annotations

import html
import json
import posixpath
import re
from urllib.parse import unquote, urlsplit

from modelscape.site.confine import OutputFolder
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


def broken_links(outputs: dict[str, OutputRecord], base_path: str) -> list[BuildWarning]:
    """Warnings for links of any output that point at no file of the site."""
    warnings = []
    for page, record in sorted(outputs.items()):
        for link in record.links:
            target = _resolve(page, link, base_path)
            if target is not None and target not in outputs:
                missing = target.lstrip(chr(0))
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


def too_large(output: OutputFolder, paths: list[str], limit_mb: float) -> list[BuildWarning]:
    """A warning for every file of the site larger than ``limit_mb`` megabytes."""
    warnings = []
    for path in sorted(paths):
        size = output.size(path)
        if size is not None and size > limit_mb * 1e6:
            message = (
                f"{size / 1e6:.1f} MB, over the {limit_mb:g} MB limit (max_file_mb in "
                "site.yaml); GitHub Pages refuses files over 100 MB"
            )
            warnings.append(BuildWarning(path, None, message))
    return warnings
