"""The page base: safe JSON, the policy's hashes, the bundle, assets by URL, and notebooks."""

from __future__ import annotations

import base64
import hashlib
import json
import zlib
from html.parser import HTMLParser
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from modelscape.pages import ReportPage, ScenarioPage, write_assets
from modelscape.pages.page import PLOTLY_FILE, json_script, plotly_bundle
from modelscape.specs import load_spec
from tests.pages.conftest import Run
from tests.pages.parsing import parse

MAX_REPORT_BYTES = 2_100_000


def _hash(text: str) -> str:
    digest = hashlib.sha256(text.encode()).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


@pytest.mark.parametrize(
    "text",
    ["</script><script>alert(1)</script>", "<!--", "a & b", "\u2028\u2029", "]]>", "</SCRIPT >"],
)
def test_json_script_cannot_close_its_element(text: str) -> None:
    embedded = str(json_script({"text": text}))
    for dangerous in ("<", ">", "&", "\u2028", "\u2029"):
        assert dangerous not in embedded
    assert json.loads(embedded) == {"text": text}


# The escapes as one mapping, applied character by character: what json_script must equal.
_ONE_BY_ONE = {ord(c): f"\\u{ord(c):04x}" for c in "<>&\u2028\u2029"}


@given(
    st.text(st.characters(codec=None, categories=None), max_size=60) | st.text("<>&/!-\u2028\u2029")
)
def test_json_script_escapes_each_character_once(text: str) -> None:
    embedded = str(json_script({"text": text, "list": [text, text[::-1]]}))
    plain = json.dumps(
        {"text": text, "list": [text, text[::-1]]}, ensure_ascii=False, separators=(",", ":")
    )
    assert embedded == plain.translate(_ONE_BY_ONE)
    assert json.loads(embedded)["text"] == text


def test_json_script_turns_non_finite_numbers_into_null() -> None:
    # JSON.parse fails on NaN, so one NaN would cost the page all of its data.
    assert str(json_script(float("nan"))) == "null"
    value = {"x": [1.5, float("inf"), (float("-inf"), "NaN")], "y": {"z": float("nan")}}
    embedded = str(json_script(value))
    assert "NaN" not in embedded.replace('"NaN"', "")
    assert "Infinity" not in embedded
    assert json.loads(embedded) == {"x": [1.5, None, [None, "NaN"]], "y": {"z": None}}


def test_json_script_keeps_text_as_written_beside_non_finite_numbers() -> None:
    # The second dump, made once NaN is replaced, writes text as the first one does: as it is,
    # not as \u escapes that would make the page's data larger and harder to read.
    embedded = str(json_script({"why": "café 日本 ✓", "x": float("nan")}))
    assert embedded == '{"why":"café 日本 ✓","x":null}'


def test_bundle_unpacks_to_the_vendored_plotly() -> None:
    vendored = (resources.files("modelscape.pages") / "assets" / PLOTLY_FILE).read_bytes()
    assert zlib.decompress(base64.b64decode(plotly_bundle())) == vendored
    assert b"plotly.js (cartesian - minified) v4.1.1" in vendored[:200]
    license_text = (
        resources.files("modelscape.pages") / "assets" / "plotly-cartesian.LICENSE"
    ).read_text()
    assert "MIT License" in license_text


def test_policy_allows_exactly_the_inline_code(run: Run) -> None:
    parsed = parse(ReportPage(run.report, run.results).html())
    directives = dict(d.strip().split(" ", 1) for d in parsed.policy.split(";"))
    assert directives["default-src"] == "'none'"
    assert "unsafe-eval" not in parsed.policy
    assert "unsafe-inline" not in parsed.policy
    assert "connect-src" not in directives  # so default-src 'none' applies: no fetch at all
    scripts = directives["script-src"].split()
    assert sorted(scripts) == sorted([*(_hash(s) for s in parsed.executable), "blob:"])
    styles = directives["style-src"].split()
    assert sorted(styles) == sorted([*(_hash(s) for s in parsed.styles), _hash("")])
    assert parsed.urls == []  # nothing is loaded from anywhere


def test_scenario_page_has_no_plotting_library() -> None:
    page = ScenarioPage(load_spec("pressure").scenario()).html()
    parsed = parse(page)
    assert "blob:" not in parsed.policy
    assert 'id="ms-plotly"' not in page
    assert len(page.encode()) < 200_000


def test_report_page_size(run: Run) -> None:
    size = len(ReportPage(run.report, run.results).html().encode())
    assert size <= MAX_REPORT_BYTES


def test_save_writes_utf8(tmp_path: Path, run: Run) -> None:
    target = ReportPage(run.report, run.results).save(tmp_path / "report.html")
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_shared_assets_are_referenced_by_relative_url(tmp_path: Path, run: Run) -> None:
    written = write_assets(tmp_path / "assets")
    assert sorted(p.name for p in written) == sorted(
        ["page.css", PLOTLY_FILE, "plotly-cartesian.LICENSE"]
    )
    page = ReportPage(run.report, run.results).html(assets="../assets/")
    parsed = parse(page)
    assert parsed.urls == ["../assets/page.css", f"../assets/{PLOTLY_FILE}"]
    assert parsed.styles == []
    assert 'id="ms-plotly"' not in page
    assert "'self'" in parsed.policy
    # the data and the page's own scripts stay inline
    assert parsed.data("ms-evidence")["observations"]


class _Frames(HTMLParser):
    """The attributes of every ``<iframe>`` in a document, entities decoded."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.frames: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "iframe":
            self.frames.append(dict(attrs))


def test_notebook_representation_is_a_sandboxed_frame() -> None:
    page = ScenarioPage(load_spec("pressure").scenario())
    shown = page._repr_html_()
    reader = _Frames()
    reader.feed(shown)
    reader.close()
    # Read as a browser reads it: the whole page is the one srcdoc attribute, quotes and all,
    # so nothing of it escapes into the notebook's document as markup.
    (frame,) = reader.frames
    assert '"' in page.html()
    assert frame["srcdoc"] == page.html()
    assert frame["sandbox"] == "allow-scripts"
    assert frame["title"] == page.title
    assert shown.endswith("></iframe>")
