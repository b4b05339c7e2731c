"""Markdown pages: CommonMark (with tables) to HTML, raw HTML off.

Raw HTML in a page is shown as text, never passed through, so a page can be written by anyone
without opening a hole in the site's policy. A page may start with front matter (``title:``,
``description:``) between ``---`` lines; without a title, the first heading is the title.
Relative links to other markdown files (``about.md``) become links to their pages
(``about.html``), so pages link to each other the same way on GitHub and on the site.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token

from modelscape._yaml import describe, load_yaml
from modelscape.site import limits
from modelscape.site.config import SiteError
from modelscape.site.confine import lone_surrogate

__all__ = [
    "EMBED_BLOCK",
    "EMBED_INLINE",
    "MAX_PAGE_BYTES",
    "DamagedTextError",
    "Embed",
    "Markdown",
    "front_matter_damage",
    "hide_comments",
    "parse_markdown",
    "read_page",
    "render_markdown",
]

#: The largest markdown page (or run notes) a site reads.
MAX_PAGE_BYTES = 4 * 2**20

_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)", re.DOTALL)
_TAGS = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class Markdown:
    """A rendered markdown document: title, description, HTML body and plain text."""

    title: str
    description: str
    html: str
    text: str


@cache
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")


def _relink(tokens: list[Token]) -> None:
    """Point relative ``.md`` links at the pages they become."""
    for token in tokens:
        if token.children:
            _relink(token.children)
        if token.type != "link_open":
            continue
        href = str(token.attrGet("href") or "")
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or not parts.path.endswith(".md"):
            continue
        fragment = f"#{parts.fragment}" if parts.fragment else ""
        token.attrSet("href", parts.path[: -len(".md")] + ".html" + fragment)


def _relative(url: str) -> bool:
    parts = urlsplit(url)
    return not (parts.scheme or parts.netloc) and bool(parts.path)


def _unlink(tokens: list[Token]) -> None:
    """Turn relative links and images into their text: for documents shown away from the
    folder their links point into (a run's README.md on its report page)."""
    for token in tokens:
        if not token.children:
            continue
        kept: list[Token] = []
        dropped_links = 0
        for child in token.children:
            if child.type == "link_open" and _relative(str(child.attrGet("href") or "")):
                dropped_links += 1
                continue
            if child.type == "link_close" and dropped_links:
                dropped_links -= 1
                continue
            if child.type == "image" and _relative(str(child.attrGet("src") or "")):
                child = Token("text", "", 0, content=child.content)
            kept.append(child)
        token.children = kept


#: Called for each embedded result: ``(kind, text, line)`` to the HTML that stands for it;
#: kind is ``"block"`` (a fenced ``modelscape`` block) or ``"inline"`` (a code span ``ms:...``).
Embed = Callable[[str, str, int], str]
#: The info string of a fenced block, and the prefix of a code span, that embed a result.
EMBED_BLOCK = "modelscape"
EMBED_INLINE = "ms:"


def _embed(tokens: list[Token], embed: Embed, offset: int) -> None:
    """Replace the embeds of a document by what ``embed`` makes of them (see :data:`Embed`)."""
    for index, token in enumerate(tokens):
        line = offset + (token.map[0] + 1 if token.map else 0)
        if token.type == "fence" and token.info.strip() == EMBED_BLOCK:
            html_token = Token("html_block", "", 0, content=embed("block", token.content, line))
            tokens[index] = html_token
        elif token.type == "inline" and token.children:
            breaks = 0
            for position, child in enumerate(token.children):
                if child.type == "softbreak" or child.type == "hardbreak":
                    breaks += 1
                if child.type == "code_inline" and child.content.startswith(EMBED_INLINE):
                    made = embed("inline", child.content[len(EMBED_INLINE) :], line + breaks)
                    token.children[position] = Token("html_inline", "", 0, content=made)


_COMMENT_OPEN = re.compile(r"^ {0,3}<!--")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def hide_comments(text: str, *, where: str = "") -> str:
    """``text`` with its HTML comments that start a line blanked out, outside code blocks.

    Raw HTML is shown as text on the site, so an author's ``<!-- note to self -->`` would be
    published word for word. Comments are the way to keep a note in a page or a run's notes
    that readers of the site do not see (docs/design/018). Each line becomes an empty line, so
    line numbers in messages still match the file. An unclosed comment is an error naming
    ``where`` and its line, rather than hiding the rest of the page.
    """
    lines = text.split("\n")
    fence: str | None = None
    opened: int | None = None
    for number, line in enumerate(lines):
        if opened is not None:
            if "-->" in line:
                opened = None
            lines[number] = ""
            continue
        marker = _FENCE.match(line)
        if marker is not None:
            symbol = marker.group(1)
            if fence is None:
                fence = symbol
            elif symbol[0] == fence[0] and len(symbol) >= len(fence):
                fence = None
            continue
        if fence is None and _COMMENT_OPEN.match(line):
            if "-->" not in line.split("<!--", 1)[1]:
                opened = number
            lines[number] = ""
    if opened is not None:
        raise SiteError(f"{where}: line {opened + 1}: a comment (<!--) that is never closed (-->)")
    return "\n".join(lines)


def render_markdown(
    text: str, *, local_links: bool = True, embed: Embed | None = None, offset: int = 0
) -> str:
    """Markdown text as HTML (raw HTML escaped, ``.md`` links turned into page links).

    With ``local_links=False`` (a document shown inside another page), relative links and
    images become plain text and headings step down two levels. ``embed`` turns embedded
    results into HTML (see :data:`Embed`); ``offset`` is the number of lines before ``text``
    in its file (front matter), so that the lines given to ``embed`` are the file's.
    """
    parser = _parser()
    # Bounded in time (see modelscape.site.limits), but not the embeds, which read runs.
    with limits.time_limit():
        tokens = parser.parse(text)
    if embed is not None:
        _embed(tokens, embed, offset)
    if local_links:
        _relink(tokens)
    else:
        _unlink(tokens)
        # Shown inside a page's own section (under an h2), its headings step down to match.
        for token in tokens:
            if token.type in ("heading_open", "heading_close"):
                token.tag = f"h{min(int(token.tag[1]) + 2, 6)}"
    with limits.time_limit():
        made = str(parser.renderer.render(tokens, parser.options, {}))
    if len(made) > limits.MAX_OUTPUT_CHARS:
        raise limits.PageTooLargeError(
            f"it makes more than {limits.MAX_OUTPUT_CHARS:,} characters of HTML"
        )
    return made


def read_page(path: Path) -> str:
    """The text of a markdown file: UTF-8, at most :data:`MAX_PAGE_BYTES` bytes."""
    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_PAGE_BYTES + 1)
    except OSError as error:
        raise SiteError(f"{path}: cannot read it: {error.strerror}") from None
    if len(data) > MAX_PAGE_BYTES:
        raise SiteError(f"{path}: larger than {MAX_PAGE_BYTES:,} bytes; split the page")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise SiteError(
            f"{path}: line {line}: not UTF-8 (byte 0x{data[error.start]:02x}); save it as UTF-8"
        ) from None


class DamagedTextError(SiteError):
    """A markdown file holds text that no page can: the build leaves the item out, with a
    warning that names the file (``path``) and the place (``problem``)."""

    def __init__(self, path: str | os.PathLike[str], problem: str) -> None:
        super().__init__(f"{os.fspath(path)}: {problem}")
        self.path = os.fspath(path)
        self.problem = problem


#: What to do about a lone surrogate.
_MEND = "write the character itself, or remove the escape (such as \\ud800) that made it"


def front_matter_damage(text: str) -> str | None:
    """Where a markdown page's front matter holds a lone surrogate (``front matter: title:
    a lone surrogate (U+D800)``), or None, also when it has no front matter or one that does
    not read (which making the page reports)."""
    match = _FRONT.match(text)
    if match is None or "\\" not in match.group(1):  # only an escape makes one
        return None
    try:
        loaded = load_yaml(match.group(1))
    except yaml.YAMLError:
        return None
    damage = lone_surrogate(loaded)
    return None if damage is None else f"front matter: {damage}"


def parse_markdown(path: Path, *, local_links: bool = True, embed: Embed | None = None) -> Markdown:
    """A markdown page with its front matter, title and plain text (for the search index).

    Comments that start a line are left out (:func:`hide_comments`); ``embed`` makes the
    HTML of embedded results (see :data:`Embed`). Front matter holding a lone surrogate is a
    :class:`DamagedTextError` error.
    """
    source = hide_comments(read_page(path), where=str(path))
    meta: dict[str, object] = {}
    offset = 0
    match = _FRONT.match(source)
    if match:
        try:
            loaded = load_yaml(match.group(1)) or {}
        except yaml.YAMLError as error:  # invalid, or over a limit (an alias bomb, say)
            raise SiteError(f"{path}: front matter: {describe(error)}") from None
        if not isinstance(loaded, dict) or set(loaded) - {"title", "description"}:
            raise SiteError(f"{path}: front matter holds title: and description: only")
        for key, value in loaded.items():
            if not isinstance(value, str | int | float) or isinstance(value, bool):
                raise SiteError(f"{path}: front matter: {key}: must be text")
        damage = lone_surrogate(loaded)
        if damage is not None:
            raise DamagedTextError(
                path, f"front matter: {damage}, which UTF-8 cannot hold; {_MEND}"
            )
        meta = loaded
        offset = source[: match.end()].count("\n")
        source = source[match.end() :]
    title = str(meta.get("title") or "")
    if not title:
        heading = re.search(r"^#\s+(.+?)\s*#*\s*$", source, re.MULTILINE)
        title = heading.group(1) if heading else path.stem.replace("-", " ").capitalize()
    try:
        body = render_markdown(source, local_links=local_links, embed=embed, offset=offset)
    except limits.RenderTimeoutError:
        raise SiteError(
            f"{path}: rendering its markdown took longer than {limits.RENDER_SECONDS:g} s; "
            "the page is refused"
        ) from None
    except limits.PageTooLargeError as error:
        raise SiteError(f"{path}: {error}; the page is refused") from None
    plain = html.unescape(" ".join(_TAGS.sub(" ", body).split()))
    return Markdown(title, str(meta.get("description") or ""), body, plain)
