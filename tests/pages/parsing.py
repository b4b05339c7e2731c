"""A small HTML reader for page tests: the policy, the scripts and the data a page carries."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any


@dataclass
class Parsed:
    """What a page holds: its CSP, inline scripts by type, external URLs, and tag counts."""

    policy: str = ""
    scripts: list[tuple[dict[str, str | None], str]] = field(default_factory=list)
    styles: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    tags: dict[str, int] = field(default_factory=dict)
    handlers: list[str] = field(default_factory=list)
    visible: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The page's text outside scripts and styles, whitespace collapsed."""
        return " ".join("".join(self.visible).split())

    def data(self, element_id: str) -> Any:
        """The JSON of ``<script type="application/json" id=element_id>``."""
        for attributes, text in self.scripts:
            if attributes.get("id") == element_id:
                return json.loads(text)
        raise KeyError(element_id)

    @property
    def executable(self) -> list[str]:
        """The inline scripts a browser runs (no type, or a JavaScript type)."""
        return [text for attributes, text in self.scripts if attributes.get("type") is None]


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parsed = Parsed()
        self._open: tuple[str, dict[str, str | None]] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.parsed.tags[tag] = self.parsed.tags.get(tag, 0) + 1
        self.parsed.handlers.extend(name for name, _ in attrs if name.startswith("on"))
        if tag == "meta" and attributes.get("http-equiv") == "Content-Security-Policy":
            self.parsed.policy = attributes.get("content") or ""
        for name in ("src", "href"):
            value = attributes.get(name)
            if value and not value.startswith("#"):
                self.parsed.urls.append(value)
        if tag in ("script", "style"):
            self._open, self._text = (tag, attributes), []

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._text.append(data)
        else:
            self.parsed.visible.append(data)

    def handle_endtag(self, tag: str) -> None:
        if self._open is not None and tag == self._open[0]:
            text = "".join(self._text)
            if tag == "script":
                self.parsed.scripts.append((self._open[1], text))
            else:
                self.parsed.styles.append(text)
            self._open = None


def parse(html: str) -> Parsed:
    """Read a page's policy, scripts, styles, URLs and tags."""
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return reader.parsed


_NOTE_MARK = re.compile(
    r'<sup class="na-mark"><a class="na-link" href="#na-\d+" title="([^"]*)"[^>]*>\d+</a></sup>'
)
_NOTE_LIST = re.compile(r'<ol class="na-notes"[^>]*>.*?</ol>', re.DOTALL)


def inline_notes(html: str) -> str:
    """A page with each numbered n/a note put back beside its marker, as ``n/a (reason)``, and
    the note lists dropped: for tests that read a cell's reason where the cell is."""
    return _NOTE_LIST.sub("", _NOTE_MARK.sub(r" (\1)", html))
