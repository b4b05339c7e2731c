"""Pages outside the main report: the notebook frame, a scenario's unchanged prompt text, every
directive of every policy, and numbers JSON cannot hold.
"""

from __future__ import annotations

import json
import math
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from modelscape.pages import ReportPage, ScenarioPage
from modelscape.report import Report
from modelscape.site.render import policy as site_policy
from modelscape.specs import Spec
from tests.pages.conftest import Run
from tests.pages.parsing import parse

MARKUP = '<script>alert("prompt")</script><img src=x onerror=alert("img")><b>bold</b> &amp;'
HOSTILE_SPEC = """name: '"><script>alert("name")</script>'
description: '<img src=x onerror=alert("description")>'
system: '<style>body{{display:none}}</style> MARKUP'
prompt: |-
  MARKUP
  Is {number} an even number? Reply yes or no.
slots:
  number: [2, 3]
vary:
  number: nominal
answer: {pattern: '(yes|no)', choices: [yes, no], correct: {number: {2: yes, 3: no}}}
""".replace("MARKUP", MARKUP)


def _hostile_scenario() -> Any:
    return Spec.parse(HOSTILE_SPEC).scenario()


class _Frame(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def test_the_notebook_frame_escapes_its_title() -> None:
    page = ScenarioPage(_hostile_scenario())
    assert '"><script>' in page.title
    frame = _Frame()
    frame.feed(page._repr_html_())
    # One element, the frame: nothing in the title or the document leaves its attributes.
    assert [tag for tag, _ in frame.tags] == ["iframe"]
    attributes = frame.tags[0][1]
    assert attributes["title"] == page.title
    assert attributes["srcdoc"] == page.html()
    assert attributes["sandbox"] == "allow-scripts"


def test_a_hostile_prompt_is_text_on_the_scenario_page() -> None:
    page = ScenarioPage(_hostile_scenario())
    text = page.html()
    parsed = parse(text)
    assert parsed.handlers == []
    assert len(parsed.executable) == len(page.scripts)  # the page's own scripts, no other
    assert parsed.tags.get("img", 0) == 0
    assert parsed.tags.get("iframe", 0) == 0
    assert parsed.tags.get("b", 0) == 0
    assert len(parsed.styles) == 1  # the page's stylesheet only
    # The unchanged text of every variant is shown, escaped, exactly as it is sent.
    assert text.count(str(escape(MARKUP))) >= 2


def test_a_hostile_prompt_stays_text_in_the_browser(tmp_path: Path, open_page: Any) -> None:
    path = ScenarioPage(_hostile_scenario()).save(tmp_path / "scenario.html")
    opened = open_page(path)
    page = opened.page
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    body = page.locator("main").inner_text()
    assert '<script>alert("prompt")</script><img src=x onerror=alert("img")>' in body
    assert page.locator("main img, main iframe, main b").count() == 0
    assert opened.dialogs == []
    assert opened.errors == []
    assert page.title().startswith('Scenario "><script>alert("name")</script>')


# -- policies: every directive -----------------------------------------------------------------
def _directives(policy: str) -> dict[str, list[str]]:
    directives: dict[str, list[str]] = {}
    for part in policy.split(";"):
        name, *sources = part.split()
        assert name not in directives, f"{name} twice"
        directives[name] = sources
    return directives


def _hash(text: str) -> str:
    import base64
    import hashlib

    return f"'sha256-{base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()}'"


def test_every_directive_of_a_standalone_report_page(run: Run) -> None:
    parsed = parse(ReportPage(run.report, run.results).html())
    directives = _directives(parsed.policy)
    assert set(directives) == {
        "default-src", "script-src", "style-src", "img-src", "base-uri", "form-action",
    }  # fmt: skip
    assert directives["default-src"] == ["'none'"]
    assert sorted(directives["script-src"]) == sorted(
        [*(_hash(s) for s in parsed.executable), "blob:"]
    )
    assert sorted(directives["style-src"]) == sorted(
        [*(_hash(s) for s in parsed.styles), _hash("")]
    )
    assert directives["img-src"] == ["data:"]
    assert directives["base-uri"] == ["'none'"]
    assert directives["form-action"] == ["'none'"]


def test_every_directive_of_a_standalone_scenario_page() -> None:
    parsed = parse(ScenarioPage(_hostile_scenario()).html())
    directives = _directives(parsed.policy)
    assert directives == {
        "default-src": ["'none'"],
        "script-src": [_hash(s) for s in parsed.executable],
        "style-src": [_hash(s) for s in parsed.styles],
        "img-src": ["data:"],
        "base-uri": ["'none'"],
        "form-action": ["'none'"],
    }


@pytest.mark.parametrize("charts", [True, False])
@pytest.mark.parametrize("serve", [True, False])
def test_every_directive_of_a_site_page(charts: bool, serve: bool) -> None:
    directives = _directives(site_policy(["run()"], charts=charts, serve=serve))
    expected = {
        "default-src": ["'none'"],
        "script-src": ["'self'", "file:", _hash("run()")],
        "style-src": ["'self'", "file:", *([_hash("")] if charts else [])],
        "img-src": ["'self'", "file:", "data:"],
        "base-uri": ["'none'"],
        "form-action": ["'none'"],
    }
    if serve:
        expected["connect-src"] = ["'self'"]
    assert directives == expected


def test_every_page_of_a_built_site_carries_the_site_policy(tmp_path: Path) -> None:
    from modelscape.site import build_site
    from tests.site.sitetools import make_content

    content = make_content(tmp_path / "content")
    build_site(content, tmp_path / "site", strict=True)
    pages = sorted((tmp_path / "site").rglob("*.html"))
    assert len(pages) >= 8
    for path in pages:
        parsed = parse(path.read_text(encoding="utf-8"))
        directives = _directives(parsed.policy)
        assert directives["default-src"] == ["'none'"], path
        assert directives["base-uri"] == ["'none'"], path
        assert directives["form-action"] == ["'none'"], path
        # The search page alone may fetch its Pagefind index and compile its WebAssembly,
        # when the build made one (Pagefind installed).
        pagefind = path.name == "search.html" and (tmp_path / "site" / "pagefind").is_dir()
        if pagefind:
            assert directives["connect-src"] == ["'self'"], path
        else:
            assert "connect-src" not in directives, path
        inline = [t for a, t in parsed.scripts if a.get("type") is None and not a.get("src")]
        assert sorted(directives["script-src"]) == sorted(
            ["'self'", "file:", *(["'wasm-unsafe-eval'"] if pagefind else []), *map(_hash, inline)]
        ), path


# -- numbers JSON cannot hold ------------------------------------------------------------------
def _strict_json(text: str) -> Any:
    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in embedded JSON")

    return json.loads(text, parse_constant=refuse)


def test_nan_never_reaches_the_embedded_json(run: Run) -> None:
    data = run.report.model_dump(mode="python")
    for profile in data["profiles"]:
        for transition in profile["baseline"]:
            transition["excess"] = math.nan
            transition["high"] = math.inf
    for card in data["scorecards"]:
        card["accuracy"] = math.nan
    report = Report.model_validate(data)
    page = ReportPage(report, run.results).html()
    parsed = parse(page)
    for attributes, text in parsed.scripts:
        if attributes.get("type") == "application/json" and attributes.get("id") != "ms-plotly":
            _strict_json(text)
    figures = parsed.data("ms-figures")
    profile = figures[0]["figure"]["data"][0]
    assert profile["y"] == [None] * len(profile["y"])
