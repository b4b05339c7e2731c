"""Rendering one page of the site: the page's template, framed by the site, with its policy.

Site pages are :class:`~modelscape.pages.Page` objects rendered through the theme's template
environment, with the site's frame added (title, navigation, the relative path back to the
site's root) and the shared assets referenced instead of inlined: one stylesheet and one
plotting bundle serve every page.

The Content-Security-Policy of a site page allows its inline scripts by hash, as a single page
does, and the site's own files by ``'self'``. Opened from ``file://``, some browsers give the
page an opaque origin that ``'self'`` does not match, so ``file:`` is allowed too; an HTTP(S)
page can never load ``file:`` URLs, so that adds nothing when the site is served.
"""

from __future__ import annotations

import traceback
from collections.abc import Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, cast

import jinja2
from jinja2.exceptions import SecurityError
from markupsafe import Markup

from modelscape._version import __version__
from modelscape.pages.notes import number_notes
from modelscape.pages.page import (
    PLOTLY_FILE,
    PLOTLY_VERSION,
    STYLESHEET,
    Page,
    asset_text,
    content_policy,
    source_hash,
)
from modelscape.site import limits
from modelscape.site.config import SiteConfig, SiteError
from modelscape.site.theme import ASSETS

__all__ = ["Frame", "policy", "relative_root", "render", "rendering"]

#: Site scripts every page loads (from the theme's static files).
SITE_SCRIPTS: tuple[str, ...] = ("site.js", "tables.js")


def relative_root(path: str) -> str:
    """The relative URL from a page at ``path`` back to the site's root (``""``, ``"../"``)."""
    return "../" * path.count("/")


def policy(
    inline_scripts: Sequence[str],
    *,
    charts: bool,
    serve: bool = False,
    inline_styles: Sequence[str] = (),
    script_sources: Sequence[str] = (),
    connect: Sequence[str] = (),
) -> str:
    """The policy of a site page: its inline scripts and styles by hash, its site files by
    origin.

    ``charts``: Plotly fills an empty ``<style>`` element through the CSS object model, which
    the hash of the empty text allows. ``serve``: the reload script of ``modelscape serve``
    polls the server, which needs ``connect-src``. ``inline_styles``: a page that cannot know
    where the site's stylesheet is (the 404 page without a base URL) carries it inline.
    ``script_sources`` and ``connect``: what one page alone needs besides (the search page's
    Pagefind compiles WebAssembly and fetches its index).
    """
    scripts = ["'self'", "file:", *script_sources, *(source_hash(s) for s in inline_scripts)]
    hashed = [*([""] if charts else []), *inline_styles]
    styles = ["'self'", "file:", *(source_hash(s) for s in hashed)]
    images = ["'self'", "file:", "data:"]
    sources = list(dict.fromkeys([*(["'self'"] if serve else []), *connect]))
    return content_policy(scripts, styles, images, connect=sources)


@dataclass(frozen=True)
class Frame:
    """Where a page sits in the site and what surrounds it.

    ``path`` is the page's file in the site (``reports/x.html``); ``root`` is how its links
    reach the site's root: relative (``../``), or the site's path (``/project/``) for the 404
    page, which a server shows at any depth.
    """

    config: SiteConfig
    path: str
    root: str

    @classmethod
    def at(cls, config: SiteConfig, path: str) -> Frame:
        """The frame of an ordinary page: links relative to its own place."""
        return cls(config, path, relative_root(path))

    def href(self, target: str) -> str:
        """A link from this page to a site path (``models/x.html``) or a full URL."""
        if "://" in target or target.startswith(("mailto:", "#")):
            return target
        return self.root + target

    def variables(self) -> dict[str, Any]:
        """The template variables of the site frame."""
        config = self.config
        navigation = [
            {
                "title": item.title,
                "href": item.url if item.external else self.href(item.url),
                "current": not item.external and item.url == self.path,
            }
            for item in config.navigation
        ]
        return {
            "site": config,
            "root": self.root,
            "navigation": navigation,
            "page_path": self.path,
            "modelscape_version": __version__,
        }


def render(page: Page, env: jinja2.Environment, frame: Frame) -> str:
    """One page of the site as HTML: the page's own variables, the frame's, shared assets."""
    scripts = [Markup(asset_text(name)) for name in page.scripts]
    # A page may carry scripts and a stylesheet of its own inline (the 404 page does when it
    # cannot know where the site's files are); both are allowed by their hashes.
    scripts.extend(Markup(text) for text in getattr(page, "inline_scripts", ()))
    inline_style: str | None = getattr(page, "inline_style", None)
    site_scripts = [
        frame.href(f"{ASSETS}/{name}")
        for name in (*SITE_SCRIPTS, *getattr(page, "site_scripts", ()))
        if inline_style is None
    ]
    variables: dict[str, Any] = {
        "title": page.title,
        "policy": policy(
            [str(s) for s in scripts],
            charts=page.charts,
            inline_styles=[inline_style] if inline_style is not None else [],
            script_sources=getattr(page, "script_sources", ()),
            connect=getattr(page, "connect_sources", ()),
        ),
        "inline_style": None if inline_style is None else Markup(inline_style),
        "style": None,
        "scripts": scripts,
        "site_scripts": site_scripts,
        "assets": frame.href(ASSETS),
        "charts": page.charts,
        "plotly_bundle": None,
        "plotly_file": PLOTLY_FILE,
        "stylesheet": STYLESHEET,
        "plotly_version": PLOTLY_VERSION,
        **page.context(),
        **frame.variables(),
    }
    with rendering(page.template):
        made = _streamed(env.get_template(page.template), variables)
    return number_notes(made)


@contextmanager
def rendering(template: str) -> Iterator[None]:
    """Render the template ``template`` (its output, or its macros called) within the bounds
    of :mod:`modelscape.site.limits`; any error is a :class:`SiteError` naming the template's
    file and line."""
    try:
        with limits.time_limit():
            yield
    except jinja2.TemplateSyntaxError as error:
        where = error.filename or error.name or template
        raise SiteError(f"{where}: line {error.lineno}: {error.message}") from None
    except SecurityError as error:
        raise SiteError(
            f"{_where(error, template)}: refused by the template sandbox: {error}"
        ) from None
    except jinja2.TemplateError as error:
        raise SiteError(f"{_where(error, template)}: {error}") from None
    except limits.RenderTimeoutError as error:
        raise SiteError(
            f"{_where(error, template)}: still rendering after {limits.RENDER_SECONDS:g} s "
            "(a loop that does not end?); the page is refused"
        ) from None
    except limits.PageTooLargeError as error:
        raise SiteError(
            f"{_where(error, template)}: the page grew past {limits.MAX_OUTPUT_CHARS:,} "
            "characters; the page is refused"
        ) from None
    except (RecursionError, OverflowError, MemoryError) as error:
        reason = "it calls itself without end" if isinstance(error, RecursionError) else error
        raise SiteError(f"{_where(error, template)}: {reason}; the page is refused") from None


def _streamed(template: jinja2.Template, variables: dict[str, Any]) -> str:
    """The template's output, counted as it is made: past :data:`limits.MAX_OUTPUT_CHARS`
    the template is stopped where it stands (so the error carries its line)."""
    chunks: list[str] = []
    size = 0
    stream = cast(Generator[str, None, None], template.generate(variables))
    for chunk in stream:
        size += len(chunk)
        if size > limits.MAX_OUTPUT_CHARS:
            stream.throw(limits.PageTooLargeError())
        chunks.append(chunk)
    return "".join(chunks)


def _where(error: BaseException, template: str) -> str:
    """The template file and line an error was raised at (Jinja maps its frames to them)."""
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        if frame.filename.endswith(".j2"):
            return f"{frame.filename}: line {frame.lineno}"
    return template
