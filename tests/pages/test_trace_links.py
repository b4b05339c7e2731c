"""The trace reader's links and comparisons in a real browser: filters kept in the address (and
hostile addresses ignored), an excerpt of every repetition's output in a step's comparison, and
a divergence's number opening the two targets' outputs on the same prompts side by side."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pytest

from modelscape.pages import ReportPage
from modelscape.pages.scenario import show_value
from modelscape.results.results import run_of
from tests.pages.conftest import HOSTILE_NAME, Opened, Run

LOCAL = ("file:", "data:", "blob:")
STEP = "sycophant · step on pressure: doubt → disagreement"
EXCERPT = 160


@pytest.fixture(scope="module")
def files(run: Run, hostile_run: Run, tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("links")
    return {
        "report": ReportPage(run.report, run.results).save(folder / "r.html"),
        "hostile": ReportPage(hostile_run.report, hostile_run.results).save(folder / "h.html"),
    }


def _offline(opened: Opened) -> None:
    assert opened.errors == []
    assert [url for url in opened.requests if not url.startswith(LOCAL)] == []
    assert opened.dialogs == []


def _click(page: Any, label: str) -> None:
    button = page.locator(f"button[data-label={json.dumps(label, ensure_ascii=False)}]").first
    button.evaluate("b => { const d = b.closest('details'); if (d) d.open = true; }")
    button.click()
    page.wait_for_selector("dialog[open]")


def _rows(page: Any) -> list[str]:
    return list(
        page.eval_on_selector_all(
            "#outputs-list > li", "rows => rows.map(r => r.dataset.observation)"
        )
    )


def _cases(page: Any) -> list[str]:
    return list(
        page.eval_on_selector_all(
            "#outputs-compare section.compare-case", "s => s.map(x => x.dataset.case)"
        )
    )


def _filters(page: Any) -> dict[str, str]:
    return dict(
        page.evaluate(
            """() => Object.fromEntries(["verdict", "case", "coordinate", "repetition", "search"]
                 .map(name => [name, document.getElementById("outputs-" + name).value]))"""
        )
    )


def _injected(page: Any) -> list[str]:
    return list(
        page.evaluate(
            """() => {
              const bad = [];
              for (const node of document.querySelectorAll("*")) {
                for (const attribute of node.attributes) {
                  if (attribute.name.startsWith("on")) bad.push(node.tagName + attribute.name);
                }
              }
              for (const tag of ["img", "iframe", "b", "a[href^='javascript']"]) {
                for (const node of document.querySelectorAll(tag)) bad.push(tag);
              }
              return bad;
            }"""
        )
    )


# -- filters in the address ----------------------------------------------------------------------
def test_filters_are_written_to_the_address_and_a_copied_link_shows_the_same_rows(
    open_page: Any, files: dict, run: Run
) -> None:
    opened = open_page(files["report"])
    page = opened.page
    _click(page, STEP)
    page.click("#outputs-view-list")
    case = run_of(run.results).cases[0]
    expected = [
        o
        for o in run_of(run.results).observations
        if o.target == "sycophant"
        and o.case == case
        and o.repetition == 2
        and run_of(run.results).variant(o.variant_id).coordinate["pressure"] == "disagreement"
    ]
    # a word of the prompt at one side, and the case, with spaces between
    prompt = run_of(run.results).variant(expected[0].variant_id).prompt.messages[-1].content
    word = next(w for w in prompt.split() if w.isalpha() and len(w) > 5)
    page.select_option("#outputs-case", case)
    page.select_option("#outputs-repetition", "2")
    page.fill("#outputs-search", f"{word}  {case}")
    rows = _rows(page)
    assert 1 <= len(rows) <= 2
    assert {o.id for o in expected} <= set(rows)
    address = str(page.evaluate("location.href"))
    fragment = address.split("#", 1)[1]
    assert "view=list" in fragment
    assert f"case={quote(case, safe='').replace('%20', '+')}" in fragment
    assert "repetition=2" in fragment
    assert f"search={word}" in fragment
    # the same address in another page: the same view, the same filters, the same rows
    other = open_page(files["report"])
    other.page.goto("about:blank")
    other.page.goto(address)
    other.page.wait_for_selector("dialog[open]")
    assert other.page.text_content("#outputs-title") == STEP
    assert other.page.locator("#outputs-list").is_visible()
    assert _filters(other.page) == _filters(page)
    assert _rows(other.page) == rows
    assert other.page.text_content("#outputs-shown") == page.text_content("#outputs-shown")
    # clearing a filter takes it out of the address
    page.select_option("#outputs-case", "")
    assert "case=" not in str(page.evaluate("location.hash"))
    _offline(opened)
    _offline(other)


def test_the_comparison_keeps_its_filters_in_the_address_too(
    open_page: Any, files: dict, run: Run
) -> None:
    opened = open_page(files["report"])
    page = opened.page
    _click(page, STEP)
    page.select_option("#outputs-verdict", "wrong")
    cases = _cases(page)
    assert 0 < len(cases) < len(run_of(run.results).cases)  # only the cases with a wrong answer
    address = str(page.evaluate("location.href"))
    assert "verdict=wrong" in address
    assert "view=" not in address
    other = open_page(files["report"])
    other.page.goto("about:blank")
    other.page.goto(address)
    other.page.wait_for_selector("dialog[open]")
    assert other.page.locator("#outputs-compare").is_visible()
    assert other.page.input_value("#outputs-verdict") == "wrong"
    assert _cases(other.page) == cases
    _offline(other)


@pytest.mark.parametrize(
    "extra",
    [
        "&colour=red&evidence_=1&__proto__=x&constructor=y",  # unknown keys
        "&case=" + "x" * 100_000,  # a huge value
        "&case=" + quote('<img src=x onerror=alert("case")>') + "&coordinate=%3Cb%3Eb%3C%2Fb%3E",
        "&verdict=" + quote("<script>alert(1)</script>") + "&repetition=-1e9",
        "&search=" + quote('"><svg onload=alert(1)>') + "&search=second",
        "&repetition=99999999999999&verdict=right&case=&output=%3Cx%3E",
    ],
    ids=["unknown keys", "huge", "markup", "script", "search", "out of range"],
)
def test_hostile_filter_values_in_an_address_are_ignored(
    open_page: Any, files: dict, run: Run, extra: str
) -> None:
    opened = open_page(files["report"])
    page = opened.page
    index = page.get_attribute(
        f"button[data-label={json.dumps(STEP, ensure_ascii=False)}]", "data-evidence"
    )
    page.goto("about:blank")
    page.goto(files["report"].resolve().as_uri() + f"#evidence={index}&view=list" + extra)
    page.wait_for_selector("dialog[open]")
    assert page.text_content("#outputs-title") == STEP
    shown = _filters(page)
    # a select takes none of these (no option has such a value); the box takes text as text
    assert {k: v for k, v in shown.items() if k != "search"} == dict.fromkeys(
        ("verdict", "case", "coordinate", "repetition"), ""
    )
    if "search=" in extra:
        assert shown["search"] == '"><svg onload=alert(1)>'  # the first of two, as text
        assert _rows(page) == []
    else:
        assert shown["search"] == ""
        assert (
            len(_rows(page)) == 2 * 12 * run_of(run.results).settings.repetitions
        )  # the whole step
    assert _injected(page) == []
    _offline(opened)


# -- excerpts in the comparison ------------------------------------------------------------------
def test_each_side_shows_the_start_of_every_repetitions_output(
    open_page: Any, files: dict, run: Run
) -> None:
    opened = open_page(files["report"])
    page = opened.page
    _click(page, STEP)
    items = page.locator("#outputs-compare ol.compare-answers > li")
    assert items.count() == 2 * 12 * run_of(run.results).settings.repetitions
    by_id = {o.id: o for o in run_of(run.results).observations}
    for n in range(0, items.count(), 7):
        item = items.nth(n)
        observation = by_id[str(item.get_attribute("data-observation"))]
        excerpt = str(item.locator("summary .output-excerpt").text_content())
        words = " ".join(observation.output.text.split())
        if len(observation.output.text) > EXCERPT:
            assert excerpt.endswith(" …")
            assert words.startswith(excerpt[:-2].strip())
        else:
            assert excerpt == words
        # the whole output opens below it
        item.locator("summary").click()
        assert item.locator("pre.output-text").text_content() == observation.output.text
    _offline(opened)


def test_hostile_outputs_in_excerpts_stay_text(
    open_page: Any, files: dict, hostile_run: Run
) -> None:
    opened = open_page(files["hostile"], width=390, height=844)
    page = opened.page
    step = next(p for p in hostile_run.report.profiles if p.target == HOSTILE_NAME).local[0]
    _click(page, f"{HOSTILE_NAME} · step on pressure: {step.before} → {step.after}")
    excerpts = page.eval_on_selector_all(
        "#outputs-compare .output-excerpt", "spans => spans.map(s => s.textContent)"
    )
    written = {
        " ".join(o.output.text.split())
        for o in run_of(hostile_run.results).observations
        if o.target == HOSTILE_NAME
    }
    assert excerpts
    for excerpt in excerpts:
        start = excerpt[:-2] if excerpt.endswith(" …") else excerpt
        assert any(text.startswith(start.strip()) for text in written)
    assert any("<" in excerpt for excerpt in excerpts)  # markup shown as text
    assert _injected(page) == []
    assert page.evaluate("document.getElementById('outputs-dialog').scrollWidth") <= 390
    _offline(opened)


# -- a divergence, side by side by target --------------------------------------------------------
def test_a_divergence_opens_both_targets_outputs_on_the_same_prompts(
    open_page: Any, files: dict, run: Run
) -> None:
    opened = open_page(files["report"])
    page = opened.page
    contrast = next(d for d in run.report.divergences).contrasts[1]
    where = ", ".join(f"{k} = {show_value(v)}" for k, v in contrast.coordinate.items())
    label = f"sycophant against steady at {where}: excess answer change"
    _click(page, label)
    assert page.get_attribute("#outputs-view-compare", "aria-pressed") == "true"
    assert "sycophant against steady on the same prompts" in str(
        page.text_content("#outputs-count")
    )
    sections = page.locator("#outputs-compare section.compare-case")
    assert sections.count() == len(run_of(run.results).cases)
    by_id = {o.id: o for o in run_of(run.results).observations}
    for n in range(sections.count()):
        sides = sections.nth(n).locator(".compare-side")
        assert sides.nth(0).locator("h4").text_content() == "Target: steady"
        assert sides.nth(1).locator("h4").text_content() == "Target: sycophant"
        variants = set()
        for side, target in ((0, "steady"), (1, "sycophant")):
            ids = sides.nth(side).evaluate(
                "s => Array.from(s.querySelectorAll('ol > li')).map(i => i.dataset.observation)"
            )
            observations = [by_id[i] for i in ids]
            assert len(observations) == run_of(run.results).settings.repetitions
            assert {o.target for o in observations} == {target}
            assert [o.repetition for o in observations] == sorted(
                o.repetition for o in observations
            )
            variants |= {o.variant_id for o in observations}
        assert len(variants) == 1  # the very same prompt on both sides
        # one prompt, the same on both sides: folded away, nothing marked
        assert sections.nth(n).locator("ins, del").count() == 0
    # the list holds the same outputs
    page.click("#outputs-view-list")
    assert (
        len(_rows(page))
        == 2 * len(run_of(run.results).cases) * run_of(run.results).settings.repetitions
    )
    _offline(opened)
