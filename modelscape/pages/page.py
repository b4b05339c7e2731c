"""The page base: one HTML file from a Jinja2 template, with its assets, data and policy inline.

A page is self-contained by default: its stylesheet, its scripts, the data it shows and (for
pages with charts) the plotting library are all inside the file, so it opens from ``file://``
with no network at all. A Content-Security-Policy in a ``<meta>`` tag allows exactly the inline
scripts and styles the page ships, by their sha256 hashes, and nothing else: model output is
embedded as JSON data and written into the page as text, never as markup.

The site builder reuses the same templates: every page template fills ``{% block content %}``
of ``base.html.j2`` (a theme can override either), and ``assets=`` makes the page reference the
shared stylesheet and plotting bundle by relative URL instead of inlining them
(:func:`write_assets` puts those files next to the pages).
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
import shutil
import zlib
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from os import PathLike
from pathlib import Path
from typing import Any, ClassVar

import jinja2
from markupsafe import Markup

from modelscape.pages.notes import number_notes

__all__ = [
    "PLOTLY_VERSION",
    "Page",
    "asset_text",
    "content_policy",
    "environment",
    "json_script",
    "plotly_bundle",
    "source_hash",
    "write_assets",
]

#: The plotly.js version of the vendored partial bundle (scripts/vendor-plotly refreshes it).
PLOTLY_VERSION = "4.1.1"
PLOTLY_FILE = "plotly-cartesian.min.js"
PLOTLY_LICENSE = "plotly-cartesian.LICENSE"
STYLESHEET = "page.css"

_ASSETS = resources.files("modelscape.pages") / "assets"

# JSON inside <script type="application/json"> ends at the first "</script"; escaping these
# characters keeps any text (model output included) from closing the element or opening a
# comment, and U+2028/U+2029 from breaking older JavaScript parsers. Each is replaced in turn
# (no escape holds a character escaped later): str.translate with a mapping to longer text
# took twenty times longer over a report page's data.
_JSON_ESCAPES = (
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("&", "\\u0026"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)


@cache
def asset_text(name: str) -> str:
    """The text of one file in ``modelscape/pages/assets``."""
    return (_ASSETS / name).read_text(encoding="utf-8")


@cache
def plotly_bundle() -> str:
    """The vendored plotly.js bundle, zlib-compressed and base64-encoded, as pages embed it.

    The browser unpacks it with ``DecompressionStream("deflate")`` (the zlib format), which
    keeps a page with charts near 0.6 MB of library instead of 1.5 MB.
    """
    raw = (_ASSETS / PLOTLY_FILE).read_bytes()
    return base64.b64encode(zlib.compress(raw, 9)).decode("ascii")


def json_script(value: Any) -> Markup:
    """``value`` as JSON that is safe inside ``<script type="application/json">``.

    NaN and infinities, which JSON cannot hold (``JSON.parse`` fails on Python's ``NaN``),
    become ``null``: the page shows a missing number rather than failing to load its data.
    """
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except ValueError:  # a non-finite number somewhere: replace them all, then dump again
        text = json.dumps(
            _finite(value), ensure_ascii=False, allow_nan=False, separators=(",", ":")
        )
    for character, escaped in _JSON_ESCAPES:
        text = text.replace(character, escaped)
    return Markup(text)


def _finite(value: Any) -> Any:
    """``value`` with every NaN and infinity replaced by None, in any list or mapping."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def source_hash(text: str) -> str:
    """A Content-Security-Policy source that allows exactly this inline script or style."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def content_policy(
    scripts: Sequence[str],
    styles: Sequence[str],
    images: Sequence[str],
    *,
    connect: Sequence[str] = (),
) -> str:
    """A Content-Security-Policy that denies everything but the sources given.

    The one place a policy is assembled, for single pages and site pages alike: nothing by
    default, no ``<base>``, no form submissions; ``connect`` only when something polls.
    """
    directives = [
        "default-src 'none'",
        f"script-src {' '.join(scripts)}",
        f"style-src {' '.join(styles)}",
        f"img-src {' '.join(images)}",
        *([f"connect-src {' '.join(connect)}"] if connect else []),
        "base-uri 'none'",
        "form-action 'none'",
    ]
    return "; ".join(directives)


@cache
def environment() -> jinja2.Environment:
    """The Jinja2 environment of the shipped templates, autoescaping everything."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("modelscape.pages", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["json_script"] = json_script
    env.filters["pretty_json"] = lambda value: json.dumps(value, indent=1, ensure_ascii=False)
    return env


def write_assets(directory: str | PathLike[str]) -> list[Path]:
    """Copy the shared assets (stylesheet, plotting bundle and its license) into ``directory``.

    Pages rendered with ``assets="<relative url of directory>"`` load them from there.
    """
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in (STYLESHEET, PLOTLY_FILE, PLOTLY_LICENSE):
        with resources.as_file(_ASSETS / name) as source:
            shutil.copyfile(source, folder / name)
        written.append(folder / name)
    return written


class Page:
    """A self-contained HTML page: ``html()`` renders it, ``save()`` writes it, and Jupyter
    shows it inline through ``_repr_html_()``.

    Subclasses name their ``template`` and ``scripts`` (asset files run inline, in order),
    say whether they draw ``charts``, and return their template variables from ``context()``.
    """

    template: ClassVar[str]
    scripts: ClassVar[tuple[str, ...]] = ("page.js",)
    charts: ClassVar[bool] = False

    @property
    def title(self) -> str:
        """The page title."""
        raise NotImplementedError

    def context(self) -> dict[str, Any]:
        """The variables the page's template renders."""
        raise NotImplementedError

    def html(
        self, *, assets: str | None = None, templates: jinja2.Environment | None = None
    ) -> str:
        """The page as one HTML document.

        With ``assets`` (a relative URL such as ``"../assets"``), the stylesheet and plotting
        bundle are referenced from there instead of inlined; ``templates`` replaces the shipped
        template environment (a site theme that overrides blocks). Scripts and data stay
        inline either way.
        """
        env = templates or environment()
        scripts = [Markup(asset_text(name)) for name in self.scripts]
        style = None if assets is not None else Markup(asset_text(STYLESHEET))
        base = None if assets is None else assets.rstrip("/")
        policy = _policy(scripts, style, external=base is not None, charts=self.charts)
        variables: Mapping[str, Any] = {
            "title": self.title,
            "policy": policy,
            "style": style,
            "scripts": scripts,
            "assets": base,
            "charts": self.charts,
            "plotly_bundle": plotly_bundle() if self.charts and base is None else None,
            "plotly_file": PLOTLY_FILE,
            "stylesheet": STYLESHEET,
            "plotly_version": PLOTLY_VERSION,
            **self.context(),
        }
        return number_notes(env.get_template(self.template).render(variables))

    def save(self, path: str | PathLike[str], *, assets: str | None = None) -> Path:
        """Write the page to ``path`` (UTF-8) and return the path."""
        target = Path(path)
        target.write_text(self.html(assets=assets), encoding="utf-8")
        return target

    def _repr_html_(self) -> str:
        # Notebooks insert HTML into their own document, where a page's policy, scripts and
        # styles would clash with the notebook's; a sandboxed frame keeps the page whole.
        document = html.escape(self.html(), quote=True)
        return (
            f'<iframe title="{html.escape(self.title)}" srcdoc="{document}" '
            'sandbox="allow-scripts" style="width:100%;height:640px;border:0"></iframe>'
        )


def _policy(scripts: list[Markup], style: Markup | None, *, external: bool, charts: bool) -> str:
    """The page's Content-Security-Policy: nothing but its own inline code (and assets)."""
    script_sources = [source_hash(str(script)) for script in scripts]
    style_sources = [source_hash(str(style))] if style is not None else []
    if external:
        script_sources.insert(0, "'self'")
        style_sources.insert(0, "'self'")
    if charts:
        # The unpacked plotting bundle runs from a blob: URL. Plotly adds its rules to an empty
        # <style> element it creates, through the CSS object model, which the hash of the empty
        # text allows without 'unsafe-inline'.
        script_sources.append("blob:")
        style_sources.append(source_hash(""))
    return content_policy(script_sources, style_sources, ["data:"])
